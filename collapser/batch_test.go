package collapser

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
)

func TestBatchFiresAfterTimerDelay(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	col := newCollapser(t, e.setter("ByTime", GlobalScope, "timerDelayInMilliseconds", "10"), rec.batch())

	fs := queueAll(context.Background(), col, 1, 2, 3)
	require.Equal(t, 1, e.timers(), "one timer for the open batch")
	e.clk.Advance(9 * time.Millisecond)
	assert.Empty(t, rec.sizes(), "no batch before the timer delay")
	pending(t, fs)

	e.clk.Advance(time.Millisecond)
	vals, errs := results(t, fs)
	assert.Equal(t, []string{"v1", "v2", "v3"}, vals)
	assert.Equal(t, []error{nil, nil, nil}, errs)
	assert.Equal(t, [][]int{{1, 2, 3}}, rec.allBatches())
	assert.Zero(t, e.timers(), "no timer while no batch is open")

	// The next request opens a new batch with a new timer.
	fs = queueAll(context.Background(), col, 4)
	e.clk.Advance(10 * time.Millisecond)
	vals, _ = results(t, fs)
	assert.Equal(t, []string{"v4"}, vals)
	assert.Equal(t, [][]int{{1, 2, 3}, {4}}, rec.allBatches())
}

func TestBatchFiresWhenFull(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	col := newCollapser(t, e.setter("BySize", GlobalScope, "maxRequestsInBatch", "3"), rec.batch())

	fs := queueAll(context.Background(), col, 1, 2, 3, 4, 5, 6, 7)
	vals, errs := results(t, fs[:6]) // two full batches fire without the clock
	assert.Equal(t, []string{"v1", "v2", "v3", "v4", "v5", "v6"}, vals)
	assert.Equal(t, []error{nil, nil, nil, nil, nil, nil}, errs)
	assert.Equal(t, []int{3, 3}, rec.sizes())
	pending(t, fs[6:])
	assert.Equal(t, 1, e.timers(), "the timers of the full batches were stopped")

	e.clk.Advance(10 * time.Millisecond)
	vals, _ = results(t, fs[6:])
	assert.Equal(t, []string{"v7"}, vals)
	assert.Equal(t, []int{1, 3, 3}, rec.sizes())
}

func TestTimerDelayAndBatchSizeAreDynamic(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	col := newCollapser(t, e.setter("Dynamic", GlobalScope), rec.batch())
	e.src.Set("hystrix.collapser.Dynamic.timerDelayInMilliseconds", "50")
	e.src.Set("hystrix.collapser.Dynamic.maxRequestsInBatch", "2")

	fs := queueAll(context.Background(), col, 1, 2, 3)
	results(t, fs[:2])
	e.clk.Advance(49 * time.Millisecond)
	pending(t, fs[2:])
	e.clk.Advance(time.Millisecond)
	results(t, fs[2:])
	assert.Equal(t, []int{1, 2}, rec.sizes())
}

// byParity shards requests into those with an even argument and those with an odd one.
func byParity(reqs []*Request[int, string]) [][]*Request[int, string] {
	var even, odd []*Request[int, string]
	for _, r := range reqs {
		if r.Argument()%2 == 0 {
			even = append(even, r)
		} else {
			odd = append(odd, r)
		}
	}
	return [][]*Request[int, string]{even, odd}
}

func TestShardsRunOneCommandEach(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	b := rec.batch()
	b.Shard = func(reqs []*Request[int, string]) [][]*Request[int, string] {
		return append(byParity(reqs), nil) // an empty shard runs nothing
	}
	col := newCollapser(t, e.setter("Sharded", GlobalScope), b)

	fs := queueAll(context.Background(), col, 1, 2, 3, 4, 5)
	e.clk.Advance(10 * time.Millisecond)
	vals, errs := results(t, fs)
	assert.Equal(t, []string{"v1", "v2", "v3", "v4", "v5"}, vals)
	assert.Equal(t, []error{nil, nil, nil, nil, nil}, errs)
	assert.ElementsMatch(t, [][]int{{2, 4}, {1, 3, 5}}, rec.allBatches())
	rec.mu.Lock()
	assert.ElementsMatch(t, []int{2, 3}, rec.collapsed, "COLLAPSED x shard size on each command")
	rec.mu.Unlock()
}

func TestShardThatDropsARequestLeavesItWithoutResponse(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	b := rec.batch()
	b.Shard = func(reqs []*Request[int, string]) [][]*Request[int, string] {
		return [][]*Request[int, string]{reqs[1:]}
	}
	col := newCollapser(t, e.setter("DropShard", GlobalScope), b)
	fs := queueAll(context.Background(), col, 1, 2)
	e.clk.Advance(10 * time.Millisecond)
	vals, errs := results(t, fs)
	assert.ErrorIs(t, errs[0], ErrNoResponse)
	assert.Equal(t, "v2", vals[1])
}

// TestPanicsInABatchFailOnlyItsRequests: a panic in Shard fails the whole batch, a panic
// in one shard's Command only that shard's requests (ErrBadBatch); the other shards are
// answered, nothing crashes, and the collapser's next batch is answered.
func TestPanicsInABatchFailOnlyItsRequests(t *testing.T) {
	tests := []struct {
		name    string
		shard   func(reqs []*Request[int, string]) [][]*Request[int, string]
		command func(rec *recorder, reqs []*Request[int, string]) Command[map[int]string]
		want    []error // for arguments 1, 2, 3
	}{
		{"Shard panics", func(reqs []*Request[int, string]) [][]*Request[int, string] {
			if len(reqs) > 1 {
				panic("no shards")
			}
			return [][]*Request[int, string]{reqs}
		}, (*recorder).command, []error{ErrBadBatch, ErrBadBatch, ErrBadBatch}},
		{"one shard's Command panics", byParity,
			func(rec *recorder, reqs []*Request[int, string]) Command[map[int]string] {
				if reqs[0].Argument()%2 == 0 {
					panic("no command for the even ones")
				}
				return rec.command(reqs)
			}, []error{nil, ErrBadBatch, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			rec := &recorder{}
			b := rec.batch()
			b.Shard = tt.shard
			b.Command = func(reqs []*Request[int, string]) Command[map[int]string] { return tt.command(rec, reqs) }
			col := newCollapser(t, e.setter("Panics", GlobalScope), b)
			fs := queueAll(context.Background(), col, 1, 2, 3)
			e.clk.Advance(10 * time.Millisecond)
			vals, errs := results(t, fs)
			for i, want := range tt.want {
				if want == nil {
					assert.NoError(t, errs[i])
					assert.Equal(t, "v"+itoa(i+1), vals[i])
				} else {
					assert.ErrorIs(t, errs[i], want, "argument %d", i+1)
				}
			}

			fs = queueAll(context.Background(), col, 5) // the collapser still works
			e.clk.Advance(10 * time.Millisecond)
			vals, errs = results(t, fs)
			assert.Equal(t, []string{"v5"}, vals)
			assert.Equal(t, []error{nil}, errs)
		})
	}
}

func TestRequestScopeBatchesPerRequestContext(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	col := newCollapser(t, e.setter("PerRequest", RequestScope), rec.batch())

	r1, r2 := requestCtx(t), requestCtx(t)
	fs := append(queueAll(r1, col, 1, 2), queueAll(r2, col, 3, 4, 5)...)
	assert.Equal(t, 2, e.timers(), "one timer per open batch")
	e.clk.Advance(10 * time.Millisecond)
	vals, errs := results(t, fs)
	assert.Equal(t, []string{"v1", "v2", "v3", "v4", "v5"}, vals)
	assert.Equal(t, []error{nil, nil, nil, nil, nil}, errs)
	assert.ElementsMatch(t, [][]int{{1, 2}, {3, 4, 5}}, rec.allBatches())

	col.c.mu.Lock()
	assert.Empty(t, col.c.perRequest, "fired batches are released")
	col.c.mu.Unlock()

	_, err := col.Execute(context.Background(), 6)
	assert.ErrorIs(t, err, ErrNoRequestContext)
}

func TestGlobalScopeBatchesAcrossRequests(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	col := newCollapser(t, e.setter("Global", GlobalScope), rec.batch())

	fs := append(queueAll(requestCtx(t), col, 1), queueAll(requestCtx(t), col, 2)...)
	fs = append(fs, queueAll(context.Background(), col, 3)...)
	e.clk.Advance(10 * time.Millisecond)
	vals, _ := results(t, fs)
	assert.Equal(t, []string{"v1", "v2", "v3"}, vals)
	assert.Equal(t, [][]int{{1, 2, 3}}, rec.allBatches())
}

func TestMissingResponses(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		mapResp func(map[int]string, []*Request[int, string]) error
		want    []error
	}{
		{"unanswered", mapByArg, []error{nil, ErrNoResponse}},
		{"map error", func(m map[int]string, reqs []*Request[int, string]) error {
			reqs[0].SetResponse(m[1])
			return boom
		}, []error{nil, boom}},
		{"map panic", func(map[int]string, []*Request[int, string]) error { panic("bad map") },
			[]error{ErrBadBatch, ErrBadBatch}},
		{"explicit error", func(m map[int]string, reqs []*Request[int, string]) error {
			reqs[0].SetResponse(m[1])
			reqs[1].SetError(boom)
			reqs[1].SetResponse("ignored")
			return nil
		}, []error{nil, boom}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			rec := &recorder{respond: func([]int) map[int]string { return map[int]string{1: "one"} }}
			b := rec.batch()
			b.MapResponse = tt.mapResp
			col := newCollapser(t, e.setter("Missing", GlobalScope), b)
			fs := queueAll(context.Background(), col, 1, 2)
			e.clk.Advance(10 * time.Millisecond)
			vals, errs := results(t, fs)
			for i, want := range tt.want {
				if want == nil {
					assert.NoError(t, errs[i])
					assert.Equal(t, "one", vals[i])
				} else {
					assert.ErrorIs(t, errs[i], want)
				}
			}
		})
	}
}

func TestBadCommands(t *testing.T) {
	tests := []struct {
		name string
		cmd  func([]*Request[int, string]) Command[map[int]string]
	}{
		{"nil command", func([]*Request[int, string]) Command[map[int]string] { return nil }},
		{"panicking createCommand", func([]*Request[int, string]) Command[map[int]string] { panic("no") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			col := newCollapser(t, e.setter("Bad", GlobalScope), Batch[int, string, map[int]string]{
				Command: tt.cmd, MapResponse: mapByArg})
			fs := queueAll(context.Background(), col, 1, 2)
			e.clk.Advance(10 * time.Millisecond)
			_, errs := results(t, fs)
			for _, err := range errs {
				assert.ErrorIs(t, err, ErrBadBatch)
			}
		})
	}
}

func TestNewValidates(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	_, err := New(Setter{Runtime: e.rt}, rec.batch())
	assert.ErrorIs(t, err, config.ErrEmptyKey)
	_, err = New(e.setter("NoMap", GlobalScope), Batch[int, string, map[int]string]{Command: rec.command})
	assert.Error(t, err)
	_, err = New(e.setter("BadProp", GlobalScope, "maxRequestsInBatch", "-1"), rec.batch())
	assert.ErrorIs(t, err, config.ErrInvalidValue)
	_, err = NewStream(e.setter("NoKeys", GlobalScope), StreamBatch[int, string, string, int]{})
	assert.Error(t, err)
}

func TestScopeString(t *testing.T) {
	assert.Equal(t, "REQUEST", RequestScope.String())
	assert.Equal(t, "GLOBAL", GlobalScope.String())
}
