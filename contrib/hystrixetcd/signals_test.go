package hystrixetcd

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// offlineSignals returns the Signals of instance "c" (quorum 2) over a Store, without
// etcd: its member only records what it would write.
func offlineSignals(t *testing.T) (*Signals, *config.Store) {
	t.Helper()
	s := &Signals{
		member: &Member{prefix: "/f/", id: "c", held: map[string]string{}, pending: map[string]*string{},
			wake: make(chan struct{}, 1)},
		prefix: "/f/breakers/", quorum: 2, mem: config.NewMemorySource(),
		open: map[string]map[string]bool{}, forced: map[string]bool{}, mine: map[string]bool{},
		unlisten: func() {}, stop: func() {}, mirror: &mirror{cancel: func() {}},
	}
	store := config.NewStore(s)
	t.Cleanup(store.Close)
	m := metrics.NewRegistry(store, clock.NewFake(time.Unix(0, 0)))
	t.Cleanup(m.Close)
	s.breakers = breaker.NewRegistry(store, m, clock.NewFake(time.Unix(0, 0)), nil)
	t.Cleanup(s.breakers.Close)
	return s, store
}

func TestSignalsForceAKeyOnlyWithAQuorumOfOthers(t *testing.T) {
	s, store := offlineSignals(t)
	props, err := store.Command("Dep/v1", nil)
	require.NoError(t, err)

	s.reported(map[string]string{"Dep/v1/a": "OPEN", "Other/a": "OPEN", "Other/b": "OPEN", "Dep/v1/c": "OPEN"})
	assert.Equal(t, 1, s.Open("Dep/v1"), "its own entry is not counted; the key may hold a '/'")
	assert.False(t, config.CircuitBreakerForceOpen.In(props).Get(), "one other instance is no quorum")
	assert.True(t, s.Forced("Other"))

	s.reported(map[string]string{"Dep/v1/a": "OPEN", "Dep/v1/b": "HALF_OPEN"})
	assert.True(t, config.CircuitBreakerForceOpen.In(props).Get(), "two others open it")
	assert.False(t, s.Forced("Other"), "gone from etcd: the force is lifted")
	assert.Equal(t, []string{"hystrix.command.Dep/v1.circuitBreaker.forceOpen"}, s.Names())

	s.reported(map[string]string{"Dep/v1/b": "OPEN"})
	assert.False(t, config.CircuitBreakerForceOpen.In(props).Get(), "the quorum is gone")
}

func TestSignalsNeverForceAnInstanceWhoseOwnBreakerIsOpen(t *testing.T) {
	s, _ := offlineSignals(t)
	s.reported(map[string]string{"Dep/a": "OPEN", "Dep/b": "OPEN"})
	require.True(t, s.Forced("Dep"))

	s.transition(breaker.Transition{Key: "Dep", From: breaker.Closed, To: breaker.Open})
	assert.Equal(t, "OPEN", *s.member.pending["/f/breakers/Dep/c"], "its transition is published")
	assert.False(t, s.Forced("Dep"), "an open breaker is left to its own trials")

	s.transition(breaker.Transition{Key: "Dep", From: breaker.HalfOpen, To: breaker.Closed})
	assert.Nil(t, s.member.pending["/f/breakers/Dep/c"], "closed: its entry is deleted")
	assert.Contains(t, s.member.pending, "/f/breakers/Dep/c")
	assert.True(t, s.Forced("Dep"), "closed again: the quorum forces it")
}

func TestSignalsWithdrawTheEntryOfAnEvictedBreaker(t *testing.T) {
	s, _ := offlineSignals(t)
	s.breakers.Get("Kept", nil)
	s.transition(breaker.Transition{Key: "Kept", From: breaker.Closed, To: breaker.Open})
	s.transition(breaker.Transition{Key: "Evicted", From: breaker.Closed, To: breaker.Open}) // no breaker now
	s.sweep()
	assert.Nil(t, s.member.pending["/f/breakers/Evicted/c"], "deleted from etcd")
	assert.Equal(t, "OPEN", *s.member.pending["/f/breakers/Kept/c"])
}

// TestSignalsCallbacksMayCallTheSignals: a subscriber of the Signals runs with no lock of
// theirs held, so it may call every method of theirs, Close last; 1,000 forces and
// releases, each calling back, return.
func TestSignalsCallbacksMayCallTheSignals(t *testing.T) {
	s, _ := offlineSignals(t)
	var calls atomic.Int64
	closing := false
	s.Subscribe(func() error {
		calls.Add(1)
		_ = s.Forced("Dep")
		_ = s.Open("Dep")
		_ = s.Names()
		_, _ = s.Get(forceOpenName("Dep"))
		s.Subscribe(func() error { return nil })()
		s.SubscribeNames(func([]string) error { return nil })()
		if closing {
			require.NoError(t, s.Close())
		}
		return nil
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 1000 {
			s.reported(map[string]string{"Dep/a": "OPEN", "Dep/b": "OPEN"})
			s.reported(map[string]string{})
		}
		closing = true
		s.reported(map[string]string{"Dep/a": "OPEN", "Dep/b": "OPEN"})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a subscriber calling the Signals never returned: deadlocked")
	}
	assert.Equal(t, int64(2001+1), calls.Load(), "1,000 forces and releases, then the force Close lifts")
	assert.False(t, s.Forced("Dep"), "closed from the subscriber: no force left")
	assert.Empty(t, s.Names())
}
