//go:build !race

package command

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
)

// idlePlugins is an execution hook and an event notifier that do nothing but are not the
// no-op ones: what a command pays for having plugins at all.
type idlePlugins struct {
	hooks.NoopHook
	hooks.NoopNotifier
}

// emitBlind is an idle hook whose emit methods can be left out.
type emitBlind struct{ hooks.NoopHook }

func (emitBlind) IgnoresEmits() bool { return true }

// pluginRuntimes returns a runtime without plugins and one with plugins h and n, and a
// Setter of key with properties props on each.
func pluginRuntimes(t *testing.T, h hooks.ExecutionHook, n hooks.EventNotifier, props config.Overrides) (off, on Setter) {
	plain := NewRuntime()
	reg := hooks.NewRegistry()
	reg.SetExecutionHook(h)
	reg.SetEventNotifier(n)
	withPlugins := NewRuntime(WithHooks(reg))
	t.Cleanup(plain.Close)
	t.Cleanup(withPlugins.Close)
	return Setter{Runtime: plain, CommandKey: "K", Properties: props},
		Setter{Runtime: withPlugins, CommandKey: "K", Properties: props}
}

// An idle hook and notifier cost an execution no allocation on the success, fallback and
// short-circuit paths, through New+Execute and Kind.ExecutePooled (the race detector changes
// allocation counts, so this runs without it): the hook calls take what they need from
// the execution, and MarkCommandExecution gets a list of events shared by the executions
// with the same events.
func TestIdlePluginsAllocateNothing(t *testing.T) {
	ctx := context.Background()
	down := errors.New("down")
	fails := func(context.Context) (int, error) { return 0, down }
	for _, tc := range []struct {
		name  string
		props config.Overrides
		run   func(context.Context) (int, error)
		want  int
	}{
		{"success", config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}, benchRun, 1},
		{"failure with fallback", config.Overrides{"execution.isolation.strategy": "SEMAPHORE",
			"circuitBreaker.enabled": "false"}, fails, 2},
		{"short circuit", config.Overrides{"execution.isolation.strategy": "SEMAPHORE",
			"circuitBreaker.forceOpen": "true"}, benchRun, 2},
		{"thread", config.Overrides{"execution.isolation.strategy": "THREAD"}, benchRun, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			off, on := pluginRuntimes(t, idlePlugins{}, idlePlugins{}, tc.props)
			allocs := func(s Setter) float64 {
				return testing.AllocsPerRun(1000, func() {
					v, err := New(s, tc.run).WithFallback(benchFallback).Execute(ctx)
					require.NoError(t, err)
					require.Equal(t, tc.want, v)
				})
			}
			assert.Equal(t, allocs(off), allocs(on), "New+Execute")
			kindAllocs := func(s Setter) float64 {
				s.CommandKey = "Kind"
				k, err := Define[int](s)
				require.NoError(t, err)
				k = k.WithFallback(benchFallback)
				return testing.AllocsPerRun(1000, func() {
					v, err := k.ExecutePooled(ctx, tc.run)
					require.NoError(t, err)
					require.Equal(t, tc.want, v)
				})
			}
			assert.Equal(t, kindAllocs(off), kindAllocs(on), "Kind.ExecutePooled")
		})
	}
}

// A hook whose emit methods can be left out (hooks.EmitIgnorer) spares a command the
// boxing of its value, an allocation for a string; one whose emit methods are called pays
// it.
func TestAnEmitBlindHookSparesTheBoxing(t *testing.T) {
	ctx := context.Background()
	props := config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}
	n := 1000
	run := func(context.Context) (string, error) { return strconv.Itoa(n), nil } // n > 255: Itoa allocates
	allocs := func(s Setter) float64 {
		return testing.AllocsPerRun(1000, func() {
			v, err := New(s, run).Execute(ctx)
			require.NoError(t, err)
			require.Equal(t, "1000", v)
		})
	}
	off, blind := pluginRuntimes(t, emitBlind{}, nil, props)
	_, emits := pluginRuntimes(t, idlePlugins{}, nil, props)
	assert.Equal(t, allocs(off), allocs(blind), "no boxing for a hook whose emit methods are left out")
	assert.Equal(t, allocs(off)+1, allocs(emits), "the value boxed for the emit methods")
}
