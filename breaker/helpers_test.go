package breaker

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

var epoch = time.Unix(1_700_000_000, 0)

// knobs set the dynamic properties of the "cmd" key through a MemorySource, the way
// an operator would.
type knobs struct {
	src *config.MemorySource
}

func (k knobs) set(short, value string) {
	k.src.Set("hystrix.command.cmd.circuitBreaker."+short, value)
}

func (k knobs) setBool(short string, v bool) { k.set(short, strconv.FormatBool(v)) }

func (k knobs) volume(n int)  { k.set("requestVolumeThreshold", strconv.Itoa(n)) }
func (k knobs) percent(n int) { k.set("errorThresholdPercentage", strconv.Itoa(n)) }
func (k knobs) sleep(d time.Duration) {
	k.set("sleepWindowInMilliseconds", strconv.FormatInt(d.Milliseconds(), 10))
}
func (k knobs) enabled(v bool)     { k.setBool("enabled", v) }
func (k knobs) forceOpen(v bool)   { k.setBool("forceOpen", v) }
func (k knobs) forceClosed(v bool) { k.setBool("forceClosed", v) }

// commandProperties returns the properties of "cmd" (Hystrix defaults) and their knobs.
func commandProperties(t testing.TB) (*config.CommandProperties, knobs) {
	t.Helper()
	src := config.NewMemorySource()
	store := config.NewStore(src)
	t.Cleanup(store.Close)
	cp, err := store.Command("cmd", nil)
	require.NoError(t, err)
	return cp, knobs{src: src}
}

// recorder collects transitions and health resets synchronously, and stands in for the
// key's metrics: LiveHealthCounts returns live.
type recorder struct {
	mu     sync.Mutex
	ts     []Transition
	resets int
	live   metrics.HealthCounts
	reads  int
}

func (r *recorder) emit(t Transition) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ts = append(r.ts, t)
}

func (r *recorder) ResetHealthCounts() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resets++
}

func (r *recorder) LiveHealthCounts() metrics.HealthCounts {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads++
	return r.live
}

func (r *recorder) setLive(o outcomes) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.live = o.health()
}

func (r *recorder) liveReads() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reads
}

func (r *recorder) transitions() []Transition {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Transition(nil), r.ts...)
}

func (r *recorder) resetCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resets
}

type fixture struct {
	b   *breaker
	clk *clock.Fake
	k   knobs
	rec *recorder
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	clk := clock.NewFake(epoch)
	cp, k := commandProperties(t)
	rec := &recorder{}
	return &fixture{b: newBreaker("cmd", cp, clk, rec, rec.emit), clk: clk, k: k, rec: rec}
}

// attempt calls Attempt and returns only whether the call was let through.
func (f *fixture) attempt() bool {
	_, ok := f.b.Attempt()
	return ok
}

// trial waits out the sleep window and starts the trial; it returns the trial's ticket.
func (f *fixture) trial(t testing.TB) Ticket {
	t.Helper()
	f.clk.Advance(5 * time.Second)
	tk, ok := f.b.Attempt()
	require.True(t, ok, "the trial is let through")
	require.Equal(t, HalfOpen, f.b.State())
	return tk
}

// outcomes are completion events of a rolling window, by type.
type outcomes struct {
	success, failure, timeout, poolRejected, semRejected int64
	shortCircuited, badRequest                           int64
}

// health computes HealthCounts the way Hystrix does: short circuits and
// bad requests are not part of the total.
func (o outcomes) health() metrics.HealthCounts {
	total := o.success + o.failure + o.timeout + o.poolRejected + o.semRejected
	return metrics.NewHealthCounts(total, total-o.success)
}

func (f *fixture) feed(o outcomes) { f.b.onHealth(o.health()) }

// trip opens the breaker with 25 requests at 60% errors.
func (f *fixture) trip() { f.feed(outcomes{success: 10, failure: 15}) }
