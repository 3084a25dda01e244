package config

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFileSource(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hystrix.properties")
	write := func(s string) { require.NoError(t, os.WriteFile(path, []byte(s), 0o600)) }
	write("hystrix.command.F.execution.isolation.thread.timeoutInMilliseconds=300\n")
	src, err := NewFileSource(path)
	require.NoError(t, err)
	defer src.Close()
	store := NewStore(src)
	defer store.Close()
	c, err := store.Command("F", nil)
	require.NoError(t, err)
	assert.Equal(t, 300*time.Millisecond, ExecutionTimeout.In(c).Get())

	write("hystrix.command.default.execution.isolation.thread.timeoutInMilliseconds=400\n")
	require.NoError(t, src.Reload())
	assert.Equal(t, 400*time.Millisecond, ExecutionTimeout.In(c).Get(), "removed key falls back; edit applies")

	write("hystrix.command.default.execution.isolation.thread.timeoutInMilliseconds=500\noops\n")
	err = src.Reload()
	assert.EqualError(t, err, "config: "+path+`:2: missing '=' in "oops"`)
	assert.Equal(t, 400*time.Millisecond, ExecutionTimeout.In(c).Get(), "a broken file changes nothing")

	require.NoError(t, os.Remove(path))
	assert.Error(t, src.Reload())
	_, err = NewFileSource(path)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestSourceSubscribersMayCallTheSource: subscribers run with no lock of the source held:
// a subscriber of a MemorySource and of a FileSource (on the watcher's goroutine) may
// read the source, subscribe and cancel, change it and Close it; each call returns.
func TestSourceSubscribersMayCallTheSource(t *testing.T) {
	returns := func(what string, f func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { defer close(done); f() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s never returned: deadlocked", what)
		}
	}
	mem := NewMemorySource()
	var memCalls atomic.Int64
	mem.Subscribe(func() error {
		if memCalls.Add(1) == 1 {
			_, _ = mem.Get("a")
			_ = mem.Names()
			mem.Subscribe(func() error { return nil })()
			mem.SubscribeNames(func([]string) error { return nil })()
			require.NoError(t, mem.Set("b", "2"))
		}
		return nil
	})
	returns("MemorySource.Set", func() { require.NoError(t, mem.Set("a", "1")) })
	assert.Equal(t, int64(2), memCalls.Load(), "the Set from the subscriber notified it again")

	path := filepath.Join(t.TempDir(), "hystrix.properties")
	require.NoError(t, os.WriteFile(path, []byte("a=1\n"), 0o600))
	src, err := NewFileSource(path)
	require.NoError(t, err) // closed by its subscriber (a Close deferred here would hang on a deadlocked one)
	closed := make(chan struct{})
	var fileCalls atomic.Int64
	src.Subscribe(func() error {
		if fileCalls.Add(1) > 1 {
			return nil // the Reload below
		}
		_, _ = src.Get("a")
		_ = src.Names()
		src.Subscribe(func() error { return nil })()
		src.SubscribeNames(func([]string) error { return nil })()
		require.NoError(t, os.WriteFile(path, []byte("a=3\n"), 0o600))
		require.NoError(t, src.Reload())
		require.NoError(t, src.Close())
		close(closed)
		return nil
	})
	require.NoError(t, os.WriteFile(path, []byte("a=2\n"), 0o600)) // the watcher re-reads it
	returns("Close from a subscriber on the watcher's goroutine", func() { <-closed })
	v, _ := src.Get("a")
	assert.Equal(t, "3", v)
}
