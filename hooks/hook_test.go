package hooks

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceOrder is the hook methods in the order of Hystrix's HystrixCommandExecutionHook.
var referenceOrder = []string{
	"OnStart", "OnThreadStart", "OnExecutionStart", "OnExecutionEmit", "OnEmit",
	"OnExecutionSuccess", "OnExecutionError", "OnThreadComplete", "OnFallbackStart",
	"OnFallbackEmit", "OnFallbackSuccess", "OnFallbackError", "OnSuccess", "OnError",
	"OnCacheHit", "OnUnsubscribe",
}

func TestExecutionHookDeclaresMethodsInReferenceOrder(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "hook.go", nil, 0)
	require.NoError(t, err)
	var got []string
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "ExecutionHook" {
			return true
		}
		for _, m := range ts.Type.(*ast.InterfaceType).Methods.List {
			got = append(got, m.Names[0].Name)
		}
		return false
	})
	assert.Equal(t, referenceOrder, got)
}

// callAll calls every hook method once, in reference order.
func callAll(ctx context.Context, h ExecutionHook, info Info, v any, err error) [16]error {
	return [16]error{
		func() error { _, err := h.OnStart(ctx, info); return err }(),
		h.OnThreadStart(ctx, info),
		h.OnExecutionStart(ctx, info),
		func() error { h.OnExecutionEmit(ctx, info, v); return nil }(),
		func() error { h.OnEmit(ctx, info, v); return nil }(),
		func() error { h.OnExecutionSuccess(ctx, info); return nil }(),
		func() error { h.OnExecutionError(ctx, info, err); return nil }(),
		func() error { h.OnThreadComplete(ctx, info); return nil }(),
		func() error { h.OnFallbackStart(ctx, info); return nil }(),
		func() error { h.OnFallbackEmit(ctx, info, v); return nil }(),
		func() error { h.OnFallbackSuccess(ctx, info); return nil }(),
		func() error { h.OnFallbackError(ctx, info, err); return nil }(),
		func() error { h.OnSuccess(ctx, info); return nil }(),
		func() error { h.OnError(ctx, info, err); return nil }(),
		func() error { h.OnCacheHit(ctx, info); return nil }(),
		func() error { h.OnUnsubscribe(ctx, info); return nil }(),
	}
}

// TestNoopHookChangesNothing: the no-op hook returns no error, hands OnStart's context
// back unchanged and allocates nothing.
func TestNoopHookChangesNothing(t *testing.T) {
	ctx := context.WithValue(t.Context(), ctxKey{}, "caller")
	info := Info{CommandKey: "k"}
	for _, h := range []ExecutionHook{NoopHook{}, &NoopHook{}} {
		for _, err := range callAll(ctx, h, info, 1, errors.New("boom")) {
			assert.NoError(t, err)
		}
		got, err := h.OnStart(ctx, info)
		require.NoError(t, err)
		assert.Equal(t, ctx, got, "OnStart returns the caller's context")
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = callAll(ctx, h, info, nil, nil) }))
	}
}

func TestRecordingHookRecordsEveryMethodByName(t *testing.T) {
	rec := &RecordingHook{}
	info := Info{CommandKey: "Cmd", GroupKey: "Grp", ThreadPoolKey: "Pool"}
	boom := errors.New("boom")
	ctx := context.WithValue(t.Context(), ctxKey{}, "caller")
	for _, err := range callAll(ctx, rec, info, 42, boom) {
		require.NoError(t, err)
	}
	assert.Equal(t, referenceOrder, rec.Names())

	calls := rec.Calls()
	require.Len(t, calls, len(referenceOrder))
	for _, c := range calls {
		assert.Equal(t, info, c.Info, c.Method)
		assert.Equal(t, "caller", c.Ctx.Value(ctxKey{}), c.Method)
		switch c.Method {
		case "OnExecutionEmit", "OnEmit", "OnFallbackEmit":
			assert.Equal(t, 42, c.Value, c.Method)
			assert.NoError(t, c.Err, c.Method)
		case "OnExecutionError", "OnFallbackError", "OnError":
			assert.Same(t, boom, c.Err, c.Method)
			assert.Nil(t, c.Value, c.Method)
		default:
			assert.Nil(t, c.Value, c.Method)
			assert.NoError(t, c.Err, c.Method)
		}
	}

	rec.Reset()
	assert.Empty(t, rec.Names())
}

// failingStart shows the documented way to make a recording hook fail.
type failingStart struct{ *RecordingHook }

func (f failingStart) OnStart(ctx context.Context, i Info) (context.Context, error) {
	_, _ = f.RecordingHook.OnStart(ctx, i)
	return ctx, errors.New("refused")
}

func TestRecordingHookCanBeEmbeddedToFail(t *testing.T) {
	h := failingStart{&RecordingHook{}}
	_, err := h.OnStart(t.Context(), Info{})
	require.EqualError(t, err, "refused")
	h.OnSuccess(t.Context(), Info{})
	assert.Equal(t, []string{"OnStart", "OnSuccess"}, h.Names())
}

type onlyErrors struct {
	NoopHook
	errs []error
}

func (o *onlyErrors) OnError(_ context.Context, _ Info, err error) { o.errs = append(o.errs, err) }

func TestIsNoop(t *testing.T) {
	cases := []struct {
		name string
		h    ExecutionHook
		want bool
	}{
		{"value", NoopHook{}, true},
		{"pointer", &NoopHook{}, true},
		{"embedding struct", &onlyErrors{}, false},
		{"recording", &RecordingHook{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, IsNoop(tc.h)) })
	}
}

type ctxKey struct{}

// blind is a hook that says whether its emit methods can be left out.
type blind struct {
	NoopHook
	ignores bool
}

func (b blind) IgnoresEmits() bool { return b.ignores }

// panicky is a hook whose IgnoresEmits panics (user code is hostile).
type panicky struct{ NoopHook }

func (panicky) IgnoresEmits() bool { panic("boom") }

func TestIgnoresEmits(t *testing.T) {
	cases := []struct {
		name string
		h    ExecutionHook
		want bool
	}{
		{"a hook that says nothing", &onlyErrors{}, false},
		{"a hook that says they can", blind{ignores: true}, true},
		{"a hook that says they cannot", blind{ignores: false}, false},
		{"hooks that all say they can", Compose(blind{ignores: true}, blind{ignores: true}), true},
		{"hooks of which one needs them", Compose(blind{ignores: true}, &RecordingHook{}), false},
		{"a hook whose answer panics: they are called", panicky{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, IgnoresEmits(tc.h)) })
	}
}
