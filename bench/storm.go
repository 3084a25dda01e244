package bench

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/budget"
	"github.com/failsafe-go/failsafe-go/retrypolicy"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// Storm is the retry-storm acceptance (issue 27): a loopback backend answers every call
// for Healthy (a warm storm; 0: a cold one), fails every call for Failing, then recovers;
// calls are offered open loop at Rate a second, each allowed up to 3 retries with an
// exponential backoff from Backoff to MaxBackoff. Breakers are off, so that what limits
// the attempts is the budget alone.
type Storm struct {
	Healthy             time.Duration
	Failing, Recovered  time.Duration
	Rate                int
	Backoff, MaxBackoff time.Duration
}

// DefaultStorm is the bounded form the tests run: 2 s failing at 1,000 calls a second,
// then 0.5 s recovered.
func DefaultStorm() Storm {
	return Storm{Failing: 2 * time.Second, Recovered: 500 * time.Millisecond, Rate: 1000,
		Backoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}
}

// WarmStorm is issue 35's storm: 5 s of healthy traffic, then 2 s failing, at 500 calls a
// second.
func WarmStorm() Storm {
	s := DefaultStorm()
	s.Healthy, s.Rate = 5*time.Second, 500
	return s
}

// StormOutcome is what one library did in a storm.
type StormOutcome struct {
	Lib                 string
	Originals, Attempts int64         // calls offered while the backend failed, and the requests made meanwhile
	FirstSuccessAfter   time.Duration // from the recovery to the first call answered OK
}

// AttemptsPerOriginal is the load a failing call put on the backend.
func (o StormOutcome) AttemptsPerOriginal() float64 {
	return float64(o.Attempts) / float64(max(o.Originals, 1))
}

// StormLibraries are the retry setups compared: rxhystrix and failsafe-go, each with its
// retry budget (20 %) and without.
func StormLibraries(s Storm) map[string]func() (call func(context.Context, func(context.Context) error) error, closer func()) {
	rx := func(budgetOn bool) func() (func(context.Context, func(context.Context) error) error, func()) {
		return func() (func(context.Context, func(context.Context) error) error, func()) {
			rt := command.NewRuntime(command.WithConfig(config.NewStore()))
			set := command.Setter{Runtime: rt, CommandKey: "storm", Properties: config.Overrides{
				"execution.isolation.strategy":                        "SEMAPHORE",
				"execution.isolation.semaphore.maxConcurrentRequests": "100000",
				"execution.isolation.thread.timeoutInMilliseconds":    "5000",
				"circuitBreaker.enabled":                              "false",
				"retry.maxAttempts":                                   "4",
				"retry.backoffInMilliseconds":                         strconv.Itoa(int(s.Backoff / time.Millisecond)),
				"retry.maxBackoffInMilliseconds":                      strconv.Itoa(int(s.MaxBackoff / time.Millisecond)),
				"budget.enabled":                                      strconv.FormatBool(budgetOn),
				"budget.percent":                                      "20",
			}}
			call := func(ctx context.Context, run func(context.Context) error) error {
				_, err := command.New(set, func(ctx context.Context) (struct{}, error) { return struct{}{}, run(ctx) }).Execute(ctx)
				return err
			}
			return call, rt.Close
		}
	}
	fs := func(budgetOn bool) func() (func(context.Context, func(context.Context) error) error, func()) {
		return func() (func(context.Context, func(context.Context) error) error, func()) {
			b := retrypolicy.NewBuilder[any]().WithMaxRetries(3).WithBackoff(s.Backoff, s.MaxBackoff).WithJitterFactor(0.5)
			if budgetOn {
				b = b.WithBudget(budget.NewBuilder().WithMaxRate(0.2).Build())
			}
			exec := failsafe.With[any](b.Build())
			call := func(ctx context.Context, run func(context.Context) error) error {
				return exec.WithContext(ctx).RunWithExecution(func(e failsafe.Execution[any]) error { return run(e.Context()) })
			}
			return call, func() {}
		}
	}
	return map[string]func() (func(context.Context, func(context.Context) error) error, func()){
		"rxhystrix budget 20%": rx(true), "rxhystrix no budget": rx(false),
		"failsafe-go budget 20%": fs(true), "failsafe-go no budget": fs(false),
	}
}

var errUnavailable = errors.New("503")

// RunStorm runs storm s through call against a loopback backend.
func RunStorm(lib string, s Storm, call func(context.Context, func(context.Context) error) error) StormOutcome {
	var failing atomic.Bool
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		if failing.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	client := loopbackClient()
	defer client.CloseIdleConnections()
	get := func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return errUnavailable
		}
		return nil
	}
	o := StormOutcome{Lib: lib}
	var wg sync.WaitGroup
	var recovered time.Time
	var firstOK atomic.Int64 // ns after recovered
	offer := func(d time.Duration, onOK func()) int64 {
		start, n := time.Now(), int64(0)
		for elapsed := time.Duration(0); elapsed < d; elapsed = time.Since(start) {
			for due := int64(elapsed) * int64(s.Rate) / int64(time.Second); n < due; n++ {
				wg.Go(func() {
					if call(context.Background(), get) == nil && onOK != nil {
						onOK()
					}
				})
			}
			time.Sleep(time.Millisecond)
		}
		return n
	}
	offer(s.Healthy, nil)
	wg.Wait()
	hits.Store(0)
	failing.Store(true)
	o.Originals = offer(s.Failing, nil)
	wg.Wait() // every failing call made all the attempts it was let make
	o.Attempts = hits.Load()
	failing.Store(false)
	recovered = time.Now()
	firstOK.Store(-1)
	offer(s.Recovered, func() { firstOK.CompareAndSwap(-1, int64(time.Since(recovered))) })
	wg.Wait()
	o.FirstSuccessAfter = time.Duration(firstOK.Load())
	return o
}

// loopbackClient returns an HTTP client that keeps a connection for each of up to 1,000
// concurrent calls to one loopback server, so that an open-loop load measures the
// library rather than connection set-up.
func loopbackClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 1000
	return &http.Client{Transport: tr}
}
