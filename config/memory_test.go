package config

import (
	"fmt"
	"runtime"
	"testing"
)

// memKeys is how many keys the memory measurements create.
const memKeys = 10_000

// heapPerKey returns the live heap bytes per key that create adds to a fresh Store,
// measured as the HeapAlloc delta over memKeys keys between two runtime.GC calls. The
// key strings are made before the first measurement: they belong to the caller.
func heapPerKey(create func(s *Store, key string) error) (float64, error) {
	keys := make([]string, memKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("DynamicKey%06d", i)
	}
	store := NewStore(NewMemorySource(), NewEnvSource())
	defer store.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, k := range keys {
		if err := create(store, k); err != nil {
			return 0, err
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(store)
	runtime.KeepAlive(keys)
	return (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / memKeys, nil
}

var memScopes = []struct {
	name   string
	create func(s *Store, key string) error
}{
	{"command", func(s *Store, k string) error { _, err := s.Command(k, nil); return err }},
	{"command+overrides", func(s *Store, k string) error {
		_, err := s.Command(k, Overrides{"execution.isolation.thread.timeoutInMilliseconds": "500",
			"execution.isolation.strategy": "SEMAPHORE"})
		return err
	}},
	{"threadpool", func(s *Store, k string) error { _, err := s.ThreadPool(k, nil); return err }},
	{"collapser", func(s *Store, k string) error { _, err := s.Collapser(k, nil); return err }},
}

// BenchmarkHeapPerKey reports the live heap bytes one key costs (bytes/key).
func BenchmarkHeapPerKey(b *testing.B) {
	for _, sc := range memScopes {
		b.Run(sc.name, func(b *testing.B) {
			var per float64
			for b.Loop() {
				var err error
				if per, err = heapPerKey(sc.create); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(per, "bytes/key")
		})
	}
}

// Budgets in live heap bytes per key (measured without -race: 2126 / 2193 / 569 / 593
// with the 62 command properties, a slab of Properties per value type; 2154 / 2225 / 569 /
// 609 before, with a Property allocated per property and a field per property in the
// owner). A failure means the per-key layout grew: see the memory layout notes in set.go.
var memBudget = map[string]float64{
	"command": 2400, "command+overrides": 2500, "threadpool": 600, "collapser": 600,
}

func TestHeapPerKeyWithinBudget(t *testing.T) {
	for _, sc := range memScopes {
		per, err := heapPerKey(sc.create)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %.0f bytes/key (budget %.0f)", sc.name, per, memBudget[sc.name])
		if per > memBudget[sc.name] {
			t.Errorf("%s: %.0f heap bytes per key, budget %.0f", sc.name, per, memBudget[sc.name])
		}
	}
}

func TestForgottenKeysCostNoMemory(t *testing.T) {
	keys := make([]string, memKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("Gone%06d", i)
	}
	mem := NewMemorySource()
	store := NewStore(mem)
	defer store.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, k := range keys {
		if _, err := store.Command(k, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := store.ThreadPool(k, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Collapser(k, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range keys {
		if !store.ForgetCommand(k) || !store.ForgetThreadPool(k) || !store.forgetCollapser(k) {
			t.Fatalf("key %s not held", k)
		}
	}
	runtime.GC()
	mem.Set("hystrix.command.default.fallback.enabled", "false") // drops the collected
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / memKeys
	t.Logf("after forgetting: %.1f bytes/key", per)
	if per > 16 {
		t.Errorf("forgotten keys still cost %.1f heap bytes per key", per)
	}
	store.mu.RLock()
	n := len(store.sets) + len(store.commands) + len(store.pools) + len(store.collapsers) + len(store.forgotten)
	store.mu.RUnlock()
	if n != 0 {
		t.Errorf("store still tracks %d entries", n)
	}
	runtime.KeepAlive(keys)
}

// BenchmarkRefresh10kKeys is one source change re-resolving 10,000 command keys.
func BenchmarkRefresh10kKeys(b *testing.B) {
	mem := NewMemorySource()
	store := NewStore(mem)
	defer store.Close()
	for i := range memKeys {
		if _, err := store.Command(fmt.Sprintf("DynamicKey%06d", i), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		mem.Set("hystrix.command.default.execution.isolation.thread.timeoutInMilliseconds", fmt.Sprint(100+i%2))
	}
}
