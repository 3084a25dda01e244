package main

import (
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// kind is how the load uses a command key.
type kind uint8

const (
	plain     kind = iota // command.New: Execute, or Queue and maybe Future.Cancel
	streaming             // command.NewStream ranged with Values
	cached                // commands with cache keys in a request context
	batched               // the batch command of a collapser
)

// fallbackMode is what a key's fallback does.
type fallbackMode uint8

const (
	noFallback    fallbackMode = iota // FALLBACK_MISSING
	goodFallback                      // always answers
	flakyFallback                     // fails now and then, and is sometimes slow (FALLBACK_REJECTION)
)

// Timeouts of the keys: the slow runs of the load sleep past them.
const (
	commandTimeout = 25 * time.Millisecond
	streamTimeout  = 30 * time.Millisecond
	batchTimeout   = 100 * time.Millisecond
)

// Numbers of the key layout.
const (
	collapsers = 4  // keys 0..3 are the batch commands of collapsers 0..3
	pools      = 12 // THREAD keys share this many goroutine pools
)

// key is one command key of the soak: its name, how the load uses it, its Setter and the
// tally of what its callers saw.
type key struct {
	name  string
	kind  kind
	iso   config.IsolationStrategy
	flaps bool // calls the dependency that goes down every flap period
	fb    fallbackMode
	pool  string // THREAD only
	s     command.Setter
	tally tally
}

// newKeys lays out n keys over the kinds, isolations, fallbacks and properties the load
// mixes. Key i's profile depends on i alone, so every run has the same layout.
func newKeys(rt *command.Runtime, n int) []*key {
	keys := make([]*key, n)
	for i := range keys {
		keys[i] = newKey(rt, i)
	}
	return keys
}

func newKey(rt *command.Runtime, i int) *key {
	k := &key{name: fmt.Sprintf("k%04d", i), iso: config.Semaphore, flaps: i%2 == 0, fb: fallbackMode((i / 3) % 3)}
	switch m := i % 20; {
	case i < collapsers:
		k.kind, k.fb, k.flaps = batched, fallbackMode(i%2), false // 0, 2: no fallback; 1, 3: fallback
		if i < 2 {
			k.iso = config.Thread
		}
	case m < 2:
		k.kind, k.iso = plain, config.Adaptive
	case m < 7:
		k.kind = plain
	case m < 13:
		k.kind, k.iso = plain, config.Thread
	case m < 15:
		k.kind = streaming
	case m < 17:
		k.kind = cached
	default:
		k.kind, k.iso = cached, config.Thread
	}
	timeout := commandTimeout
	switch k.kind {
	case streaming:
		timeout = streamTimeout
	case batched:
		timeout = batchTimeout
	}
	props := config.Set(
		config.ExecutionIsolationStrategy.Of(k.iso),
		config.ExecutionTimeout.Of(timeout),
		config.ExecutionMaxConcurrentRequests.Of(2+i%3),
		config.FallbackMaxConcurrentRequests.Of(1+i%3),
		config.InterruptOnFutureCancel.Of(i%4 < 2),
		config.InterruptOnTimeout.Of(i%7 != 0 || k.kind == streaming),
	)
	if k.iso == config.Adaptive { // a limit that stays where the semaphore's is, so that it refuses
		n := 2 + i%3
		maps.Copy(props, config.Set(config.AdaptiveMinLimit.Of(n), config.AdaptiveInitialLimit.Of(n),
			config.AdaptiveMaxLimit.Of(n)))
	}
	k.s = command.Setter{Runtime: rt, CommandKey: k.name, GroupKey: "g" + strconv.Itoa(i%pools),
		Properties: props, Classifier: classify}
	if k.iso == config.Thread {
		p := i % pools
		k.pool = "pool" + strconv.Itoa(p)
		k.s.ThreadPoolKey, k.s.ThreadPoolProperties = k.pool, poolProperties(p)
	}
	return k
}

// poolProperties gives the pools different shapes: sizes 1 to 8, one with a queue, one
// whose workers above its core size come and go.
func poolProperties(p int) config.ThreadPoolOverrides {
	switch p {
	case 0:
		return config.Set(config.ThreadPoolCoreSize.Of(4), config.ThreadPoolMaximumSize.Of(4),
			config.ThreadPoolMaxQueueSize.Of(8), config.ThreadPoolQueueSizeRejectionThreshold.Of(4))
	case 1:
		return config.Set(config.ThreadPoolCoreSize.Of(2), config.ThreadPoolMaximumSize.Of(8),
			config.ThreadPoolAllowMaximumSizeToDivergeFromCoreSize.Of(true), config.ThreadPoolKeepAlive.Of(0))
	}
	size := 1 << (p % 4)
	return config.Set(config.ThreadPoolCoreSize.Of(size), config.ThreadPoolMaximumSize.Of(size))
}

// poolMaxSizes returns the maximum size of every pool the keys use, by pool key.
func poolMaxSizes(keys []*key) map[string]int {
	sizes := map[string]int{}
	for _, k := range keys {
		if k.pool != "" {
			n, _ := strconv.Atoi(k.s.ThreadPoolProperties[config.ThreadPoolMaximumSize.Name()])
			sizes[k.pool] = n
		}
	}
	return sizes
}
