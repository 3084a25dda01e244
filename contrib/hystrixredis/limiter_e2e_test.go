//go:build e2e

package hystrixredis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/e2eproc"
)

// redisServer is a real redis-server on 127.0.0.1, without persistence.
type redisServer struct {
	t    *testing.T
	addr string
	proc *e2eproc.Process
	cmd  *exec.Cmd // of proc: SIGSTOP hangs it
}

func newRedis(t *testing.T) *redisServer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	r := &redisServer{t: t, addr: addr}
	r.start()
	return r
}

var redisReady = regexp.MustCompile(`Ready to accept connections`)

// start runs redis-server on r.addr and returns once it accepts connections.
func (r *redisServer) start() {
	r.t.Helper()
	_, port, _ := net.SplitHostPort(r.addr)
	r.cmd = exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	r.proc = e2eproc.Start(r.t, "redis-server", r.cmd)
	_, err := r.proc.Await(redisReady, 30*time.Second)
	require.NoError(r.t, err)
}

// calls returns how many times Redis ran each command, from INFO commandstats.
func (r *redisServer) calls(c *redis.Client) map[string]int64 {
	r.t.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	require.NoError(r.t, err)
	out := map[string]int64{}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.SplitN(rest, ",", 2)[0], 10, 64)
		out[strings.TrimPrefix(name, "cmdstat_")] = n
	}
	return out
}

// load drives one instance's limiter at its demand (calls per second, changed with
// setDemand) and counts the permits per 100 ms slot of the test.
type load struct {
	l        *Limiter
	demand   atomic.Uint64 // calls per second
	admitted [1000]atomic.Int64
	mu       sync.Mutex
	latency  []timed // of every Reserve
}

const slot = 100 * time.Millisecond

// timed is how long one Reserve took, and when in the test it was called.
type timed struct{ at, took time.Duration }

func (d *load) run(ctx context.Context, origin time.Time) {
	due := 0.0
	last := time.Now()
	for ctx.Err() == nil {
		time.Sleep(time.Millisecond)
		now := time.Now()
		due += float64(d.demand.Load()) * now.Sub(last).Seconds()
		last = now
		for ; due >= 1; due-- {
			t0 := time.Now()
			_, ok := d.l.Reserve(t0.Sub(origin), 0)
			took := time.Since(t0)
			at := t0.Sub(origin)
			if ok {
				d.admitted[at/slot].Add(1)
			}
			d.mu.Lock()
			d.latency = append(d.latency, timed{at, took})
			d.mu.Unlock()
		}
	}
}

// rate returns the permits per second granted in [from, to) of the test.
func (d *load) rate(from, to time.Duration) float64 {
	n := int64(0)
	for i := from / slot; i < to/slot; i++ {
		n += d.admitted[i].Load()
	}
	return float64(n) / (to - from).Seconds()
}

// p99 returns the 99th percentile of the time Reserve took in [from, to).
func (d *load) p99(from, to time.Duration) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	var took []time.Duration
	for _, l := range d.latency {
		if l.at >= from && l.at < to {
			took = append(took, l.took)
		}
	}
	slices.Sort(took)
	return took[len(took)*99/100]
}

// TestGlobalLimit: 3 instances (each its own Redis client) share 300 permits a second
// with demands 70/20/10 % of 450 a second; the skew changes; Redis stops for 10 s and
// comes back.
func TestGlobalLimit(t *testing.T) {
	const rate, period, dialTimeout = 300.0, 500 * time.Millisecond, 250 * time.Millisecond
	r := newRedis(t)
	admin := redis.NewClient(&redis.Options{Addr: r.addr})
	defer admin.Close()

	origin := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	loads := make([]*load, 3)
	for i := range loads {
		c := redis.NewClient(&redis.Options{Addr: r.addr, ContextTimeoutEnabled: true, MaxRetries: -1,
			DialTimeout: dialTimeout}) // the package doc's client
		l, err := NewLimiter(c, Config{Key: "limit:payments", Instance: fmt.Sprint("i", i), Rate: rate,
			LeasePeriod: period, Fallback: rate / 3, Burst: 5})
		require.NoError(t, err)
		loads[i] = &load{l: l}
		defer func() { l.Close(); c.Close() }()
	}
	setDemand := func(shares ...float64) {
		for i, s := range shares {
			loads[i].demand.Store(uint64(450 * s))
		}
	}
	setDemand(0.7, 0.2, 0.1)
	for _, d := range loads {
		wg.Go(func() { d.run(ctx, origin) })
	}
	defer func() { cancel(); wg.Wait() }()
	at := func() time.Duration { return time.Since(origin).Truncate(slot) }
	fleet := func(from, to time.Duration) (sum float64, each []float64) {
		for _, d := range loads {
			each = append(each, d.rate(from, to))
			sum += each[len(each)-1]
		}
		return sum, each
	}

	// Steady: the fleet at 300/s, the commands within instances x keys / lease period.
	time.Sleep(2 * period)
	from, before := at(), r.calls(admin)
	time.Sleep(3 * time.Second)
	to, after := at(), r.calls(admin)
	sum, each := fleet(from, to)
	t.Logf("steady 70/20/10 %%: fleet %.1f/s, instances %.1f", sum, each)
	assert.InEpsilon(t, rate, sum, 0.05, "the fleet within 5 %% of the global rate")
	scripts := after["evalsha"] + after["eval"] - before["evalsha"] - before["eval"]
	perSecond := float64(scripts) / (to - from).Seconds()
	inside := int64(0)
	for name, n := range after {
		if name != "evalsha" && name != "eval" && name != "info" {
			inside += n - before[name]
		}
	}
	t.Logf("Redis: %.1f script calls/s (limit: 3 instances x 1 key / %v = %.1f/s); commands inside them: %.1f/s",
		perSecond, period, 3/period.Seconds(), float64(inside)/(to-from).Seconds())
	assert.LessOrEqual(t, perSecond, 3/period.Seconds()*1.1)
	upP99 := loads[0].p99(from, to)

	// The skew changes: each share follows its demand.
	setDemand(0.1, 0.2, 0.7)
	changed := time.Now()
	require.Eventually(t, func() bool {
		s, _ := loads[2].l.Share()
		return s > 0.6*rate
	}, 3*period, time.Millisecond, "within 3 lease periods, as the package doc says")
	t.Logf("the shares followed a change of skew in %v (lease period %v)", time.Since(changed), period)
	time.Sleep(2 * period)
	from = at()
	time.Sleep(2 * time.Second)
	sum, each = fleet(from, at())
	t.Logf("steady 10/20/70 %%: fleet %.1f/s, instances %.1f", sum, each)
	assert.InEpsilon(t, rate, sum, 0.05)
	assert.InEpsilon(t, 0.7*rate, each[2], 0.1)

	// Redis stops for 10 s: the leases hold, then the fallback; no call waits.
	r.proc.Stop()
	from = at()
	time.Sleep(10 * time.Second)
	to = at()
	sum, each = fleet(from, to)
	t.Logf("Redis stopped 10 s: fleet %.1f/s, instances %.1f", sum, each)
	assert.LessOrEqual(t, sum, 1.1*rate)
	expired := from + 3*period + period // the lease TTL, and the renewal that finds it over
	_, fallback := fleet(expired, to)
	for i, d := range loads {
		want := min(float64(d.demand.Load()), rate/3)
		assert.GreaterOrEqual(t, fallback[i], 0.95*want, "instance %d on its fallback share", i)
	}
	downP99 := loads[0].p99(from, to)
	t.Logf("admission p99: %v with Redis up, %v with Redis stopped", upP99, downP99)
	assert.Less(t, downP99, time.Millisecond, "no call waits on Redis (a renewal's timeout is 250 ms)")

	// Redis returns: leased shares again within the bound of the package doc, a lease
	// period + go-redis' 1 s between dials once they failed + DialTimeout.
	r.start()
	back := time.Now()
	require.Eventually(t, func() bool {
		for _, d := range loads {
			if _, leased := d.l.Share(); !leased {
				return false
			}
		}
		return true
	}, period+time.Second+dialTimeout, time.Millisecond)
	t.Logf("leased again %v after Redis returned (lease period %v)", time.Since(back), period)
	from = at()
	time.Sleep(4 * period)
	sum, each = fleet(from, at())
	t.Logf("after Redis returned: fleet %.1f/s, instances %.1f", sum, each)
	assert.LessOrEqual(t, sum, 1.1*rate)
}

// quiet drops go-redis' log lines: a stopped Redis is what the test is about.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func init() { redis.SetLogger(quiet{}) }

// TestGlobalLimitThroughTheStage: 3 runtimes whose rate limiter stage takes its limiters
// from Limiters share rateLimit.permitsPerSecond = 300 of the command Pay across the
// fleet, with demands 70/20/10 % of 450 a second. A caller that the scheduler holds back
// offers its calls late, all at once: the burst (20, about 95 ms of the largest share)
// keeps the permits of such a pause, as a service's own burst would, so that what is
// measured is the fleet's share and not the test's pacing on a busy machine; the longest
// pause is logged.
func TestGlobalLimitThroughTheStage(t *testing.T) {
	const rate, period = 300.0, 500 * time.Millisecond
	r := newRedis(t)
	var (
		wg           sync.WaitGroup
		counting     atomic.Bool
		ok, refusals [3]atomic.Int64
		pause        [3]atomic.Int64 // the longest gap between two turns of a caller, ns
	)
	ctx, cancel := context.WithCancel(context.Background())
	for i, demand := range []float64{0.7 * 450, 0.2 * 450, 0.1 * 450} {
		c := redis.NewClient(&redis.Options{Addr: r.addr})
		rt := command.NewRuntime(command.WithRateLimiters(Limiters(c,
			Config{Key: "rxhystrix:limit:", Instance: fmt.Sprint("i", i), LeasePeriod: period, Burst: 20}, 1.0/3)))
		defer func() { rt.Close(); c.Close() }() // after the callers stopped
		wg.Go(func() {
			due, last := 0.0, time.Now()
			for ctx.Err() == nil {
				time.Sleep(time.Millisecond)
				now := time.Now()
				if gap := int64(now.Sub(last)); counting.Load() && gap > pause[i].Load() {
					pause[i].Store(gap)
				}
				due += demand * now.Sub(last).Seconds()
				last = now
				for ; due >= 1; due-- {
					_, err := command.New(command.Setter{Runtime: rt, CommandKey: "Pay",
						Properties: config.Set(config.ExecutionIsolationStrategy.Of(config.Semaphore),
							config.ExecutionMaxConcurrentRequests.Of(1000),
							config.RateLimitEnabled.Of(true), config.RateLimitPermitsPerSecond.Of(rate))},
						func(context.Context) (string, error) { return "paid", nil }).Execute(context.Background())
					switch {
					case !counting.Load():
					case err == nil:
						ok[i].Add(1)
					case errors.Is(err, command.ErrRateLimited):
						refusals[i].Add(1)
					default:
						t.Errorf("instance %d: %v", i, err)
					}
				}
			}
		})
	}
	defer func() { cancel(); wg.Wait() }()
	time.Sleep(3 * period) // the first renewals
	counting.Store(true)
	start := time.Now()
	time.Sleep(5 * time.Second)
	counting.Store(false)
	took := time.Since(start).Seconds()
	var sum float64
	each := make([]float64, 3)
	for i := range each {
		each[i] = float64(ok[i].Load()) / took
		sum += each[i]
	}
	t.Logf("through the stage: fleet %.1f/s, instances %.1f, refused %d/%d/%d, longest pauses %v/%v/%v",
		sum, each, refusals[0].Load(), refusals[1].Load(), refusals[2].Load(),
		time.Duration(pause[0].Load()), time.Duration(pause[1].Load()), time.Duration(pause[2].Load()))
	assert.InEpsilon(t, rate, sum, 0.05, "fleet; instances %.1f, longest pause %v", each, time.Duration(pause[0].Load()))
	assert.InEpsilon(t, 0.7*rate, each[0], 0.1, "the first instance; longest pause %v", time.Duration(pause[0].Load()))
}
