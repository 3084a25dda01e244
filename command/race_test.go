package command

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// contest executes commands until each of the wanted outcomes happened at least once (a race
// whose contested outcome never happened proves nothing), at least 100 times and at most
// 20,000. execute runs the i-th contested execution and names its outcome, which must be
// one of wants. It returns the count of each outcome.
func contest(t *testing.T, wants []string, execute func(i int) string) map[string]int {
	t.Helper()
	seen := map[string]int{}
	done := func() bool {
		for _, w := range wants {
			if seen[w] == 0 {
				return false
			}
		}
		return true
	}
	for i := 0; i < 20_000 && (i < 100 || !done()); i++ {
		seen[execute(i)]++
	}
	require.True(t, done(), "not every outcome happened: %v, want each of %v", seen, wants)
	t.Logf("outcomes: %v", seen)
	return seen
}

// together runs a and b at once from two goroutines and waits for both. The i-th call
// gives one of them a head start of a few scheduler yields (a, then b, by turns), so that
// over many calls each side sometimes gets there first.
func together(i int, a, b func()) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	lag := func(mine bool) {
		for range i % 5 {
			if mine {
				runtime.Gosched()
			}
		}
	}
	wg.Go(func() { <-start; lag(i%2 == 0); a() })
	wg.Go(func() { <-start; lag(i%2 == 1); b() })
	close(start)
	wg.Wait()
}

// contested executes a command of s with ctx whose run, once running and watching its
// context, returns "v" at the very moment other runs (see together; fallback "fb"). It
// returns once the run returned (a run that lost still holds its pool slot until then) and
// other is done (so that nothing of this execution acts on the next one).
func contested(i int, ctx context.Context, s Setter, other func()) (*Command[string], string, error) {
	running, finish, returned, helped := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
	cmd := New(s, func(ctx context.Context) (string, error) {
		defer close(returned)
		ctx.Done() // a run that watches its context: the timer is armed
		close(running)
		<-finish
		return "v", nil
	}).WithFallback(fallbackValue("fb"))
	go func() {
		defer close(helped)
		<-running
		together(i, func() { close(finish) }, other)
	}()
	got, err := cmd.Execute(ctx)
	<-helped
	<-returned
	return cmd, got, err
}

// TestTimeoutRaceHasExactlyOneWinner: the run returns at the very moment the timer fires.
// Both outcomes must happen, and each execution must have exactly one: the run's value and
// SUCCESS, or the fallback and TIMEOUT; never both, never neither. Metrics count each once.
func TestTimeoutRaceHasExactlyOneWinner(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := newEnv(t)
			s := e.setter("R", "execution.isolation.strategy", iso, "execution.isolation.thread.timeoutInMilliseconds", "100",
				"circuitBreaker.enabled", "false") // thousands of timeouts must not open it
			s.ThreadPoolProperties = config.ThreadPoolOverrides{"coreSize": "100"} // room for runs ending after the timeout
			seen := contest(t, []string{"success", "timeout"}, func(i int) string {
				cmd, got, err := contested(i, context.Background(), s, func() { e.clk.Advance(100 * time.Millisecond) })
				require.NoError(t, err)
				switch events := cmd.ExecutionEvents(); {
				case got == "v" && assert.Equal(t, ev(metrics.Success), events):
					return "success"
				case got == "fb" && assert.Equal(t, ev(metrics.Timeout, metrics.FallbackSuccess), events):
					return "timeout"
				}
				t.Fatalf("got %q with events %v", got, cmd.ExecutionEvents())
				return ""
			})
			waitIdle(t, e, "R")
			e.clk.Advance(time.Second) // cumulative counts move at the 1 s bucket boundary
			e.rt.Metrics().Flush()
			m := e.rt.Metrics().Command("R")
			assert.Equal(t, int64(seen["success"]), m.CumulativeCount(metrics.Success))
			assert.Equal(t, int64(seen["timeout"]), m.CumulativeCount(metrics.Timeout))
			e.assertNoDeadlines("R")
		})
	}
}

// TestTimeoutWhileAThreadCommandStarts: the deadline passes at any moment of a THREAD
// command's start, before or after its run is taken by the pool. The command times out
// (without its run when the deadline passed while it was queued) or runs; it never hangs
// and never panics. It did both when the timer fired between the timeout stage and the
// chain's suspension in threadPool ("close of nil channel", or a caller never woken).
func TestTimeoutWhileAThreadCommandStarts(t *testing.T) {
	e := newEnv(t)
	s := e.setter("R", "execution.isolation.strategy", "THREAD", "execution.isolation.thread.timeoutInMilliseconds", "100",
		"circuitBreaker.enabled", "false")
	contest(t, []string{"timed out queued", "ran"}, func(i int) string {
		var ran atomic.Bool
		cmd := New(s, func(context.Context) (string, error) {
			ran.Store(true)
			return "v", nil
		}).WithFallback(fallbackValue("fb"))
		var got string
		var err error
		executed := make(chan struct{})
		together(i, func() {
			go func() { // not waited for by together: a caller never woken must fail the test
				defer close(executed)
				got, err = cmd.Execute(context.Background())
			}()
		}, func() { e.clk.Advance(100 * time.Millisecond) })
		select {
		case <-executed:
		case <-time.After(5 * time.Second):
			t.Fatal("Execute never returned")
		}
		require.NoError(t, err)
		events := cmd.ExecutionEvents()
		switch {
		case ran.Load() && got == "v":
			assert.Equal(t, ev(metrics.Success), events)
		case got == "fb":
			assert.Equal(t, ev(metrics.Timeout, metrics.FallbackSuccess), events)
		default:
			t.Fatalf("got %q with events %v", got, events)
		}
		if ran.Load() {
			return "ran"
		}
		return "timed out queued"
	})
	waitIdle(t, e, "R")
}

// TestCallerCancelRaceHasExactlyOneWinner: under THREAD isolation the caller's context ends
// at the very moment the run on the pool returns. Both outcomes must happen, each execution
// exactly one: the value and SUCCESS, or the context's error and CANCELLED.
func TestCallerCancelRaceHasExactlyOneWinner(t *testing.T) {
	e := newEnv(t)
	s := e.setter("R", "execution.isolation.strategy", "THREAD")
	s.ThreadPoolProperties = config.ThreadPoolOverrides{"coreSize": "100"} // room for runs ending after their caller left
	seen := contest(t, []string{"success", "cancelled"}, func(i int) string {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cmd, got, err := contested(i, ctx, s, cancel)
		switch events := cmd.ExecutionEvents(); {
		case err == nil && got == "v" && assert.Equal(t, ev(metrics.Success), events):
			return "success"
		case assert.ErrorIs(t, err, context.Canceled) && assert.Equal(t, ev(metrics.Cancelled), events):
			return "cancelled"
		}
		t.Fatalf("got %q, %v with events %v", got, err, cmd.ExecutionEvents())
		return ""
	})
	waitIdle(t, e, "R")
	e.clk.Advance(time.Second)
	e.rt.Metrics().Flush()
	m := e.rt.Metrics().Command("R")
	assert.Equal(t, int64(seen["success"]), m.CumulativeCount(metrics.Success))
	assert.Equal(t, int64(seen["cancelled"]), m.CumulativeCount(metrics.Cancelled))
}

// waitIdle waits until the key holds nothing (an abandoned pool task gives its slot back
// when it ends), then checks it with assertIdle.
func waitIdle(t *testing.T, e *env, key string) {
	t.Helper()
	ks := e.key(key)
	require.Eventually(t, func() bool {
		b := ks.pool.Load()
		return ks.metrics.CurrentConcurrency() == 0 && ks.execPermits() == 0 && (b == nil || b.m.CurrentActive() == 0)
	}, 5*time.Second, time.Millisecond)
	e.assertIdle(key)
}
