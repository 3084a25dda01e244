package command

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/adaptivelimit"
	"github.com/rxhystrix/rxhystrix/internal/hooktest"
	"github.com/rxhystrix/rxhystrix/internal/syncbuf"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// withRandom sets the random source of the stages that pick at random, fault injection and
// graded throttling (default math/rand/v2's): f must be safe for concurrent use. Tests
// give a seeded one.
func withRandom(f func() uint64) Option { return func(r *Runtime) { r.random = f } }

var epoch = time.Unix(1_000_000, 0)

// env is a fresh runtime on a fake clock with a recording hook and a dynamic config source.
type env struct {
	t   *testing.T
	rt  *Runtime
	clk *clock.Fake
	src *config.MemorySource
	rec *hooktest.RecordingHook
	log *syncbuf.Buffer // what the runtime logged
}

func newEnv(t *testing.T) *env {
	t.Helper()
	clk := clock.NewFake(epoch)
	src := config.NewMemorySource()
	store := config.NewStore(src)
	reg := hooks.NewRegistry()
	rec := &hooktest.RecordingHook{}
	reg.SetExecutionHook(rec)
	log := &syncbuf.Buffer{}
	rt := NewRuntime(WithClock(clk), WithConfig(store), WithHooks(reg),
		WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	t.Cleanup(func() {
		rt.Metrics().Flush() // let the stream settle before it is stopped
		rt.Close()
		store.Close()
	})
	return &env{t: t, rt: rt, clk: clk, src: src, rec: rec, log: log}
}

// setter returns a Setter for key with properties given as name, value pairs; the
// default isolation of these tests is SEMAPHORE unless the pairs say otherwise.
func (e *env) setter(key string, kv ...string) Setter {
	props := config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}
	for i := 0; i+1 < len(kv); i += 2 {
		props[kv[i]] = kv[i+1]
	}
	return Setter{Runtime: e.rt, CommandKey: key, GroupKey: "G", Properties: props}
}

// key returns the resolved state of a command key.
func (e *env) key(key string) *keyState {
	ks := e.rt.lookup(key)
	require.NotNil(e.t, ks, "key %s never used", key)
	return ks
}

// assertIdle checks that everything the key holds was given back.
func (e *env) assertIdle(key string) {
	e.t.Helper()
	ks := e.key(key)
	assert.Zero(e.t, ks.metrics.CurrentConcurrency(), "concurrency of %s", key)
	assert.Zero(e.t, ks.execPermits(), "execution semaphore of %s", key)
	assert.Zero(e.t, ks.fallbackSem.InUse(), "fallback semaphore of %s", key)
	if b := ks.pool.Load(); b != nil {
		assert.Zero(e.t, b.m.CurrentActive(), "active threads of %s", key)
	}
	if l := ks.adaptiveLimiter(); l != nil {
		assert.Zero(e.t, l.Inflight(), "adaptive permits of %s", key)
		assert.Zero(e.t, l.Queued(), "adaptive queue of %s", key)
	}
}

// adaptiveLimiter returns the limiter of the key's chain (ADAPTIVE isolation), nil when it
// has none.
func (ks *keyState) adaptiveLimiter() *adaptivelimit.Limiter {
	kc := ks.chain.Load()
	if kc == nil {
		return nil
	}
	for l := kc.chain; l != nil; l = l.next {
		switch g := l.step.(type) {
		case adaptiveLimit:
			return g.l
		case adaptiveQueued:
			return g.l
		}
	}
	return nil
}

// assertNoDeadlines checks that no execution of key waits in its deadline queue.
func (e *env) assertNoDeadlines(key string) {
	e.t.Helper()
	qs := e.key(key).deadlines.stripes.Load()
	if qs == nil {
		return
	}
	for i := range *qs {
		q := &(*qs)[i]
		q.mu.Lock()
		assert.Nil(e.t, q.head, "deadline queue %d of %s", i, key)
		q.mu.Unlock()
	}
}

func ev(es ...metrics.EventType) []metrics.EventType { return es }

func value(v string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return v, nil }
}

func failing(err error) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return "", err }
}

func fallbackValue(v string) func(context.Context, error) (string, error) {
	return func(context.Context, error) (string, error) { return v, nil }
}

func fallbackFailing(err error) func(context.Context, error) (string, error) {
	return func(context.Context, error) (string, error) { return "", err }
}

// sleeper returns a run that advances the fake clock by d (the run "takes" d) and then
// returns v.
func (e *env) sleeper(d time.Duration, v string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		e.clk.Advance(d)
		return v, nil
	}
}

// blockUntilDone returns a run that waits for its context and returns the context's error.
func blockUntilDone(started chan<- struct{}) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		if started != nil {
			close(started)
		}
		<-ctx.Done()
		return "", ctx.Err()
	}
}

// runtimeErr asserts err is a *Error of type ft and returns it.
func runtimeErr(t *testing.T, err error, ft FailureType) *Error {
	t.Helper()
	var re *Error
	require.True(t, errors.As(err, &re), "want *Error, got %T %v", err, err)
	assert.Equal(t, ft, re.Type, "failure type")
	return re
}
