package collapser

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/collapsed"
	"github.com/rxhystrix/rxhystrix/observable"
)

var epoch = time.Unix(1_000_000, 0)

// env is a fresh command runtime on a fake clock with a dynamic config source.
type env struct {
	t   *testing.T
	rt  *command.Runtime
	clk *clock.Fake
	spy *spyClock // the collapsers' clock: counts their armed timers
	src *config.MemorySource
}

// spyClock is a clock.Fake that counts the AfterFunc timers armed and not yet fired or
// stopped (the metrics registry's timers on the same Fake are not counted).
type spyClock struct {
	*clock.Fake
	live atomic.Int64
}

func (s *spyClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	s.live.Add(1)
	var once sync.Once
	done := func() { once.Do(func() { s.live.Add(-1) }) }
	return spyTimer{Timer: s.Fake.AfterFunc(d, func() { done(); f() }), done: done}
}

type spyTimer struct {
	clock.Timer
	done func()
}

func (t spyTimer) Stop() bool {
	ok := t.Timer.Stop()
	if ok {
		t.done()
	}
	return ok
}

// spyRuntime is the command runtime with the spy clock.
type spyRuntime struct {
	*command.Runtime
	clk clock.Clock
}

func (r spyRuntime) Clock() clock.Clock { return r.clk }

// timers returns the collapser timers armed now.
func (e *env) timers() int { return int(e.spy.live.Load()) }

func newEnv(t *testing.T) *env {
	t.Helper()
	clk := clock.NewFake(epoch)
	src := config.NewMemorySource()
	store := config.NewStore(src)
	rt := command.NewRuntime(command.WithClock(clk), command.WithConfig(store))
	t.Cleanup(func() {
		rt.Close()
		store.Close()
	})
	return &env{t: t, rt: rt, clk: clk, spy: &spyClock{Fake: clk}, src: src}
}

// setter returns a Setter for key with properties given as name, value pairs.
func (e *env) setter(key string, scope Scope, kv ...string) Setter {
	props := config.CollapserOverrides{}
	for i := 0; i+1 < len(kv); i += 2 {
		props[kv[i]] = kv[i+1]
	}
	return Setter{Runtime: spyRuntime{Runtime: e.rt, clk: e.spy}, CollapserKey: key, Scope: scope, Properties: props}
}

// cmdFunc is a batch command made of a function; it records COLLAPSED counts.
type cmdFunc[B any] struct {
	run       func(ctx context.Context) (B, error)
	collapsed *int
}

func (c cmdFunc[B]) Execute(ctx context.Context) (B, error) { return c.run(ctx) }
func (c cmdFunc[B]) MarkCollapsed(b collapsed.Batch)        { *c.collapsed = b.Size() }

// recorder is a batch backend: it records the arguments of every batch and answers
// each argument i with "v<i>" (or what respond says).
type recorder struct {
	mu        sync.Mutex
	batches   [][]int
	collapsed []int
	fail      error                           // every command fails with it
	respond   func(args []int) map[int]string // nil: all answered
	block     chan struct{}                   // non-nil: commands wait for it (or ctx)
	cancelled int                             // commands that saw their context end
}

func (rec *recorder) command(reqs []*Request[int, string]) Command[map[int]string] {
	args := Arguments(reqs)
	n := new(int)
	rec.mu.Lock()
	rec.batches = append(rec.batches, args)
	rec.mu.Unlock()
	return cmdFunc[map[int]string]{collapsed: n, run: func(ctx context.Context) (map[int]string, error) {
		rec.mu.Lock()
		rec.collapsed = append(rec.collapsed, *n)
		block := rec.block
		rec.mu.Unlock()
		if block != nil {
			select {
			case <-block:
			case <-ctx.Done():
				rec.mu.Lock()
				rec.cancelled++
				rec.mu.Unlock()
				return nil, ctx.Err()
			}
		}
		if rec.fail != nil {
			return nil, rec.fail
		}
		if rec.respond != nil {
			return rec.respond(args), nil
		}
		out := make(map[int]string, len(args))
		for _, a := range args {
			out[a] = fmt.Sprintf("v%d", a)
		}
		return out, nil
	}}
}

func (rec *recorder) batch() Batch[int, string, map[int]string] {
	return Batch[int, string, map[int]string]{Command: rec.command, MapResponse: mapByArg}
}

// sizes returns the size of every batch command created so far, sorted.
func (rec *recorder) sizes() []int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	out := make([]int, len(rec.batches))
	for i, b := range rec.batches {
		out[i] = len(b)
	}
	slices.Sort(out)
	return out
}

func (rec *recorder) allBatches() [][]int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.batches)
}

func mapByArg(m map[int]string, reqs []*Request[int, string]) error {
	for _, r := range reqs {
		if v, ok := m[r.Argument()]; ok {
			r.SetResponse(v)
		}
	}
	return nil
}

func itoa(i int) string { return fmt.Sprint(i) }

// requestCtx returns a context with a request context, closed at the end of the test.
func requestCtx(t *testing.T) context.Context {
	ctx, rc := cache.NewRequestContext(context.Background())
	t.Cleanup(rc.Close)
	return ctx
}

// queueAll queues every argument and returns the futures.
func queueAll(ctx context.Context, col *Collapser[int, string, map[int]string], args ...int) []*observable.Future[string] {
	out := make([]*observable.Future[string], len(args))
	for i, a := range args {
		out[i] = col.Queue(ctx, a)
	}
	return out
}

// results waits for every future and returns their values and errors.
func results(t *testing.T, fs []*observable.Future[string]) ([]string, []error) {
	t.Helper()
	vals := make([]string, len(fs))
	errs := make([]error, len(fs))
	for i, f := range fs {
		select {
		case <-f.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("future %d did not resolve", i)
		}
		vals[i], errs[i] = f.Get(context.Background())
	}
	return vals, errs
}

// pending asserts that none of fs has resolved.
func pending(t *testing.T, fs []*observable.Future[string]) {
	t.Helper()
	for i, f := range fs {
		select {
		case <-f.Done():
			t.Fatalf("future %d resolved early", i)
		default:
		}
	}
}

func newCollapser(t *testing.T, s Setter, b Batch[int, string, map[int]string]) *Collapser[int, string, map[int]string] {
	t.Helper()
	col, err := New(s, b)
	require.NoError(t, err)
	return col
}

// roll advances the clock by d in steps of the metrics stream resolution (100 ms),
// flushing the metrics after each, so every event published before is counted.
func (e *env) roll(d time.Duration) {
	m := e.rt.Metrics()
	m.Flush()
	for ; d > 0; d -= 100 * time.Millisecond {
		e.clk.Advance(min(d, 100*time.Millisecond))
		m.Flush()
	}
}

// queued returns how many requests wait in the open batches of c.
func queued[A, R any](c *core[A, R]) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	if c.global != nil {
		n += len(c.global.reqs)
	}
	for _, b := range c.perRequest {
		n += len(b.reqs)
	}
	return n
}

type outcome struct {
	v   string
	err error
}

// execAsync runs Execute on a goroutine and waits until the request is queued (open
// batch holds want requests); the outcome arrives on the channel.
func execAsync(t *testing.T, ctx context.Context, col *Collapser[int, string, map[int]string], arg, want int) <-chan outcome {
	t.Helper()
	ch := make(chan outcome, 1)
	go func() {
		v, err := col.Execute(ctx, arg)
		ch <- outcome{v, err}
	}()
	require.Eventually(t, func() bool { return queued(col.c) == want }, 5*time.Second, time.Millisecond)
	return ch
}

func await(t *testing.T, ch <-chan outcome) outcome {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(5 * time.Second):
		t.Fatal("no outcome")
		return outcome{}
	}
}

func cacheOf(ctx context.Context) *cache.RequestContext { return cache.FromContext(ctx) }
