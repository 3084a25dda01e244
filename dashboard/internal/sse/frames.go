package sse

import (
	"bytes"
	"encoding/json"
	"log/slog"
)

// Frames is one connection's reusable output buffer: the SSE frames of one interval,
// written with a single Write.
type Frames struct {
	buf bytes.Buffer
	enc *json.Encoder
	log *slog.Logger
}

// NewFrames returns an empty buffer that logs unencodable values to log.
func NewFrames(log *slog.Logger) *Frames {
	f := &Frames{log: log}
	f.enc = json.NewEncoder(&f.buf)
	f.enc.SetEscapeHTML(false)
	return f
}

// Data appends "data: {json}\n\n". A value that cannot be encoded is logged and skipped.
func (f *Frames) Data(v any) {
	n := f.buf.Len()
	f.buf.WriteString("data: ")
	if err := f.enc.Encode(v); err != nil { // Encode appends one '\n'
		f.buf.Truncate(n)
		f.log.Error("dashboard: cannot encode frame", "err", err)
		return
	}
	f.buf.WriteByte('\n')
}

// Ping appends the keep-alive "ping: \n\n" (a field EventSource clients ignore).
func (f *Frames) Ping() { f.buf.WriteString("ping: \n\n") }

// Reset empties the buffer for the next interval.
func (f *Frames) Reset() { f.buf.Reset() }

// Bytes returns the frames appended since the last Reset.
func (f *Frames) Bytes() []byte { return f.buf.Bytes() }
