package dashboard

import (
	"bytes"
	"encoding/json"
	"log/slog"
)

// frames is one connection's reusable output buffer: the SSE frames of one interval,
// written with a single Write.
type frames struct {
	buf bytes.Buffer
	enc *json.Encoder
	log *slog.Logger
}

func newFrames(log *slog.Logger) *frames {
	f := &frames{log: log}
	f.enc = json.NewEncoder(&f.buf)
	f.enc.SetEscapeHTML(false)
	return f
}

// data appends "data: {json}\n\n". A value that cannot be encoded is logged and skipped.
func (f *frames) data(v any) {
	n := f.buf.Len()
	f.buf.WriteString("data: ")
	if err := f.enc.Encode(v); err != nil { // Encode appends one '\n'
		f.buf.Truncate(n)
		f.log.Error("dashboard: cannot encode frame", "err", err)
		return
	}
	f.buf.WriteByte('\n')
}

// ping appends the keep-alive "ping: \n\n" (a field EventSource clients ignore).
func (f *frames) ping() { f.buf.WriteString("ping: \n\n") }
