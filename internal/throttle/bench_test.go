package throttle

import (
	"testing"
	"time"
)

// BenchmarkAllowRecord: one call's cost on a healthy key (Allow, then Record of an
// accept), on one goroutine and from all.
func BenchmarkAllowRecord(b *testing.B) {
	th := New(Settings{K: 2, Window: time.Minute})
	var now time.Duration
	b.ReportAllocs()
	for b.Loop() {
		now += time.Microsecond
		if th.Allow(now) {
			th.Record(now, true)
		}
	}
}

func BenchmarkAllowRecordParallel(b *testing.B) {
	th := New(Settings{K: 2, Window: time.Minute})
	start := time.Now()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			now := time.Since(start)
			if th.Allow(now) {
				th.Record(now, true)
			}
		}
	})
}
