package bulkhead

import (
	"log/slog"
	"runtime"
	"testing"

	"github.com/rxhystrix/rxhystrix/internal/syncbuf"
)

// captureLogs sends the default slog logger's output to a buffer for the rest of the test.
func captureLogs(t *testing.T) *syncbuf.Buffer {
	buf := &syncbuf.Buffer{}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(buf, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return buf
}

// runtimeGoexit ends the calling goroutine, as t.FailNow inside a task would.
func runtimeGoexit() { runtime.Goexit() }
