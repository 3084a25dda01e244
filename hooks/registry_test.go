package hooks_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/hooktest"
)

func TestRegistryZeroValueHoldsNoopHook(t *testing.T) {
	var r hooks.Registry
	assert.True(t, hooks.IsNoop(r.ExecutionHook()))
	assert.True(t, hooks.IsNoop(hooks.NewRegistry().ExecutionHook()))
}

func TestRegistryReplaceAndReset(t *testing.T) {
	r := hooks.NewRegistry()
	first, second := &hooktest.RecordingHook{}, &hooktest.RecordingHook{}

	r.SetExecutionHook(first)
	assert.Same(t, first, r.ExecutionHook())
	assert.False(t, hooks.IsNoop(r.ExecutionHook()))

	r.SetExecutionHook(second)
	assert.Same(t, second, r.ExecutionHook())

	r.SetExecutionHook(nil)
	assert.True(t, hooks.IsNoop(r.ExecutionHook()))

	r.SetExecutionHook(first)
	r.Reset()
	assert.True(t, hooks.IsNoop(r.ExecutionHook()))
}

func TestDefaultIsOneSharedRegistryIndependentOfNewOnes(t *testing.T) {
	t.Cleanup(func() { hooks.Default().SetExecutionHook(nil) })
	assert.Same(t, hooks.Default(), hooks.Default())

	rec := &hooktest.RecordingHook{}
	hooks.Default().SetExecutionHook(rec)
	fresh := hooks.NewRegistry()
	assert.Same(t, rec, hooks.Default().ExecutionHook())
	assert.True(t, hooks.IsNoop(fresh.ExecutionHook()))
}

func TestRegistryReplaceWhileCommandsRun(t *testing.T) {
	r := hooks.NewRegistry()
	hs := []hooks.ExecutionHook{&hooktest.RecordingHook{}, &hooktest.RecordingHook{}, hooks.NoopHook{}}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var calls atomic.Int64
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				h := r.ExecutionHook()
				if !hooks.IsNoop(h) {
					h.OnSuccess(t.Context(), hooks.Info{CommandKey: "k"})
				}
				calls.Add(1)
			}
		})
	}
	for i := range 2000 {
		r.SetExecutionHook(hs[i%len(hs)])
		if i%100 == 0 {
			r.Reset()
		}
	}
	for calls.Load() < 1000 {
		r.SetExecutionHook(hs[0])
	}
	stop.Store(true)
	wg.Wait()
	r.SetExecutionHook(hs[1])
	assert.Same(t, hs[1], r.ExecutionHook())
}

func TestRegistryReadDoesNotAllocate(t *testing.T) {
	r := hooks.NewRegistry()
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = hooks.IsNoop(r.ExecutionHook()) }))
	r.SetExecutionHook(&hooktest.RecordingHook{})
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = hooks.IsNoop(r.ExecutionHook()) }))
}

func BenchmarkRegistryExecutionHook(b *testing.B) {
	r := hooks.NewRegistry()
	b.ReportAllocs()
	for b.Loop() {
		if h := r.ExecutionHook(); !hooks.IsNoop(h) {
			b.Fatal("expected the no-op hook")
		}
	}
}
