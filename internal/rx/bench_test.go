package rx

import (
	"context"
	"testing"

	"github.com/reactivex/rxgo/v2"
)

// firstOf subscribes to obs and returns its first item, as a blocking caller would.
func firstOf(ctx context.Context, obs rxgo.Observable) rxgo.Item {
	return <-obs.Observe(rxgo.WithContext(ctx))
}

func BenchmarkDefer(b *testing.B) {
	b.ReportAllocs()
	ctx := testCtx(b)
	obs := Defer(func(context.Context) (int, error) { return 1, nil })
	for b.Loop() {
		if it := firstOf(ctx, obs); it.V != 1 {
			b.Fatal(it)
		}
	}
}

// BenchmarkReplay measures one replay subscription to a finished replay.
func BenchmarkReplay(b *testing.B) {
	b.ReportAllocs()
	ctx := testCtx(b)
	var r Replay
	r.Add(rxgo.Of(1))
	r.Finish()
	obs := r.Observable()
	for b.Loop() {
		if it := firstOf(ctx, obs); it.V != 1 {
			b.Fatal(it)
		}
	}
}

func BenchmarkToFuture(b *testing.B) {
	b.ReportAllocs()
	ctx := testCtx(b)
	obs := Defer(func(context.Context) (int, error) { return 1, nil })
	for b.Loop() {
		if v, err := ToFuture[int](ctx, obs).Get(ctx); err != nil || v != 1 {
			b.Fatal(v, err)
		}
	}
}
