package hystrixtest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/hooktest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Execution is one command execution as the Recorder saw it.
type Execution struct {
	Key    string
	Start  time.Duration       // the kit's Elapsed at OnStart (a cache hit: at its event)
	Events []metrics.EventType // in the order the event notifier was told of them
}

// Run is a stretch of consecutive executions of one key with the same events.
type Run struct {
	Events      []metrics.EventType
	Count       int
	First, Last time.Duration // the Start of the first and of the last execution
}

// String returns the run as ExpectRuns reads it: "[FAILURE, FALLBACK_SUCCESS] x188", or
// "[SUCCESS]" for a single execution.
func (r Run) String() string {
	names := make([]string, len(r.Events))
	for i, e := range r.Events {
		names[i] = e.String()
	}
	s := "[" + strings.Join(names, ", ") + "]"
	if r.Count != 1 {
		s += fmt.Sprintf(" x%d", r.Count)
	}
	return s
}

// Recorder records what the commands of a kit's Runtime do: every hook call, every event
// and finished execution the event notifier is told of, each execution's events gathered
// together, and the state changes of the breakers. It is safe for concurrent use.
type Recorder struct {
	k        *Kit
	hook     *hooktest.RecordingHook
	notifier *hooktest.RecordingNotifier
	stop     func() // ends the breaker subscription

	mu          sync.Mutex
	execs       []*Execution
	hits        map[logSlot]bool // the request log entries of the cache hits recorded so far
	transitions []breaker.Transition
	changed     chan struct{} // closed and replaced at every transition
}

// execKey carries an execution's *Execution in the context OnStart returns.
type execKey struct{}

func newRecorder(k *Kit) *Recorder {
	r := &Recorder{k: k, hook: &hooktest.RecordingHook{}, notifier: &hooktest.RecordingNotifier{}, changed: make(chan struct{})}
	reg := k.rt.Hooks()
	reg.SetExecutionHook(hooks.Compose(reg.ExecutionHook(), recordingHook{r.hook, r}))
	reg.SetEventNotifier(hooks.ComposeNotifiers(reg.EventNotifier(), recordingNotifier{r.notifier, r}))
	r.stop = k.rt.Breakers().OnStateChange(r.transition)
	return r
}

// recordingHook is a hooktest.RecordingHook whose OnStart also starts an Execution.
type recordingHook struct {
	*hooktest.RecordingHook
	r *Recorder
}

// OnStart records the call and returns ctx with the execution's record in it.
func (h recordingHook) OnStart(ctx context.Context, i hooks.Info) (context.Context, error) {
	ctx, err := h.RecordingHook.OnStart(ctx, i)
	x := &Execution{Key: i.CommandKey, Start: h.r.k.Elapsed()}
	h.r.mu.Lock()
	h.r.execs = append(h.r.execs, x)
	h.r.mu.Unlock()
	return context.WithValue(ctx, execKey{}, x), err
}

// recordingNotifier is a hooktest.RecordingNotifier whose MarkEvent also adds the event
// to its execution.
type recordingNotifier struct {
	*hooktest.RecordingNotifier
	r *Recorder
}

// MarkEvent records the call and adds e to the execution of ctx, or to an execution of
// its own when ctx has none of key (a cache hit has no OnStart): for a hit, the events
// its request log entry shows (those of the execution it replays, then
// RESPONSE_FROM_CACHE).
func (n recordingNotifier) MarkEvent(ctx context.Context, e metrics.EventType, key string) {
	n.RecordingNotifier.MarkEvent(ctx, e, key)
	x, _ := ctx.Value(execKey{}).(*Execution)
	n.r.mu.Lock()
	defer n.r.mu.Unlock()
	if x != nil && x.Key == key {
		x.Events = append(x.Events, e)
		return
	}
	x = &Execution{Key: key, Start: n.r.k.Elapsed(), Events: []metrics.EventType{e}}
	if e == metrics.ResponseFromCache {
		if logged := n.r.hitEvents(cache.FromContext(ctx), key); logged != nil {
			x.Events = logged
		}
	}
	n.r.execs = append(n.r.execs, x)
}

func (r *Recorder) transition(t breaker.Transition) {
	r.mu.Lock()
	r.transitions = append(r.transitions, t)
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

func (r *Recorder) close() { r.stop() }

// HookCalls returns the names of the hook methods called for command key ("" for every
// key), in order: "OnStart", "OnExecutionStart", ... ExpectHooks checks them.
func (r *Recorder) HookCalls(key string) []string {
	var out []string
	for _, c := range r.hook.Calls() {
		if key == "" || c.Info.CommandKey == key {
			out = append(out, c.Method)
		}
	}
	return out
}

// Executions returns the executions of command key ("" for every key) in the order they
// started.
func (r *Recorder) Executions(key string) []Execution {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Execution
	for _, x := range r.execs {
		if key == "" || x.Key == key {
			out = append(out, Execution{Key: x.Key, Start: x.Start, Events: slices.Clone(x.Events)})
		}
	}
	return out
}

// Runs returns the executions of key folded into runs of the same events.
func (r *Recorder) Runs(key string) []Run {
	var out []Run
	for _, x := range r.Executions(key) {
		if n := len(out); n > 0 && slices.Equal(out[n-1].Events, x.Events) {
			out[n-1].Count++
			out[n-1].Last = x.Start
			continue
		}
		out = append(out, Run{Events: x.Events, Count: 1, First: x.Start, Last: x.Start})
	}
	return out
}

// Transitions returns the state changes of key's breaker delivered so far, in order.
// They are delivered on the breaker registry's goroutine, a moment after they happen:
// ExpectTransitions waits for them.
func (r *Recorder) Transitions(key string) []breaker.Transition {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []breaker.Transition
	for _, t := range r.transitions {
		if t.Key == key {
			out = append(out, t)
		}
	}
	return out
}

// ExpectRuns checks that the executions of key, folded by Runs, are want, in order, each
// written as Run.String writes it. It reports a difference with t.Errorf and returns
// whether there was none.
func (r *Recorder) ExpectRuns(t testing.TB, key string, want ...string) bool {
	t.Helper()
	var got []string
	for _, run := range r.Runs(key) {
		got = append(got, run.String())
	}
	return expect(t, key+": runs of executions", got, want)
}

// ExpectHooks checks the hook calls of key's executions ("" for every key) against want,
// method names in order ("OnStart", "OnExecutionStart", ...).
func (r *Recorder) ExpectHooks(t testing.TB, key string, want ...string) bool {
	t.Helper()
	return expect(t, key+": hook calls", r.HookCalls(key), want)
}

// ExpectTransitions waits until key's breaker has delivered as many transitions as want
// names (at most Kit.SetStuckAfter's real time, 10 s by default), then checks them against want, each written as
// "CLOSED -> OPEN at 500ms": from, to and the kit's Elapsed when the state changed.
func (r *Recorder) ExpectTransitions(t testing.TB, key string, want ...string) bool {
	t.Helper()
	timeout := time.NewTimer(r.k.stuckAfter)
	defer timeout.Stop()
	for waiting := true; waiting; {
		r.mu.Lock()
		changed := r.changed
		r.mu.Unlock()
		if len(r.Transitions(key)) >= len(want) {
			break
		}
		select {
		case <-changed:
		case <-timeout.C:
			waiting = false
		}
	}
	return expect(t, key+": breaker transitions", r.transitionStrings(key), want)
}

func (r *Recorder) transitionStrings(key string) []string {
	var out []string
	for _, t := range r.Transitions(key) {
		out = append(out, fmt.Sprintf("%s -> %s at %v", t.From, t.To, t.At.Sub(r.k.start)))
	}
	return out
}
