package hooks_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/hooktest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestComposeLeavesOutNoopHooks(t *testing.T) {
	assert.Equal(t, hooks.NoopHook{}, hooks.Compose())
	assert.Equal(t, hooks.NoopHook{}, hooks.Compose(hooks.NoopHook{}, &hooks.NoopHook{}, nil))
	rec := &hooktest.RecordingHook{}
	assert.Same(t, rec, hooks.Compose(hooks.NoopHook{}, rec, nil), "one real hook is returned as it is")
	assert.False(t, hooks.IsNoop(hooks.Compose(rec, &hooktest.RecordingHook{})))

	assert.Equal(t, hooks.NoopNotifier{}, hooks.ComposeNotifiers(hooks.NoopNotifier{}, nil))
	n := &hooktest.RecordingNotifier{}
	assert.Same(t, n, hooks.ComposeNotifiers(n, &hooks.NoopNotifier{}))
}

// tagging is a hook whose OnStart adds its tag to the context and records the tags it saw.
type tagging struct {
	*hooktest.RecordingHook
	tag string
}

type tagKey struct{}

func (h tagging) OnStart(ctx context.Context, i hooks.Info) (context.Context, error) {
	_, _ = h.RecordingHook.OnStart(ctx, i)
	prev, _ := ctx.Value(tagKey{}).(string)
	return context.WithValue(ctx, tagKey{}, prev+h.tag), nil
}

func TestComposeCallsEveryHookInOrderAndThreadsTheContext(t *testing.T) {
	a, b := tagging{&hooktest.RecordingHook{}, "a"}, tagging{&hooktest.RecordingHook{}, "b"}
	h := hooks.Compose(a, b)
	info := hooks.Info{CommandKey: "K"}
	boom := errors.New("boom")
	for _, err := range hooktest.CallAll(context.WithValue(t.Context(), ctxKey{}, "caller"), h, info, 7, boom) {
		require.NoError(t, err)
	}
	for _, r := range []*hooktest.RecordingHook{a.RecordingHook, b.RecordingHook} {
		assert.Equal(t, hooktest.ReferenceOrder, r.Names())
		for _, c := range r.Calls() {
			assert.Equal(t, "caller", c.Ctx.Value(ctxKey{}), c.Method)
		}
	}
	assert.Nil(t, a.Calls()[0].Ctx.Value(tagKey{}), "the first hook gets the caller's context")
	assert.Equal(t, "a", b.Calls()[0].Ctx.Value(tagKey{}), "the second gets what the first returned")

	ctx, err := h.OnStart(t.Context(), info)
	require.NoError(t, err)
	assert.Equal(t, "ab", ctx.Value(tagKey{}), "the execution gets what the last returned")
}

// failingStartWith fails OnStart with err, or panics with it when panics is set.
type failingStartWith struct {
	*hooktest.RecordingHook
	err    error
	panics bool
}

func (f failingStartWith) OnStart(ctx context.Context, i hooks.Info) (context.Context, error) {
	_, _ = f.RecordingHook.OnStart(ctx, i)
	if f.panics {
		panic(f.err)
	}
	return ctx, f.err
}

func TestComposeUnwindsTheStartedHooksWhenOnStartFails(t *testing.T) {
	refused := errors.New("refused")
	for _, panics := range []bool{false, true} {
		first, second, last := tagging{&hooktest.RecordingHook{}, "a"}, tagging{&hooktest.RecordingHook{}, "b"}, &hooktest.RecordingHook{}
		h := hooks.Compose(first, second, failingStartWith{&hooktest.RecordingHook{}, refused, panics}, last)
		start := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = p.(error)
				}
			}()
			_, err = h.OnStart(t.Context(), hooks.Info{CommandKey: "K"})
			return err
		}
		assert.ErrorIs(t, start(), refused, "panics: %v", panics)

		assert.Equal(t, []string{"OnStart", "OnError"}, first.Names())
		assert.Equal(t, []string{"OnStart", "OnError"}, second.Names())
		assert.Empty(t, last.Names(), "a hook after the failing one never started")
		onErr := first.Calls()[1]
		assert.ErrorContains(t, onErr.Err, "refused")
		assert.Equal(t, "ab", onErr.Ctx.Value(tagKey{}), "unwinding uses the latest context, so each hook finds what it stored")
	}
}

// failingExecStart fails OnExecutionStart.
type failingExecStart struct{ *hooktest.RecordingHook }

func (f failingExecStart) OnExecutionStart(ctx context.Context, i hooks.Info) error {
	_ = f.RecordingHook.OnExecutionStart(ctx, i)
	return errors.New("no")
}

func TestComposeExecutionStartStopsAtTheFirstError(t *testing.T) {
	after := &hooktest.RecordingHook{}
	h := hooks.Compose(failingExecStart{&hooktest.RecordingHook{}}, after)
	require.EqualError(t, h.OnExecutionStart(t.Context(), hooks.Info{}), "no")
	assert.Empty(t, after.Names())
	require.NoError(t, h.OnThreadStart(t.Context(), hooks.Info{}))
	assert.Equal(t, []string{"OnThreadStart"}, after.Names())
}

type panickingSuccess struct{ hooks.NoopHook }

func (panickingSuccess) OnSuccess(context.Context, hooks.Info) { panic("first") }

type panickingNotifier struct{ hooks.NoopNotifier }

func (panickingNotifier) MarkEvent(context.Context, metrics.EventType, string) { panic("first") }

func TestComposeCallsEveryHookEvenIfOnePanics(t *testing.T) {
	rec := &hooktest.RecordingHook{}
	h := hooks.Compose(panickingSuccess{}, rec, panickingSuccess{})
	assert.PanicsWithValue(t, "first", func() { h.OnSuccess(t.Context(), hooks.Info{}) })
	assert.Equal(t, []string{"OnSuccess"}, rec.Names())

	n := &hooktest.RecordingNotifier{}
	c := hooks.ComposeNotifiers(panickingNotifier{}, n)
	assert.PanicsWithValue(t, "first", func() { c.MarkEvent(t.Context(), metrics.Failure, "K") })
	c.MarkCommandExecution(t.Context(), "K", config.Semaphore, 0, []metrics.EventType{metrics.Success})
	assert.Equal(t, []hooktest.Mark{{Event: metrics.Failure, Key: "K"}}, n.Marks())
	require.Len(t, n.Executions(), 1)
	assert.Equal(t, "K", n.Executions()[0].Key)
}
