package command

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rxhystrix/rxhystrix/config"
)

// Under SEMAPHORE isolation the caller is the run: when the deadline's timer wins the race,
// the caller finds out from the phase once run returns, and must read nothing the timer's
// goroutine wrote after claiming it (the soak found the execution latency written there:
// a data race under go test -race).
func TestTimerWinsWithoutWritingWhatTheCallerReads(t *testing.T) {
	rt := NewRuntime() // the real clock: the deadline fires on a timer goroutine
	defer rt.Close()
	const timeout = 10 * time.Millisecond
	cmd := New(Setter{Runtime: rt, CommandKey: "Late", Properties: config.Set(
		config.ExecutionIsolationStrategy.Of(config.Semaphore), config.ExecutionTimeout.Of(timeout)),
	}, func(ctx context.Context) (string, error) {
		_ = ctx.Done()          // the deadline joins the key's queue: its timer will fire
		time.Sleep(3 * timeout) // and the run returns long after, ignoring ctx
		return "late", nil
	})
	_, err := cmd.Execute(context.Background())
	assert.ErrorIs(t, err, ErrTimeout)
	assert.Equal(t, timeout, cmd.ExecutionLatency(), "a timed-out execution's latency is the timeout")
}
