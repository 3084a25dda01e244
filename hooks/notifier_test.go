package hooks

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestRegistryNotifierReplaceAndReset(t *testing.T) {
	r := NewRegistry()
	assert.True(t, IsNoopNotifier(r.EventNotifier()))

	rec := &RecordingNotifier{}
	r.SetEventNotifier(rec)
	assert.Same(t, rec, r.EventNotifier())
	assert.False(t, IsNoopNotifier(r.EventNotifier()))

	r.SetEventNotifier(nil)
	assert.True(t, IsNoopNotifier(r.EventNotifier()))

	r.SetEventNotifier(rec)
	r.SetExecutionHook(&RecordingHook{})
	r.Reset()
	assert.True(t, IsNoopNotifier(r.EventNotifier()))
	assert.True(t, IsNoop(r.ExecutionHook()))
}

func TestIsNoopNotifier(t *testing.T) {
	type embeds struct{ NoopNotifier }
	assert.True(t, IsNoopNotifier(NoopNotifier{}))
	assert.True(t, IsNoopNotifier(&NoopNotifier{}))
	assert.False(t, IsNoopNotifier(embeds{}))
	assert.False(t, IsNoopNotifier(&RecordingNotifier{}))
}

// TestNoopNotifierCostsNothing: the no-op notifier, called through the interface as
// commands call it, allocates nothing (it is what every command calls by default).
func TestNoopNotifierCostsNothing(t *testing.T) {
	ctx := t.Context()
	events := []metrics.EventType{metrics.Success}
	for _, n := range []EventNotifier{NoopNotifier{}, &NoopNotifier{}} {
		assert.Zero(t, testing.AllocsPerRun(100, func() {
			n.MarkEvent(ctx, metrics.Success, "k")
			n.MarkCommandExecution(ctx, "k", config.Semaphore, time.Millisecond, events)
		}))
	}
}

func TestRecordingNotifierRecordsCopies(t *testing.T) {
	rec := &RecordingNotifier{}
	rec.MarkEvent(t.Context(), metrics.Failure, "Cmd")
	rec.MarkEvent(t.Context(), metrics.FallbackSuccess, "Cmd")
	events := []metrics.EventType{metrics.Failure, metrics.FallbackSuccess}
	rec.MarkCommandExecution(t.Context(), "Cmd", config.Thread, 3*time.Millisecond, events)
	events[0] = metrics.Timeout // the caller may reuse its slice

	assert.Equal(t, []Mark{{metrics.Failure, "Cmd"}, {metrics.FallbackSuccess, "Cmd"}}, rec.Marks())
	require.Len(t, rec.Executions(), 1)
	assert.Equal(t, Execution{
		Key: "Cmd", Isolation: config.Thread, Duration: 3 * time.Millisecond,
		Events: []metrics.EventType{metrics.Failure, metrics.FallbackSuccess},
	}, rec.Executions()[0])
}

func TestRegistryNotifierConcurrentReplace(t *testing.T) {
	r := NewRegistry()
	rec := &RecordingNotifier{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 500 {
				if n := r.EventNotifier(); !IsNoopNotifier(n) {
					n.MarkEvent(t.Context(), metrics.Success, "k")
				}
			}
		})
	}
	for i := range 500 {
		if i%2 == 0 {
			r.SetEventNotifier(rec)
		} else {
			r.Reset()
		}
	}
	wg.Wait()
	for _, m := range rec.Marks() {
		assert.Equal(t, Mark{metrics.Success, "k"}, m)
	}
}

func TestRegistryNotifierReadDoesNotAllocate(t *testing.T) {
	r := NewRegistry()
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = IsNoopNotifier(r.EventNotifier()) }))
	r.SetEventNotifier(&RecordingNotifier{})
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = IsNoopNotifier(r.EventNotifier()) }))
}
