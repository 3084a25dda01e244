package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPropertyGetDoesNotAllocate(t *testing.T) {
	p, err := NewStore(NewMemorySource()).Command("Alloc", nil)
	require.NoError(t, err)
	var d time.Duration
	var n int
	var s IsolationStrategy
	allocs := testing.AllocsPerRun(1000, func() {
		d = ExecutionTimeout.In(p).Get()
		n = ExecutionMaxConcurrentRequests.In(p).Get()
		s = ExecutionIsolationStrategy.In(p).Get()
	})
	assert.Zero(t, allocs)
	assert.Equal(t, time.Second, d)
	assert.Equal(t, 10, n)
	assert.Equal(t, Thread, s)
}

func TestFixed(t *testing.T) {
	p := Fixed("limit", 3)
	assert.Equal(t, 3, p.Get())
	assert.Equal(t, "limit", p.Name())
	assert.Equal(t, "3", p.String())
}

func TestPropertyNameAndString(t *testing.T) {
	p, err := NewStore().Command("Named", Overrides{"execution.isolation.thread.timeoutInMilliseconds": "250"})
	require.NoError(t, err)
	assert.Equal(t, "hystrix.command.Named.execution.isolation.thread.timeoutInMilliseconds", ExecutionTimeout.In(p).Name())
	assert.Equal(t, "250", ExecutionTimeout.In(p).String())
	assert.Equal(t, "THREAD", ExecutionIsolationStrategy.In(p).String())
}

func BenchmarkPropertyGet(b *testing.B) {
	p, err := NewStore(NewMemorySource()).Command("Bench", nil)
	require.NoError(b, err)
	b.ReportAllocs()
	var sum time.Duration
	for b.Loop() {
		sum += ExecutionTimeout.In(p).Get()
	}
	_ = sum
}

func BenchmarkPropertyGetParallel(b *testing.B) {
	p, err := NewStore(NewMemorySource()).Command("Bench", nil)
	require.NoError(b, err)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		n := 0
		for pb.Next() {
			n += ExecutionMaxConcurrentRequests.In(p).Get()
		}
		_ = n
	})
}
