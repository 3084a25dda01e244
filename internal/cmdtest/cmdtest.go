// Package cmdtest gives the tests of the net/http and gRPC integrations a fresh
// command.Runtime on a fake clock, with a breaker that trips quickly, and the steps that
// move its time and read its metrics.
package cmdtest

import (
	"testing"
	"time"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Env is a runtime on a fake clock, closed when the test ends. The clock starts at the
// real time, because the run context's deadline (start + timeout on this clock) reaches
// net.Dialer and becomes a gRPC call's deadline.
type Env struct {
	RT    *command.Runtime
	Clock *clock.Fake
}

// New returns a fresh Env for t.
func New(t testing.TB) *Env {
	t.Helper()
	clk := clock.NewFake(time.Now())
	rt := command.NewRuntime(command.WithClock(clk))
	t.Cleanup(func() {
		rt.Metrics().Flush()
		rt.Close()
	})
	return &Env{RT: rt, Clock: clk}
}

// Setter returns a Setter of key on the runtime whose breaker trips on 3 requests (health
// snapshots every 100 ms) and sleeps 1 s, with a 60 s timeout, plus the given property
// pairs.
func (e *Env) Setter(key string, kv ...string) command.Setter {
	props := config.Overrides{
		"circuitBreaker.requestVolumeThreshold":            "3",
		"circuitBreaker.sleepWindowInMilliseconds":         "1000",
		"metrics.healthSnapshot.intervalInMilliseconds":    "100",
		"execution.isolation.thread.timeoutInMilliseconds": "60000",
	}
	for i := 0; i+1 < len(kv); i += 2 {
		props[kv[i]] = kv[i+1]
	}
	return command.Setter{Runtime: e.RT, CommandKey: key, Properties: props}
}

// Tick lets the metrics fold what was published, moves the clock by d and lets the
// health snapshots of the closed buckets reach the breakers.
func (e *Env) Tick(d time.Duration) {
	e.RT.Metrics().Flush()
	e.Clock.Advance(d)
	e.RT.Metrics().Flush()
}

// Settled waits until key has no execution in flight: a stream's command, for one, ends on
// a goroutine of its own after the caller read the stream's final status.
func (e *Env) Settled(t testing.TB, key string) {
	t.Helper()
	m := e.RT.Metrics().Command(key)
	for deadline := time.Now().Add(5 * time.Second); m.CurrentConcurrency() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d executions still in flight", key, m.CurrentConcurrency())
		}
	}
}

// Await waits until key has nothing in flight and has counted at least n events ev: an
// execution gives its permit back just before its outcome is counted, so counts read as
// soon as Settled returns may miss the last outcome. Each look moves the clock 1 s (Count).
func (e *Env) Await(t testing.TB, key string, ev metrics.EventType, n int64) {
	t.Helper()
	e.Settled(t, key)
	for deadline := time.Now().Add(5 * time.Second); e.Count(key, ev) < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d %v counted, want %d", key, e.Count(key, ev), ev, n)
		}
	}
}

// Count returns the cumulative count of ev for key, after moving the clock past the
// current rolling-stats bucket (1 s), which cumulative counts cover up to.
func (e *Env) Count(key string, ev metrics.EventType) int64 {
	e.Tick(time.Second)
	return e.RT.Metrics().Command(key).CumulativeCount(ev)
}
