package command

import (
	"context"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/cache"
)

// A worker that serves requests under a long-lived context (a queue consumer), each in a
// request context of its own, must not keep the commands of closed requests: the run
// context's watch on the caller's context holds that context, the context its request
// context, and the request log its commands (the soak found the heap growing by every
// cached command).
func TestALongLivedCallerContextDoesNotKeepCommandsOfClosedRequests(t *testing.T) {
	e := newEnv(t)
	e.rt.Hooks().SetExecutionHook(nil)                       // the recording hook would keep every context it saw
	base, cancel := context.WithCancel(context.Background()) // the worker's context: lives on
	defer cancel()
	s := e.setter("L")
	var kept []weak.Pointer[Command[string]]
	for i := range 1000 {
		ctx, rc := cache.NewRequestContext(base)
		cmd := New(s, func(ctx context.Context) (string, error) {
			_ = ctx.Done() // the run context now watches the caller's
			return "v", nil
		}).WithCacheKey("k")
		_, err := cmd.Execute(ctx)
		require.NoError(t, err)
		require.Len(t, rc.Log().Entries(), 1)
		rc.Close()
		if i%100 == 0 {
			kept = append(kept, weak.Make(cmd))
		}
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		runtime.GC()
		alive := 0
		for _, w := range kept {
			if w.Value() != nil {
				alive++
			}
		}
		if alive == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "%d of %d commands of closed requests are still held", alive, len(kept))
		time.Sleep(time.Millisecond)
	}
}
