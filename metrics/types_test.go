package metrics

import (
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

func TestEventTypeOrderAndNames(t *testing.T) {
	want := []string{"EMIT", "SUCCESS", "FAILURE", "TIMEOUT", "BAD_REQUEST", "SHORT_CIRCUITED",
		"THREAD_POOL_REJECTED", "SEMAPHORE_REJECTED", "FALLBACK_EMIT", "FALLBACK_SUCCESS",
		"FALLBACK_FAILURE", "FALLBACK_REJECTION", "FALLBACK_DISABLED", "FALLBACK_MISSING",
		"EXCEPTION_THROWN", "RESPONSE_FROM_CACHE", "CANCELLED", "COLLAPSED", "COMMAND_MAX_ACTIVE",
		"RATE_LIMITED", "FAULT_INJECTED", "RETRY", "BUDGET_EXHAUSTED", "ADAPTIVE_REJECTED",
		"ESTABLISH_TIMEOUT", "IDLE_TIMEOUT", "MID_STREAM_FAILURE", "STREAM_RESUMED", "HEDGE",
		"THROTTLED"}
	var got []string
	for _, e := range AllEventTypes() {
		got = append(got, e.String())
	}
	assert.Equal(t, want, got)
	assert.Equal(t, "UNKNOWN", EventType(99).String())
	assert.Equal(t, []string{"EXECUTED", "REJECTED"},
		[]string{Executed.String(), Rejected.String()})
	assert.Equal(t, []string{"BATCH_EXECUTED", "ADDED_TO_BATCH", "RESPONSE_FROM_CACHE"},
		[]string{BatchExecuted.String(), AddedToBatch.String(), CollapserResponseFromCache.String()})
}

func TestEventTypeClasses(t *testing.T) {
	terminal := map[EventType]bool{Success: true, BadRequest: true, FallbackSuccess: true,
		FallbackFailure: true, FallbackRejection: true, FallbackDisabled: true,
		FallbackMissing: true, ResponseFromCache: true, Cancelled: true}
	exception := map[EventType]bool{BadRequest: true, FallbackFailure: true,
		FallbackDisabled: true, FallbackMissing: true, FallbackRejection: true}
	for _, e := range AllEventTypes() {
		assert.Equal(t, terminal[e], e.IsTerminal(), e.String())
		assert.Equal(t, exception[e], e.IsExceptionProducing(), e.String())
	}
	for e, want := range map[EventType]ThreadPoolEventType{Success: Executed, Failure: Executed,
		Timeout: Executed, BadRequest: Executed, ThreadPoolRejected: Rejected} {
		assert.True(t, e.info().inPool, e.String())
		assert.Equal(t, want, e.info().pool, e.String())
	}
	assert.False(t, ShortCircuited.info().inPool)
	health := map[EventType]Health{Success: Healthy, Failure: Unhealthy, Timeout: Unhealthy,
		ThreadPoolRejected: Unhealthy, SemaphoreRejected: Unhealthy, StreamEstablishTimeout: Unhealthy}
	for _, e := range AllEventTypes() {
		assert.Equal(t, health[e], e.Health(), e.String())
		assert.NotEqual(t, "UNKNOWN", e.String(), "every event type has its row in the table")
	}
	assert.Equal(t, "BadRequests", BadRequest.StreamName())
	assert.Empty(t, Cancelled.StreamName(), "Hystrix's stream has no rollingCountCancelled")
}

// The health counts of one execution are read from the event table: every Healthy event
// counts as a request, every Unhealthy one as a request and an error.
func TestHealthOfOneExecution(t *testing.T) {
	for _, tc := range []struct {
		events      []EventType
		total, errs int64
	}{
		{[]EventType{Success}, 1, 0},
		{[]EventType{Failure, FallbackSuccess}, 1, 1},
		{[]EventType{Timeout, FallbackMissing}, 1, 1},
		{[]EventType{ShortCircuited, FallbackSuccess}, 0, 0},
		{[]EventType{BadRequest}, 0, 0},
		{[]EventType{Cancelled}, 0, 0},
		{[]EventType{ResponseFromCache, Success}, 1, 0},
	} {
		var c EventCounts
		for _, e := range tc.events {
			c = c.Add(e, 1)
		}
		assert.Equal(t, NewHealthCounts(tc.total, tc.errs), HealthCounts{}.plus(c), "%v", tc.events)
	}
}

func TestEventCounts(t *testing.T) {
	var c EventCounts
	assert.Empty(t, c.Events())
	c = c.Add(Emit, 3).Add(Emit, 2).Add(Success, 1).Add(Success, 1).Add(Failure, 0)
	assert.Equal(t, 5, c.Count(Emit))
	assert.Equal(t, 1, c.Count(Success), "a type without a count is present or absent")
	assert.Equal(t, 0, c.Count(Failure))
	assert.False(t, c.Contains(Failure))
	assert.True(t, c.Contains(Success))
	assert.Equal(t, []EventType{Emit, Success}, c.Events())
	assert.Equal(t, "[EMITx5, SUCCESS]", c.String())
	c2 := c.Add(Collapsed, 12).Add(FallbackEmit, 1)
	assert.Equal(t, 12, c2.Count(Collapsed))
	assert.Equal(t, "[EMITx5, SUCCESS, FALLBACK_EMIT, COLLAPSEDx12]", c2.String())
	assert.Equal(t, 0, c.Count(Collapsed), "Add returns a copy")
	assert.Zero(t, testing.AllocsPerRun(100, func() { c = c.Add(Timeout, 1) }))
}

// TestNewEventCountsIsAddInOneStep: for every set of types (EXCEPTION_THROWN and a bit
// beyond the last type included) and counts below, at and above 1, NewEventCounts equals
// adding the types one by one, and withEventCounts equals as many withEventCount calls.
func TestNewEventCountsIsAddInOneStep(t *testing.T) {
	counted := func(e EventType, emit, fbEmit, collapsed int) int {
		switch e {
		case Emit:
			return emit
		case FallbackEmit:
			return fbEmit
		case Collapsed:
			return collapsed
		}
		return 1
	}
	masks := []uint32{0, 1<<Success | 1<<ShortCircuited | 1<<FallbackSuccess, 1<<ExceptionThrown | 1<<Failure,
		1<<Emit | 1<<FallbackEmit | 1<<Collapsed | 1<<Success, 1<<NumEventTypes | 1<<Timeout, 1<<NumEventTypes - 1, ^uint32(0)}
	for _, mask := range masks {
		for _, n := range [][3]int{{0, 0, 0}, {1, 1, 1}, {3, 0, 12}, {-1, 2, 0}} {
			var want EventCounts
			var wantRes ExecutionResult
			for e := EventType(0); e < 32; e++ {
				if mask&(1<<e) != 0 {
					want = want.Add(e, counted(e, n[0], n[1], n[2]))
					wantRes = wantRes.withEventCount(e, counted(e, n[0], n[1], n[2]))
				}
			}
			got := NewEventCounts(mask, n[0], n[1], n[2])
			assert.Equal(t, want, got, "mask %b counts %v", mask, n)
			assert.Equal(t, wantRes, ExecutionResult{}.withEventCounts(got), "mask %b counts %v", mask, n)
			assert.Equal(t, want.Add(Emit, 2).Add(Success, 1),
				ExecutionResult{}.WithEvent(Emit).WithEvent(Emit).WithEvent(Success).withEventCounts(got).Events(),
				"withEventCounts adds up")
		}
	}
}

func TestExecutionResultIsAValue(t *testing.T) {
	base := ExecutionResult{}.WithEvent(Emit)
	r := base.WithEvent(Emit).WithEvent(Failure).WithEvent(FallbackSuccess).
		withExecuted(true).withExecutionLatency(3 * time.Millisecond).
		WithTotalLatency(5 * time.Millisecond)
	assert.Equal(t, 1, base.Events().Count(Emit), "With returns a copy")
	assert.False(t, base.Executed())
	assert.Equal(t, 2, r.Events().Count(Emit))
	assert.Equal(t, []EventType{Emit, Failure, FallbackSuccess}, r.Events().Events())
	assert.True(t, r.Contains(FallbackSuccess))
	assert.False(t, r.Contains(Success))
	assert.Equal(t, 3*time.Millisecond, r.ExecutionLatency())
	assert.Equal(t, 5*time.Millisecond, r.TotalLatency())
	assert.True(t, r.Executed())
	assert.True(t, r.ExecutedInThread())
	assert.Equal(t, 7, r.withEventCount(Collapsed, 7).Events().Count(Collapsed))
	assert.LessOrEqual(t, unsafe.Sizeof(r), uintptr(40), "small enough to pass in registers")
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		r = r.WithEvent(Success).WithTotalLatency(time.Millisecond)
	}))
}

func TestStripeFillsPairsOfCacheLines(t *testing.T) {
	assert.Zero(t, unsafe.Sizeof(stripe{})%128, "a stripe shares no line pair with another")
	assert.GreaterOrEqual(t, unsafe.Sizeof(stripe{}), 16+uintptr(numSlots)*4)
	assert.Equal(t, uintptr(stripeSize), unsafe.Sizeof(stripe{}))
}

func TestCountersOfAKeyFitIn2KB(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(64)) // as many stripes as any machine gets
	c := newCounters()
	assert.LessOrEqual(t, uintptr(len(c.stripes))*unsafe.Sizeof(stripe{}), uintptr(2048))
	assert.GreaterOrEqual(t, len(c.stripes), 8, "enough stripes that parallel callers rarely share one")
}

func TestHealthCountsArithmetic(t *testing.T) {
	tests := []struct {
		name        string
		events      []EventType
		total, errs int64
	}{
		{"success", []EventType{Success}, 1, 0},
		{"failure with fallback", []EventType{Failure, FallbackSuccess}, 1, 1},
		{"timeout, fallback missing", []EventType{Timeout, FallbackMissing}, 1, 1},
		{"thread pool rejected", []EventType{ThreadPoolRejected, FallbackFailure}, 1, 1},
		{"semaphore rejected", []EventType{SemaphoreRejected, FallbackRejection}, 1, 1},
		{"short-circuited", []EventType{ShortCircuited, FallbackSuccess}, 0, 0},
		{"bad request", []EventType{BadRequest}, 0, 0},
		{"cache hit", []EventType{ResponseFromCache, Success}, 1, 0},
		{"cache hit alone", []EventType{ResponseFromCache}, 0, 0},
		{"emits", []EventType{Emit, Emit, Success}, 1, 0},
		{"cancelled", []EventType{Cancelled}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c EventCounts
			for _, e := range tt.events {
				c = c.Add(e, 1)
			}
			h := HealthCounts{}.plus(c)
			assert.Equal(t, tt.total, h.TotalRequests)
			assert.Equal(t, tt.errs, h.ErrorCount)
		})
	}
	assert.Equal(t, HealthCounts{3, 1, 33}, NewHealthCounts(3, 1))
	assert.Equal(t, HealthCounts{3, 2, 66}, NewHealthCounts(3, 2), "integer part, not rounded")
	assert.Equal(t, HealthCounts{}, NewHealthCounts(0, 0))
}
