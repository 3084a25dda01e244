package breaker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func tr(reason string) Transition {
	return Transition{Key: "k", From: Closed, To: Open, Reason: reason}
}

func TestNotifierDeliversInOrderWithoutBlockingTheEmitter(t *testing.T) {
	var n notifier
	got := make(chan Transition, 100)
	gate := make(chan struct{})
	cancel := n.subscribe(func(t Transition) {
		<-gate
		got <- t
	})
	defer cancel()

	for i := range 50 {
		n.emit(tr(string(rune('a' + i%26))))
	}
	// All 50 emits returned while the listener is blocked on gate.
	close(gate)
	for i := range 50 {
		select {
		case t1 := <-got:
			assert.Equal(t, string(rune('a'+i%26)), t1.Reason)
		case <-time.After(5 * time.Second):
			t.Fatal("transition not delivered")
		}
	}
}

func TestNotifierCancelAndPanickingListener(t *testing.T) {
	var n notifier
	n.emit(tr("nobody listens")) // must not start a goroutine or queue anything
	n.mu.Lock()
	assert.False(t, n.running)
	assert.Empty(t, n.queue)
	n.mu.Unlock()

	got := make(chan string, 10)
	cancelPanicky := n.subscribe(func(Transition) { panic("boom") })
	defer cancelPanicky()
	cancel := n.subscribe(func(t Transition) { got <- t.Reason })
	n.emit(tr("one"))
	require.Equal(t, "one", <-got, "a panicking listener does not stop delivery")

	cancel()
	cancel() // idempotent
	second := make(chan string, 10)
	cancelSecond := n.subscribe(func(t Transition) { second <- t.Reason })
	defer cancelSecond()
	n.emit(tr("two"))
	require.Equal(t, "two", <-second)
	assert.Empty(t, got, "cancelled listener is not called")
}
