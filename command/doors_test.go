package command

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// scenario is one behaviour of a command, expected the same through every front door.
type scenario struct {
	name     string
	props    []string // property name, value pairs for the key
	run      func(e *env) func(context.Context) (string, error)
	fallback func(context.Context, error) (string, error)
	value    string // what the caller gets when err is nil
	err      error  // a sentinel the caller's error matches (errors.Is), nil for a value
	events   []metrics.EventType
}

func scenarios() []scenario {
	ok := func(*env) func(context.Context) (string, error) { return value("v") }
	boom := func(*env) func(context.Context) (string, error) { return failing(errBoom) }
	return []scenario{
		{name: "success", run: ok, value: "v", events: ev(metrics.Success)},
		{name: "failure, fallback", run: boom, fallback: fallbackValue("fb"), value: "fb",
			events: ev(metrics.Failure, metrics.FallbackSuccess)},
		{name: "failure, no fallback", run: boom, err: ErrCommandFailed,
			events: ev(metrics.Failure, metrics.FallbackMissing)},
		{name: "failing fallback", run: boom, fallback: fallbackFailing(errors.New("fb down")), err: ErrCommandFailed,
			events: ev(metrics.Failure, metrics.FallbackFailure)},
		{name: "bad request", run: func(*env) func(context.Context) (string, error) { return failing(BadRequest(errBoom)) },
			fallback: fallbackValue("fb"), err: errBoom, events: ev(metrics.BadRequest)},
		{name: "short circuit, fallback", props: []string{"circuitBreaker.forceOpen", "true"}, run: ok,
			fallback: fallbackValue("fb"), value: "fb", events: ev(metrics.ShortCircuited, metrics.FallbackSuccess)},
		{name: "short circuit, no fallback", props: []string{"circuitBreaker.forceOpen", "true"}, run: ok,
			err: ErrShortCircuited, events: ev(metrics.ShortCircuited, metrics.FallbackMissing)},
		{name: "semaphore full", props: []string{"execution.isolation.semaphore.maxConcurrentRequests", "0"}, run: ok,
			fallback: fallbackValue("fb"), value: "fb", events: ev(metrics.SemaphoreRejected, metrics.FallbackSuccess)},
		{name: "timeout", props: []string{"execution.isolation.thread.timeoutInMilliseconds", "100"},
			run:      func(e *env) func(context.Context) (string, error) { return e.sleeper(time.Second, "late") },
			fallback: fallbackValue("fb"), value: "fb", events: ev(metrics.Timeout, metrics.FallbackSuccess)},
		{name: "timeout, no fallback", props: []string{"execution.isolation.thread.timeoutInMilliseconds", "100"},
			run: func(e *env) func(context.Context) (string, error) { return e.sleeper(time.Second, "late") },
			err: ErrTimeout, events: ev(metrics.Timeout, metrics.FallbackMissing)},
		{name: "thread success", props: []string{"execution.isolation.strategy", "THREAD"}, run: ok, value: "v",
			events: ev(metrics.Success)},
		{name: "thread failure, fallback", props: []string{"execution.isolation.strategy", "THREAD"}, run: boom,
			fallback: fallbackValue("fb"), value: "fb", events: ev(metrics.Failure, metrics.FallbackSuccess)},
		{name: "thread short circuit", props: []string{"execution.isolation.strategy", "THREAD", "circuitBreaker.forceOpen", "true"},
			run: ok, err: ErrShortCircuited, events: ev(metrics.ShortCircuited, metrics.FallbackMissing)},
	}
}

// door is one way to execute a command: it returns the values and the error the caller
// got. unseen: the door cannot see the outcome (it went to a subscription that does not
// report it), only the events and metrics are checked.
type door struct {
	name   string
	call   func(t *testing.T, c *Command[string]) ([]string, error)
	unseen bool
}

// drain collects an observable's values and its error.
func drain(t *testing.T, obs rxgo.Observable) ([]string, error) {
	t.Helper()
	var values []string
	var err error
	for it := range obs.Observe() {
		if it.Error() {
			require.NoError(t, err, "one error at most")
			err = it.E
			continue
		}
		values = append(values, it.V.(string))
	}
	return values, err
}

// ranged collects the values of a Values sequence and its error.
func ranged(seq iter.Seq2[string, error]) ([]string, error) {
	var values []string
	var err error
	for v, e := range seq {
		if e != nil {
			err = e
			continue
		}
		values = append(values, v)
	}
	return values, err
}

func doors() []door {
	ctx := context.Background()
	one := func(v string, err error) ([]string, error) {
		if err != nil {
			return nil, err
		}
		return []string{v}, nil
	}
	return []door{
		{name: "Execute", call: func(_ *testing.T, c *Command[string]) ([]string, error) { return one(c.Execute(ctx)) }},
		{name: "Queue+Get", call: func(_ *testing.T, c *Command[string]) ([]string, error) {
			f, err := c.Queue(ctx)
			if err != nil {
				return nil, err
			}
			return one(f.Get(ctx))
		}},
		{name: "Observe", call: func(t *testing.T, c *Command[string]) ([]string, error) { return drain(t, c.Observe(ctx)) }},
		{name: "Observe twice", call: func(t *testing.T, c *Command[string]) ([]string, error) {
			obs := c.Observe(ctx)
			require.True(t, obs == c.Observe(ctx), "the same hot observable")
			v1, err1 := drain(t, obs)
			v2, err2 := drain(t, c.Observe(ctx))
			assert.Equal(t, v1, v2)
			assert.Equal(t, err1, err2)
			return v1, err1
		}},
		{name: "ToObservable", call: func(t *testing.T, c *Command[string]) ([]string, error) { return drain(t, c.ToObservable()) }},
		{name: "ToObservable subscribed twice", call: func(t *testing.T, c *Command[string]) ([]string, error) {
			obs := c.ToObservable()
			v, err := drain(t, obs)
			_, again := drain(t, obs)
			runtimeErr(t, again, BadRequestException)
			assert.ErrorIs(t, again, ErrIllegalState)
			return v, err
		}},
		{name: "ToObservable through DoOnNext and DoOnError", unseen: true, call: func(t *testing.T, c *Command[string]) ([]string, error) {
			// RxGo's Do* operators are terminal subscriptions of their own: two here. The
			// first to subscribe executes; the other gets the single-use error, which only
			// DoOnError reports.
			next := c.ToObservable()
			nextDone := next.DoOnNext(func(any) {})
			errDone := next.DoOnError(func(error) {})
			<-nextDone
			<-errDone
			return nil, nil
		}},
		{name: "Values", call: func(_ *testing.T, c *Command[string]) ([]string, error) { return ranged(c.Values(ctx)) }},
	}
}

// Every behaviour scenario gives the same value, error and events through every front
// door, under SEMAPHORE and THREAD isolation alike.
func TestEveryScenarioThroughEveryDoor(t *testing.T) {
	for _, sc := range scenarios() {
		for _, d := range doors() {
			t.Run(sc.name+"/"+d.name, func(t *testing.T) {
				e := newEnv(t)
				s := e.setter("D", sc.props...)
				s.ThreadPoolKey = "DPool"
				cmd := New(s, sc.run(e))
				if sc.fallback != nil {
					cmd.WithFallback(sc.fallback)
				}
				values, err := d.call(t, cmd)
				switch {
				case d.unseen:
				case sc.err != nil:
					assert.ErrorIs(t, err, sc.err)
					assert.Empty(t, values)
				default:
					require.NoError(t, err)
					assert.Equal(t, []string{sc.value}, values)
				}
				assert.Equal(t, sc.events, cmd.ExecutionEvents())
				assert.True(t, cmd.IsExecutionComplete())
				e.clk.Advance(time.Second)
				e.rt.Metrics().Flush()
				m := e.rt.Metrics().Command("D")
				for _, ev := range metrics.AllEventTypes() {
					if ev.IsTerminal() || ev == metrics.Failure || ev == metrics.Timeout || ev == metrics.ShortCircuited ||
						ev == metrics.SemaphoreRejected {
						want := int64(0)
						for _, got := range sc.events {
							if got == ev {
								want = 1
							}
						}
						assert.Equal(t, want, m.CumulativeCount(ev), "%s counted once, and nothing that did not happen", ev)
					}
				}
				if cmd.ThreadPoolKey() == "DPool" && cmd.IsExecutedInThread() {
					e.waitPoolIdle("D")
				}
				e.assertIdle("D")
			})
		}
	}
}

// streamScenario is one behaviour of a stream command, expected the same through every
// front door of Stream.
type streamScenario struct {
	name      string
	props     []string
	construct func(context.Context) rxgo.Observable
	fallback  func(context.Context, error) rxgo.Observable
	values    []string
	err       error
	events    []metrics.EventType
}

func streamScenarios() []streamScenario {
	return []streamScenario{
		{name: "success", construct: emitting("a", "b"), values: []string{"a", "b"},
			events: ev(metrics.Emit, metrics.Emit, metrics.Success)},
		{name: "failure mid-stream, fallback", construct: emitting("a", errBoom),
			fallback: func(context.Context, error) rxgo.Observable { return rxgo.Just("x", "y")() },
			values:   []string{"a", "x", "y"},
			events:   ev(metrics.Emit, metrics.Failure, metrics.FallbackEmit, metrics.FallbackEmit, metrics.FallbackSuccess, metrics.StreamMidFailure)},
		{name: "failure, no fallback", construct: emitting(errBoom), err: ErrCommandFailed,
			events: ev(metrics.Failure, metrics.FallbackMissing)},
		{name: "short circuit, fallback", props: []string{"circuitBreaker.forceOpen", "true"}, construct: emitting("a"),
			fallback: func(context.Context, error) rxgo.Observable { return rxgo.Just("x")() },
			values:   []string{"x"}, events: ev(metrics.ShortCircuited, metrics.FallbackEmit, metrics.FallbackSuccess)},
	}
}

func TestEveryStreamScenarioThroughEveryDoor(t *testing.T) {
	ctx := context.Background()
	streamDoors := map[string]func(t *testing.T, s *Stream[string]) ([]string, error){
		"ToObservable": func(t *testing.T, s *Stream[string]) ([]string, error) { return drain(t, s.ToObservable()) },
		"ToObservable subscribed twice": func(t *testing.T, s *Stream[string]) ([]string, error) {
			obs := s.ToObservable()
			v, err := drain(t, obs)
			_, again := drain(t, obs)
			assert.ErrorIs(t, again, ErrIllegalState)
			return v, err
		},
		"Observe": func(t *testing.T, s *Stream[string]) ([]string, error) { return drain(t, s.Observe(ctx)) },
		"Observe twice": func(t *testing.T, s *Stream[string]) ([]string, error) {
			obs := s.Observe(ctx)
			v, err := drain(t, obs)
			v2, err2 := drain(t, s.Observe(ctx))
			assert.Equal(t, v, v2)
			assert.Equal(t, err, err2)
			return v, err
		},
		"Values": func(_ *testing.T, s *Stream[string]) ([]string, error) { return ranged(s.Values(ctx)) },
	}
	for _, sc := range streamScenarios() {
		for name, d := range streamDoors {
			t.Run(sc.name+"/"+name, func(t *testing.T) {
				e := newEnv(t)
				st := NewStream[string](e.setter("S", sc.props...), sc.construct)
				if sc.fallback != nil {
					st.WithFallback(sc.fallback)
				}
				values, err := d(t, st)
				if sc.err != nil {
					assert.ErrorIs(t, err, sc.err)
				} else {
					assert.NoError(t, err)
				}
				assert.Equal(t, sc.values, values)
				require.Eventually(t, st.IsExecutionComplete, 5*time.Second, time.Millisecond, "Observe's goroutine ends")
				assert.Equal(t, sc.events, st.ExecutionEvents())
				e.assertIdle("S")
			})
		}
	}
}

// A stream subscribed again while its first subscription runs (as RxGo's DoOnNext and
// DoOnError do, each a subscription): the first gets every value, the later one the
// single-use error, and nothing is recorded that did not happen.
func TestASecondSubscriptionLeavesTheRunningStreamAlone(t *testing.T) {
	for i := range 50 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			e := newEnv(t)
			running, release := make(chan struct{}), make(chan struct{})
			st := NewStream[int](e.setter("S"), func(ctx context.Context) rxgo.Observable {
				return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
					for n := range 5 {
						if n == 2 {
							close(running)
							<-release
						}
						if !rxgo.Of(n).SendContext(ctx, next) {
							return
						}
					}
				}})
			})
			obs := st.ToObservable()
			type got struct {
				values []any
				errs   []error
			}
			first := make(chan got, 1)
			go func() {
				v, errs := items(t, obs)
				first <- got{v, errs}
			}()
			<-running
			_, errs := items(t, obs) // the second subscription, while the first runs
			require.Len(t, errs, 1)
			assert.ErrorIs(t, errs[0], ErrIllegalState)
			close(release)
			g := <-first
			assert.Equal(t, []any{0, 1, 2, 3, 4}, g.values)
			assert.Empty(t, g.errs)
			assert.Equal(t, ev(metrics.Emit, metrics.Emit, metrics.Emit, metrics.Emit, metrics.Emit, metrics.Success),
				st.ExecutionEvents())
			e.clk.Advance(time.Second)
			e.rt.Metrics().Flush()
			m := e.rt.Metrics().Command("S")
			assert.Zero(t, m.CumulativeCount(metrics.Failure), "the dependency worked")
			assert.Equal(t, int64(1), m.CumulativeCount(metrics.Success))
			e.assertIdle("S")
		})
	}
}
