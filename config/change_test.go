package config

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingSource counts the lookups the Stores using it make.
type countingSource struct {
	*MemorySource
	gets atomic.Int64
}

func (c *countingSource) Get(name string) (string, bool) {
	c.gets.Add(1)
	return c.MemorySource.Get(name)
}

// TestChangeCostFollowsTheKeysItTouches: a change of one key's property costs the same
// lookups whether the Store holds 10 keys or 2,000 (one key's properties, at most two
// names each, and the changed name checked); a default value costs a lookup round per
// key of its scope.
func TestChangeCostFollowsTheKeysItTouches(t *testing.T) {
	lookups := func(keys int, name string) int64 {
		src := &countingSource{MemorySource: NewMemorySource()}
		store := NewStore(src)
		defer store.Close()
		for i := range keys {
			_, err := store.Command(fmt.Sprint("K", i), nil)
			require.NoError(t, err)
			_, err = store.ThreadPool(fmt.Sprint("K", i), nil)
			require.NoError(t, err)
		}
		src.gets.Store(0)
		require.NoError(t, src.Set(name, "42"))
		return src.gets.Load()
	}
	one := "hystrix.command.K1." + timeoutName
	small, large := lookups(10, one), lookups(2000, one)
	t.Logf("a change of one key: %d lookups with 10 keys held, %d with 2,000", small, large)
	assert.Equal(t, small, large)
	assert.LessOrEqual(t, large, int64(2*len(commandScope.fields)+1))

	def := "hystrix.threadpool.default.coreSize"
	small, large = lookups(10, def), lookups(2000, def)
	t.Logf("a change of a default: %d lookups with 10 keys held, %d with 2,000", small, large)
	assert.Equal(t, large-1, 200*(small-1), "a lookup round per thread-pool key")
}

// BenchmarkChangeOneKey is a change of one key's property while the Store holds 1,000
// or 10,000 command keys: about the same time either way.
func BenchmarkChangeOneKey(b *testing.B) {
	for _, keys := range []int{1000, 10_000} {
		b.Run(fmt.Sprint("keys=", keys), func(b *testing.B) {
			mem := NewMemorySource()
			store := NewStore(mem)
			defer store.Close()
			for i := range keys {
				if _, err := store.Command(fmt.Sprint("K", i), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if err := mem.Set("hystrix.command.K1."+timeoutName, fmt.Sprint(100+i%2)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
