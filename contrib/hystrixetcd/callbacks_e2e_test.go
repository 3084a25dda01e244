//go:build e2e

package hystrixetcd

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// returns fails the test unless f returns within 10 s (a callback that deadlocked).
func returns(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s never returned: deadlocked", what)
	}
}

// TestEtcdSourceCallbacksCallBack: a subscriber of the etcd source runs with no lock of
// the source held: it may read the source, subscribe and cancel, panic (logged, the
// source goes on) and Close it, which then returns at once; nothing is called after.
func TestEtcdSourceCallbacksCallBack(t *testing.T) {
	e := newEtcd(t)
	src := e.newSource()
	c := e.newClient(e.client)
	defer c.Close()
	var calls, after atomic.Int64
	var closed atomic.Bool
	src.SubscribeNames(func(names []string) error {
		if closed.Load() {
			after.Add(1)
		}
		calls.Add(1)
		_ = src.Names()
		_, _ = src.Get(prefix + "x")
		src.Subscribe(func() error { return nil })()
		src.SubscribeNames(func([]string) error { return nil })()
		if _, ok := src.Get("close"); ok {
			returns(t, "Close from a subscriber", func() { require.NoError(t, src.Close()) })
			closed.Store(true)
		}
		return nil
	})
	// Last: a panic ends the notification of the change (config.MemorySource), not the source.
	src.Subscribe(func() error { panic("a subscriber's bug") })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 100 {
		_, err := c.Put(ctx, prefix+"k", fmt.Sprint(i))
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { v, _ := src.Get("k"); return v == "99" }, 5*time.Second, time.Millisecond,
		"the source went on after a subscriber panicked")
	_, err := c.Put(ctx, prefix+"close", "now")
	require.NoError(t, err)
	require.Eventually(t, closed.Load, 5*time.Second, time.Millisecond)
	_, err = c.Put(ctx, prefix+"k", "after")
	require.NoError(t, err)
	time.Sleep(200 * time.Millisecond)
	v, _ := src.Get("k")
	assert.Equal(t, "99", v, "closed: etcd is followed no more")
	assert.Zero(t, after.Load(), "nothing called after Close")
	t.Logf("%d calls of the subscriber", calls.Load())
}

// TestFleetInstancesCallbackMayClose: onChange of WatchInstances may panic (logged, the
// watch goes on) and may Close the watch, which then returns at once.
func TestFleetInstancesCallbackMayClose(t *testing.T) {
	e := newEtcd(t)
	c := e.newClient(e.client)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var watch *Instances
	ready := make(chan struct{})
	closed := make(chan struct{})
	var calls atomic.Int64
	watch, err := WatchInstances(ctx, c, fleetPrefix, func(instances map[string]string) {
		calls.Add(1)
		if _, ok := instances["a"]; ok && len(instances) == 1 {
			panic("a callback's bug")
		}
		if _, ok := instances["b"]; ok {
			<-ready
			returns(t, "Close from onChange", func() { require.NoError(t, watch.Close()) })
			close(closed)
		}
	})
	require.NoError(t, err)
	close(ready)
	defer watch.Close()
	for _, id := range []string{"a", "b"} {
		m, err := Join(ctx, c, fleetPrefix, id, 2*time.Second)
		require.NoError(t, err)
		defer m.Close()
		m.Register("http://" + id + "/hystrix.stream")
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("onChange never saw b")
	}
	t.Logf("%d calls of onChange", calls.Load())
}
