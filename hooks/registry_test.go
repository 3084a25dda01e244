package hooks

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRegistryZeroValueHoldsNoopHook(t *testing.T) {
	var r Registry
	assert.True(t, IsNoop(r.ExecutionHook()))
	assert.True(t, IsNoop(NewRegistry().ExecutionHook()))
}

func TestRegistryReplaceAndReset(t *testing.T) {
	r := NewRegistry()
	first, second := &RecordingHook{}, &RecordingHook{}

	r.SetExecutionHook(first)
	assert.Same(t, first, r.ExecutionHook())
	assert.False(t, IsNoop(r.ExecutionHook()))

	r.SetExecutionHook(second)
	assert.Same(t, second, r.ExecutionHook())

	r.SetExecutionHook(nil)
	assert.True(t, IsNoop(r.ExecutionHook()))

	r.SetExecutionHook(first)
	r.Reset()
	assert.True(t, IsNoop(r.ExecutionHook()))
}

func TestDefaultIsOneSharedRegistryIndependentOfNewOnes(t *testing.T) {
	t.Cleanup(Default().Reset)
	assert.Same(t, Default(), Default())

	rec := &RecordingHook{}
	Default().SetExecutionHook(rec)
	fresh := NewRegistry()
	assert.Same(t, rec, Default().ExecutionHook())
	assert.True(t, IsNoop(fresh.ExecutionHook()))
}

func TestRegistryReplaceWhileCommandsRun(t *testing.T) {
	r := NewRegistry()
	hooks := []ExecutionHook{&RecordingHook{}, &RecordingHook{}, NoopHook{}}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var calls atomic.Int64
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				h := r.ExecutionHook()
				if !IsNoop(h) {
					h.OnSuccess(t.Context(), Info{CommandKey: "k"})
				}
				calls.Add(1)
			}
		})
	}
	for i := range 2000 {
		r.SetExecutionHook(hooks[i%len(hooks)])
		if i%100 == 0 {
			r.Reset()
		}
	}
	for calls.Load() < 1000 {
		r.SetExecutionHook(hooks[0])
	}
	stop.Store(true)
	wg.Wait()
	r.SetExecutionHook(hooks[1])
	assert.Same(t, hooks[1], r.ExecutionHook())
}

func TestRegistryReadDoesNotAllocate(t *testing.T) {
	r := NewRegistry()
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = IsNoop(r.ExecutionHook()) }))
	r.SetExecutionHook(&RecordingHook{})
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = IsNoop(r.ExecutionHook()) }))
}

func BenchmarkRegistryExecutionHook(b *testing.B) {
	r := NewRegistry()
	b.ReportAllocs()
	for b.Loop() {
		if h := r.ExecutionHook(); !IsNoop(h) {
			b.Fatal("expected the no-op hook")
		}
	}
}
