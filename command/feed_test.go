package command

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// A subscriber of the completions that sleeps 10 ms per item, while 16 goroutines execute
// commands flat out: no command waits for it, what it received plus what it missed is
// every completion, and the key's metrics stay exact.
func TestASlowFeedSubscriberNeitherSlowsNorLoses(t *testing.T) {
	e := newEnv(t)
	warm := e.setter("Warm")
	s := e.setter("F", "execution.isolation.semaphore.maxConcurrentRequests", "1000")
	feed := e.rt.Metrics().Completions()
	ctx, cancel := context.WithCancel(context.Background())
	received := 0 // of key F
	subscribed, drained := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(drained)
		warmed := false
		for it := range feed.Observe(rxgo.WithContext(ctx)) {
			switch it.V.(metrics.Completion).Key {
			case "Warm":
				if !warmed {
					close(subscribed) // the subscription is registered (it starts on RxGo's goroutine)
					warmed = true
				}
			case "F":
				received++
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	for registered := false; !registered; {
		_, err := New(warm, value("v")).Execute(context.Background())
		require.NoError(t, err)
		select {
		case <-subscribed:
			registered = true
		case <-time.After(time.Millisecond):
		}
	}
	const goroutines, each = 16, 2000
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				if _, err := New(s, value("v")).Execute(context.Background()); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	cancel()
	<-drained
	// the few warm-up completions fit the buffer: every miss is one of F's
	assert.Equal(t, int64(goroutines*each), int64(received)+feed.Missed(), "received plus missed are every completion")
	assert.Positive(t, feed.Missed(), "the subscriber could not keep up: the contested case happened")
	e.clk.Advance(time.Second)
	e.rt.Metrics().Flush()
	assert.Equal(t, int64(goroutines*each), e.rt.Metrics().Command("F").CumulativeCount(metrics.Success),
		"and metrics count every one")
}

// BenchmarkExecuteParallelWithAFeed: 16 goroutines per core execute flat out, with no
// subscriber to the completions and with one that sleeps 10 ms per item; the two times
// per execution are within a few percent (no command waits for a subscriber).
func BenchmarkExecuteParallelWithAFeed(b *testing.B) {
	for _, slow := range []bool{false, true} {
		name := "no subscriber"
		if slow {
			name = "slow subscriber"
		}
		b.Run(name, func(b *testing.B) {
			rt := benchRuntime(b)
			s := Setter{Runtime: rt, CommandKey: "bench", Properties: config.Overrides{
				"execution.isolation.strategy": "SEMAPHORE", "execution.isolation.semaphore.maxConcurrentRequests": "1000"}}
			if slow {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() {
					defer close(done)
					for range rt.Metrics().Completions().Observe(rxgo.WithContext(ctx)) {
						time.Sleep(10 * time.Millisecond)
					}
				}()
				b.Cleanup(func() { cancel(); <-done })
			}
			b.SetParallelism(16)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				for pb.Next() {
					if _, err := New(s, benchRun).Execute(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
