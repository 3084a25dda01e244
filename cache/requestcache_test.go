package cache

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGetOrStartMissThenHits(t *testing.T) {
	var c RequestCache
	runs := 0
	start := func() any { runs++; return runs }

	v, hit := c.GetOrStart("Cmd", "1", start)
	assert.Equal(t, 1, v)
	assert.False(t, hit)

	for range 3 {
		v, hit = c.GetOrStart("Cmd", "1", start)
		assert.Equal(t, 1, v)
		assert.True(t, hit)
	}
	assert.Equal(t, 1, runs)
}

func TestGetOrStartKeysDoNotCollide(t *testing.T) {
	var c RequestCache
	cases := []struct{ command, key string }{
		{"a:b", "c"}, {"a", "b:c"}, {"ab", "c"}, {"a", "bc"}, {"Other", "c"}, {"a", ""},
	}
	for i, tc := range cases {
		v, hit := c.GetOrStart(tc.command, tc.key, func() any { return i })
		assert.Equal(t, i, v, "%+v", tc)
		assert.False(t, hit, "%+v", tc)
	}
	assert.Equal(t, len(cases), c.len())
}

func TestGetOrStartConcurrentDuplicatesStartOnce(t *testing.T) {
	var c RequestCache
	const n = 64
	var runs atomic.Int32
	release := make(chan struct{})
	entered := make(chan struct{})
	start := func() any {
		runs.Add(1)
		close(entered)
		<-release // hold the execution in flight while the duplicates arrive
		return new(int)
	}

	type result struct {
		v   any
		hit bool
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			v, hit := c.GetOrStart("Cmd", "same", start)
			results[i] = result{v, hit}
		})
	}
	<-entered
	close(release)
	wg.Wait()

	assert.Equal(t, int32(1), runs.Load())
	misses := 0
	for _, r := range results {
		assert.Same(t, results[0].v, r.v)
		if !r.hit {
			misses++
		}
	}
	assert.Equal(t, 1, misses, "exactly one caller started the execution")
}

func TestGetOrStartManyKeysConcurrently(t *testing.T) {
	var c RequestCache
	keys := []string{"a", "b", "c", "d"}
	var runs [4]atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		for i, k := range keys {
			wg.Go(func() {
				v, _ := c.GetOrStart("Cmd", k, func() any { runs[i].Add(1); return k })
				assert.Equal(t, k, v)
			})
		}
	}
	wg.Wait()
	for i := range runs {
		assert.Equal(t, int32(1), runs[i].Load(), keys[i])
	}
}

func TestClearStartsANewExecution(t *testing.T) {
	var c RequestCache
	runs := 0
	start := func() any { runs++; return runs }

	c.GetOrStart("Cmd", "1", start)
	c.GetOrStart("Cmd", "2", start)
	c.Clear("Cmd", "1")
	c.Clear("Cmd", "missing") // no-op

	v, hit := c.GetOrStart("Cmd", "1", start)
	assert.Equal(t, 3, v)
	assert.False(t, hit)
	v, hit = c.GetOrStart("Cmd", "2", start)
	assert.Equal(t, 2, v, "other keys are untouched")
	assert.True(t, hit)
}

func TestGetOrStartPanickingStartCachesNothing(t *testing.T) {
	var c RequestCache
	require.PanicsWithValue(t, "boom", func() {
		c.GetOrStart("Cmd", "1", func() any { panic("boom") })
	})
	assert.Zero(t, c.len())
	v, hit := c.GetOrStart("Cmd", "1", func() any { return "ok" })
	assert.Equal(t, "ok", v)
	assert.False(t, hit)
}

func TestGetOrStartWaiterTakesOverAfterStarterPanics(t *testing.T) {
	var c RequestCache
	entered, release := make(chan struct{}), make(chan struct{})
	panicked := make(chan any, 1)
	go func() {
		defer func() { panicked <- recover() }()
		c.GetOrStart("Cmd", "1", func() any {
			close(entered)
			<-release
			panic("boom")
		})
	}()
	<-entered

	type result struct {
		v   any
		hit bool
	}
	got := make(chan result, 1)
	go func() {
		v, hit := c.GetOrStart("Cmd", "1", func() any { return "second" })
		got <- result{v, hit}
	}()
	waitUntilWaiting(t)
	close(release)

	assert.Equal(t, "boom", <-panicked)
	r := <-got
	assert.Equal(t, "second", r.v)
	assert.False(t, r.hit, "the waiter became the starter")
}

func BenchmarkGetOrStartHit(b *testing.B) {
	var c RequestCache
	c.GetOrStart("Cmd", "1", func() any { return 1 })
	start := func() any { return 2 }
	b.ReportAllocs()
	for b.Loop() {
		if _, hit := c.GetOrStart("Cmd", "1", start); !hit {
			b.Fatal("expected a hit")
		}
	}
}

// waitUntilWaiting blocks until some goroutine is parked inside GetOrStart waiting for an
// in-flight start to return (its top frame is GetOrStart itself, in a channel receive).
func waitUntilWaiting(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for range 10000 {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			lines := strings.SplitN(g, "\n", 3)
			if len(lines) >= 2 && strings.Contains(lines[0], "[chan receive") &&
				strings.Contains(lines[1], "cache.(*RequestCache).GetOrStart(") {
				return
			}
		}
		runtime.Gosched()
	}
	t.Fatal("no goroutine waits in GetOrStart")
}
