package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// worker is one load goroutine: it runs operations back to back, flat out, until the
// load stops. It records when its current operation started, for the hang watch.
type worker struct {
	s    *soak
	rng  *rand.Rand
	zipf *rand.Zipf
	busy atomic.Int64 // unix nanoseconds of the current operation's start; 0 between operations
	ops  atomic.Int64
}

func newWorker(s *soak, seed uint64) *worker {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	// Zipf over the keys that are not batch commands: a few keys are hot (their semaphores
	// and pools fill up), and every key still sees traffic.
	return &worker{s: s, rng: rng, zipf: rand.NewZipf(rng, 1.01, 1, uint64(len(s.order)-1))}
}

// loop runs operations until ctx ends.
func (w *worker) loop(ctx context.Context) {
	for ctx.Err() == nil {
		w.busy.Store(time.Now().UnixNano())
		w.operation()
		w.busy.Store(0)
		w.ops.Add(1)
	}
}

// operation runs one operation: a tenth of them go to a collapser, the rest to a key.
func (w *worker) operation() {
	if w.rng.IntN(10) == 0 {
		w.s.batchers[w.rng.IntN(len(w.s.batchers))].request(w.s.callCtx, w.rng)
		return
	}
	k := w.s.keys[w.s.order[w.zipf.Uint64()]]
	switch k.kind {
	case plain:
		w.plain(k)
	case streaming:
		w.stream(k)
	case cached:
		w.cached(k)
	}
}

// plain runs one command of k: Execute, Execute with a caller deadline that may end
// first, Queue and Get, or Queue and Future.Cancel.
func (w *worker) plain(k *key) {
	c := newCall(k, w.s.dep, w.rng)
	ctx := withPanicIn(w.s.callCtx, c.hook)
	mode := w.rng.IntN(100)
	op := func(o *outcome) {
		cmd := command.New(k.s, c.run)
		if k.fb != noFallback {
			cmd.WithFallback(c.fallback)
		}
		var got tag
		var err error
		switch {
		case mode < 6:
			dctx, cancel := context.WithTimeout(ctx, c.deadline)
			got, err = cmd.Execute(dctx)
			cancel()
		case mode < 20:
			f, _ := cmd.Queue(ctx) // Queue's own error is also Get's
			if mode < 12 {
				if mode < 9 {
					time.Sleep(time.Duration(w.rng.IntN(2000)) * time.Microsecond)
				}
				f.Cancel()
			}
			got, err = f.Get(context.Background())
		default:
			got, err = cmd.Execute(ctx)
		}
		w.s.settle(k, o, got, err)
	}
	if c.fault == goexit && k.iso != config.Thread {
		// The run's Goexit ends the goroutine that runs it, here the caller's: give it one
		// of its own. The command records a FAILURE and nothing else.
		var o outcome
		if !returns(func() { op(&o) }) {
			o.add(metrics.Failure, 1)
			k.tally.record(&o)
		}
		return
	}
	op(&outcome{})
}

// returns runs f on a goroutine of its own and reports whether f returned (false: it
// called runtime.Goexit).
func returns(f func()) bool {
	done := make(chan bool)
	go func() {
		ok := false
		defer func() { done <- ok }()
		f()
		ok = true
	}()
	return <-done
}

// stream ranges over one stream command of k, with a caller deadline now and then.
func (w *worker) stream(k *key) {
	c := newCall(k, w.s.dep, w.rng)
	ctx := withPanicIn(w.s.callCtx, c.hook)
	if w.rng.IntN(100) < 6 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.deadline)
		defer cancel()
	}
	st := command.NewStream[tag](k.s, c.construct)
	if k.fb != noFallback {
		st.WithFallback(c.streamFallback)
	}
	var o outcome
	var got tag
	var err error
	for v, e := range st.Values(ctx) {
		switch {
		case e != nil:
			err = e
		case v.fallback:
			o.add(metrics.FallbackEmit, 1)
			got = v
		default:
			o.add(metrics.Emit, 1)
		}
	}
	o.midStream = o.n[metrics.Emit] > 0
	w.s.settle(k, &o, got, err)
}

// cached runs two to four commands of k with cache keys "a" and "b" in one request
// context: the first of each cache key runs, the others replay it (RESPONSE_FROM_CACHE
// and the same value or error). THREAD keys queue them all before waiting, so duplicates
// wait for an original still in flight.
func (w *worker) cached(k *key) {
	ctx, rc := cache.NewRequestContext(w.s.callCtx)
	defer rc.Close()
	type result struct {
		cacheKey string
		got      tag
		err      error
	}
	n := 2 + w.rng.IntN(3)
	results := make([]result, n)
	var gets []func()
	for i := range results {
		c := newCall(k, w.s.dep, w.rng)
		r := &results[i]
		r.cacheKey = string(rune('a' + w.rng.IntN(2)))
		cmd := command.New(k.s, c.run).WithCacheKey(r.cacheKey)
		if k.fb != noFallback {
			cmd.WithFallback(c.fallback)
		}
		cctx := withPanicIn(ctx, c.hook)
		if k.iso == config.Thread {
			f, _ := cmd.Queue(cctx)
			gets = append(gets, func() { r.got, r.err = f.Get(context.Background()) })
		} else {
			r.got, r.err = cmd.Execute(cctx)
		}
	}
	for _, get := range gets {
		get()
	}
	first := map[string]*result{}
	for i := range results {
		r := &results[i]
		orig, hit := first[r.cacheKey]
		if !hit {
			first[r.cacheKey] = r
			w.s.settle(k, &outcome{}, r.got, r.err)
			continue
		}
		if r.got != orig.got || r.err != orig.err {
			w.s.anomaly(fmt.Sprintf("%s: cache hit %q replayed (%v, %v), the original gave (%v, %v)",
				k.name, r.cacheKey, r.got, r.err, orig.got, orig.err))
		}
		var o outcome
		o.add(metrics.ResponseFromCache, 1)
		k.tally.record(&o)
	}
}
