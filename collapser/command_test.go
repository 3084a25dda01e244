package collapser

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// cmdBatch is a Batch whose commands are real command.Commands of key "BatchGet".
func (e *env) cmdBatch(run func(args []int) (map[int]string, error),
	fallback func(args []int) (map[int]string, error)) Batch[int, string, map[int]string] {
	s := command.Setter{Runtime: e.rt, CommandKey: "BatchGet",
		Properties: config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}}
	return Batch[int, string, map[int]string]{
		Command: func(reqs []*Request[int, string]) Command[map[int]string] {
			args := Arguments(reqs)
			c := command.New(s, func(context.Context) (map[int]string, error) { return run(args) })
			if fallback != nil {
				c.WithFallback(func(context.Context, error) (map[int]string, error) { return fallback(args) })
			}
			return c
		},
		MapResponse: mapByArg,
	}
}

func answer(prefix string) func(args []int) (map[int]string, error) {
	return func(args []int) (map[int]string, error) {
		out := map[int]string{}
		for _, a := range args {
			out[a] = prefix + itoa(a)
		}
		return out, nil
	}
}

func TestBatchCommandOutcomeReachesEveryCaller(t *testing.T) {
	boom := errors.New("backend down")
	fail := func([]int) (map[int]string, error) { return nil, boom }
	tests := []struct {
		name     string
		run      func([]int) (map[int]string, error)
		fallback func([]int) (map[int]string, error)
		want     []string
		wantErr  []error
		events   []metrics.EventType
	}{
		{"success", answer("v"), nil, []string{"v1", "v2", "v3"}, nil, []metrics.EventType{metrics.Success}},
		{"failure with fallback", fail, answer("fb"), []string{"fb1", "fb2", "fb3"}, nil,
			[]metrics.EventType{metrics.Failure, metrics.FallbackSuccess}},
		{"failure without fallback", fail, nil, nil, []error{command.ErrCommandFailed, boom},
			[]metrics.EventType{metrics.Failure, metrics.FallbackMissing}},
		{"fallback fails", fail, fail, nil, []error{command.ErrCommandFailed},
			[]metrics.EventType{metrics.Failure, metrics.FallbackFailure}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			col := newCollapser(t, e.setter("Outcome", RequestScope), e.cmdBatch(tt.run, tt.fallback))
			ctx, rc := cache.NewRequestContext(context.Background())
			defer rc.Close()

			fs := queueAll(ctx, col, 1, 2, 3)
			e.clk.Advance(10 * time.Millisecond)
			vals, errs := results(t, fs)
			for i := range fs {
				if tt.wantErr == nil {
					assert.NoError(t, errs[i])
					assert.Equal(t, tt.want[i], vals[i])
					continue
				}
				for _, want := range tt.wantErr {
					assert.ErrorIs(t, errs[i], want)
				}
			}
			entries := rc.Log().Entries()
			require.Len(t, entries, 1, "one batch command in the request's log: %s", rc.Log().String())
			var got []metrics.EventType
			for _, ev := range entries[0].LogEvents() {
				for _, et := range []metrics.EventType{metrics.Success, metrics.Failure,
					metrics.FallbackSuccess, metrics.FallbackMissing, metrics.FallbackFailure} {
					if ev.Name == et.String() {
						got = append(got, et)
					}
				}
			}
			assert.Equal(t, tt.events, got)
		})
	}
}

func TestBatchCommandShortCircuitedUsesFallback(t *testing.T) {
	e := newEnv(t)
	e.src.Set("hystrix.command.BatchGet.circuitBreaker.forceOpen", "true")
	col := newCollapser(t, e.setter("Open", GlobalScope), e.cmdBatch(answer("v"), answer("cached")))
	fs := queueAll(context.Background(), col, 1, 2)
	e.clk.Advance(10 * time.Millisecond)
	vals, errs := results(t, fs)
	assert.Equal(t, []string{"cached1", "cached2"}, vals)
	assert.Equal(t, []error{nil, nil}, errs)
}

func TestStreamCommandBatch(t *testing.T) {
	e := newEnv(t)
	s := command.Setter{Runtime: e.rt, CommandKey: "StreamGet"}
	sc, err := NewStream(e.setter("StreamCmd", GlobalScope), StreamBatch[int, string, string, int]{
		Command: func(reqs []*Request[int, string]) StreamCommand {
			args := Arguments(reqs)
			return command.NewStream[string](s, func(context.Context) rxgo.Observable {
				items := make([]rxgo.Producer, 0, len(args))
				for _, a := range args {
					items = append(items, func(ctx context.Context, next chan<- rxgo.Item) {
						rxgo.Of(itoa(a)).SendContext(ctx, next)
					})
				}
				return rxgo.Defer(items)
			})
		},
		ArgKey:  func(a int) int { return a },
		ItemKey: func(s string) int { return int(s[0] - '0') },
	})
	require.NoError(t, err)
	f1, f2 := sc.Queue(context.Background(), 1), sc.Queue(context.Background(), 2)
	e.clk.Advance(10 * time.Millisecond)
	v1, err1 := f1.Get(context.Background())
	v2, err2 := f2.Get(context.Background())
	assert.Equal(t, []string{"1"}, v1)
	assert.Equal(t, []string{"2"}, v2)
	assert.NoError(t, err1)
	assert.NoError(t, err2)
}

func TestBatchCommandRecordsCollapsed(t *testing.T) {
	e := newEnv(t)
	col := newCollapser(t, e.setter("Collapsed", RequestScope), e.cmdBatch(answer("v"), nil))
	ctx, rc := cache.NewRequestContext(context.Background())
	defer rc.Close()
	fs := queueAll(ctx, col, 1, 2, 3)
	e.clk.Advance(10 * time.Millisecond)
	results(t, fs)

	entries := rc.Log().Entries()
	require.Len(t, entries, 1)
	assert.Contains(t, entries[0].LogEvents(), cache.LogEvent{Name: metrics.Collapsed.String(), Count: 3})
	e.roll(time.Second)
	assert.Equal(t, int64(3), e.rt.Metrics().Command("BatchGet").CumulativeCount(metrics.Collapsed))
}
