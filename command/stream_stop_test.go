package command

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// stopBound is how soon a stream's source context must end once its consumer stopped: 10 ms
// asked, twice that for a shared 2-core machine under -race (the end is seen on a goroutine
// the run context starts), plus what the machine makes a new goroutine wait at that moment
// (schedDelay).
const stopBound = 20 * time.Millisecond

// schedDelay returns how long the machine makes a goroutine started now wait before it
// runs: the most of three started together. A machine shared with other tests delays the
// goroutine that sees a context end by as much; the code under test adds nothing to it.
func schedDelay() time.Duration {
	var worst atomic.Int64
	var wg sync.WaitGroup
	for range 3 {
		start := time.Now()
		wg.Go(func() {
			d := int64(time.Since(start))
			for w := worst.Load(); d > w && !worst.CompareAndSwap(w, d); w = worst.Load() {
			}
		})
	}
	wg.Wait()
	return time.Duration(worst.Load())
}

// probe is a stream source that records when the context construct gave it ended. A
// source that honours its context stops on it; a hostile one ignores it (it stops when the
// test releases it at the end of the row), and the stream must end all the same.
type probe struct {
	busy, hostile bool
	ctx           context.Context // construct's
	ended         chan struct{}   // closed when construct's context ended
	endedAt       atomic.Int64    // when, in wall-clock nanoseconds
	release       chan struct{}   // a hostile quiet source waits on it, not on its context
	once          sync.Once
}

func newProbe(busy, hostile bool) *probe {
	return &probe{busy: busy, hostile: hostile, ended: make(chan struct{}), release: make(chan struct{})}
}

func (p *probe) String() string {
	return fmt.Sprintf("%s %s source", map[bool]string{true: "busy", false: "quiet"}[p.busy],
		map[bool]string{true: "hostile", false: "honest"}[p.hostile])
}

// free lets a hostile source go (at the end of a row).
func (p *probe) free() { p.once.Do(func() { close(p.release) }) }

func (p *probe) construct(ctx context.Context) rxgo.Observable {
	p.ctx = ctx
	context.AfterFunc(ctx, func() {
		p.endedAt.Store(time.Now().UnixNano())
		close(p.ended)
	})
	return rxgo.Defer([]rxgo.Producer{func(sub context.Context, next chan<- rxgo.Item) {
		if p.hostile {
			sub = context.Background() // ignores the subscription
		}
		for i := 0; ; i++ {
			if !p.busy && i == 1 {
				select { // quiet after its first item
				case <-sub.Done():
				case <-p.release:
				}
				return
			}
			if p.hostile && i > 0 {
				time.Sleep(50 * time.Microsecond) // the drain after the stream ended would spin on a core
			}
			select {
			case next <- rxgo.Of(i):
			case <-sub.Done():
				return
			case <-p.release: // a hostile busy source goes on until the test lets it go
				return
			}
		}
	}})
}

// endedWithin asserts the source's context ended no later than bound after since.
func (p *probe) endedWithin(t *testing.T, since time.Time, bound time.Duration) {
	t.Helper()
	select {
	case <-p.ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the source's context never ended")
	}
	late, delay := time.Duration(p.endedAt.Load()-since.UnixNano()), schedDelay()
	assert.LessOrEqual(t, late, bound+delay, "the source's context ended %v after the consumer stopped (the machine delays a goroutine %v)", late, delay)
}

// stop is one way a consumer stops: it consumes the stream st until it stops and returns
// when it stopped (the moment the source's context must end from), and the events the
// stream then has. A way that lets the execution timeout end the stream advances e's
// clock past it.
type stop struct {
	name    string
	consume func(t *testing.T, e *env, st *Stream[int]) time.Time
	events  func(st *Stream[int]) []metrics.EventType // nil: [EMIT CANCELLED]
}

func cancelledAfterOne(*Stream[int]) []metrics.EventType { return ev(metrics.Emit, metrics.Cancelled) }

// subscriberCtx is a subscription context that ends only with the test, as a user's
// context.Background would in a server that lives on.
func subscriberCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

// first takes one item from ch and returns when it came.
func first(t *testing.T, ch <-chan rxgo.Item) time.Time {
	t.Helper()
	select {
	case it := <-ch:
		require.False(t, it.Error(), "%v", it.E)
		return time.Now()
	case <-time.After(5 * time.Second):
		t.Fatal("no first item")
	}
	return time.Time{}
}

// readAll reads ch to its end and asserts it held nothing but values.
func readAll(t *testing.T, ch <-chan rxgo.Item) {
	t.Helper()
	for it := range ch {
		assert.False(t, it.Error(), "%v", it.E)
	}
}

// toObservableStops are the ways a consumer of ToObservable stops.
var toObservableStops = []stop{
	{name: "Take(1)", consume: func(t *testing.T, _ *env, st *Stream[int]) time.Time {
		ch := st.ToObservable().Take(1).Observe(rxgo.WithContext(subscriberCtx(t)))
		at := first(t, ch)
		readAll(t, ch)
		return at
	}},
	{name: "Map.Take(1)", consume: func(t *testing.T, _ *env, st *Stream[int]) time.Time {
		ch := st.ToObservable().Map(func(_ context.Context, v any) (any, error) { return v, nil }).
			Take(1).Observe(rxgo.WithContext(subscriberCtx(t)))
		at := first(t, ch)
		readAll(t, ch)
		return at
	}, events: emitsThenCancelled}, // Map may have taken one item more
	{name: "First", consume: func(t *testing.T, _ *env, st *Stream[int]) time.Time {
		it, err := st.ToObservable().First().Get(rxgo.WithContext(subscriberCtx(t)))
		require.NoError(t, err)
		require.Equal(t, 0, it.V)
		return time.Now()
	}},
	{name: "TakeUntil", consume: func(t *testing.T, _ *env, st *Stream[int]) time.Time {
		ch := st.ToObservable().TakeUntil(func(any) bool { return true }).Observe(rxgo.WithContext(subscriberCtx(t)))
		at := first(t, ch)
		readAll(t, ch)
		return at
	}},
	{name: "ElementAt(0)", consume: func(t *testing.T, _ *env, st *Stream[int]) time.Time {
		it, err := st.ToObservable().ElementAt(0).Get(rxgo.WithContext(subscriberCtx(t)))
		require.NoError(t, err)
		require.Equal(t, 0, it.V)
		return time.Now()
	}},
	{name: "Contains", consume: func(t *testing.T, _ *env, st *Stream[int]) time.Time {
		it, err := st.ToObservable().Contains(func(v any) bool { return v == 0 }).Get(rxgo.WithContext(subscriberCtx(t)))
		require.NoError(t, err)
		require.Equal(t, true, it.V)
		return time.Now()
	}},
	{name: "DoOnNext after Take(1)", consume: func(t *testing.T, _ *env, st *Stream[int]) time.Time {
		var at time.Time
		<-st.ToObservable().Take(1).DoOnNext(func(any) { at = time.Now() }, rxgo.WithContext(subscriberCtx(t)))
		return at
	}},
	{name: "context cancelled", consume: func(t *testing.T, _ *env, st *Stream[int]) time.Time {
		ctx, cancel := context.WithCancel(context.Background())
		ch := st.ToObservable().Observe(rxgo.WithContext(ctx))
		first(t, ch)
		at := time.Now()
		cancel()
		for range ch { // the stream's cancellation, or nothing: the subscriber left
		}
		return at
	}, events: emitsThenCancelled}, // the caller's context ends the run's a moment later
	{name: "panic in the consumer", consume: func(t *testing.T, _ *env, st *Stream[int]) time.Time {
		var at time.Time
		done := make(chan any)
		go func() {
			defer func() { done <- recover() }()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel() // the consumer's context ends as it unwinds
			ch := st.ToObservable().Observe(rxgo.WithContext(ctx))
			<-ch
			at = time.Now()
			panic("consumer")
		}()
		assert.Equal(t, "consumer", <-done)
		return at
	}},
	{name: "stops reading", consume: func(t *testing.T, e *env, st *Stream[int]) time.Time {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel() // as RxGo requires, in the end: the error waits on the channel until then
		ch := st.ToObservable().Observe(rxgo.WithContext(ctx))
		first(t, ch)
		require.Eventually(t, func() bool { return e.key("S").deadlines.len() > 0 }, 5*time.Second, time.Millisecond)
		at := time.Now()
		e.clk.Advance(time.Second) // the execution timeout ends a stream whose consumer stopped reading
		require.Eventually(t, st.settledForTest, 5*time.Second, time.Millisecond)
		return at
	}, events: func(st *Stream[int]) []metrics.EventType {
		return ev(metrics.Emit, metrics.Timeout, metrics.FallbackMissing)
	}},
}

// valuesStops are the ways a range loop over Values stops.
var valuesStops = []stop{
	{name: "break", consume: func(t *testing.T, _ *env, st *Stream[int]) time.Time {
		for _, err := range st.Values(subscriberCtx(t)) {
			require.NoError(t, err)
			break
		}
		return time.Now()
	}},
	{name: "context cancelled", events: emitsThenCancelled, consume: func(t *testing.T, _ *env, st *Stream[int]) time.Time {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var at time.Time
		var last error
		for _, err := range st.Values(ctx) {
			if at.IsZero() {
				at = time.Now()
				cancel()
			}
			last = err
		}
		assert.ErrorIs(t, last, context.Canceled)
		return at
	}},
	{name: "panic in the loop", consume: func(t *testing.T, _ *env, st *Stream[int]) time.Time {
		var at time.Time
		assert.PanicsWithValue(t, "consumer", func() {
			for range st.Values(subscriberCtx(t)) {
				at = time.Now()
				panic("consumer")
			}
		}, "the loop body's panic goes on after the stream ended")
		return at
	}},
}

// observeStops are the ways a consumer of Observe stops: Observe is hot, so the stream
// ends when the caller's context does (its subscribers' operators leave their own
// goroutines only).
var observeStops = []stop{
	{name: "Take(1), then the caller's context ends", consume: func(t *testing.T, _ *env, st *Stream[int]) time.Time {
		ctx, cancel := context.WithCancel(context.Background())
		ch := st.Observe(ctx).Take(1).Observe(rxgo.WithContext(subscriberCtx(t)))
		first(t, ch)
		at := time.Now()
		cancel()
		for range ch { // Take's end, or the stream's cancellation
		}
		return at
	}, events: emitsThenCancelled},
	{name: "First, then the caller's context ends", consume: func(t *testing.T, _ *env, st *Stream[int]) time.Time {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := st.Observe(ctx).First().Get(rxgo.WithContext(subscriberCtx(t)))
		require.NoError(t, err)
		at := time.Now()
		cancel()
		return at
	}, events: emitsThenCancelled},
}

// emitsThenCancelled returns st's events when it is one of its EMITs and CANCELLED, with
// as many EMITs as it delivered (a hot stream goes on until its caller leaves).
func emitsThenCancelled(st *Stream[int]) []metrics.EventType {
	want := ev(metrics.Cancelled)
	for range st.emits.Load() {
		want = append([]metrics.EventType{metrics.Emit}, want...)
	}
	return want
}

// Every way a consumer stops, through every door of a Stream, ends the stream at once: its
// source's context ends within stopBound, its permit comes back (the key, allowed one
// stream, runs a new one), its events say CANCELLED (TIMEOUT for a consumer that stopped
// reading, which the execution timeout ends) and no goroutine is left. Sources busy and
// quiet, honouring their context or not; SEMAPHORE and ADAPTIVE isolation (streams never
// run on a pool); overflow policies BLOCK and FAIL, and no bound.
func TestEveryStreamStopsWithItsConsumer(t *testing.T) {
	doors := []struct {
		name  string
		stops []stop
	}{{"ToObservable", toObservableStops}, {"Values", valuesStops}, {"Observe", observeStops}}
	isolations := [][]string{
		{"execution.isolation.strategy", "SEMAPHORE", "execution.isolation.semaphore.maxConcurrentRequests", "1"},
		{"execution.isolation.strategy", "ADAPTIVE", "execution.isolation.adaptive.minLimit", "1",
			"execution.isolation.adaptive.initialLimit", "1", "execution.isolation.adaptive.maxLimit", "1"},
	}
	flows := [][]string{nil, {"stream.maxItemsInFlight", "4"}, {"stream.maxItemsInFlight", "4", "stream.overflow", "FAIL"}}
	for _, door := range doors {
		for _, st := range door.stops {
			for _, iso := range isolations {
				for _, fl := range flows {
					for _, src := range []*probe{newProbe(true, false), newProbe(false, false), newProbe(true, true), newProbe(false, true)} {
						name := fmt.Sprintf("%s/%s/%s/%v/%v", door.name, st.name, iso[1], fl, src)
						t.Run(name, func(t *testing.T) { stopRow(t, st, src, append(append([]string{}, iso...), fl...)) })
					}
				}
			}
		}
	}
}

func stopRow(t *testing.T, way stop, src *probe, props []string) {
	e := newEnv(t)
	defer src.free()
	props = append(props, "execution.isolation.thread.timeoutInMilliseconds", "1000",
		"circuitBreaker.enabled", "false")
	s := e.setter("S", props...)
	_, errs := items(t, NewStream[int](s, emitting(0)).ToObservable()) // the key is made
	require.Empty(t, errs)
	base := runtime.NumGoroutine()

	st := NewStream[int](s, src.construct)
	at := way.consume(t, e, st)
	src.endedWithin(t, at, stopBound)
	require.Eventually(t, st.settledForTest, 5*time.Second, time.Millisecond)
	want := cancelledAfterOne(st)
	if way.events != nil {
		want = way.events(st)
	}
	assert.Equal(t, want, st.ExecutionEvents())
	e.assertIdle("S")
	values, errs := items(t, NewStream[int](s, emitting(7)).ToObservable())
	assert.Empty(t, errs, "the key runs a new stream: the permit came back")
	assert.Equal(t, []any{7}, values)
	src.free()
	waitGoroutines(t, base)
}

// settledForTest reports whether the stream has its terminal event.
func (s *Stream[T]) settledForTest() bool {
	for _, e := range s.ExecutionEvents() {
		if e.IsTerminal() {
			return true
		}
	}
	return false
}

// len returns how many attempts wait in the key's deadline queues.
func (d *deadlines) len() int {
	qs := d.stripes.Load()
	if qs == nil {
		return 0
	}
	n := 0
	for i := range *qs {
		q := &(*qs)[i]
		q.mu.Lock()
		for a := q.head; a != nil; a = a.rc.dl.next {
			n++
		}
		q.mu.Unlock()
	}
	return n
}

// The same for a unary Command's observables: however the consumer stops (an operator that
// takes the value, its context ending before the value, a panic in the consumer with its
// context ending as it unwinds), under every isolation, the run's context ends and the
// permit comes back (the pool keeps idle workers until the runtime closes: TestMain's goleak
// checks the rest).
func TestEveryCommandObservableStopsWithItsConsumer(t *testing.T) {
	type way struct {
		name  string
		value bool // the run answers at once (else it waits for its context)
		// stop stops consuming obs; started is closed once the run began (a consumer that
		// stops before it may spare the run altogether, which is no stop to check).
		stop   func(t *testing.T, obs func(ctx context.Context) rxgo.Observable, started <-chan struct{}) time.Time
		events []metrics.EventType
	}
	ways := []way{
		{name: "Take(1)", value: true, events: ev(metrics.Success), stop: func(t *testing.T, obs func(context.Context) rxgo.Observable, _ <-chan struct{}) time.Time {
			ch := obs(subscriberCtx(t)).Take(1).Observe(rxgo.WithContext(subscriberCtx(t)))
			at := first(t, ch)
			readAll(t, ch)
			return at
		}},
		{name: "First", value: true, events: ev(metrics.Success), stop: func(t *testing.T, obs func(context.Context) rxgo.Observable, _ <-chan struct{}) time.Time {
			_, err := obs(subscriberCtx(t)).First().Get(rxgo.WithContext(subscriberCtx(t)))
			require.NoError(t, err)
			return time.Now()
		}},
		{name: "context cancelled", events: ev(metrics.Cancelled), stop: func(t *testing.T, obs func(context.Context) rxgo.Observable, started <-chan struct{}) time.Time {
			ctx, cancel := context.WithCancel(context.Background())
			at := make(chan time.Time, 1)
			go func() { // Observe under SEMAPHORE runs on the caller
				<-started
				at <- time.Now()
				cancel()
			}()
			for range obs(ctx).Observe(rxgo.WithContext(ctx)) {
			}
			return <-at
		}},
		{name: "panic in the consumer", events: ev(metrics.Cancelled), stop: func(t *testing.T, obs func(context.Context) rxgo.Observable, started <-chan struct{}) time.Time {
			var at time.Time
			done := make(chan any)
			go func() {
				defer func() { done <- recover() }()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				obs(ctx).Observe(rxgo.WithContext(ctx))
				<-started
				at = time.Now()
				panic("consumer")
			}()
			assert.Equal(t, "consumer", <-done)
			return at
		}},
	}
	isolations := [][]string{
		{"execution.isolation.strategy", "SEMAPHORE", "execution.isolation.semaphore.maxConcurrentRequests", "1"},
		{"execution.isolation.strategy", "THREAD"},
		{"execution.isolation.strategy", "ADAPTIVE", "execution.isolation.adaptive.minLimit", "1",
			"execution.isolation.adaptive.initialLimit", "1", "execution.isolation.adaptive.maxLimit", "1"},
	}
	for _, door := range []string{"ToObservable", "Observe"} {
		for _, w := range ways {
			for _, iso := range isolations {
				if door == "Observe" && w.name == "panic in the consumer" {
					continue // Observe under SEMAPHORE returns with the outcome: its consumer comes after
				}
				t.Run(door+"/"+w.name+"/"+iso[1], func(t *testing.T) {
					e := newEnv(t)
					s := e.setter("C", append(iso, "circuitBreaker.enabled", "false")...)
					_, err := New(s, value("warm")).Execute(context.Background())
					require.NoError(t, err)
					ended, started := make(chan time.Time, 1), make(chan struct{})
					c := New(s, func(ctx context.Context) (string, error) {
						close(started)
						context.AfterFunc(ctx, func() { ended <- time.Now() })
						if w.value {
							return "v", nil
						}
						<-ctx.Done()
						return "", ctx.Err()
					})
					obs := func(ctx context.Context) rxgo.Observable {
						if door == "Observe" {
							return c.Observe(ctx)
						}
						return c.ToObservable()
					}
					at := w.stop(t, obs, started)
					if !w.value {
						select {
						case end := <-ended:
							delay := schedDelay()
							assert.LessOrEqual(t, end.Sub(at), stopBound+delay, "the run's context ended late (the machine delays a goroutine %v)", delay)
						case <-time.After(5 * time.Second):
							t.Fatal("the run's context never ended")
						}
					}
					require.Eventually(t, func() bool { return len(c.ExecutionEvents()) > 0 }, 5*time.Second, time.Millisecond)
					assert.Equal(t, w.events, c.ExecutionEvents())
					require.Eventually(t, func() bool { return e.key("C").metrics.CurrentConcurrency() == 0 }, 5*time.Second, time.Millisecond)
					e.assertIdle("C")
					v, err := New(s, value("again")).Execute(context.Background())
					assert.NoError(t, err, "the permit came back")
					assert.Equal(t, "again", v)
				})
			}
		}
	}
}
