//go:build e2e

package hystrixredis

import (
	"context"
	"fmt"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hang stops redis-server with SIGSTOP (a hang: connections stay open and nothing
// answers) until the returned resume.
func (r *redisServer) hang() (resume func()) {
	r.t.Helper()
	require.NoError(r.t, r.cmd.Process.Signal(syscall.SIGSTOP))
	return sync.OnceFunc(func() { _ = r.cmd.Process.Signal(syscall.SIGCONT) })
}

// freezer is a TCP proxy to Redis that can hold every byte in both directions: one
// instance's connection hangs while the others' do not (a partition of one instance).
type freezer struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	frozen bool
	closed bool
	thawed *sync.Cond
	conns  []net.Conn
	wg     sync.WaitGroup
}

func newFreezer(t *testing.T, target string) *freezer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f := &freezer{ln: ln, target: target}
	f.thawed = sync.NewCond(&f.mu)
	f.wg.Go(f.accept)
	t.Cleanup(f.close)
	return f
}

func (f *freezer) addr() string { return f.ln.Addr().String() }

func (f *freezer) accept() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", f.target)
		if err != nil {
			c.Close()
			continue
		}
		f.mu.Lock()
		if f.closed {
			f.mu.Unlock()
			c.Close()
			s.Close()
			return
		}
		f.conns = append(f.conns, c, s)
		f.mu.Unlock()
		f.wg.Go(func() { f.pipe(s, c) })
		f.wg.Go(func() { f.pipe(c, s) })
	}
}

// pipe copies src to dst, holding what it read while the freezer is frozen.
func (f *freezer) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		f.mu.Lock()
		for f.frozen && !f.closed {
			f.thawed.Wait()
		}
		f.mu.Unlock()
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

func (f *freezer) freeze(frozen bool) {
	f.mu.Lock()
	f.frozen = frozen
	f.mu.Unlock()
	f.thawed.Broadcast()
}

func (f *freezer) close() {
	f.mu.Lock()
	f.closed = true
	conns := f.conns
	f.mu.Unlock()
	f.thawed.Broadcast()
	f.ln.Close()
	for _, c := range conns {
		c.Close()
	}
	f.wg.Wait()
}

// leaseLog follows a limiter's lease every millisecond: when each renewal was seen and
// when the share stopped or started being leased.
type leaseLog struct {
	mu       sync.Mutex
	renewals []time.Time
	fallback []time.Time // leased -> not leased
	leased   []time.Time // not leased -> leased
}

func followLease(ctx context.Context, wg *sync.WaitGroup, l *Limiter) *leaseLog {
	g := &leaseLog{}
	wg.Go(func() {
		n, was := l.Renewals(), false
		for ctx.Err() == nil {
			time.Sleep(time.Millisecond)
			now := time.Now()
			m := l.Renewals()
			_, leased := l.Share()
			g.mu.Lock()
			if m != n {
				g.renewals = append(g.renewals, now)
				n = m
			}
			if leased != was {
				if leased {
					g.leased = append(g.leased, now)
				} else {
					g.fallback = append(g.fallback, now)
				}
				was = leased
			}
			g.mu.Unlock()
		}
	})
	return g
}

// fellBack returns when the share fell back after from, and the last renewal seen before.
func (g *leaseLog) fellBack(from time.Time) (last, fell time.Time, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, f := range g.fallback {
		if f.After(from) {
			fell, ok = f, true
			break
		}
	}
	for _, r := range g.renewals {
		if r.Before(fell) {
			last = r
		}
	}
	return last, fell, ok
}

// leasedAfter returns when the share was leased again after from.
func (g *leaseLog) leasedAfter(from time.Time) (time.Time, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, l := range g.leased {
		if l.After(from) {
			return l, true
		}
	}
	return time.Time{}, false
}

// TestLeaseEndsOnTimeWhenRedisHangs: 3 instances share 300/s (demands 70/20/10 % of
// 450/s, Fallback 100/s, Burst 5, lease period 500 ms, LeaseTTL 1.5 s). Two use a client
// with go-redis' defaults, whose calls do not end with their context (the hang of the
// issue: ~5 s); the third the package doc's client, through a proxy that can hang its
// connection alone. Redis is stopped with SIGSTOP for 10 s: every instance is on its
// fallback share within LeaseTTL + 250 ms of its last renewal; then the third
// instance's connection alone hangs for 10 s: it falls back as fast, the others take
// over its share, and the fleet stays within the documented margin, Rate + the hung
// instance's min(Fallback, demand) + Burst per instance (300 + 45 + 15 = 360), in every
// 1 s window.
func TestLeaseEndsOnTimeWhenRedisHangs(t *testing.T) {
	const rate, period, ttl, burst = 300.0, 500 * time.Millisecond, 1500 * time.Millisecond, 5
	r := newRedis(t)
	proxy := newFreezer(t, r.addr)
	origin := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	loads := make([]*load, 3)
	logs := make([]*leaseLog, 3)
	for i := range loads {
		opts := &redis.Options{Addr: r.addr}
		if i == 2 { // the package doc's client
			opts = &redis.Options{Addr: proxy.addr(), ContextTimeoutEnabled: true, MaxRetries: -1,
				DialTimeout: 250 * time.Millisecond}
		}
		c := redis.NewClient(opts)
		l, err := NewLimiter(c, Config{Key: "limit:hang", Instance: fmt.Sprint("i", i), Rate: rate,
			LeasePeriod: period, LeaseTTL: ttl, Fallback: rate / 3, Burst: burst})
		require.NoError(t, err)
		loads[i] = &load{l: l}
		logs[i] = followLease(ctx, &wg, l)
		defer func() { l.Close(); c.Close() }()
	}
	for i, s := range []float64{0.7, 0.2, 0.1} {
		loads[i].demand.Store(uint64(450 * s))
		wg.Go(func() { loads[i].run(ctx, origin) })
	}
	defer func() { cancel(); wg.Wait() }()
	// leasedAgain waits until each instance of which is leased after from, and logs when.
	leasedAgain := func(from time.Time, after string, which ...int) {
		t.Helper()
		for _, i := range which {
			require.Eventually(t, func() bool { _, ok := logs[i].leasedAfter(from); return ok },
				10*time.Second, time.Millisecond, "instance %d", i)
			back, _ := logs[i].leasedAfter(from)
			t.Logf("instance %d: leased again %v after %s", i, back.Sub(from).Round(time.Millisecond), after)
		}
	}
	// fellBackInTime checks that each instance of which fell back within LeaseTTL + 250 ms
	// of its last renewal after the fault at from.
	fellBackInTime := func(from time.Time, which ...int) {
		t.Helper()
		for _, i := range which {
			last, fell, ok := logs[i].fellBack(from)
			if !assert.True(t, ok, "instance %d never fell back", i) {
				continue
			}
			t.Logf("instance %d: on its fallback share %v after its last renewal (LeaseTTL %v)", i,
				fell.Sub(last).Round(time.Millisecond), ttl)
			assert.LessOrEqual(t, fell.Sub(last), ttl+250*time.Millisecond, "instance %d", i)
		}
	}
	// worstWindow returns the most the fleet admitted in a 1 s window of [from, to).
	worstWindow := func(from, to time.Time) (most float64, at time.Duration) {
		for w := from.Sub(origin).Truncate(slot); w+time.Second <= to.Sub(origin); w += slot {
			sum := 0.0
			for _, d := range loads {
				sum += d.rate(w, w+time.Second)
			}
			if sum > most {
				most, at = sum, w
			}
		}
		return most, at
	}
	leasedAgain(origin, "the start", 0, 1, 2)
	time.Sleep(4 * period)

	// Redis hangs for everyone.
	resume := r.hang()
	hung := time.Now()
	time.Sleep(10 * time.Second)
	resume()
	resumed := time.Now()
	fellBackInTime(hung, 0, 1, 2)
	leasedAgain(resumed, "Redis resumed", 0, 1, 2)
	most, at := worstWindow(hung.Add(-time.Second), time.Now())
	t.Logf("Redis hung 10 s: the fleet admitted at most %.0f in a 1 s window (at %v)", most, at)
	assert.LessOrEqual(t, most, rate+3*burst, "no instance is cut off from the others: Rate + the bursts")

	// The third instance's connection alone hangs.
	time.Sleep(4 * period)
	proxy.freeze(true)
	frozen := time.Now()
	time.Sleep(10 * time.Second)
	proxy.freeze(false)
	thawed := time.Now()
	fellBackInTime(frozen, 2)
	for i := range 2 {
		_, _, fell := logs[i].fellBack(frozen)
		assert.False(t, fell, "instance %d reached Redis throughout", i)
	}
	leasedAgain(thawed, "its connection came back", 2)
	most, at = worstWindow(frozen.Add(-time.Second), time.Now())
	margin := min(rate/3, 0.1*450) + 3*burst
	t.Logf("instance 2 cut off 10 s: the fleet admitted at most %.0f in a 1 s window (at %v); limit %.0f + margin %.0f",
		most, at, rate, margin)
	assert.LessOrEqual(t, most, rate+margin)
	cut := frozen.Add(ttl + 3*period).Sub(origin).Truncate(slot)
	each := []float64{loads[0].rate(cut, thawed.Sub(origin).Truncate(slot)), loads[1].rate(cut, thawed.Sub(origin).Truncate(slot)),
		loads[2].rate(cut, thawed.Sub(origin).Truncate(slot))}
	t.Logf("while cut off, after its lease: instances %.1f/s", each)
	assert.InEpsilon(t, rate, each[0]+each[1], 0.05, "the others took the whole rate")
}
