package hystrixhttp

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/intercept"
)

// Middleware runs HTTP handlers inside commands, so that an overloaded or failing
// handler is refused early: while its breaker is open or its semaphore is full, requests
// get 503 Service Unavailable with a Retry-After header (or the Fallback) without
// reaching it; beyond the key's rate limit (rateLimit.* properties), 429 Too Many
// Requests with Retry-After saying when the limiter has a permit again. Wrap is the
// middleware, a func(http.Handler) http.Handler.
//
// What counts, per request: the status the handler wrote, classified by Classify (by
// default 5xx and 429 are failures, other 4xx bad requests); a handler that writes
// nothing answers 200, a success. A failure status stands: it is on its way to the
// client, and the Fallback does not replace it. A panic in the handler or the Fallback
// is a failure too; it is raised again once the command recorded it, as the
// *command.PanicError that carries the original stack (http.ErrAbortHandler as is), so
// net/http or a recovery middleware around this one handles it as usual.
//
// Timeouts: the handler's request context ends at the command's timeout, but the
// response stays the handler's until it returns: Wrap writes nothing while the handler
// runs and returns only after it, whatever the isolation. A handler that timed out
// having written nothing gets the Fallback, or 503; one that had started its response is
// aborted with http.ErrAbortHandler, so the client sees a broken response rather than a
// cut-off one that looks whole. A handler should stop writing once its context ends.
//
// The handler's ResponseWriter records the status on its way through; it is an
// http.Flusher, and http.NewResponseController reaches the server's own writer through
// it (deadlines, hijacking).
//
// Under ADAPTIVE isolation each request carries the criticality its CriticalityHeader
// names (CRITICAL without one), and the lowest is refused first.
//
// A Middleware is safe for concurrent use; its fields must not change once it is in use.
type Middleware struct {
	// Setter holds the runtime, group key, properties and classifier of the commands.
	// Its CommandKey, when set and Key is nil, names the command of every request.
	// Without an execution.isolation.strategy the commands run SEMAPHORE isolated (on
	// the request's goroutine, at most execution.isolation.semaphore.maxConcurrentRequests
	// at a time, 10 by default).
	Setter command.Setter
	// Key names the command key of a request; nil means Setter.CommandKey or, when that
	// is empty, the ServeMux pattern that routed the request (Request.Pattern, e.g.
	// "GET /users/{id}") or, for a request no ServeMux routed, its method.
	Key func(*http.Request) string
	// Classify says how the status the handler wrote counts; nil means DefaultClassify.
	Classify func(status int) command.Class
	// Fallback, if set, answers a request the handler did not: short-circuited,
	// rejected, or timed out before the handler wrote anything. err wraps the command
	// package's sentinel (ErrShortCircuited, ErrSemaphoreRejected, ErrThreadPoolFull,
	// ErrAdaptiveRejected, ErrThrottled, ErrRateLimited, ErrTimeout). Nil means 503 Service
	// Unavailable, with Retry-After for a short circuit (the sleep window), a rejection or
	// graded throttling's refusal (1 second), or 429 Too Many Requests for a rate-limited
	// request, with Retry-After from its *command.RateLimitError (whole seconds, rounded up).
	Fallback func(w http.ResponseWriter, r *http.Request, err error)

	completed intercept.Base            // Setter with the SEMAPHORE default, made on the first call
	kinds     intercept.Kinds[struct{}] // the Kind of each key, defined on its first request
}

// Wrap returns next running inside a command of its key per request.
func (m *Middleware) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := &handling{m: m, next: next, w: statusWriter{ResponseWriter: w}, r: r}
		s := intercept.Setter(m.completed.Of(m.Setter), m.Key, routeKey, r)
		cmd := m.kinds.New(s, h.run)
		if m.Fallback != nil {
			cmd.WithFallback(h.fallback)
		}
		_, err := cmd.Execute(requestContext(r))
		h.call.End()
		h.respond(s, err)
	})
}

// routeKey names a request's command after the ServeMux pattern that routed it, or its
// method when no ServeMux did.
func routeKey(r *http.Request) string {
	if r.Pattern != "" {
		return r.Pattern
	}
	return r.Method
}

// handling is one request through Wrap.
type handling struct {
	m    *Middleware
	next http.Handler
	w    statusWriter
	r    *http.Request
	call intercept.Call
}

// run serves the request with the handler on the run's context and classifies the
// status it wrote.
func (h *handling) run(ctx context.Context) (struct{}, error) {
	if !h.call.Begin() {
		return struct{}{}, errAbandoned
	}
	defer h.call.Done()
	h.next.ServeHTTP(&h.w, h.r.WithContext(ctx))
	status := h.w.status
	if status == 0 {
		status = http.StatusOK
	}
	switch classify(h.m.Classify, status) {
	case command.ClassSuccess:
		return struct{}{}, nil
	case command.ClassBadRequest:
		return struct{}{}, command.BadRequest(errStatus(status))
	}
	return struct{}{}, errStatus(status)
}

// fallback serves the Middleware's Fallback if the handler wrote nothing.
func (h *handling) fallback(_ context.Context, err error) (struct{}, error) {
	h.call.End()
	if h.w.status != 0 || panicOf(err) != nil {
		return struct{}{}, err // the response is the handler's
	}
	h.m.Fallback(&h.w, h.r, err)
	return struct{}{}, nil
}

// respond finishes what the command's outcome leaves to do: raise a panic again, abort
// a timed-out response, or refuse a request the handler never answered.
func (h *handling) respond(s command.Setter, err error) {
	if pe := panicOf(err); pe != nil {
		if errors.Is(pe, http.ErrAbortHandler) {
			panic(http.ErrAbortHandler)
		}
		panic(pe)
	}
	switch {
	case err == nil, h.r.Context().Err() != nil:
		return
	case h.w.status != 0:
		if errors.Is(err, command.ErrTimeout) {
			panic(http.ErrAbortHandler)
		}
		return // the handler's answer stands
	}
	status := http.StatusServiceUnavailable
	switch {
	case errors.Is(err, command.ErrRateLimited):
		status = http.StatusTooManyRequests
		h.w.Header().Set("Retry-After", limitedRetryAfter(err))
	case errors.Is(err, command.ErrShortCircuited):
		h.w.Header().Set("Retry-After", retryAfter(s))
	case errors.Is(err, command.ErrSemaphoreRejected), errors.Is(err, command.ErrThreadPoolFull),
		errors.Is(err, command.ErrAdaptiveRejected), errors.Is(err, command.ErrThrottled):
		h.w.Header().Set("Retry-After", "1")
	}
	http.Error(&h.w, http.StatusText(status), status)
}

// limitedRetryAfter returns when the rate limiter will have a permit, in whole seconds
// rounded up (at least 1): the *command.RateLimitError's RetryAfter.
func limitedRetryAfter(err error) string {
	var rl *command.RateLimitError
	if !errors.As(err, &rl) {
		return "1"
	}
	return strconv.Itoa(max(1, int(math.Ceil(rl.RetryAfter.Seconds()))))
}

// retryAfter returns the breaker's sleep window in whole seconds, rounded up.
func retryAfter(s command.Setter) string {
	rt := s.Runtime
	if rt == nil {
		rt = command.Default()
	}
	props, err := rt.Config().Command(s.CommandKey, s.Properties)
	if err != nil {
		return "1"
	}
	return strconv.Itoa(int(math.Ceil(config.CircuitBreakerSleepWindow.In(props).Get().Seconds())))
}

// panicOf returns the panic of the handler (err's cause) or of the Fallback (its
// fallback error), if there was one.
func panicOf(err error) *command.PanicError {
	var pe *command.PanicError
	if errors.As(err, &pe) {
		return pe
	}
	var ce *command.Error
	if errors.As(err, &ce) && errors.As(ce.FallbackErr, &pe) {
		return pe
	}
	return nil
}

// errStatus is the run error of a handler that wrote a failure or bad-request status.
type errStatus int

func (e errStatus) Error() string { return "hystrixhttp: handler answered " + strconv.Itoa(int(e)) }

// statusWriter passes a handler's writes through and records the first final status.
type statusWriter struct {
	http.ResponseWriter
	status int // 0 until the response started
}

// WriteHeader records code if it is the final status (not 1xx, except 101).
func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write starts the response with 200 if no status was written.
func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Flush sends what was written so far (starting the response with 200 if no status
// was written), if the underlying writer can.
func (w *statusWriter) Flush() {
	if http.NewResponseController(w.ResponseWriter).Flush() == nil && w.status == 0 {
		w.status = http.StatusOK
	}
}

// Unwrap gives http.ResponseController the underlying writer (deadlines, hijacking).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
