package hystrixhttp

import (
	"net/http"
	"strconv"

	"github.com/rxhystrix/rxhystrix/command"
)

// DefaultClassify is how a status code counts when Transport.Classify or
// Middleware.Classify is nil: 5xx and 429 Too Many Requests are failures (the server is
// broken or overloaded: they count against the breaker and the fallback runs), other 4xx
// are bad requests (the caller's mistake: no fallback, no effect on the breaker), the
// rest is a success.
func DefaultClassify(status int) command.Class {
	switch {
	case status >= 500, status == http.StatusTooManyRequests:
		return command.ClassFailure
	case status >= 400:
		return command.ClassBadRequest
	}
	return command.ClassSuccess
}

// classify applies f, or DefaultClassify when f is nil.
func classify(f func(int) command.Class, status int) command.Class {
	if f == nil {
		return DefaultClassify(status)
	}
	return f(status)
}

// StatusError is the error a Transport's run returns for a response whose status counts
// as a failure or a bad request. A fallback receives it (errors.As) and may read, return
// or ignore Response; whatever it does, the Transport closes the body of a response the
// caller does not get.
type StatusError struct {
	Response *http.Response
}

// Error returns the status and the request, e.g. `503 Service Unavailable from GET http://host/path`.
func (e *StatusError) Error() string {
	msg := strconv.Itoa(e.Response.StatusCode)
	if text := http.StatusText(e.Response.StatusCode); text != "" {
		msg += " " + text
	}
	if r := e.Response.Request; r != nil && r.URL != nil {
		msg += " from " + r.Method + " " + r.URL.Redacted()
	}
	return msg
}
