package hystrixredis

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/internal/syncbuf"
	"github.com/rxhystrix/rxhystrix/ratelimit"
)

// scriptedRedis answers each renewal with the next function of its script, on the
// renewal's goroutine; past the script, with an error.
type scriptedRedis struct {
	redis.UniversalClient // nil: only the script calls are used
	calls                 chan func(ctx context.Context) *redis.Cmd
}

func newScriptedRedis() *scriptedRedis {
	return &scriptedRedis{calls: make(chan func(context.Context) *redis.Cmd, 16)}
}

func (s *scriptedRedis) EvalSha(ctx context.Context, _ string, _ []string, _ ...any) *redis.Cmd {
	select {
	case f := <-s.calls:
		return f(ctx)
	default:
		return redis.NewCmdResult(nil, errors.New("no answer scripted"))
	}
}

// answer is a renewal's answer: share, live instances.
func answer(share string, live int64) func(context.Context) *redis.Cmd {
	return func(context.Context) *redis.Cmd { return redis.NewCmdResult([]any{share, live}, nil) }
}

// fakeLimiter returns a limiter of cfg on clk and r, closed at the end of the test.
func fakeLimiter(t *testing.T, r *scriptedRedis, clk *clock.Fake, cfg Config) *Limiter {
	t.Helper()
	l, err := newLimiter(r, cfg, clk)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

// leasedSoon waits (real time, the renewal's goroutine) until l's share is leased.
func leasedSoon(t *testing.T, l *Limiter) {
	t.Helper()
	require.Eventually(t, func() bool { _, leased := l.Share(); return leased }, 5*time.Second, time.Millisecond)
}

// TestLeaseEndsOnItsOwnClockWhateverRedisDoes: a renewal that hangs, whatever its
// context says (a client without ContextTimeoutEnabled), does not stretch the lease:
// admission falls back at LeaseTTL after the renewal that leased it was sent, on the
// limiter's own clock; and the hung renewal's answer, come after LeaseTTL after it was
// sent, leases nothing.
func TestLeaseEndsOnItsOwnClockWhateverRedisDoes(t *testing.T) {
	clk := clock.NewFake(time.Unix(0, 0))
	r := newScriptedRedis()
	r.calls <- answer("200", 1)
	release := make(chan struct{})
	hung := make(chan struct{})
	r.calls <- func(context.Context) *redis.Cmd { close(hung); <-release; return answer("250", 1)(nil) }
	l := fakeLimiter(t, r, clk, Config{Key: "k", Instance: "a", Rate: 300, Fallback: 100,
		LeasePeriod: time.Second, LeaseTTL: 1500 * time.Millisecond})
	leasedSoon(t, l)
	clk.BlockUntil(1) // the renewal's timer
	clk.Advance(time.Second)
	<-hung

	clk.Advance(499 * time.Millisecond)
	share, leased := l.Share()
	assert.True(t, leased, "1 ms of the lease left")
	assert.Equal(t, 200.0, share)
	clk.Advance(time.Millisecond)
	share, leased = l.Share()
	assert.False(t, leased, "LeaseTTL after the renewal was sent, the renewal still hung")
	assert.Equal(t, 100.0, share, "the fallback")
	granted := 0
	for now := time.Duration(0); now < time.Second; now += time.Millisecond {
		if _, ok := l.Reserve(now, 0); ok {
			granted++
		}
	}
	assert.Equal(t, 100, granted, "admission at the fallback share")

	clk.Advance(time.Second) // LeaseTTL after the hung renewal was sent
	close(release)
	clk.BlockUntil(1) // the renewal returned and waits for the next period
	share, leased = l.Share()
	assert.False(t, leased, "an answer come after the lease's end leases nothing")
	assert.Equal(t, 100.0, share)
	assert.Equal(t, int64(1), l.Renewals())

	r.calls <- answer("150", 1)
	clk.Advance(time.Second)
	leasedSoon(t, l)
	share, _ = l.Share()
	assert.Equal(t, 150.0, share, "the next renewal leases again")
}

// TestAPanickingRenewalIsLoggedAndTheLimiterGoesOn: a panic in the renewal (here the
// client's) is logged, never a crash, and the next period renews.
func TestAPanickingRenewalIsLoggedAndTheLimiterGoesOn(t *testing.T) {
	logs := &syncbuf.Buffer{}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	clk := clock.NewFake(time.Unix(0, 0))
	r := newScriptedRedis()
	r.calls <- func(context.Context) *redis.Cmd { panic("client bug") }
	r.calls <- answer("120", 1)
	l := fakeLimiter(t, r, clk, Config{Key: "k", Instance: "a", Rate: 300, Fallback: 100})
	clk.BlockUntil(1) // the next period's timer: the panic is behind
	assert.Contains(t, logs.String(), "renewing the share panicked")
	assert.Contains(t, logs.String(), "client bug")
	clk.Advance(time.Second)
	leasedSoon(t, l)
	share, _ := l.Share()
	assert.Equal(t, 120.0, share)
}

// TestNewLimiterRefusesANilClient: a nil client is refused at construction, not found by
// a panic of the renewal goroutine.
func TestNewLimiterRefusesANilClient(t *testing.T) {
	cfg := Config{Key: "k", Instance: "a", Rate: 10}
	for _, c := range []redis.UniversalClient{nil, (*redis.Client)(nil), (*redis.ClusterClient)(nil), (*redis.Ring)(nil)} {
		_, err := NewLimiter(c, cfg)
		assert.ErrorIs(t, err, ErrNilClient)
	}
	_, err := Limiters(nil, cfg, 0.5)("G", ratelimit.Rate{PerSecond: 10, Burst: 1})
	assert.ErrorIs(t, err, ErrNilClient)
}
