package collapser

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/observable"
)

// item is what the fake streaming backend emits: a key and a value.
type item struct {
	key int
	val string
}

// streamCmd is a streaming batch command that emits items, then err if set.
type streamCmd struct {
	items []any
	err   error
}

func (s streamCmd) ToObservable() rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		for _, it := range s.items {
			if !rxgo.Of(it).SendContext(ctx, next) {
				return
			}
		}
		if s.err != nil {
			rxgo.Error(s.err).SendContext(ctx, next)
		}
	}})
}

// streamBatch answers every argument a with a items "a.0".."a.(a-1)", except those in skip.
func streamBatch(cmd func(args []int) streamCmd) StreamBatch[int, string, item, int] {
	return StreamBatch[int, string, item, int]{
		Command: func(reqs []*Request[int, string]) StreamCommand { return cmd(Arguments(reqs)) },
		ArgKey:  func(a int) int { return a },
		ItemKey: func(it item) int { return it.key },
		MapItem: func(it item) string { return it.val },
	}
}

func manyPerArg(args []int) streamCmd {
	var s streamCmd
	for _, a := range args {
		for i := range a {
			s.items = append(s.items, item{a, itoa(a) + "." + itoa(i)})
		}
	}
	return s
}

type streamFutures []*observable.Future[[]string]

func (fs streamFutures) get(t *testing.T) ([][]string, []error) {
	t.Helper()
	vals, errs := make([][]string, len(fs)), make([]error, len(fs))
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

func newStream(t *testing.T, e *env, b StreamBatch[int, string, item, int]) *StreamCollapser[int, string, item, int] {
	t.Helper()
	sc, err := NewStream(e.setter("Stream", GlobalScope), b)
	require.NoError(t, err)
	return sc
}

func TestStreamMatchesItemsToRequestsByKey(t *testing.T) {
	e := newEnv(t)
	sc := newStream(t, e, streamBatch(manyPerArg))
	fs := streamFutures{sc.Queue(context.Background(), 2), sc.Queue(context.Background(), 3),
		sc.Queue(context.Background(), 2)}
	e.clk.Advance(10 * time.Millisecond)
	vals, errs := fs.get(t)
	assert.Equal(t, [][]string{{"2.0", "2.1"}, {"3.0", "3.1", "3.2"}, {"2.0", "2.1"}}, vals)
	assert.Equal(t, []error{nil, nil, nil}, errs)
}

func TestStreamMissingResponses(t *testing.T) {
	e := newEnv(t)
	b := streamBatch(manyPerArg) // argument 0 gets no item
	sc := newStream(t, e, b)
	fs := streamFutures{sc.Queue(context.Background(), 0), sc.Queue(context.Background(), 1)}
	e.clk.Advance(10 * time.Millisecond)
	vals, errs := fs.get(t)
	assert.ErrorIs(t, errs[0], ErrNoResponse)
	assert.Equal(t, []string{"1.0"}, vals[1])

	b.OnMissingResponse = func(r *Request[int, string]) { r.SetResponse("default") }
	sc, err := NewStream(e.setter("StreamDefault", GlobalScope), b)
	require.NoError(t, err)
	f := sc.Queue(context.Background(), 0)
	e.clk.Advance(10 * time.Millisecond)
	v, err := f.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"default"}, v)
}

func TestStreamErrors(t *testing.T) {
	boom := errors.New("stream broke")
	tests := []struct {
		name string
		cmd  func([]int) streamCmd
		b    func(*StreamBatch[int, string, item, int])
		want error
		vals []string
	}{
		{"error after items", func(args []int) streamCmd {
			s := manyPerArg(args)
			s.err = boom
			return s
		}, nil, boom, []string{"1.0"}},
		{"wrong item type", func([]int) streamCmd { return streamCmd{items: []any{"no item"}} }, nil, ErrBadBatch, nil},
		{"no MapItem and I is not R", manyPerArg, func(b *StreamBatch[int, string, item, int]) { b.MapItem = nil },
			ErrBadBatch, nil},
		{"nil command", nil, func(b *StreamBatch[int, string, item, int]) {
			b.Command = func([]*Request[int, string]) StreamCommand { return nil }
		}, ErrBadBatch, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			b := streamBatch(tt.cmd)
			if tt.b != nil {
				tt.b(&b)
			}
			sc := newStream(t, e, b)
			fs := streamFutures{sc.Queue(context.Background(), 1)}
			var got []string
			done := make(chan error, 1)
			sc.Observe(context.Background(), 1).ForEach(func(v any) { got = append(got, v.(string)) },
				func(err error) { done <- err }, func() { done <- nil })
			e.clk.Advance(10 * time.Millisecond)
			_, errs := fs.get(t)
			assert.ErrorIs(t, errs[0], tt.want)
			assert.ErrorIs(t, <-done, tt.want)
			assert.Equal(t, tt.vals, got)
		})
	}
}

func TestStreamFrontDoors(t *testing.T) {
	e := newEnv(t)
	sc := newStream(t, e, streamBatch(manyPerArg))

	cold := sc.ToObservable(2)
	assert.Zero(t, queued(sc.c), "cold: nothing queued before subscribing")
	ch := cold.Observe()
	require.Eventually(t, func() bool { return queued(sc.c) == 1 }, 5*time.Second, time.Millisecond)

	exec := make(chan []string, 1)
	go func() {
		v, err := sc.Execute(context.Background(), 3)
		assert.NoError(t, err)
		exec <- v
	}()
	require.Eventually(t, func() bool { return queued(sc.c) == 2 }, 5*time.Second, time.Millisecond)
	e.clk.Advance(10 * time.Millisecond)

	var got []any
	for it := range ch {
		require.NoError(t, it.E)
		got = append(got, it.V)
	}
	assert.Equal(t, []any{"2.0", "2.1"}, got)
	assert.Equal(t, []string{"3.0", "3.1", "3.2"}, <-exec)
}

func TestStreamCancelledSubscriberLeaves(t *testing.T) {
	e := newEnv(t)
	sc := newStream(t, e, streamBatch(manyPerArg))
	ctx, cancel := context.WithCancel(context.Background())
	ch := sc.ToObservable(2).Observe(rxgo.WithContext(ctx))
	require.Eventually(t, func() bool { return queued(sc.c) == 1 }, 5*time.Second, time.Millisecond)
	cancel()
	for range ch {
	}
	require.Eventually(t, func() bool { return queued(sc.c) == 0 }, 5*time.Second, time.Millisecond)
	assert.Zero(t, e.timers())
}
