package hooks_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/hooktest"
)

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
	assert.Equal(t, hooktest.ReferenceOrder, got)
}

// TestNoopHookChangesNothing: the no-op hook returns no error, hands OnStart's context
// back unchanged and allocates nothing.
func TestNoopHookChangesNothing(t *testing.T) {
	ctx := context.WithValue(t.Context(), ctxKey{}, "caller")
	info := hooks.Info{CommandKey: "k"}
	for _, h := range []hooks.ExecutionHook{hooks.NoopHook{}, &hooks.NoopHook{}} {
		for _, err := range hooktest.CallAll(ctx, h, info, 1, errors.New("boom")) {
			assert.NoError(t, err)
		}
		got, err := h.OnStart(ctx, info)
		require.NoError(t, err)
		assert.Equal(t, ctx, got, "OnStart returns the caller's context")
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = hooktest.CallAll(ctx, h, info, nil, nil) }))
	}
}

type onlyErrors struct {
	hooks.NoopHook
	errs []error
}

func (o *onlyErrors) OnError(_ context.Context, _ hooks.Info, err error) {
	o.errs = append(o.errs, err)
}

func TestIsNoop(t *testing.T) {
	cases := []struct {
		name string
		h    hooks.ExecutionHook
		want bool
	}{
		{"value", hooks.NoopHook{}, true},
		{"pointer", &hooks.NoopHook{}, true},
		{"embedding struct", &onlyErrors{}, false},
		{"recording", &hooktest.RecordingHook{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, hooks.IsNoop(tc.h)) })
	}
}

type ctxKey struct{}

// blind is a hook that says whether its emit methods can be left out.
type blind struct {
	hooks.NoopHook
	ignores bool
}

func (b blind) IgnoresEmits() bool { return b.ignores }

// panicky is a hook whose IgnoresEmits panics (user code is hostile).
type panicky struct{ hooks.NoopHook }

func (panicky) IgnoresEmits() bool { panic("boom") }

func TestIgnoresEmits(t *testing.T) {
	cases := []struct {
		name string
		h    hooks.ExecutionHook
		want bool
	}{
		{"a hook that says nothing", &onlyErrors{}, false},
		{"a hook that says they can", blind{ignores: true}, true},
		{"a hook that says they cannot", blind{ignores: false}, false},
		{"hooks that all say they can", hooks.Compose(blind{ignores: true}, blind{ignores: true}), true},
		{"hooks of which one needs them", hooks.Compose(blind{ignores: true}, &hooktest.RecordingHook{}), false},
		{"a hook whose answer panics: they are called", panicky{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, hooks.IgnoresEmits(tc.h)) })
	}
}
