package metrics

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// epoch is aligned to every bucket width the tests use.
var epoch = time.Unix(1_000_000, 0)

// env is a registry on a fake clock with a memory config source.
type env struct {
	t   testing.TB
	r   *Registry
	clk *clock.Fake
	mem *config.MemorySource
}

func newEnv(t testing.TB, opts ...Option) *env {
	t.Helper()
	mem := config.NewMemorySource()
	store := config.NewStore(mem)
	clk := clock.NewFake(epoch)
	r := NewRegistry(store, clk, opts...)
	t.Cleanup(store.Close)
	t.Cleanup(r.Close)
	return &env{t: t, r: r, clk: clk, mem: mem}
}

// advance moves the fake clock forward: the registry's timer rolls every boundary on the
// way inside Advance; Flush then waits for an eviction sweep it may have started.
func (e *env) advance(d time.Duration) {
	e.clk.Advance(d)
	e.r.Flush()
}

func TestSmoke(t *testing.T) {
	e := newEnv(t)
	m := e.r.Command("A")
	m.MarkComplete(ExecutionResult{}.WithEvent(Success))
	m.MarkComplete(ExecutionResult{}.WithEvent(Failure).WithEvent(FallbackSuccess))
	e.advance(500 * time.Millisecond)
	require.Equal(t, HealthCounts{TotalRequests: 2, ErrorCount: 1, ErrorPercentage: 50}, m.HealthCounts())
}
