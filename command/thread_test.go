package command

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/isolation"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// threadSetter is a THREAD-isolated setter with a pool of coreSize threads and the given
// thread-pool properties.
func (e *env) threadSetter(key string, pool config.ThreadPoolOverrides, kv ...string) Setter {
	s := e.setter(key, append([]string{"execution.isolation.strategy", "THREAD"}, kv...)...)
	s.ThreadPoolKey = key + "Pool"
	s.ThreadPoolProperties = pool
	return s
}

// waitPoolIdle waits until the key's pool runs nothing and the key has no execution in
// flight: a worker gives both back after its caller has the value.
func (e *env) waitPoolIdle(key string) {
	e.t.Helper()
	ks := e.key(key)
	p, _, err := ks.threadPool()
	require.NoError(e.t, err)
	require.Eventually(e.t, func() bool {
		b := ks.pool.Load()
		return p.Gauges().ActiveCount == 0 && b.m.CurrentActive() == 0 && ks.metrics.CurrentConcurrency() == 0
	}, 5*time.Second, time.Millisecond)
}

func TestThreadSuccess(t *testing.T) {
	e := newEnv(t)
	cmd := New(e.threadSetter("T", nil), value("v"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())
	assert.True(t, cmd.IsExecutedInThread())
	assert.Equal(t, "TPool", cmd.ThreadPoolKey())
	assert.Equal(t, []string{"OnStart", "OnThreadStart", "OnExecutionStart", "OnExecutionEmit", "OnEmit",
		"OnExecutionSuccess", "OnThreadComplete", "OnSuccess"}, e.rec.Names())
	e.waitPoolIdle("T")
	e.assertIdle("T")
}

func TestThreadFailureHooks(t *testing.T) {
	t.Run("with fallback", func(t *testing.T) {
		e := newEnv(t)
		cmd := New(e.threadSetter("T", nil), failing(errBoom)).WithFallback(fallbackValue("fb"))
		got, err := cmd.Execute(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "fb", got)
		assert.Equal(t, ev(metrics.Failure, metrics.FallbackSuccess), cmd.ExecutionEvents())
		assert.Equal(t, []string{"OnStart", "OnThreadStart", "OnExecutionStart", "OnExecutionError",
			"OnThreadComplete", "OnFallbackStart", "OnFallbackEmit", "OnEmit", "OnFallbackSuccess", "OnSuccess"},
			e.rec.Names())
		e.assertIdle("T")
	})
	t.Run("without fallback", func(t *testing.T) {
		e := newEnv(t)
		cmd := New(e.threadSetter("T", nil), failing(errBoom))
		_, err := cmd.Execute(context.Background())
		runtimeErr(t, err, CommandException)
		assert.Equal(t, ev(metrics.Failure, metrics.FallbackMissing), cmd.ExecutionEvents())
		assert.Equal(t, []string{"OnStart", "OnThreadStart", "OnExecutionStart", "OnExecutionError",
			"OnThreadComplete", "OnError"}, e.rec.Names())
		calls := e.rec.Calls()
		assert.Equal(t, err, calls[len(calls)-1].Err, "onError gets the runtime error")
		e.assertIdle("T")
	})
}

// timeoutThroughPool runs a THREAD command whose run waits for its context, advances the
// fake clock past the timeout once the run started and returns the outcome got through
// front.
func timeoutThroughPool(t *testing.T, e *env, cmd *Command[string], started <-chan struct{},
	front func(*Command[string]) (string, error)) (string, error) {
	t.Helper()
	type outcome struct {
		v   string
		err error
	}
	out := make(chan outcome, 1)
	go func() {
		v, err := front(cmd)
		out <- outcome{v, err}
	}()
	<-started
	e.clk.Advance(100 * time.Millisecond)
	o := <-out
	return o.v, o.err
}

func TestThreadTimeout(t *testing.T) {
	fronts := map[string]func(*Command[string]) (string, error){
		"execute": func(c *Command[string]) (string, error) { return c.Execute(context.Background()) },
		"queue": func(c *Command[string]) (string, error) {
			f, err := c.Queue(context.Background())
			if err != nil {
				return "", err
			}
			return f.Get(context.Background())
		},
		"observe": func(c *Command[string]) (string, error) {
			it, ok := <-c.Observe(context.Background()).Observe()
			if !ok || it.Error() {
				return "", it.E
			}
			return it.V.(string), nil
		},
	}
	fallbacks := map[string]func(context.Context, error) (string, error){
		"no fallback": nil, "working fallback": fallbackValue("fb"), "failing fallback": fallbackFailing(errBoom),
	}
	for fname, front := range fronts {
		for fbname, fb := range fallbacks {
			t.Run(fname+"/"+fbname, func(t *testing.T) {
				e := newEnv(t)
				started := make(chan struct{})
				cmd := New(e.threadSetter("T", nil, "execution.isolation.thread.timeoutInMilliseconds", "100"),
					blockUntilDone(started))
				if fb != nil {
					cmd.WithFallback(fb)
				}
				got, err := timeoutThroughPool(t, e, cmd, started, front)
				assert.True(t, cmd.IsResponseTimedOut())
				assert.True(t, cmd.IsExecutedInThread())
				switch fbname {
				case "no fallback":
					runtimeErr(t, err, Timeout)
					assert.Equal(t, ev(metrics.Timeout, metrics.FallbackMissing), cmd.ExecutionEvents())
				case "working fallback":
					require.NoError(t, err)
					assert.Equal(t, "fb", got)
					assert.Equal(t, ev(metrics.Timeout, metrics.FallbackSuccess), cmd.ExecutionEvents())
					assert.Equal(t, []string{"OnStart", "OnThreadStart", "OnExecutionStart", "OnThreadComplete",
						"OnFallbackStart", "OnFallbackEmit", "OnEmit", "OnFallbackSuccess", "OnSuccess"}, e.rec.Names())
				case "failing fallback":
					re := runtimeErr(t, err, Timeout)
					assert.Equal(t, errBoom, re.FallbackErr)
					assert.Equal(t, ev(metrics.Timeout, metrics.FallbackFailure), cmd.ExecutionEvents())
				}
				e.waitPoolIdle("T")
				e.assertIdle("T")
			})
		}
	}
}

func TestThreadTimeoutLateResultChangesNothing(t *testing.T) {
	e := newEnv(t)
	started, release := make(chan struct{}), make(chan struct{})
	var interrupted atomic.Bool
	cmd := New(e.threadSetter("T", nil, "execution.isolation.thread.timeoutInMilliseconds", "100",
		"execution.isolation.thread.interruptOnTimeout", "false"),
		func(ctx context.Context) (string, error) {
			close(started)
			<-release
			interrupted.Store(ctx.Err() != nil)
			return "late", nil
		}).WithFallback(fallbackValue("fb"))
	got, err := timeoutThroughPool(t, e, cmd, started, func(c *Command[string]) (string, error) {
		return c.Execute(context.Background())
	})
	require.NoError(t, err)
	assert.Equal(t, "fb", got, "the caller gets the fallback at the timeout, not when run returns")
	names := e.rec.Names()
	close(release)
	e.waitPoolIdle("T")
	assert.False(t, interrupted.Load())
	assert.Equal(t, ev(metrics.Timeout, metrics.FallbackSuccess), cmd.ExecutionEvents())
	assert.Equal(t, names, e.rec.Names(), "no hook after the timeout")
	e.assertIdle("T")
}

func TestThreadPoolRejection(t *testing.T) {
	tests := []struct {
		name string
		pool config.ThreadPoolOverrides
		fill int // commands that fit (running or queued)
	}{
		{"pool full, no queue", config.ThreadPoolOverrides{"coreSize": "1"}, 1},
		{"queue full", config.ThreadPoolOverrides{"coreSize": "1", "maxQueueSize": "1", "queueSizeRejectionThreshold": "5"}, 2},
		{"queueSizeRejectionThreshold", config.ThreadPoolOverrides{"coreSize": "1", "maxQueueSize": "5", "queueSizeRejectionThreshold": "2"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			s := e.threadSetter("T", tt.pool, "execution.timeout.enabled", "false")
			release := make(chan struct{})
			var ran atomic.Int32
			done := make(chan error, tt.fill)
			for i := range tt.fill {
				started := make(chan struct{})
				cmd := New(s, func(context.Context) (string, error) {
					ran.Add(1)
					if i == 0 {
						close(started)
					}
					<-release
					return "ok", nil
				})
				go func() {
					_, err := cmd.Execute(context.Background())
					done <- err
				}()
				if i == 0 {
					<-started
				} else {
					p, _, _ := e.key("T").threadPool()
					require.Eventually(t, func() bool { return p.Gauges().QueueSize == i }, 5*time.Second, time.Millisecond)
				}
			}
			e.rec.Reset()
			rejected := New(s, value("never")).WithFallback(fallbackValue("fb"))
			got, err := rejected.Execute(context.Background())
			require.NoError(t, err)
			assert.Equal(t, "fb", got)
			assert.Equal(t, ev(metrics.ThreadPoolRejected, metrics.FallbackSuccess), rejected.ExecutionEvents())
			assert.True(t, rejected.IsResponseRejected())
			assert.True(t, rejected.IsResponseThreadPoolRejected())
			assert.ErrorIs(t, rejected.FailedExecutionError(), isolation.ErrRejected)
			assert.Equal(t, []string{"OnStart", "OnFallbackStart", "OnFallbackEmit", "OnEmit",
				"OnFallbackSuccess", "OnSuccess"}, e.rec.Names())

			_, err = New(s, value("never")).Execute(context.Background())
			runtimeErr(t, err, RejectedThreadExecution)
			assert.ErrorIs(t, err, ErrThreadPoolFull)
			assert.ErrorIs(t, err, isolation.ErrRejected)

			close(release)
			for range tt.fill {
				require.NoError(t, <-done)
			}
			assert.EqualValues(t, tt.fill, ran.Load())
			e.waitPoolIdle("T")
			e.assertIdle("T")

			e.tick(time.Second)
			tp := e.rt.Metrics().ThreadPool("TPool")
			assert.EqualValues(t, tt.fill, tp.CumulativeCount(metrics.Executed))
			assert.EqualValues(t, 2, tp.CumulativeCount(metrics.Rejected))
			assert.Equal(t, 1, tp.Gauges().CorePoolSize, "the metrics read the pool's gauges")
		})
	}
}

func TestQueueWaitCountsTowardTheTimeout(t *testing.T) {
	e := newEnv(t)
	s := e.threadSetter("T", config.ThreadPoolOverrides{"coreSize": "1", "maxQueueSize": "5"},
		"execution.isolation.thread.timeoutInMilliseconds", "100")
	started, release := make(chan struct{}), make(chan struct{})
	first := New(s, func(context.Context) (string, error) {
		close(started)
		<-release
		return "first", nil
	})
	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		_, _ = first.Execute(context.Background())
	}()
	<-started
	var ran atomic.Bool
	queued := New(s, func(context.Context) (string, error) {
		ran.Store(true)
		return "queued", nil
	}).WithFallback(fallbackValue("fb"))
	out := make(chan string)
	go func() {
		v, _ := queued.Execute(context.Background())
		out <- v
	}()
	p, _, _ := e.key("T").threadPool()
	require.Eventually(t, func() bool { return p.Gauges().QueueSize == 1 }, 5*time.Second, time.Millisecond)
	e.clk.Advance(100 * time.Millisecond)
	assert.Equal(t, "fb", <-out)
	assert.Equal(t, ev(metrics.Timeout, metrics.FallbackSuccess), queued.ExecutionEvents())
	close(release)
	<-firstDone
	e.waitPoolIdle("T")
	assert.False(t, ran.Load(), "a command that timed out in the queue never runs")
	assert.False(t, queued.IsExecutedInThread())
	assert.Equal(t, ev(metrics.Timeout), first.ExecutionEvents()[:1], "the first one timed out too")
	e.assertIdle("T")
}

func TestThreadCancel(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	cmd := New(e.threadSetter("T", nil), blockUntilDone(started)).WithFallback(fallbackValue("fb"))
	go func() {
		<-started
		cancel()
	}()
	_, err := cmd.Execute(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, ev(metrics.Cancelled), cmd.ExecutionEvents())
	assert.Equal(t, []string{"OnStart", "OnThreadStart", "OnExecutionStart", "OnUnsubscribe", "OnThreadComplete"},
		e.rec.Names(), "Hystrix unsubscribes from the outside in")
	e.waitPoolIdle("T")
	e.assertIdle("T")
}
