package rx

import (
	"context"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// waitLimit bounds every wait in the tests so that a broken operator fails instead of hanging.
const waitLimit = 5 * time.Second

// testCtx returns a context cancelled when the test ends.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

// drain reads ch until it closes and returns the items.
func drain(t testing.TB, ch <-chan rxgo.Item) []rxgo.Item {
	t.Helper()
	var items []rxgo.Item
	timeout := time.After(waitLimit)
	for {
		select {
		case it, ok := <-ch:
			if !ok {
				return items
			}
			items = append(items, it)
		case <-timeout:
			t.Fatalf("channel not closed in time; got %v", items)
		}
	}
}

// values returns the values of items, failing on an error item.
func values(t testing.TB, items []rxgo.Item) []any {
	t.Helper()
	out := make([]any, 0, len(items))
	for _, it := range items {
		if it.Error() {
			t.Fatalf("unexpected error item %v", it.E)
		}
		out = append(out, it.V)
	}
	return out
}

// collectAsync reads ch until it closes on a goroutine of its own and then hands over the items.
func collectAsync(ch <-chan rxgo.Item) <-chan []rxgo.Item {
	got := make(chan []rxgo.Item, 1)
	go func() {
		var items []rxgo.Item
		for it := range ch {
			items = append(items, it)
		}
		got <- items
	}()
	return got
}

// await receives one value from ch within the wait limit.
func await[T any](t testing.TB, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatal("nothing received in time")
	}
	var zero T
	return zero
}
