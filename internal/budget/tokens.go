package budget

import (
	"sync/atomic"
	"time"
)

// milli is the fixed-point unit of tokens: a thousandth of a token, as gRPC's tokenRatio
// has three decimals.
const milli = 1000

// tokens is gRPC's retry throttling: a bucket of maxTokens, less one per failed attempt,
// plus tokenRatio per successful one (never beyond maxTokens); extra attempts are allowed
// while more than half of it is left. Withdraw takes nothing: the failures pay.
type tokens struct {
	max   int64 // in thousandths
	ratio int64 // in thousandths
	left  atomic.Int64
}

// NewTokens returns a full token bucket of maxTokens that a success refills by
// tokenRatio/1000 of a token.
func NewTokens(maxTokens, tokenRatioMilli int) Budget { return newTokens(maxTokens, tokenRatioMilli) }

func newTokens(maxTokens, tokenRatioMilli int) *tokens {
	t := &tokens{max: int64(maxTokens) * milli, ratio: int64(tokenRatioMilli)}
	t.left.Store(t.max)
	return t
}

// Original implements Budget; the bucket counts outcomes, not requests.
func (*tokens) Original(time.Duration) {}

// Withdraw implements Budget: an extra attempt is allowed while more than half the
// bucket is left.
func (t *tokens) Withdraw(time.Duration) bool { return t.left.Load() > t.max/2 }

// Outcome implements Budget.
func (t *tokens) Outcome(ok bool) {
	for {
		l := t.left.Load()
		n := max(l-milli, 0)
		if ok {
			n = min(l+t.ratio, t.max)
		}
		if n == l || t.left.CompareAndSwap(l, n) {
			return
		}
	}
}
