package collapser

import (
	"context"
	"sync"
)

// runSharded splits reqs with shard (nil: one shard) and calls exec for each non-empty
// shard, concurrently, the first on the calling goroutine. When exec fails or panics,
// its error goes to every request of the shard still unanswered.
func runSharded[A, R any](ctx context.Context, key string, reqs []*Request[A, R],
	shard func([]*Request[A, R]) [][]*Request[A, R],
	exec func(context.Context, []*Request[A, R]) error) {
	shards := [][]*Request[A, R]{reqs}
	if shard != nil {
		shards = shard(reqs)
	}
	one := func(s []*Request[A, R]) {
		if len(s) == 0 {
			return
		}
		var err error
		if perr := protect(key, "batch", func() { err = exec(ctx, s) }); perr != nil {
			err = perr
		}
		if err != nil {
			for _, r := range s {
				r.SetError(err)
			}
		}
	}
	if len(shards) == 0 {
		return
	}
	var wg sync.WaitGroup
	for _, s := range shards[1:] {
		wg.Go(func() { one(s) })
	}
	one(shards[0])
	wg.Wait()
}
