package config

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// errLog collects the errors a Store reports.
type errLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errLog) add(err error) { l.mu.Lock(); l.errs = append(l.errs, err); l.mu.Unlock() }

func (l *errLog) count() int { l.mu.Lock(); defer l.mu.Unlock(); return len(l.errs) }

func (l *errLog) take() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.errs
	l.errs = nil
	return out
}

func newTestStore(t *testing.T) (*MemorySource, *Store, *errLog) {
	t.Helper()
	mem := NewMemorySource()
	store := NewStore(mem)
	log := &errLog{}
	cancel := store.OnError(log.add)
	t.Cleanup(func() { cancel(); store.Close() })
	return mem, store, log
}

func TestDynamicChangeVisibleOnNextGet(t *testing.T) {
	mem, store, log := newTestStore(t)
	c, err := store.Command("Dyn", nil)
	require.NoError(t, err)
	p, err := store.ThreadPool("Dyn", nil)
	require.NoError(t, err)
	col, err := store.Collapser("Dyn", nil)
	require.NoError(t, err)

	mem.Apply(map[string]string{
		"hystrix.command.Dyn.execution.isolation.strategy":    "SEMAPHORE",
		"hystrix.command.Dyn.circuitBreaker.forceOpen":        "TRUE",
		"hystrix.command.Dyn.threadPoolKeyOverride":           " shared ",
		"hystrix.threadpool.Dyn.keepAliveTimeMinutes":         "3",
		"hystrix.threadpool.Dyn.maxQueueSize":                 "100",
		"hystrix.collapser.Dyn.maxRequestsInBatch":            "50",
		"hystrix.command.default.circuitBreaker.enabled":      "false",
		"hystrix.command.Dyn.circuitBreaker.enabled":          "true",
		"hystrix.command.default.requestLog.enabled":          "false",
		"hystrix.command.Dyn.metrics.rollingStats.numBuckets": "20",
	}, nil)
	assert.Equal(t, Semaphore, ExecutionIsolationStrategy.In(c).Get())
	assert.True(t, CircuitBreakerForceOpen.In(c).Get())
	assert.Equal(t, "shared", ThreadPoolKeyOverride.In(c).Get())
	assert.True(t, CircuitBreakerEnabled.In(c).Get())
	assert.False(t, RequestLogEnabled.In(c).Get())
	assert.Equal(t, 20, RollingStatsBuckets.In(c).Get())
	assert.Equal(t, 3*time.Minute, ThreadPoolKeepAlive.In(p).Get())
	assert.Equal(t, "3", ThreadPoolKeepAlive.In(p).String())
	assert.Equal(t, 100, ThreadPoolMaxQueueSize.In(p).Get())
	assert.Equal(t, 50, CollapserMaxRequestsInBatch.In(col).Get())
	assert.Empty(t, log.take())
}

func TestInvalidDynamicValueRejected(t *testing.T) {
	for _, tc := range []struct {
		name, value, reason string
		read                func(*CommandProperties) string
		old                 string
	}{
		{"execution.isolation.thread.timeoutInMilliseconds", "-5", "must be > 0",
			func(c *CommandProperties) string { return ExecutionTimeout.In(c).String() }, "1000"},
		{"execution.isolation.thread.timeoutInMilliseconds", "0", "must be > 0",
			func(c *CommandProperties) string { return ExecutionTimeout.In(c).String() }, "1000"},
		{"execution.isolation.thread.timeoutInMilliseconds", "1.5ms", "not a whole number of milliseconds",
			func(c *CommandProperties) string { return ExecutionTimeout.In(c).String() }, "1000"},
		{"execution.isolation.semaphore.maxConcurrentRequests", "-1", "must be >= 0",
			func(c *CommandProperties) string { return ExecutionMaxConcurrentRequests.In(c).String() }, "10"},
		{"circuitBreaker.errorThresholdPercentage", "101", "0..100",
			func(c *CommandProperties) string { return CircuitBreakerErrorThresholdPercentage.In(c).String() }, "50"},
		{"circuitBreaker.errorThresholdPercentage", "-1", "0..100",
			func(c *CommandProperties) string { return CircuitBreakerErrorThresholdPercentage.In(c).String() }, "50"},
		{"circuitBreaker.sleepWindowInMilliseconds", "-1", "must be >= 0",
			func(c *CommandProperties) string { return CircuitBreakerSleepWindow.In(c).String() }, "5000"},
		{"circuitBreaker.forceOpen", "yes", "not a boolean",
			func(c *CommandProperties) string { return CircuitBreakerForceOpen.In(c).String() }, "false"},
		{"execution.isolation.strategy", "FIBER", "unknown isolation strategy",
			func(c *CommandProperties) string { return ExecutionIsolationStrategy.In(c).String() }, "THREAD"},
		{"metrics.rollingStats.numBuckets", "0", "must be >= 1",
			func(c *CommandProperties) string { return RollingStatsBuckets.In(c).String() }, "10"},
		{"metrics.rollingStats.numBuckets", "7", "does not divide hystrix.command.Bad.metrics.rollingStats.timeInMilliseconds=10000",
			func(c *CommandProperties) string { return RollingStatsBuckets.In(c).String() }, "10"},
		{"metrics.rollingStats.timeInMilliseconds", "10001", "not divisible",
			func(c *CommandProperties) string { return RollingStatsWindow.In(c).String() }, "10000"},
		{"metrics.rollingPercentile.numBuckets", "7", "does not divide hystrix.command.Bad.metrics.rollingPercentile.timeInMilliseconds=60000",
			func(c *CommandProperties) string { return RollingPercentileBuckets.In(c).String() }, "6"},
		{"metrics.rollingPercentile.bucketSize", "0", "must be >= 1",
			func(c *CommandProperties) string { return rollingPercentileBucketSize.In(c).String() }, "100"},
		{"hedge.maxHedges", "11", "must be in 0..10",
			func(c *CommandProperties) string { return HedgeMaxHedges.In(c).String() }, "0"},
		{"hedge.delayPercentile", "100", "must be in 0..99",
			func(c *CommandProperties) string { return HedgeDelayPercentile.In(c).String() }, "0"},
		{"hedge.delayInMilliseconds", "-1", "must be >= 0",
			func(c *CommandProperties) string { return HedgeDelay.In(c).String() }, "100"},
		{"metrics.healthSnapshot.intervalInMilliseconds", "99999999999", "out of the 32-bit integer range",
			func(c *CommandProperties) string { return HealthSnapshotInterval.In(c).String() }, "500"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			mem, store, log := newTestStore(t)
			c, err := store.Command("Bad", nil)
			require.NoError(t, err)

			mem.Set("hystrix.command.Bad."+tc.name, tc.value)
			assert.Equal(t, tc.old, tc.read(c), "previous value stays in force")
			errs := log.take()
			require.Len(t, errs, 1)
			assert.ErrorIs(t, errs[0], ErrInvalidValue)
			assert.ErrorContains(t, errs[0], tc.reason)
			assert.ErrorContains(t, errs[0], `"`+tc.value+`"`)
			var pe *PropertyError
			require.True(t, errors.As(errs[0], &pe))
			assert.Equal(t, "hystrix.command.Bad."+tc.name, pe.Name)
			assert.Equal(t, tc.value, pe.Value)
			assert.False(t, pe.InCode)
		})
	}
}

func TestInvalidDynamicMessageNamesProperty(t *testing.T) {
	mem, store, log := newTestStore(t)
	c, err := store.Command("Msg", Overrides{timeoutName: "700"})
	require.NoError(t, err)
	mem.Set("hystrix.command.Msg."+timeoutName, "abc")
	assert.Equal(t, 700*time.Millisecond, ExecutionTimeout.In(c).Get())
	errs := log.take()
	require.Len(t, errs, 1)
	assert.EqualError(t, errs[0],
		`config: hystrix.command.Msg.execution.isolation.thread.timeoutInMilliseconds: invalid value "abc": not a duration (want whole milliseconds, e.g. 300, or Go syntax, e.g. 300ms)`)

	mem.Set("hystrix.command.default."+timeoutName, "-1")
	assert.Empty(t, log.take(), "a default shadowed by the in-code value is not even read")

	mem.Set("hystrix.command.Msg."+timeoutName, "250")
	assert.Equal(t, 250*time.Millisecond, ExecutionTimeout.In(c).Get(), "a later valid value applies")
	assert.Empty(t, log.take())
}

func TestInvalidValueKeepsPreviousDynamicValue(t *testing.T) {
	mem, store, log := newTestStore(t)
	c, err := store.Command("Keep", nil)
	require.NoError(t, err)
	mem.Set("hystrix.command.Keep."+timeoutName, "300")
	mem.Set("hystrix.command.Keep."+timeoutName, "-300")
	assert.Equal(t, 300*time.Millisecond, ExecutionTimeout.In(c).Get())
	assert.Len(t, log.take(), 1)
}

func TestInvalidDynamicValueAtCreation(t *testing.T) {
	mem, store, log := newTestStore(t)
	mem.Apply(map[string]string{
		"hystrix.command.default." + timeoutName:           "-1",
		"hystrix.command.New.circuitBreaker.forceOpen":     "maybe",
		"hystrix.command.default.circuitBreaker.forceOpen": "true",
	}, nil)
	require.Empty(t, log.take(), "no key yet, nothing to resolve")
	c, err := store.Command("New", Overrides{"circuitBreaker.forceOpen": "false"})
	require.NoError(t, err, "bad dynamic values are no in-code error")
	assert.Equal(t, time.Second, ExecutionTimeout.In(c).Get(), "built-in default")
	assert.False(t, CircuitBreakerForceOpen.In(c).Get(), "the value set in code")
	errs := log.take()
	require.Len(t, errs, 2)
	assert.ErrorContains(t, errs[0], `hystrix.command.default.execution.isolation.thread.timeoutInMilliseconds: invalid value "-1"`)
	assert.ErrorContains(t, errs[1], `hystrix.command.New.circuitBreaker.forceOpen: invalid value "maybe"`)
}

func TestBadValueReportedOnce(t *testing.T) {
	mem, store, log := newTestStore(t)
	_, err := store.Command("Once", nil)
	require.NoError(t, err)
	mem.Set("hystrix.command.Once."+timeoutName, "x")
	mem.Set("hystrix.command.Once.fallback.enabled", "false")
	assert.Len(t, log.take(), 1, "an unrelated change does not repeat the report")
	mem.Set("hystrix.command.Once."+timeoutName, "y")
	assert.Len(t, log.take(), 1, "a different bad value is reported")
}

func TestCrossCheckAppliesPairTogether(t *testing.T) {
	mem, store, log := newTestStore(t)
	c, err := store.Command("Pair", nil)
	require.NoError(t, err)
	mem.Apply(map[string]string{
		"hystrix.command.Pair.metrics.rollingStats.timeInMilliseconds": "7000",
		"hystrix.command.Pair.metrics.rollingStats.numBuckets":         "7",
	}, nil)
	assert.Equal(t, 7*time.Second, RollingStatsWindow.In(c).Get())
	assert.Equal(t, 7, RollingStatsBuckets.In(c).Get())
	assert.Empty(t, log.take())

	mem.Set("hystrix.command.Pair.metrics.rollingStats.numBuckets", "3")
	assert.Equal(t, 7*time.Second, RollingStatsWindow.In(c).Get())
	assert.Equal(t, 7, RollingStatsBuckets.In(c).Get(), "both keep their previous values")
	assert.Len(t, log.take(), 1)

	mem.Set("hystrix.command.Pair.metrics.rollingStats.timeInMilliseconds", "9000")
	assert.Equal(t, 9*time.Second, RollingStatsWindow.In(c).Get(), "the sources now hold a valid pair")
	assert.Equal(t, 3, RollingStatsBuckets.In(c).Get())
	assert.Empty(t, log.take())
}

func TestThreadPoolSizes(t *testing.T) {
	mem, store, log := newTestStore(t)
	p, err := store.ThreadPool("Sizes", ThreadPoolOverrides{"coreSize": "4", "maximumSize": "8"})
	require.NoError(t, err)
	assert.Equal(t, 4, p.effectiveMaximumSize(), "maximumSize ignored unless allowed to diverge")

	mem.Set("hystrix.threadpool.Sizes.allowMaximumSizeToDivergeFromCoreSize", "true")
	assert.Equal(t, 8, p.effectiveMaximumSize())
	mem.Set("hystrix.threadpool.Sizes.maximumSize", "2")
	assert.Equal(t, 4, p.effectiveMaximumSize(), "max(core, maximum)")

	mem.Set("hystrix.threadpool.Sizes.coreSize", "0")
	assert.Equal(t, 0, ThreadPoolCoreSize.In(p).Get())
	assert.Equal(t, 2, p.effectiveMaximumSize(), "an elastic pool with no core workers")
	assert.Empty(t, log.take())

	mem.Set("hystrix.threadpool.Sizes.allowMaximumSizeToDivergeFromCoreSize", "false")
	assert.True(t, ThreadPoolAllowMaximumSizeToDivergeFromCoreSize.In(p).Get(), "would leave no worker: rejected")
	errs := log.take()
	require.Len(t, errs, 1)
	assert.ErrorContains(t, errs[0], "hystrix.threadpool.Sizes.coreSize")
	assert.ErrorContains(t, errs[0], "effective maximum pool size is 0")

	mem.Set("hystrix.threadpool.Sizes.maxQueueSize", "-2")
	assert.Equal(t, -1, ThreadPoolMaxQueueSize.In(p).Get())
	mem.Set("hystrix.threadpool.Sizes.keepAliveTimeMinutes", "-1")
	assert.Equal(t, time.Minute, ThreadPoolKeepAlive.In(p).Get())
	mem.Set("hystrix.threadpool.Sizes.metrics.rollingStats.timeInMilliseconds", "999")
	assert.Equal(t, 10*time.Second, ThreadPoolRollingStatsWindow.In(p).Get())
	assert.Len(t, log.take(), 3)
}

func TestCollapserValidation(t *testing.T) {
	mem, store, log := newTestStore(t)
	c, err := store.Collapser("Col", nil)
	require.NoError(t, err)
	mem.Apply(map[string]string{
		"hystrix.collapser.Col.maxRequestsInBatch":                   "-1",
		"hystrix.collapser.Col.timerDelayInMilliseconds":             "0",
		"hystrix.collapser.Col.metrics.rollingPercentile.numBuckets": "7",
	}, nil)
	assert.Equal(t, 0, CollapserMaxRequestsInBatch.In(c).Get())
	assert.Equal(t, 10*time.Millisecond, CollapserTimerDelay.In(c).Get())
	assert.Equal(t, 6, CollapserRollingPercentileBuckets.In(c).Get())
	assert.Len(t, log.take(), 3)
}

func TestCloseStopsUpdates(t *testing.T) {
	mem := NewMemorySource()
	store := NewStore(mem)
	c, err := store.Command("Closed", nil)
	require.NoError(t, err)
	store.Close()
	store.Close()
	mem.Set("hystrix.command.Closed."+timeoutName, "5")
	assert.Equal(t, time.Second, ExecutionTimeout.In(c).Get())
	assert.Equal(t, 0, len(mem.subs), "subscription cancelled")
}

func TestOnErrorCancel(t *testing.T) {
	mem, store, log := newTestStore(t)
	_, err := store.Command("Cancel", nil)
	require.NoError(t, err)
	var n int
	cancel := store.OnError(func(error) { n++ })
	mem.Set("hystrix.command.Cancel."+timeoutName, "x")
	cancel()
	mem.Set("hystrix.command.Cancel."+timeoutName, "y")
	assert.Equal(t, 1, n)
	assert.Len(t, log.take(), 2)
}

// TestConcurrentSetAndGet: readers always see one of the values written, never a torn or
// stale-after-the-end one. Writers go on until the readers saw both values written (the
// contested reads happened), at most 20,000 sets each.
func TestConcurrentSetAndGet(t *testing.T) {
	mem, store, _ := newTestStore(t)
	c, err := store.Command("Race", nil)
	require.NoError(t, err)
	var readers, writers sync.WaitGroup
	stop := make(chan struct{})
	var saw100, saw200 atomic.Bool
	for range 4 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				switch d := ExecutionTimeout.In(c).Get(); d {
				case 100 * time.Millisecond:
					saw100.Store(true)
				case 200 * time.Millisecond:
					saw200.Store(true)
				case time.Second:
				default:
					t.Errorf("unexpected timeout %v", d)
					return
				}
				_ = c.Settings()
			}
		})
	}
	for i := range 4 {
		writers.Go(func() {
			for j := 0; j < 20_000 && (j < 200 || !saw100.Load() || !saw200.Load()); j++ {
				mem.Set("hystrix.command.Race."+timeoutName, []string{"100", "200"}[(i+j)%2])
				if _, err := store.Command("Race2", nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	writers.Wait()
	close(stop)
	readers.Wait()
	assert.True(t, saw100.Load() && saw200.Load(), "the readers saw both values written")
	mem.Set("hystrix.command.Race."+timeoutName, "100")
	assert.Equal(t, 100*time.Millisecond, ExecutionTimeout.In(c).Get())
}

func TestInvalidValueLoggedWithSlog(t *testing.T) {
	buf := captureSlog(t)
	mem, store, _ := newTestStore(t)
	_, err := store.Command("Logged", nil)
	require.NoError(t, err)
	mem.Set("hystrix.command.Logged.circuitBreaker.errorThresholdPercentage", "120")
	out := buf.String()
	assert.Contains(t, out, "level=WARN")
	assert.Contains(t, out, "property=hystrix.command.Logged.circuitBreaker.errorThresholdPercentage")
	assert.Contains(t, out, "value=120")
}

// Version changes when a property of the key takes a new value, and only then: a reader
// that derives something from several properties knows when to derive it again.
func TestVersionFollowsTheKeysValues(t *testing.T) {
	mem, store, _ := newTestStore(t)
	p, err := store.Command("K", nil)
	require.NoError(t, err)
	other, err := store.Command("Other", nil)
	require.NoError(t, err)
	v0, o0 := p.Version(), other.Version()

	mem.Set("hystrix.command.K.circuitBreaker.enabled", "false")
	v1 := p.Version()
	assert.NotEqual(t, v0, v1, "a new value")
	assert.Equal(t, o0, other.Version(), "another key's value did not change")

	mem.Set("hystrix.command.K.circuitBreaker.enabled", "false")
	mem.Set("hystrix.command.K.circuitBreaker.enabled", "FALSE")
	assert.Equal(t, v1, p.Version(), "the same value again")

	mem.Set("hystrix.command.K.circuitBreaker.enabled", "nonsense")
	assert.Equal(t, v1, p.Version(), "a refused value keeps the previous one")

	mem.Set("hystrix.command.default.execution.isolation.strategy", "SEMAPHORE")
	assert.NotEqual(t, v1, p.Version(), "the default scope reaches the key")
	assert.NotEqual(t, o0, other.Version())
}
