package hystrixtest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hystrixtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

var errDown = errors.New("dependency down")

// newKit returns a kit closed at the end of the test.
func newKit(t *testing.T, opts ...command.Option) *hystrixtest.Kit {
	k := hystrixtest.New(opts...)
	t.Cleanup(k.Close)
	return k
}

// define defines key on k's Runtime with the given properties, or fails the test.
func define(t *testing.T, k *hystrixtest.Kit, key string, props ...config.Entry[config.CommandProperties]) *command.Kind[string] {
	t.Helper()
	kind, err := command.Define[string](command.Setter{Runtime: k.Runtime(), CommandKey: key, Properties: config.Set(props...)})
	require.NoError(t, err)
	return kind
}

func fallback(context.Context, error) (string, error) { return "fallback", nil }

var semaphore = config.ExecutionIsolationStrategy.Of(config.Semaphore)

func TestCountsAreReadAfterAdvanceUntilQuiet(t *testing.T) {
	k := newKit(t)
	kind := define(t, k, "GetUser", semaphore)
	dep := hystrixtest.NewDependency(k, "Ada", hystrixtest.Sequence(hystrixtest.OK(), hystrixtest.Fail(errDown)))
	for range 3 {
		_, _ = kind.New(dep.Run).WithFallback(fallback).Execute(context.Background())
	}
	m := k.Runtime().Metrics().Command("GetUser")
	k.Runtime().Metrics().Flush()
	assert.Zero(t, m.CumulativeCount(metrics.Failure), "the trap: nothing is counted before the bucket closes, Flush or not")

	k.AdvanceUntilQuiet()
	assert.Equal(t, int64(1), m.CumulativeCount(metrics.Success))
	assert.Equal(t, int64(2), m.RollingCount(metrics.Failure))
	assert.Equal(t, int64(3), m.HealthCounts().TotalRequests)
	assert.Equal(t, time.Second, k.Elapsed(), "to the end of the 1 s rolling-stats bucket, which ends a health interval too")
}

func TestAdvanceUntilQuietClosesTheWidestBucket(t *testing.T) {
	k := newKit(t)
	kind := define(t, k, "Slow", semaphore, config.RollingStatsWindow.Of(20*time.Second), config.RollingStatsBuckets.Of(5))
	k.Advance(1500 * time.Millisecond)
	_, err := kind.New(hystrixtest.NewDependency(k, "x", hystrixtest.OK()).Run).Execute(context.Background())
	require.NoError(t, err)
	k.AdvanceUntilQuiet()
	assert.Equal(t, 4*time.Second, k.Elapsed(), "the 4 s bucket of this key, aligned to the clock")
	assert.Equal(t, int64(1), k.Runtime().Metrics().Command("Slow").RollingCount(metrics.Success))
}

func TestAnswersOnTheCallersGoroutine(t *testing.T) {
	k := newKit(t)
	timeout := config.ExecutionTimeout.Of(300 * time.Millisecond)
	for _, iso := range []config.IsolationStrategy{config.Semaphore, config.Thread} {
		t.Run(iso.String(), func(t *testing.T) {
			kind := define(t, k, "Answers"+iso.String(), config.ExecutionIsolationStrategy.Of(iso), timeout)
			dep := hystrixtest.NewDependency(k, "Ada", hystrixtest.Sequence(
				hystrixtest.OK().After(100*time.Millisecond),
				hystrixtest.Fail(errDown).After(200*time.Millisecond),
				hystrixtest.Panic("boom"),
				hystrixtest.OK().After(time.Second),
				hystrixtest.Hang(),
			))
			type result struct {
				v       string
				err     error
				elapsed time.Duration
			}
			var got []result
			for range 5 {
				start := k.Elapsed()
				v, err := kind.New(dep.Run).Execute(context.Background())
				got = append(got, result{v, err, k.Elapsed() - start})
			}
			assert.Equal(t, result{"Ada", nil, 100 * time.Millisecond}, got[0])
			assert.ErrorIs(t, got[1].err, errDown)
			assert.Equal(t, 200*time.Millisecond, got[1].elapsed)
			var pe *command.PanicError
			assert.ErrorAs(t, got[2].err, &pe)
			assert.Equal(t, "boom", pe.Value)
			assert.Zero(t, got[2].elapsed)
			for _, r := range got[3:] {
				assert.ErrorIs(t, r.err, command.ErrTimeout)
				assert.Equal(t, 300*time.Millisecond, r.elapsed, "the call moved the clock to the timeout, not past it")
			}
			assert.Equal(t, 5, dep.Calls())
		})
	}
}

func TestHangWithoutTimeoutWaitsForTheCaller(t *testing.T) {
	k := newKit(t)
	kind := define(t, k, "Endless", semaphore, config.ExecutionTimeoutEnabled.Of(false))
	dep := hystrixtest.NewDependency(k, "x", hystrixtest.Hang())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := kind.New(dep.Run).Execute(ctx)
		done <- err
	}()
	for dep.Calls() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
	assert.Zero(t, k.Elapsed(), "nothing on the clock ends it, so it did not move the clock")
}

func TestRandomIsTheSameForTheSameSeed(t *testing.T) {
	draw := func(seed uint64) (fails int, seq []bool) {
		s := hystrixtest.Random(seed, hystrixtest.Chance{P: 0.3, Answer: hystrixtest.Fail(errDown)},
			hystrixtest.Chance{P: 0.1, Answer: hystrixtest.Hang()})
		hangs := 0
		for n := range 1000 {
			a := s.Answer(n, 0)
			seq = append(seq, a.Err != nil)
			switch {
			case a.Err != nil:
				fails++
			case a.Hang:
				hangs++
			}
		}
		assert.InDelta(t, 100, hangs, 40)
		return fails, seq
	}
	fails, a := draw(7)
	_, b := draw(7)
	_, c := draw(8)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, c)
	assert.InDelta(t, 300, fails, 60)
}

func TestSequenceAndUntil(t *testing.T) {
	s := hystrixtest.Sequence(hystrixtest.Fail(errDown), hystrixtest.Until(time.Second, hystrixtest.Hang(), hystrixtest.OK()))
	assert.Equal(t, hystrixtest.Fail(errDown), s.Answer(0, 5*time.Second))
	assert.Equal(t, hystrixtest.Hang(), s.Answer(1, 999*time.Millisecond))
	assert.Equal(t, hystrixtest.OK(), s.Answer(7, time.Second))
	assert.Equal(t, hystrixtest.OK(), hystrixtest.Sequence().Answer(3, 0))
	assert.Equal(t, 2*time.Second, hystrixtest.Panic(1).After(2*time.Second).Latency)
}

func TestCallersInFlightAreRejectedAtTheLimit(t *testing.T) {
	k := newKit(t)
	kind := define(t, k, "Limited", semaphore, config.ExecutionMaxConcurrentRequests.Of(2),
		config.ExecutionTimeout.Of(time.Second))
	dep := hystrixtest.NewDependency(k, "x", hystrixtest.Hang())
	errs := make(chan error, 2)
	for range 2 {
		k.Go(func(ctx context.Context) {
			_, err := kind.New(dep.Run).Execute(ctx)
			errs <- err
		})
	}
	k.Settle() // both hang in the dependency now
	assert.Equal(t, 2, dep.Calls())
	v, err := kind.New(dep.Run).WithFallback(fallback).Execute(context.Background())
	assert.NoError(t, err)
	assert.Equal(t, "fallback", v)

	k.Advance(999 * time.Millisecond)
	assert.Empty(t, errs, "still hanging 1 ms before the timeout")
	k.Advance(time.Millisecond)
	require.Len(t, errs, 2)
	for range 2 {
		assert.ErrorIs(t, <-errs, command.ErrTimeout)
	}
	k.Recorder().ExpectRuns(t, "Limited", "[TIMEOUT, FALLBACK_MISSING] x2", "[SEMAPHORE_REJECTED, FALLBACK_SUCCESS]")
}

func TestThreadPoolCallersWaitForAdvance(t *testing.T) {
	k := newKit(t)
	kind, err := command.Define[string](command.Setter{Runtime: k.Runtime(), CommandKey: "Pooled",
		Properties:           config.Set(config.ExecutionTimeout.Of(250 * time.Millisecond)),
		ThreadPoolProperties: config.Set(config.ThreadPoolCoreSize.Of(2))})
	require.NoError(t, err)
	dep := hystrixtest.NewDependency(k, "x", hystrixtest.Sequence(hystrixtest.OK().After(100*time.Millisecond),
		hystrixtest.OK().After(400*time.Millisecond)))
	ended := make(chan time.Duration, 3)
	for range 3 {
		k.Go(func(ctx context.Context) {
			_, _ = kind.New(dep.Run).WithFallback(fallback).Execute(ctx)
			ended <- k.Elapsed()
		})
		k.Settle() // one caller at a time: the third finds both workers busy
	}
	k.AdvanceUntilQuiet()
	close(ended)
	var at []time.Duration
	for d := range ended {
		at = append(at, d)
	}
	assert.Equal(t, []time.Duration{0, 100 * time.Millisecond, 250 * time.Millisecond}, at,
		"rejected at once, answered at 100 ms, timed out at 250 ms")
	k.Recorder().ExpectRuns(t, "Pooled", "[SUCCESS]", "[TIMEOUT, FALLBACK_SUCCESS]", "[THREAD_POOL_REJECTED, FALLBACK_SUCCESS]")
	assert.Equal(t, int64(1), k.Runtime().Metrics().ThreadPool("Pooled").CumulativeCount(metrics.Rejected))
}

func TestAdvanceLetsEachCallerRunAtItsTime(t *testing.T) {
	k := newKit(t)
	kind := define(t, k, "Paced", semaphore)
	dep := hystrixtest.NewDependency(k, "x", hystrixtest.OK().After(30*time.Millisecond))
	for w := range 2 {
		k.Go(func(ctx context.Context) {
			assert.NoError(t, k.Sleep(ctx, time.Duration(w)*10*time.Millisecond))
			for range 3 {
				_, _ = kind.New(dep.Run).Execute(ctx)
				_ = k.Sleep(ctx, 20*time.Millisecond)
			}
		})
	}
	k.Advance(time.Second)
	var starts []time.Duration
	for _, x := range k.Recorder().Executions("Paced") {
		starts = append(starts, x.Start)
	}
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{0, 10 * ms, 50 * ms, 60 * ms, 100 * ms, 110 * ms}, starts,
		"each call 30 ms, then 20 ms of pause, the second caller 10 ms behind")
	assert.Equal(t, time.Second, k.Elapsed())
}

func TestSleepEndsWithItsContext(t *testing.T) {
	k := newKit(t)
	got := make(chan error, 1)
	k.Go(func(ctx context.Context) {
		ctx, cancel := context.WithCancel(ctx)
		go cancel()
		got <- k.Sleep(ctx, time.Hour)
	})
	assert.ErrorIs(t, <-got, context.Canceled)
	k.Settle()
	assert.Zero(t, k.Elapsed())
}

func TestCloseEndsTheCallers(t *testing.T) {
	k := newKit(t)
	kind := define(t, k, "Forever", semaphore, config.ExecutionTimeoutEnabled.Of(false))
	dep := hystrixtest.NewDependency(k, "x", hystrixtest.Hang())
	got := make(chan error, 1)
	k.Go(func(ctx context.Context) {
		_, err := kind.New(dep.Run).Execute(ctx)
		got <- err
	})
	k.AdvanceUntilQuiet()
	assert.Empty(t, got, "nothing on the clock ends a hang without a timeout")
	k.Close()
	assert.ErrorIs(t, <-got, context.Canceled)
}

// A kit's Runtime reads its own Source, not the process's default sources.
func TestKitConfigurationIsItsOwn(t *testing.T) {
	t.Setenv("HYSTRIX_COMMAND_KITKEY_EXECUTION_ISOLATION_SEMAPHORE_MAXCONCURRENTREQUESTS", "7")
	k := hystrixtest.New()
	defer k.Close()
	require.NoError(t, config.ExecutionTimeout.SetIn(k.Source(), "KitKey", 50*time.Millisecond))
	p, err := k.Runtime().Config().Command("KitKey", nil)
	require.NoError(t, err)
	assert.Equal(t, 50*time.Millisecond, config.ExecutionTimeout.In(p).Get(), "the kit's Source applies")
	assert.Equal(t, 10, config.ExecutionMaxConcurrentRequests.In(p).Get(), "the environment does not")
}

// A kit's store is strict: a bad value for a key fails its definition, with every entry
// it cannot apply; Check then lists a property of a key that no definition names.
func TestKitConfigurationFailsFast(t *testing.T) {
	k := newKit(t)
	err := k.Source().Apply(map[string]string{
		"hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds": "1000ms -> 5s",
		"hystrix.command.GetUsr.fallback.enabled":                                  "false",
	}, nil)
	require.NoError(t, err, "no key is defined yet")
	_, err = command.Define[string](command.Setter{Runtime: k.Runtime(), CommandKey: "GetUser"})
	assert.ErrorIs(t, err, config.ErrInvalidValue)

	require.NoError(t, k.Source().Apply(nil, []string{"hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds"}))
	define(t, k, "GetUser")
	assert.ErrorIs(t, k.Runtime().Config().Check(), config.ErrUnknownKey)
	assert.ErrorContains(t, k.Runtime().Config().Check(), "did you mean hystrix.command.GetUser.fallback.enabled?")
}
