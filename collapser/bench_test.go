package collapser

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// BenchmarkExecute measures the collapser's cost per request: callers run Execute
// concurrently (enough goroutines to fill a batch), batches fire when full
// (maxRequestsInBatch = size) or after 1 ms, and the batch command is a plain function,
// so the time is the collapser's own: queueing, the batch goroutine and timer, mapping
// and waking the callers. reqs/batch is the batch size reached.
func BenchmarkExecute(b *testing.B) {
	for _, size := range []int{1, 10, 100, 1000} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			rt := command.NewRuntime()
			defer rt.Close()
			var batches atomic.Int64
			col, err := New(Setter{Runtime: rt, CollapserKey: "Bench", Scope: GlobalScope,
				Properties: config.CollapserOverrides{
					"maxRequestsInBatch":       fmt.Sprint(size),
					"timerDelayInMilliseconds": "1",
				}},
				Batch[int, int, []int]{
					Command: func(reqs []*Request[int, int]) Command[[]int] {
						batches.Add(1)
						args := Arguments(reqs)
						return cmdFunc[[]int]{collapsed: new(int), run: func(context.Context) ([]int, error) {
							return args, nil
						}}
					},
					MapResponse: func(res []int, reqs []*Request[int, int]) error {
						for i, r := range reqs {
							r.SetResponse(res[i])
						}
						return nil
					},
				})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.SetParallelism(max(1, (size+runtime.GOMAXPROCS(0)-1)/runtime.GOMAXPROCS(0)))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for i := 0; pb.Next(); i++ {
					if v, err := col.Execute(ctx, i); err != nil || v != i {
						b.Errorf("Execute(%d) = %d, %v", i, v, err)
					}
				}
			})
			b.StopTimer()
			if n := batches.Load(); n > 0 {
				b.ReportMetric(float64(b.N)/float64(n), "reqs/batch")
			}
		})
	}
}
