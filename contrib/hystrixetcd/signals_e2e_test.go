//go:build e2e

package hystrixetcd

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

const fleetPrefix = "/e2e/fleet/"

// instance is one member of a fleet in this process: its own etcd client, Store,
// Runtime, Member and Signals, and a dependency that fails while failing is set.
type instance struct {
	id      string
	client  *clientv3.Client
	rt      *command.Runtime
	member  *Member
	signals *Signals
	failing atomic.Bool
}

// newInstance starts an instance whose Signals force a key open when quorum others have
// it open; everything it made is closed when the test ends.
func (e *etcd) newInstance(id string, quorum int) *instance {
	e.t.Helper()
	in := &instance{id: id, client: e.newClient(e.client)}
	store := config.NewStore()
	in.rt = command.NewRuntime(command.WithConfig(store))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var err error
	in.member, err = Join(ctx, in.client, fleetPrefix, id, 2*time.Second)
	require.NoError(e.t, err)
	in.signals, err = NewSignals(ctx, in.member, in.rt.Breakers(), quorum)
	require.NoError(e.t, err)
	remove, err := store.AddSource(in.signals)
	require.NoError(e.t, err)
	e.t.Cleanup(func() {
		remove()
		in.signals.Close()
		in.member.Close()
		in.rt.Close()
		store.Close()
		in.client.Close()
	})
	_ = in.call() // the key's properties come from its Setter (short-circuited if forced at start)
	return in
}

// breaker returns the instance's breaker of Dep.
func (in *instance) breaker() breaker.CircuitBreaker {
	b, _ := in.rt.Breakers().Lookup("Dep")
	return b
}

// call runs the command Dep once: it fails while the instance's dependency fails, opens
// the breaker at the 5th failure and stays open for a minute.
func (in *instance) call() error {
	_, err := command.New(command.Setter{Runtime: in.rt, CommandKey: "Dep",
		Properties: config.Set(config.ExecutionIsolationStrategy.Of(config.Semaphore),
			config.CircuitBreakerRequestVolumeThreshold.Of(5),
			config.CircuitBreakerEvaluateOnFailure.Of(true),
			config.CircuitBreakerSleepWindow.Of(time.Minute))},
		func(context.Context) (string, error) {
			if in.failing.Load() {
				return "", errors.New("dependency down")
			}
			return "ok", nil
		}).Execute(context.Background())
	return err
}

// trip makes the instance's dependency fail and calls it until its own breaker opens.
func (in *instance) trip(t *testing.T) {
	t.Helper()
	in.failing.Store(true)
	for i := 0; in.breaker().State() != breaker.Open; i++ {
		require.Less(t, i, 100, "%s: the breaker opens at the 5th failure", in.id)
		_ = in.call()
	}
}

// recover makes the dependency succeed again and closes the breaker (operator reset).
func (in *instance) recover() {
	in.failing.Store(false)
	in.breaker().Reset()
}

// waitOpen waits until in sees n other instances report Dep open and returns when.
func (in *instance) waitOpen(t *testing.T, n int) time.Time {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); in.signals.Open("Dep") != n; {
		require.True(t, time.Now().Before(deadline), "%s: %d instances report Dep open, want %d", in.id, in.signals.Open("Dep"), n)
		time.Sleep(time.Millisecond)
	}
	return time.Now()
}

// TestSignalsTransitionReachesTheOthers: 50 times, A's breaker opens and is reset; the
// time from each transition to B seeing it is within 200 ms at the 99th percentile.
func TestSignalsTransitionReachesTheOthers(t *testing.T) {
	e := newEtcd(t)
	a, b := e.newInstance("a", 2), e.newInstance("b", 2)
	at := make(chan time.Time, 1)
	defer a.rt.Breakers().OnStateChange(func(tr breaker.Transition) { at <- tr.At })()
	var lags []time.Duration
	for range 50 {
		a.trip(t)
		lags = append(lags, b.waitOpen(t, 1).Sub(<-at))
		a.recover()
		lags = append(lags, b.waitOpen(t, 0).Sub(<-at))
	}
	slices.Sort(lags)
	p50, p99 := lags[len(lags)/2], lags[len(lags)*99/100]
	t.Logf("transition to another instance over %d transitions: p50 %v, p99 %v, max %v", len(lags), p50, p99, lags[len(lags)-1])
	assert.LessOrEqual(t, p99, 200*time.Millisecond)
}

// TestSignalsQuorum: with a quorum of 2, one failing instance opens only its own
// breaker; a second one opens the key on the third, whose own breaker stays closed;
// when one recovers the third runs again; a fourth started meanwhile learns the states.
func TestSignalsQuorum(t *testing.T) {
	e := newEtcd(t)
	a, b, c := e.newInstance("a", 2), e.newInstance("b", 2), e.newInstance("c", 2)

	a.trip(t)
	b.waitOpen(t, 1)
	c.waitOpen(t, 1)
	time.Sleep(300 * time.Millisecond) // beyond a transition's 200 ms
	for _, in := range []*instance{b, c} {
		assert.False(t, in.signals.Forced("Dep"), in.id)
		assert.NoError(t, in.call(), "%s: one failing instance never opens the others", in.id)
	}

	b.trip(t)
	c.waitOpen(t, 2)
	require.Eventually(t, func() bool { return errors.Is(c.call(), command.ErrShortCircuited) },
		200*time.Millisecond, time.Millisecond, "two of three open the third")
	assert.Equal(t, breaker.Closed, c.breaker().State(), "c's own breaker decides on its own counts")
	assert.False(t, a.signals.Forced("Dep"), "an instance whose own breaker is open is never forced: it runs its trials")

	d := e.newInstance("d", 2)
	assert.Equal(t, 2, d.signals.Open("Dep"), "a new instance learns the states at start")
	assert.ErrorIs(t, d.call(), command.ErrShortCircuited)

	a.recover()
	c.waitOpen(t, 1)
	for _, in := range []*instance{c, d} {
		require.Eventually(t, func() bool { return in.call() == nil }, 200*time.Millisecond, time.Millisecond,
			"%s: the force goes with the quorum", in.id)
	}
}

// TestSignalsDeadInstanceLeavesTheQuorum: an instance that stops without closing (its
// client gone, as in a crash) leaves the quorum when its lease expires.
func TestSignalsDeadInstanceLeavesTheQuorum(t *testing.T) {
	e := newEtcd(t)
	a, b, c := e.newInstance("a", 2), e.newInstance("b", 2), e.newInstance("c", 2)
	a.trip(t)
	b.trip(t)
	c.waitOpen(t, 2)
	require.True(t, c.signals.Forced("Dep"))
	died := time.Now()
	require.NoError(t, b.client.Close()) // keep-alives stop; the revoke on Close fails
	c.waitOpen(t, 1)
	t.Logf("dead instance left the quorum %v after it died (lease TTL 2s)", time.Since(died))
	assert.False(t, c.signals.Forced("Dep"))
	assert.NoError(t, c.call())
}

// TestSignalsSurviveAnEtcdRestart: etcd stops for longer than the lease TTL while two
// instances have the key open; a transition made meanwhile is published when etcd is
// back, and the third instance follows.
func TestSignalsSurviveAnEtcdRestart(t *testing.T) {
	e := newEtcd(t)
	a, b, c := e.newInstance("a", 2), e.newInstance("b", 2), e.newInstance("c", 2)
	a.trip(t)
	b.trip(t)
	c.waitOpen(t, 2)
	require.True(t, c.signals.Forced("Dep"))

	e.stop()
	time.Sleep(3 * time.Second) // longer than the 2 s TTL
	assert.True(t, c.signals.Forced("Dep"), "the last states stay while etcd is gone")
	a.recover() // published once etcd is back
	e.restart(e.client)
	c.waitOpen(t, 1)
	require.Eventually(t, func() bool { return c.call() == nil }, time.Second, time.Millisecond)
	a.trip(t)
	c.waitOpen(t, 2)
	assert.True(t, c.signals.Forced("Dep"), "and the watch goes on")
}
