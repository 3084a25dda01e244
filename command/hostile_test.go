package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// One rule for the run context, and user code that panics, calls Goexit or ignores its
// context: every permit comes back and every caller gets an answer.

// slowBody serves size bytes in small chunks with a pause between them.
func slowBody(t *testing.T, size int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat("x", 1000))
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(2 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestResponseBodyIsReadableAfterExecute(t *testing.T) {
	const size = 20000
	srv := slowBody(t, size)
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			rt := NewRuntime() // real clock: the HTTP client watches the context for real
			defer rt.Close()
			s := Setter{Runtime: rt, CommandKey: "Body", Properties: config.Overrides{
				"execution.isolation.strategy": iso, "execution.isolation.thread.timeoutInMilliseconds": "5000"}}
			resp, err := New(s, func(ctx context.Context) (*http.Response, error) {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
				if err != nil {
					return nil, err
				}
				return srv.Client().Do(req)
			}).Execute(context.Background())
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err, "the run context does not end because run returned")
			assert.Len(t, body, size)
		})
	}
}

func TestRunContextEndsWhenTheCallersContextEndsLater(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := newEnv(t)
			ctx, cancel := context.WithCancel(context.Background())
			var runCtx context.Context
			_, err := New(e.setter("C", "execution.isolation.strategy", iso), func(ctx context.Context) (string, error) {
				runCtx = ctx
				return "v", nil
			}).Execute(ctx)
			require.NoError(t, err)
			done := runCtx.Done()
			assert.NoError(t, runCtx.Err())
			cancel()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("the run context outlived the caller's")
			}
			assert.ErrorIs(t, runCtx.Err(), context.Canceled)
		})
	}
}

func TestStreamContextEndsWithTheSubscription(t *testing.T) {
	e := newEnv(t)
	before := runtime.NumGoroutine()
	for range 50 {
		st := NewStream[int](e.setter("S"), func(ctx context.Context) rxgo.Observable {
			return rxgo.Interval(rxgo.WithDuration(time.Millisecond), rxgo.WithContext(ctx)).Take(3)
		})
		n := 0
		for _, err := range st.Values(context.Background()) {
			require.NoError(t, err)
			n++
		}
		assert.Equal(t, 3, n)
	}
	waitGoroutines(t, before) // sources tied to construct's context are released
}

func TestCancelledFutureKeepsTheTimeout(t *testing.T) {
	e := newEnv(t)
	s := e.threadSetter("F", config.ThreadPoolOverrides{"coreSize": "5"},
		"execution.isolation.thread.timeoutInMilliseconds", "300")
	for range 5 {
		started := make(chan struct{})
		f, err := New(s, blockUntilDone(started)).Queue(context.Background()) // honours its context
		require.NoError(t, err)
		<-started
		f.Cancel() // interruptOnFutureCancel=false: the run goes on, bounded by the timeout
	}
	_, err := New(s, value("now")).Execute(context.Background())
	require.ErrorIs(t, err, ErrThreadPoolFull, "the cancelled runs still hold every worker")

	e.clk.Advance(300 * time.Millisecond) // their timeout ends their context
	e.waitPoolIdle("F")
	got, err := New(s, value("later")).Execute(context.Background())
	require.NoError(t, err, "the workers came back")
	assert.Equal(t, "later", got)
	e.waitPoolIdle("F") // the worker gives its thread back once the caller has the value
	e.assertIdle("F")   // and the runtime's Close in the cleanup returns
}

func TestPanickingClassifierIsAFailure(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := newEnv(t)
			s := e.setter("P", "execution.isolation.strategy", iso)
			s.Classifier = func(error) Class { panic("classifier exploded") }
			for range 3 { // a leaked permit would reject the later ones
				cmd := New(s, failing(errBoom))
				_, err := cmd.Execute(context.Background())
				re := runtimeErr(t, err, CommandException)
				var pe *PanicError
				assert.ErrorAs(t, re, &pe, "the panic is in the cause, with its stack")
				assert.ErrorIs(t, re, errBoom)
				assert.Equal(t, ev(metrics.Failure, metrics.FallbackMissing), cmd.ExecutionEvents())
			}
			if iso == "THREAD" {
				e.waitPoolIdle("P")
			}
			e.assertIdle("P")
		})
	}
}

func TestGoexitInRunReleasesEverything(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := newEnv(t)
			s := e.setter("G", "execution.isolation.strategy", iso, "execution.isolation.semaphore.maxConcurrentRequests", "1")
			cmd := New(s, func(context.Context) (string, error) {
				runtime.Goexit() // what t.Fatal does in a run under test
				return "", nil
			}).WithFallback(fallbackValue("fb"))
			done := make(chan struct{})
			var got string
			var err error
			go func() {
				defer close(done)
				got, err = cmd.Execute(context.Background())
			}()
			<-done
			if iso == "THREAD" { // the caller's goroutine lives: it gets the fallback
				require.NoError(t, err)
				assert.Equal(t, "fb", got)
				e.waitPoolIdle("G")
			}
			assert.True(t, cmd.IsFailedExecution())
			assert.ErrorIs(t, cmd.FailedExecutionError(), errGoexit)
			e.assertIdle("G")
			v, err := New(s, value("next")).Execute(context.Background())
			require.NoError(t, err, "the permit came back")
			assert.Equal(t, "next", v)
		})
	}
}

func TestFallbackGoexitReleasesTheFallbackPermit(t *testing.T) {
	e := newEnv(t)
	s := e.setter("G", "fallback.isolation.semaphore.maxConcurrentRequests", "1")
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = New(s, failing(errBoom)).WithFallback(func(context.Context, error) (string, error) {
			runtime.Goexit()
			return "", nil
		}).Execute(context.Background())
	}()
	<-done
	e.assertIdle("G")
	got, err := New(s, failing(errBoom)).WithFallback(fallbackValue("fb")).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "fb", got)
}

func TestTimeoutFiresOnTimeOnTheRealClock(t *testing.T) {
	rt := NewRuntime()
	defer rt.Close()
	const timeout = 50 * time.Millisecond
	s := Setter{Runtime: rt, CommandKey: "Real", Properties: config.Overrides{
		"execution.isolation.strategy": "SEMAPHORE", "execution.isolation.thread.timeoutInMilliseconds": "50"}}
	var late, bare []time.Duration
	for range 10 {
		start := time.Now()
		var ended time.Duration
		_, err := New(s, func(ctx context.Context) (string, error) {
			<-ctx.Done()
			ended = time.Since(start)
			return "", ctx.Err()
		}).Execute(context.Background())
		require.True(t, errors.Is(err, ErrTimeout), "%v", err)
		late = append(late, ended-timeout)
		// What the machine makes of a bare timer of the same length, right after.
		start = time.Now()
		fired := make(chan time.Duration, 1)
		time.AfterFunc(timeout, func() { fired <- time.Since(start) })
		bare = append(bare, <-fired-timeout)
	}
	slices.Sort(late)
	slices.Sort(bare)
	assert.GreaterOrEqual(t, late[0], time.Duration(0), "never before the deadline")
	assert.Less(t, late[len(late)/2], bare[len(bare)/2]+5*time.Millisecond,
		"the run context ends within a few ms of the deadline, beyond what a bare timer is late (median): %v, bare timers %v", late, bare)
}

// waitGoroutines waits until no more than n goroutines run (testify's Eventually runs its
// condition on a goroutine of its own, so it cannot count them).
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > n; {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// A worker's long-lived context must not keep the commands it ran; nor, when it serves
// each request in a request context of its own (a queue consumer), the commands of the
// closed requests: the run context's watch holds the caller's context, that context its
// request context, and the request log its commands (the soak found the heap growing by
// every cached command).
func TestALongLivedCallerContextDoesNotKeepCommands(t *testing.T) {
	for _, perRequest := range []bool{false, true} {
		t.Run(fmt.Sprintf("request contexts %v", perRequest), func(t *testing.T) {
			e := newEnv(t)
			e.rt.Hooks().SetExecutionHook(nil)                       // the recording hook would keep every context it saw
			base, cancel := context.WithCancel(context.Background()) // a worker's context: lives on
			defer cancel()
			s := e.setter("L")
			var kept []weak.Pointer[Command[string]]
			for i := range 1000 {
				ctx, rc := base, (*cache.RequestContext)(nil)
				if perRequest {
					ctx, rc = cache.NewRequestContext(base)
				}
				cmd := New(s, func(ctx context.Context) (string, error) {
					_ = ctx.Done() // the run context now watches the caller's
					return "v", nil
				})
				_, err := cmd.Execute(ctx)
				require.NoError(t, err)
				if rc != nil {
					require.Len(t, rc.Log().Entries(), 1)
					rc.Close()
				}
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
				require.True(t, time.Now().Before(deadline), "%d of %d commands are still held by the caller's context", alive, len(kept))
				time.Sleep(time.Millisecond)
			}
		})
	}
}
