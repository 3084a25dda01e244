package bulkhead

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/isolation"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// knob is a settable property for tests: it implements getter[T] like *config.Property[T].
type knob[T any] struct{ v atomic.Pointer[T] }

func newKnob[T any](v T) *knob[T] {
	k := &knob[T]{}
	k.Set(v)
	return k
}

func (k *knob[T]) Get() T  { return *k.v.Load() }
func (k *knob[T]) Set(v T) { k.v.Store(&v) }

// held is a task that signals when it starts and then waits until freed.
type held struct {
	started chan struct{}
	release chan struct{}
	once    sync.Once
}

func newHeld() *held {
	return &held{started: make(chan struct{}), release: make(chan struct{})}
}

// free lets the task finish; it may be called more than once.
func (h *held) free() { h.once.Do(func() { close(h.release) }) }

func (h *held) run() {
	close(h.started)
	<-h.release
}

// waitStarted fails the test if the task has not started in time.
func (h *held) waitStarted(t testing.TB) {
	t.Helper()
	Await(t, h.started, "held task started")
}

// Await fails the test unless ch is closed within two seconds: a task that never runs
// must fail its test at once, not hang the whole run until go test's timeout. Exported
// for the bulkhead_test package.
func Await(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(2 * time.Second):
		t.Fatalf("timed out waiting: %s", what)
	}
}

// poolConfig is the starting configuration of a test pool.
type poolConfig struct {
	core, maximum    int
	diverge          bool
	queue, threshold int
	keepAlive        time.Duration
}

// testPool is a Pool on a fake clock with settable properties.
type testPool struct {
	*Pool
	core, maximum, threshold *knob[int]
	diverge                  *knob[bool]
	keepAlive                *knob[time.Duration]
	clk                      *clock.Fake
}

// newTestPool makes a pool closed at the end of the test.
func newTestPool(t testing.TB, c poolConfig) *testPool {
	tp := &testPool{
		core:      newKnob(c.core),
		maximum:   newKnob(c.maximum),
		threshold: newKnob(c.threshold),
		diverge:   newKnob(c.diverge),
		keepAlive: newKnob(c.keepAlive),
		clk:       clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
	}
	tp.Pool = newPool("test-pool", poolSettings{
		coreSize:                              tp.core,
		maximumSize:                           tp.maximum,
		queueSizeRejectionThreshold:           tp.threshold,
		allowMaximumSizeToDivergeFromCoreSize: tp.diverge,
		keepAlive:                             tp.keepAlive,
		maxQueueSize:                          c.queue,
	}, tp.clk)
	t.Cleanup(tp.Close)
	return tp
}

// hold submits a held task that is freed at the end of the test at the latest (before
// the pool is closed) and requires the submission to succeed.
func (tp *testPool) hold(t testing.TB) *held {
	t.Helper()
	h := newHeld()
	require.NoError(t, tp.Submit(h.run))
	t.Cleanup(h.free)
	return h
}

// requireGauges waits (briefly) until the pool's gauges equal want.
func requireGauges(t testing.TB, p *Pool, want metrics.ThreadPoolGauges) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for p.Gauges() != want && time.Now().Before(deadline) {
		time.Sleep(100 * time.Microsecond)
	}
	require.Equal(t, want, p.Gauges())
}

// requireRejected checks that err is a rejection by the test pool with the given reason.
func requireRejected(t testing.TB, err error, reason string) {
	t.Helper()
	require.ErrorIs(t, err, isolation.ErrRejected)
	var re *isolation.RejectedError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "test-pool", re.Pool)
	assert.Equal(t, reason, re.Reason)
	assert.Contains(t, err.Error(), `"test-pool"`)
}

const (
	reasonHandOff   = "no free worker and the pool is at its maximum size (no queue)"
	reasonQueueFull = "all workers busy and the queue is full"
	reasonThreshold = "queue size at queueSizeRejectionThreshold"
	reasonClosed    = "pool closed"
)
