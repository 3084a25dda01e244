package sse

import (
	"bytes"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// epoch is an arbitrary start for the tick grid.
var epoch = time.UnixMilli(1_700_000_000_000)

func TestNextTick(t *testing.T) {
	const every = 500 * time.Millisecond
	tests := []struct {
		name      string
		now, want time.Duration // after prev
	}{
		{"on time", 0, every},
		{"late within the interval", every - 1, every},
		{"exactly one interval late", every, 2 * every},
		{"several intervals late", 3*every + 10*time.Millisecond, 4 * every},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, epoch.Add(tt.want), nextTick(epoch, epoch.Add(tt.now), every))
		})
	}
}

func TestUnencodableFrameIsSkipped(t *testing.T) {
	var logs bytes.Buffer
	f := NewFrames(slog.New(slog.NewTextHandler(&logs, nil)))
	f.Data(map[string]int{"a": 1})
	f.Data(make(chan int))
	f.Ping()
	assert.Equal(t, "data: {\"a\":1}\n\nping: \n\n", string(f.Bytes()))
	assert.Contains(t, logs.String(), "cannot encode frame")
}
