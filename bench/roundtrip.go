package bench

import (
	"io"
	"net/http"
	"strings"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/failsafe-go/failsafe-go/fallback"

	"github.com/rxhystrix/rxhystrix/hystrixhttp"
)

// RoundTripLib is one http.RoundTripper of the RoundTrip comparison.
type RoundTripLib struct {
	// Name is the sub-benchmark name: bare, rxhystrix, failsafe.
	Name string
	// New wraps base for a command key with the protection configured from s, and
	// returns what releases it.
	New func(key string, base http.RoundTripper, s Settings) (http.RoundTripper, func())
}

// RoundTripLibs returns the round trippers compared: the base transport alone (bare),
// hystrixhttp.Transport and failsafehttp.NewRoundTripper, the last two configured alike
// from the same Settings as the command targets (fallback, breaker counting 5xx, 429 and
// transport errors as failures, concurrency limit, timeout).
func RoundTripLibs() []RoundTripLib {
	return []RoundTripLib{
		{Name: "bare", New: func(_ string, base http.RoundTripper, _ Settings) (http.RoundTripper, func()) {
			return base, func() {}
		}},
		{Name: "rxhystrix", New: newRxRoundTripper},
		{Name: "failsafe", New: newFailsafeRoundTripper},
	}
}

// FallbackBody is what the fallbacks of the round trippers answer.
const FallbackBody = "fallback"

func fallbackResponse(req *http.Request) *http.Response {
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Request: req,
		Body: io.NopCloser(strings.NewReader(FallbackBody))}
}

// newRxRoundTripper is hystrixhttp.Transport with the command settings of NewRxhystrix.
func newRxRoundTripper(key string, base http.RoundTripper, s Settings) (http.RoundTripper, func()) {
	t := NewRxhystrix(key, s).(*rxTarget)
	return &hystrixhttp.Transport{Base: base, Setter: t.setter,
		Fallback: func(req *http.Request, _ error) (*http.Response, error) { return fallbackResponse(req), nil },
	}, t.Close
}

// newFailsafeRoundTripper is failsafehttp.NewRoundTripper with the policies of NewFailsafe.
func newFailsafeRoundTripper(_ string, base http.RoundTripper, s Settings) (http.RoundTripper, func()) {
	fb := fallback.NewWithFunc(func(e failsafe.Execution[*http.Response]) (*http.Response, error) {
		return fallbackResponse(nil), nil
	})
	failed := func(resp *http.Response, err error) bool {
		return err != nil || resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests
	}
	return failsafehttp.NewRoundTripper(base, failsafePolicies(s, fb, failed)...), func() {}
}
