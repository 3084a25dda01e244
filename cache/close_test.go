package cache

import (
	"context"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveEntry is a LogEntry whose events change, like a running command's.
type liveEntry struct{ events []LogEvent }

func (e *liveEntry) CommandKey() string           { return "Live" }
func (e *liveEntry) LogEvents() []LogEvent        { return e.events }
func (e *liveEntry) ExecutionTime() time.Duration { return 3 * time.Millisecond }

func TestClosedLogKeepsWhatItShowsNotItsEntries(t *testing.T) {
	ctx, rc := NewRequestContext(context.Background())
	e := &liveEntry{events: ev("SUCCESS")}
	rc.Log().Add(e)
	kept := weak.Make(e)
	rc.Close()
	e.events = ev("FAILURE") // a change after the request ended is not shown
	assert.Equal(t, "Live[SUCCESS][3ms]", rc.Log().String())
	require.Len(t, rc.Log().Entries(), 1)
	e = nil
	runtime.GC()
	assert.Nil(t, kept.Value(), "the closed log, still reachable from ctx, does not hold the entry")
	runtime.KeepAlive(ctx)

	_, rc = NewRequestContext(context.Background())
	rc.Log().Add(panickingEntry{})
	rc.Close()
	assert.Equal(t, []LogEntry{panickingEntry{}}, rc.Log().Entries(), "an entry that cannot be read is kept as it is")
}
