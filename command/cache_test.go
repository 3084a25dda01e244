package command

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func requestContext(t *testing.T) context.Context {
	ctx, rc := cache.NewRequestContext(context.Background())
	t.Cleanup(rc.Close)
	return ctx
}

func counted(n *atomic.Int32, run func(context.Context) (string, error)) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		n.Add(1)
		return run(ctx)
	}
}

func TestRequestCacheReplays(t *testing.T) {
	tests := []struct {
		name  string
		props []string
		run   func(e *env) func(context.Context) (string, error)
		want  []metrics.EventType
		ft    FailureType // 0: success
		runs  int32       // times run is called: once by the original, never by the hit
	}{
		{"value", nil, func(*env) func(context.Context) (string, error) { return value("v") },
			ev(metrics.Success), 0, 1},
		{"error", nil, func(*env) func(context.Context) (string, error) { return failing(errBoom) },
			ev(metrics.Failure, metrics.FallbackMissing), CommandException, 1},
		{"timeout", []string{"execution.isolation.thread.timeoutInMilliseconds", "10"},
			func(e *env) func(context.Context) (string, error) { return e.sleeper(20*time.Millisecond, "late") },
			ev(metrics.Timeout, metrics.FallbackMissing), Timeout, 1},
		{"rejection", []string{"execution.isolation.semaphore.maxConcurrentRequests", "0"},
			func(*env) func(context.Context) (string, error) { return value("v") },
			ev(metrics.SemaphoreRejected, metrics.FallbackMissing), RejectedSemaphoreExecution, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := requestContext(t)
			s := e.setter("R", tt.props...)
			var runs atomic.Int32
			first := New(s, counted(&runs, tt.run(e))).WithCacheKey("k")
			v1, err1 := first.Execute(ctx)
			e.rec.Reset()
			second := New(s, counted(&runs, tt.run(e))).WithCacheKey("k")
			v2, err2 := second.Execute(ctx)

			assert.Equal(t, v1, v2)
			assert.Equal(t, err1, err2, "the very same outcome is replayed")
			if tt.ft == 0 {
				require.NoError(t, err2)
			} else {
				runtimeErr(t, err2, tt.ft)
			}
			assert.Equal(t, tt.runs, runs.Load())
			assert.Equal(t, tt.want, first.ExecutionEvents())
			assert.Equal(t, append(tt.want, metrics.ResponseFromCache), second.ExecutionEvents())
			assert.True(t, second.IsResponseFromCache())
			assert.False(t, first.IsResponseFromCache())
			assert.Equal(t, []string{"OnCacheHit"}, e.rec.Names(), "a cache hit fires only onCacheHit")
			e.assertIdle("R")
		})
	}
}

func TestRequestCacheSharesConcurrentDuplicates(t *testing.T) {
	e := newEnv(t)
	ctx := requestContext(t)
	s := e.setter("R")
	var runs atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	first := New(s, counted(&runs, holdRun(started, release))).WithCacheKey("k")
	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		_, _ = first.Execute(ctx)
	}()
	<-started
	second := New(s, counted(&runs, value("other"))).WithCacheKey("k")
	secondDone := make(chan string)
	go func() {
		v, _ := second.Execute(ctx)
		secondDone <- v
	}()
	select {
	case <-secondDone:
		t.Fatal("the duplicate did not wait for the execution in flight")
	case <-time.After(10 * time.Millisecond):
	}
	close(release)
	<-firstDone
	assert.Equal(t, "held", <-secondDone)
	assert.EqualValues(t, 1, runs.Load())
	assert.Equal(t, ev(metrics.Success, metrics.ResponseFromCache), second.ExecutionEvents())
	other := New(s, value("other")).WithCacheKey("other key")
	got, err := other.Execute(ctx)
	require.NoError(t, err)
	assert.Equal(t, "other", got, "another cache key executes")
	e.assertIdle("R")
}

func TestRequestCacheDisabled(t *testing.T) {
	e := newEnv(t)
	ctx := requestContext(t)
	s := e.setter("R", "requestCache.enabled", "false")
	var runs atomic.Int32
	for range 2 {
		cmd := New(s, counted(&runs, value("v"))).WithCacheKey("k")
		_, err := cmd.Execute(ctx)
		require.NoError(t, err)
		assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())
	}
	assert.EqualValues(t, 2, runs.Load())
	e.assertIdle("R")
}

func TestRequestCacheWithoutRequestContext(t *testing.T) {
	e := newEnv(t)
	cmd := New(e.setter("R"), value("v")).WithCacheKey("k")
	_, err := cmd.Execute(context.Background())
	runtimeErr(t, err, BadRequestException)
	assert.ErrorIs(t, err, ErrNoRequestContext)
	assert.Empty(t, cmd.ExecutionEvents())
	e.assertIdle("R")
}

func TestRequestLog(t *testing.T) {
	e := newEnv(t)
	ctx, rc := cache.NewRequestContext(context.Background())
	defer rc.Close()
	_, err := New(e.setter("L"), value("v")).Execute(ctx)
	require.NoError(t, err)
	_, _ = New(e.setter("L"), failing(errBoom)).WithFallback(fallbackValue("fb")).Execute(ctx)
	_, err = New(e.setter("Off", "requestLog.enabled", "false"), value("v")).Execute(ctx)
	require.NoError(t, err)
	entries := rc.Log().Entries()
	require.Len(t, entries, 2)
	assert.Equal(t, "L", entries[0].CommandKey())
	assert.Equal(t, []cache.LogEvent{{Name: "SUCCESS", Count: 1}}, entries[0].LogEvents())
	assert.Equal(t, []cache.LogEvent{{Name: "FAILURE", Count: 1}, {Name: "FALLBACK_SUCCESS", Count: 1}},
		entries[1].LogEvents())
	assert.Zero(t, entries[0].ExecutionTime(), "the fake clock did not move")
	assert.Equal(t, "L[SUCCESS][0ms], L[FAILURE, FALLBACK_SUCCESS][0ms]", rc.Log().String())
	e.assertIdle("L")
	e.assertIdle("Off")
}

func TestRequestCacheEdgeCases(t *testing.T) {
	t.Run("cache key shared by another result type", func(t *testing.T) {
		e := newEnv(t)
		ctx := requestContext(t)
		_, err := New(e.setter("R"), value("v")).WithCacheKey("k").Execute(ctx)
		require.NoError(t, err)
		_, err = New(e.setter("R"), func(context.Context) (int, error) { return 1, nil }).WithCacheKey("k").Execute(ctx)
		runtimeErr(t, err, BadRequestException)
		e.assertIdle("R")
	})
	t.Run("duplicate leaves before the original completes", func(t *testing.T) {
		e := newEnv(t)
		ctx := requestContext(t)
		started, release := make(chan struct{}), make(chan struct{})
		first := New(e.setter("R"), holdRun(started, release)).WithCacheKey("k")
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = first.Execute(ctx)
		}()
		<-started
		dupCtx, cancel := context.WithCancel(ctx)
		cancel()
		dup := New(e.setter("R"), value("never")).WithCacheKey("k")
		_, err := dup.Execute(dupCtx)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, ev(metrics.Cancelled), dup.ExecutionEvents())
		close(release)
		<-done
		assert.Equal(t, ev(metrics.Success), first.ExecutionEvents())
		e.assertIdle("R")
	})
}
