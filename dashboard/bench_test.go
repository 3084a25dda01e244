package dashboard

import (
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/rxhystrix/rxhystrix/dashboard/internal/sse"
	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
)

// BenchmarkRenderInterval measures one interval of /hystrix.stream for 50 commands, 5
// thread pools and 5 collapsers: snapshot copy, stamping and JSON encoding.
func BenchmarkRenderInterval(b *testing.B) {
	sample := sampleSnapshot()
	var s wire.Snapshot
	for i := range 50 {
		c := sample.Commands[0]
		c.Name = fmt.Sprintf("Command%d", i)
		s.Commands = append(s.Commands, c)
	}
	for i := range 5 {
		tp, col := sample.ThreadPools[0], sample.Collapsers[0]
		tp.Name, col.Name = fmt.Sprintf("Pool%d", i), fmt.Sprintf("Collapser%d", i)
		s.ThreadPools = append(s.ThreadPools, tp)
		s.Collapsers = append(s.Collapsers, col)
	}
	render := sse.Snapshots(func() wire.Snapshot { return s })
	f := sse.NewFrames(slog.New(slog.NewTextHandler(io.Discard, nil)))
	now := epoch
	b.ReportAllocs()
	for b.Loop() {
		f.Reset()
		render(f, now)
	}
	b.SetBytes(int64(len(f.Bytes())))
}
