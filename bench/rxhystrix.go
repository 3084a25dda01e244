package bench

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"time"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// rxTarget is rxhystrix: a command key on a fresh command.Runtime of its own, defined
// once (the Kind, with the fallback) as a user defines a key called on every request.
type rxTarget struct {
	rt     *command.Runtime
	key    string
	setter command.Setter
	kind   *command.Kind[int]
}

// NewRxhystrix returns a command key on a fresh Runtime, configured from s in code:
// SEMAPHORE isolation (THREAD with s.Thread, coreSize = MaxConcurrent), the timeout, the
// execution and fallback semaphores, the breaker and the rolling window.
func NewRxhystrix(key string, s Settings) Target { return newRxTarget(key, s, nil) }

// newRxTarget is NewRxhystrix with extra properties, set before the key is defined.
func newRxTarget(key string, s Settings, extra config.Overrides) *rxTarget {
	isolation := "SEMAPHORE"
	if s.Thread {
		isolation = "THREAD"
	}
	limit := strconv.Itoa(s.MaxConcurrent)
	rt := command.NewRuntime()
	t := &rxTarget{rt: rt, key: key, setter: command.Setter{
		Runtime:    rt,
		CommandKey: key,
		Properties: config.Overrides{
			"execution.isolation.strategy":                        isolation,
			"execution.isolation.thread.timeoutInMilliseconds":    millis(s.Timeout),
			"execution.isolation.semaphore.maxConcurrentRequests": limit,
			"fallback.isolation.semaphore.maxConcurrentRequests":  limit,
			"circuitBreaker.requestVolumeThreshold":               strconv.Itoa(s.RequestVolumeThreshold),
			"circuitBreaker.errorThresholdPercentage":             strconv.Itoa(s.ErrorThresholdPercentage),
			"circuitBreaker.sleepWindowInMilliseconds":            millis(s.SleepWindow),
			"metrics.rollingStats.timeInMilliseconds":             millis(s.RollingWindow),
		},
		ThreadPoolProperties: config.ThreadPoolOverrides{"coreSize": limit, "maximumSize": limit},
	}}
	maps.Copy(t.setter.Properties, extra)
	kind, err := command.Define[int](t.setter)
	if err != nil {
		panic(err) // the properties above are valid for every Settings
	}
	t.kind = kind.WithFallback(rxFallback)
	return t
}

func millis(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

func rxFallback(context.Context, error) (int, error) { return FallbackAnswer, nil }

// Do runs run with the key's Kind.ExecutePooled, the fastest door a user can write: inline
// on the caller under SEMAPHORE isolation, on an execution the Kind reuses.
func (t *rxTarget) Do(ctx context.Context, run Run) (int, error) {
	return t.kind.ExecutePooled(ctx, run)
}

// NewExecute runs a new command with New and Execute: Hystrix's single-use command,
// whose accessors the caller may keep.
func (t *rxTarget) NewExecute(ctx context.Context, run Run) (int, error) {
	return command.New[int](t.setter, run).WithFallback(rxFallback).Execute(ctx)
}

// errNoValue is returned when an observable completes without a value.
var errNoValue = errors.New("bench: observable completed without a value")

// Observe runs a new command of the key's Kind with Observe and consumes it through RxGo,
// with a context that is always cancelled at the end.
func (t *rxTarget) Observe(ctx context.Context, run Run) (int, error) {
	return drain(ctx, func(ctx context.Context) rxgo.Observable { return t.kind.New(run).Observe(ctx) })
}

// ToObservable subscribes to a new command's cold observable and consumes it through RxGo.
func (t *rxTarget) ToObservable(ctx context.Context, run Run) (int, error) {
	return drain(ctx, func(context.Context) rxgo.Observable { return t.kind.New(run).ToObservable() })
}

// QueueGet queues a new command of the key's Kind and waits for its future.
func (t *rxTarget) QueueGet(ctx context.Context, run Run) (int, error) {
	f, err := t.kind.New(run).Queue(ctx)
	if err != nil {
		return 0, err
	}
	return f.Get(ctx)
}

// drain subscribes to the observable open returns with a context that is always
// cancelled at the end, and returns its single value.
func drain(ctx context.Context, open func(context.Context) rxgo.Observable) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	v, err, got := 0, error(nil), false
	for item := range open(ctx).Observe(rxgo.WithContext(ctx)) {
		if item.E != nil {
			err = item.E
			continue
		}
		v, got = item.V.(int), true
	}
	if err == nil && !got {
		err = errNoValue
	}
	return v, err
}

// Close closes the target's Runtime (metrics roll, thread pools).
func (t *rxTarget) Close() { t.rt.Close() }

// Recorded sums the key's cumulative terminal execution events (success, failure,
// timeout, bad request, short-circuit, rejections). Every completion is folded into the
// key's counters when it happens; cumulative counts are read at rollingStats bucket
// boundaries, so Recorded waits for the bucket in progress to close.
func (t *rxTarget) Recorded() int64 {
	p, err := t.rt.Config().Command(t.key, nil)
	if err != nil {
		return -1
	}
	width := int64(config.RollingStatsWindow.In(p).Get()) / int64(config.RollingStatsBuckets.In(p).Get())
	time.Sleep(time.Until(time.Unix(0, (time.Now().UnixNano()/width+1)*width))) // buckets align to Unix time
	t.rt.Metrics().Flush()
	m := t.rt.Metrics().Command(t.key)
	var n int64
	for _, e := range []metrics.EventType{metrics.Success, metrics.Failure, metrics.Timeout, metrics.BadRequest,
		metrics.ShortCircuited, metrics.ThreadPoolRejected, metrics.SemaphoreRejected} {
		n += m.CumulativeCount(e)
	}
	return n
}
