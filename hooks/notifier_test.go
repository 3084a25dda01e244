package hooks

import (
	"sync"
	"sync/atomic"
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

// TestRegistryNotifierConcurrentReplace: readers racing with replacements get either
// notifier, whole. The replacements go on until readers saw both (at least 500 of them,
// at most 10,000,000: a few hundred suffice on a busy machine), and the readers read
// until the replacements end, so a reader descheduled for a while cannot run out of reads
// before the race begins; the recorder got exactly the marks of the reads that saw it.
func TestRegistryNotifierConcurrentReplace(t *testing.T) {
	r := NewRegistry()
	rec := &RecordingNotifier{}
	var sawNoop, sawRec atomic.Int64
	var replaced atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !replaced.Load() {
				if n := r.EventNotifier(); IsNoopNotifier(n) {
					sawNoop.Add(1)
				} else {
					sawRec.Add(1)
					n.MarkEvent(t.Context(), metrics.Success, "k")
				}
			}
		})
	}
	for i := 0; i < 10_000_000 && (i < 500 || sawNoop.Load() == 0 || sawRec.Load() == 0); i++ {
		if i%2 == 0 {
			r.SetEventNotifier(rec)
		} else {
			r.Reset()
		}
	}
	replaced.Store(true)
	wg.Wait()
	require.Positive(t, sawNoop.Load(), "no reader saw the no-op notifier")
	require.Positive(t, sawRec.Load(), "no reader saw the recorder")
	marks := rec.Marks()
	assert.Len(t, marks, int(sawRec.Load()), "one mark per read that got the recorder")
	for _, m := range marks {
		assert.Equal(t, Mark{metrics.Success, "k"}, m)
	}
}

func TestRegistryNotifierReadDoesNotAllocate(t *testing.T) {
	r := NewRegistry()
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = IsNoopNotifier(r.EventNotifier()) }))
	r.SetEventNotifier(&RecordingNotifier{})
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = IsNoopNotifier(r.EventNotifier()) }))
}

// deaf is a notifier that says whether its MarkCommandExecution can be left out.
type deaf struct {
	NoopNotifier
	ignores bool
}

func (d deaf) IgnoresExecutions() bool { return d.ignores }

// panicking is a notifier whose IgnoresExecutions panics.
type panicking struct{ NoopNotifier }

func (panicking) IgnoresExecutions() bool { panic("boom") }

func TestIgnoresExecutions(t *testing.T) {
	cases := []struct {
		name string
		n    EventNotifier
		want bool
	}{
		{"a notifier that says nothing", &RecordingNotifier{}, false},
		{"a notifier that says it can", deaf{ignores: true}, true},
		{"a notifier that says it cannot", deaf{ignores: false}, false},
		{"notifiers that all say it can", ComposeNotifiers(deaf{ignores: true}, deaf{ignores: true}), true},
		{"notifiers of which one needs it", ComposeNotifiers(deaf{ignores: true}, &RecordingNotifier{}), false},
		{"a notifier whose answer panics: it is called", panicking{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, IgnoresExecutions(tc.n)) })
	}
}
