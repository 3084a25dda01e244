package hooks_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/hooktest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestRegistryNotifierReplaceAndReset(t *testing.T) {
	r := hooks.NewRegistry()
	assert.True(t, hooks.IsNoopNotifier(r.EventNotifier()))

	rec := &hooktest.RecordingNotifier{}
	r.SetEventNotifier(rec)
	assert.Same(t, rec, r.EventNotifier())
	assert.False(t, hooks.IsNoopNotifier(r.EventNotifier()))

	r.SetEventNotifier(nil)
	assert.True(t, hooks.IsNoopNotifier(r.EventNotifier()))

	r.SetEventNotifier(rec)
	r.SetExecutionHook(&hooktest.RecordingHook{})
	r.Reset()
	assert.True(t, hooks.IsNoopNotifier(r.EventNotifier()))
	assert.True(t, hooks.IsNoop(r.ExecutionHook()))
}

func TestIsNoopNotifier(t *testing.T) {
	type embeds struct{ hooks.NoopNotifier }
	assert.True(t, hooks.IsNoopNotifier(hooks.NoopNotifier{}))
	assert.True(t, hooks.IsNoopNotifier(&hooks.NoopNotifier{}))
	assert.False(t, hooks.IsNoopNotifier(embeds{}))
	assert.False(t, hooks.IsNoopNotifier(&hooktest.RecordingNotifier{}))
}

// TestNoopNotifierCostsNothing: the no-op notifier, called through the interface as
// commands call it, allocates nothing (it is what every command calls by default).
func TestNoopNotifierCostsNothing(t *testing.T) {
	ctx := t.Context()
	events := []metrics.EventType{metrics.Success}
	for _, n := range []hooks.EventNotifier{hooks.NoopNotifier{}, &hooks.NoopNotifier{}} {
		assert.Zero(t, testing.AllocsPerRun(100, func() {
			n.MarkEvent(ctx, metrics.Success, "k")
			n.MarkCommandExecution(ctx, "k", config.Semaphore, time.Millisecond, events)
		}))
	}
}

// TestRegistryNotifierConcurrentReplace: readers racing with replacements get either
// notifier, whole. The replacements go on until readers saw both (at least 500 of them,
// at most 10,000,000: a few hundred suffice on a busy machine), and the readers read
// until the replacements end, so a reader descheduled for a while cannot run out of reads
// before the race begins; the recorder got exactly the marks of the reads that saw it.
func TestRegistryNotifierConcurrentReplace(t *testing.T) {
	r := hooks.NewRegistry()
	rec := &hooktest.RecordingNotifier{}
	var sawNoop, sawRec atomic.Int64
	var replaced atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !replaced.Load() {
				if n := r.EventNotifier(); hooks.IsNoopNotifier(n) {
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
		assert.Equal(t, hooktest.Mark{Event: metrics.Success, Key: "k"}, m)
	}
}

func TestRegistryNotifierReadDoesNotAllocate(t *testing.T) {
	r := hooks.NewRegistry()
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = hooks.IsNoopNotifier(r.EventNotifier()) }))
	r.SetEventNotifier(&hooktest.RecordingNotifier{})
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = hooks.IsNoopNotifier(r.EventNotifier()) }))
}

// deaf is a notifier that says whether its MarkCommandExecution can be left out.
type deaf struct {
	hooks.NoopNotifier
	ignores bool
}

func (d deaf) IgnoresExecutions() bool { return d.ignores }

// panicking is a notifier whose IgnoresExecutions panics.
type panicking struct{ hooks.NoopNotifier }

func (panicking) IgnoresExecutions() bool { panic("boom") }

func TestIgnoresExecutions(t *testing.T) {
	cases := []struct {
		name string
		n    hooks.EventNotifier
		want bool
	}{
		{"a notifier that says nothing", &hooktest.RecordingNotifier{}, false},
		{"a notifier that says it can", deaf{ignores: true}, true},
		{"a notifier that says it cannot", deaf{ignores: false}, false},
		{"notifiers that all say it can", hooks.ComposeNotifiers(deaf{ignores: true}, deaf{ignores: true}), true},
		{"notifiers of which one needs it", hooks.ComposeNotifiers(deaf{ignores: true}, &hooktest.RecordingNotifier{}), false},
		{"a notifier whose answer panics: it is called", panicking{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, hooks.IgnoresExecutions(tc.n)) })
	}
}
