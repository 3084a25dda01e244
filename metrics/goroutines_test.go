package metrics

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestGoroutinesAreFixed: a registry runs the same few goroutines with 0 or 2,000 keys.
func TestGoroutinesAreFixed(t *testing.T) {
	before := runtime.NumGoroutine()
	e := newEnv(t)
	withRegistry := runtime.NumGoroutine()
	for i := range 2000 {
		m := e.r.CommandFor(string(rune(0x4e00+i)), nil)
		m.MarkStart()
		m.MarkComplete(result(Success).withExecuted(false))
		e.r.ThreadPoolFor(string(rune(0x4e00+i)), nil).MarkStart()
	}
	e.advance(time.Second)
	// At most, once the process's other goroutines are quiet: goroutines of earlier
	// tests' Close may still be exiting, and the default registry of TestDefaultRegistry
	// rolls on the system clock for a while, a timer goroutine every 10 ms. Per-key
	// goroutines would stay; those come and go. (Polled here: assert.Eventually's own
	// goroutines would count.)
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > withRegistry && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), withRegistry)
	t.Logf("registry goroutines: %d", withRegistry-before)
	assert.LessOrEqual(t, withRegistry-before, 3)
}
