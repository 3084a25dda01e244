package command

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// tokenBucket is a rate limiter written the way DESIGN.md's "Writing a stage" says (a step),
// kept in a test to show that a new stage is its own file and one line of layout
// (withStage here), with no change to any other stage. A shipped limiter would declare its own event type
// and failure type and read its rate from the key's properties; this one refuses the way
// a full semaphore does and limits the keys named in only.
type tokenBucket struct {
	only string
	b    *bucket
}

// bucket is the limiter's state, shared by the executions of the key it limits.
type bucket struct {
	mu     sync.Mutex
	perSec float64
	burst  float64
	tokens float64
	last   time.Duration
}

// toyRefusal is the limiter's refusal.
var toyRefusal = refusal{event: metrics.SemaphoreRejected, failure: RejectedSemaphoreExecution}

var errNoToken = errors.New("rate limited")

func (l tokenBucket) forKey(k shape) (stage, bool) { return l, k.props.Key() == l.only }

func (l tokenBucket) enter(x *execution, a *attempt) (verdict, bool) {
	if !l.b.take(x.now()) {
		return a.refuse(&toyRefusal, errNoToken), false
	}
	return verdict{}, true
}

func (tokenBucket) exit(_ *execution, _ *attempt, v verdict) verdict { return v }

// take takes a token at now if one is left.
func (b *bucket) take(now time.Duration) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tokens = min(b.burst, b.tokens+(now-b.last).Seconds()*b.perSec)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

func TestANewStageIsOneFileAndOneLine(t *testing.T) {
	e := newEnv(t)
	withStage(t, e.rt, breakerGate{}, tokenBucket{only: "Limited", b: &bucket{perSec: 10, burst: 5, tokens: 5}})
	var refusedWith []error
	call := func(key string) (string, error) {
		// its refusals count against health like a full semaphore's: keep the breaker closed
		return New(e.setter(key, "circuitBreaker.requestVolumeThreshold", "1000"), value("v")).WithFallback(func(_ context.Context, err error) (string, error) {
			refusedWith = append(refusedWith, err)
			return "", err
		}).Execute(context.Background())
	}
	admitted := 0
	for range 20 {
		if _, err := call("Limited"); err == nil {
			admitted++
		} else {
			runtimeErr(t, err, RejectedSemaphoreExecution)
		}
	}
	assert.Equal(t, 5, admitted, "the burst")
	require.Len(t, refusedWith, 15)
	assert.ErrorIs(t, refusedWith[0], errNoToken, "the fallback gets the stage's cause")

	e.clk.Advance(time.Second)
	admitted = 0
	for range 20 {
		if _, err := call("Limited"); err == nil {
			admitted++
		}
	}
	assert.Equal(t, 5, admitted, "a second refills the burst (10 a second, at most 5)")

	for range 20 {
		_, err := call("Free")
		require.NoError(t, err, "a key the stage leaves out is not limited")
	}
	for l := e.key("Free").chain.Load().chain; l != nil; l = l.next {
		_, limited := l.step.(tokenBucket)
		assert.False(t, limited, "and its chain has no such stage")
	}
	e.assertIdle("Limited")
}

// A key's chain is assembled once and kept while its properties stay as they are, and
// assembled again when one changes: a dynamic switch of isolation or of the breaker takes
// effect at the next execution.
func TestTheChainFollowsTheProperties(t *testing.T) {
	e := newEnv(t)
	s := e.setter("P", "circuitBreaker.forceOpen", "true")
	s.ThreadPoolKey = "PPool"
	cmd := New(s, value("v")).WithFallback(fallbackValue("fb"))
	got, _ := cmd.Execute(context.Background())
	assert.Equal(t, "fb", got)
	assert.True(t, cmd.IsResponseShortCircuited())
	c := e.key("P").chain.Load()
	_, _ = New(s, value("v")).WithFallback(fallbackValue("fb")).Execute(context.Background())
	assert.Same(t, c, e.key("P").chain.Load(), "nothing changed: the same chain")

	e.src.Set("hystrix.command.P.circuitBreaker.enabled", "false")
	cmd = New(s, value("v"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got, "no breaker, no gate: forceOpen does not apply")
	assert.False(t, cmd.IsExecutedInThread())

	e.src.Set("hystrix.command.P.execution.isolation.strategy", "THREAD")
	cmd = New(s, value("v"))
	_, err = cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.True(t, cmd.IsExecutedInThread(), "the pool stage joined the chain")
	e.waitPoolIdle("P")
	e.assertIdle("P")
}
