package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/collapser"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// batchResult is what a batch command answers: its tag and a response per argument.
type batchResult struct {
	tag
	responses map[int]int
}

// unanswered reports whether the batch leaves arg without a response (ErrNoResponse).
func unanswered(arg int) bool { return arg%50 == 0 }

// batcher is one collapser (GLOBAL scope) whose batch commands run on key k. It counts the
// batches and requests it saw, for the collapser's cumulative counts.
type batcher struct {
	s        *soak
	k        *key
	col      *collapser.Collapser[int, int, batchResult]
	batches  atomic.Int64
	requests atomic.Int64
	running  atomic.Int64    // batch commands made and not yet returned
	answers  [3]atomic.Int64 // callers answered with a response, an error, their own context's end
}

func newBatcher(s *soak, k *key, i int) (*batcher, error) {
	b := &batcher{s: s, k: k}
	props := config.Set(config.CollapserTimerDelay.Of(5 * time.Millisecond))
	if i%2 == 0 {
		props = config.Set(config.CollapserTimerDelay.Of(5*time.Millisecond), config.CollapserMaxRequestsInBatch.Of(8))
	}
	col, err := collapser.New(collapser.Setter{Runtime: s.rt, CollapserKey: "c" + strconv.Itoa(i),
		Scope: collapser.GlobalScope, Properties: props},
		collapser.Batch[int, int, batchResult]{Command: b.command, MapResponse: mapResponse})
	b.col = col
	return b, err
}

// command makes the batch command of reqs.
func (b *batcher) command(reqs []*collapser.Request[int, int]) collapser.Command[batchResult] {
	b.batches.Add(1)
	b.requests.Add(int64(len(reqs)))
	b.running.Add(1)
	args := collapser.Arguments(reqs)
	c := &call{k: b.k, dep: b.s.dep, delay: brief}
	if rand.IntN(10) == 0 {
		c.fault = depError
	}
	cmd := command.New(b.k.s, func(ctx context.Context) (batchResult, error) {
		if err := c.wait(ctx, 0); err != nil {
			return batchResult{}, err
		}
		if err := c.failure(); err != nil {
			return batchResult{}, err
		}
		return batchResult{responses: answers(args, 2)}, nil
	})
	if b.k.fb != noFallback {
		cmd.WithFallback(func(_ context.Context, cause error) (batchResult, error) {
			return batchResult{tag: fallbackTag(cause), responses: answers(args, -1)}, nil
		})
	}
	return &batchCommand{Command: cmd, b: b, size: len(reqs)}
}

// answers returns factor*arg for every argument the batch answers.
func answers(args []int, factor int) map[int]int {
	m := make(map[int]int, len(args))
	for _, a := range args {
		if !unanswered(a) {
			m[a] = factor * a
		}
	}
	return m
}

func mapResponse(res batchResult, reqs []*collapser.Request[int, int]) error {
	for _, r := range reqs {
		if v, ok := res.responses[r.Argument()]; ok {
			r.SetResponse(v)
		}
	}
	return nil
}

// batchCommand is a batch command that tallies its outcome (COLLAPSED x its size too). It
// embeds the command, so the collapser marks the command's COLLAPSED through it.
type batchCommand struct {
	*command.Command[batchResult]
	b    *batcher
	size int
}

func (b *batchCommand) Execute(ctx context.Context) (batchResult, error) {
	defer b.b.running.Add(-1)
	res, err := b.Command.Execute(ctx)
	var o outcome
	o.add(metrics.Collapsed, int64(b.size))
	b.b.s.settle(b.b.k, &o, res.tag, err)
	return res, err
}

// request asks the collapser for one argument: mostly waiting for the answer, sometimes
// with a deadline that may end first, sometimes cancelling the future. It checks that the
// answer is the one for its argument.
func (b *batcher) request(ctx context.Context, rng *rand.Rand) {
	arg := 1 + rng.IntN(1_000_000)
	var v int
	var err error
	switch mode := rng.IntN(10); mode {
	case 0:
		dctx, cancel := context.WithTimeout(ctx, time.Millisecond+time.Duration(rng.Int64N(int64(9*time.Millisecond))))
		v, err = b.col.Execute(dctx, arg)
		cancel()
	case 1:
		f := b.col.Queue(ctx, arg)
		f.Cancel()
		v, err = f.Get(context.Background())
	default:
		v, err = b.col.Execute(ctx, arg)
	}
	var ce *command.Error
	switch {
	case err == nil && (v == 2*arg || v == -arg) && !unanswered(arg):
		b.answers[0].Add(1)
	case errors.Is(err, collapser.ErrNoResponse) && unanswered(arg), errors.As(err, &ce):
		b.answers[1].Add(1)
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		b.answers[2].Add(1)
	default:
		b.s.anomaly(fmt.Sprintf("collapser %s: argument %d answered (%d, %v)", b.col.Key(), arg, v, err))
	}
}
