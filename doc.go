// Package rxhystrix is a Go port of Netflix Hystrix: a command wraps a call to a
// dependency behind a circuit breaker, an isolation (semaphore or goroutine pool), a
// timeout and a fallback, and counts every outcome into rolling metrics that drive the
// breaker and the Hystrix dashboard stream. This package holds no code; it says where to
// start.
//
// # Start with command.Define
//
// Define a command key once, at start-up, and keep the *command.Kind it returns, as you
// would keep a cep21/circuit Circuit or a gobreaker CircuitBreaker; each call is a new
// command of that Kind:
//
//	getUser, err := command.Define[string](command.Setter{
//		CommandKey: "GetUser",
//		GroupKey:   "UserService",
//		Properties: config.Set(config.ExecutionTimeout.Of(300 * time.Millisecond)),
//	})
//	if err != nil {
//		return err // a misspelt property or a bad value, named, at start-up
//	}
//	...
//	name, err := getUser.New(func(ctx context.Context) (string, error) {
//		return users.Name(ctx, id) // ctx ends at the timeout
//	}).WithFallback(func(ctx context.Context, err error) (string, error) {
//		return "anonymous", nil // breaker open, rejected, timed out or failed
//	}).Execute(ctx)
//
// command.New(setter, run) does the same without the Kind; it defines the key at its
// first use, so an invalid Setter fails every execution instead of the start-up. Execute
// blocks; Queue, Observe, ToObservable and Values are the other doors. Errors wrap:
// errors.Is(err, command.ErrTimeout), errors.As(err, &e) with e a *command.Error.
//
// # Which package for what
//
//	command      Define/Kind, Command[T] and Stream[T], Runtime, the errors: what you call
//	config       the Hystrix properties (typed: config.ExecutionTimeout, ...), validation,
//	             dynamic sources (memory, environment, a watched .properties file)
//	hystrixhttp  an http.RoundTripper and a handler middleware that run requests as commands
//	cache        the request context: request cache and request log per incoming request
//	collapser    many single-item requests batched into one command
//	dashboard    /hystrix.stream and a dashboard page, standard library only
//	hystrixtest  your tests: a Runtime on a fake clock, scripted dependencies, a recorder
//	metrics      the counts and latencies behind the breaker and the dashboard
//	adaptive     criticality levels (WithCriticality) and ADAPTIVE refusals
//	ratelimit    the rate limiter's Limiter interface, for a limiter of your own
//	observable   the Future that Queue returns (Get, Done, Ready, Cancel, Observable)
//	breaker, hooks, clock
//	             the parts a Runtime assembles; hooks holds the execution hook and the
//	             event notifier for your own plugins
//	isolation    the cause of a REJECTED_THREAD_EXECUTION (ErrRejected, RejectedError)
//
// Integrations with dependencies of their own are modules of their own, so that users of
// the core link none of them: contrib/hystrixgrpc (gRPC interceptors), contrib/hystrixprom
// (Prometheus), contrib/hystrixotel (OpenTelemetry), contrib/hystrixetcd (properties from
// etcd, fleet membership), contrib/hystrixredis (a fleet-wide rate limit).
//
// The repository's README is the guide, with "Before you ship": what the defaults and a
// happy-path test hide. Its docs/ directory has a page per topic (configuration, errors,
// streams, HTTP and gRPC, retries, dashboard, Prometheus, ...).
package rxhystrix
