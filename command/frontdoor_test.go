package command

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// items drains an observable.
func items(t *testing.T, obs rxgo.Observable, opts ...rxgo.Option) (values []any, errs []error) {
	t.Helper()
	for it := range obs.Observe(opts...) {
		if it.Error() {
			errs = append(errs, it.E)
			continue
		}
		values = append(values, it.V)
	}
	return values, errs
}

func TestToObservableIsCold(t *testing.T) {
	e := newEnv(t)
	var runs atomic.Int32
	cmd := New(e.setter("O"), counted(&runs, value("v")))
	obs := cmd.ToObservable()
	assert.Zero(t, runs.Load(), "nothing runs before a subscription")
	values, errs := items(t, obs)
	assert.Equal(t, []any{"v"}, values)
	assert.Empty(t, errs)
	assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())

	_, errs = items(t, obs)
	require.Len(t, errs, 1, "a command is single use")
	runtimeErr(t, errs[0], BadRequestException)

	mapped, _ := items(t, New(e.setter("O"), value("x")).ToObservable().
		Map(func(_ context.Context, v any) (any, error) { return v.(string) + "!", nil }))
	assert.Equal(t, []any{"x!"}, mapped, "composes with rxgo operators")
	e.assertIdle("O")
}

func TestObserveIsHotAndReplays(t *testing.T) {
	e := newEnv(t)
	ran := make(chan struct{})
	cmd := New(e.setter("O"), func(context.Context) (string, error) {
		close(ran)
		return "v", nil
	})
	obs := cmd.Observe(context.Background())
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("Observe did not start the command")
	}
	for range 2 {
		values, errs := items(t, obs)
		assert.Equal(t, []any{"v"}, values)
		assert.Empty(t, errs)
	}
	assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())
	e.assertIdle("O")
}

func TestObserveReplaysErrors(t *testing.T) {
	e := newEnv(t)
	cmd := New(e.setter("O"), failing(errBoom))
	obs := cmd.Observe(context.Background())
	for range 2 {
		_, errs := items(t, obs)
		require.Len(t, errs, 1)
		runtimeErr(t, errs[0], CommandException)
	}
	assert.Equal(t, ev(metrics.Failure, metrics.FallbackMissing), cmd.ExecutionEvents())
	e.assertIdle("O")
}

func TestQueue(t *testing.T) {
	e := newEnv(t)
	f, err := New(e.setter("Q"), value("v")).Queue(context.Background())
	require.NoError(t, err)
	assert.True(t, f.Ready(), "under SEMAPHORE isolation Queue runs the command before it returns")
	got, err := f.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	<-f.Done()

	f, err = New(e.setter("Q"), failing(errBoom)).WithFallback(fallbackValue("fb")).Queue(context.Background())
	require.NoError(t, err)
	got, err = f.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "fb", got)
	e.assertIdle("Q")
}

// waitComplete waits until cmd's execution reached its terminal event.
func waitComplete(t *testing.T, done func() bool) {
	t.Helper()
	require.Eventually(t, done, 5*time.Second, time.Millisecond)
}

func TestCancelExecute(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	cmd := New(e.setter("C"), blockUntilDone(started)).WithFallback(fallbackValue("fb"))
	go func() {
		<-started
		cancel()
	}()
	_, err := cmd.Execute(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, ev(metrics.Cancelled), cmd.ExecutionEvents())
	assert.True(t, cmd.IsCancelled())
	assert.Equal(t, []string{"OnStart", "OnExecutionStart", "OnUnsubscribe"}, e.rec.Names())
	e.assertIdle("C")
}

func TestCancelSubscription(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	cmd := New(e.setter("C"), blockUntilDone(started))
	ch := cmd.ToObservable().Observe(rxgo.WithContext(ctx))
	<-started
	cancel()
	for range ch {
	}
	waitComplete(t, cmd.IsCancelled)
	assert.Equal(t, ev(metrics.Cancelled), cmd.ExecutionEvents())
	assert.Equal(t, []string{"OnStart", "OnExecutionStart", "OnUnsubscribe"}, e.rec.Names())
	e.assertIdle("C")
}

func TestFutureCancel(t *testing.T) {
	t.Run("interruptOnFutureCancel", func(t *testing.T) {
		e := newEnv(t)
		started := make(chan struct{})
		cmd := New(e.threadSetter("C", nil, "execution.isolation.thread.interruptOnFutureCancel", "true"),
			blockUntilDone(started))
		f, err := cmd.Queue(context.Background())
		require.NoError(t, err)
		<-started
		f.Cancel()
		_, err = f.Get(context.Background())
		assert.ErrorIs(t, err, context.Canceled)
		e.waitPoolIdle("C")
		assert.Equal(t, ev(metrics.Cancelled), cmd.ExecutionEvents())
		e.assertIdle("C")
	})
	t.Run("no interrupt", func(t *testing.T) {
		e := newEnv(t)
		started, release := make(chan struct{}), make(chan struct{})
		var interrupted atomic.Bool
		cmd := New(e.threadSetter("C", nil), func(ctx context.Context) (string, error) {
			close(started)
			select {
			case <-release:
			case <-ctx.Done():
				interrupted.Store(true)
			}
			return "v", nil
		})
		f, err := cmd.Queue(context.Background())
		require.NoError(t, err)
		<-started
		f.Cancel()
		_, err = f.Get(context.Background())
		assert.ErrorIs(t, err, context.Canceled)
		close(release)
		e.waitPoolIdle("C")
		assert.False(t, interrupted.Load(), "the run's context is not cancelled")
		assert.Equal(t, ev(metrics.Cancelled), cmd.ExecutionEvents())
		e.assertIdle("C")
	})
}

func TestObserveCancelledWhenItsContextEndsUnobserved(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	cmd := New(e.threadSetter("C", nil), blockUntilDone(started))
	cmd.Observe(ctx)
	<-started
	cancel()
	waitComplete(t, cmd.IsCancelled)
	e.waitPoolIdle("C")
	assert.Equal(t, ev(metrics.Cancelled), cmd.ExecutionEvents())
	e.assertIdle("C")
}
