package cache

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// entry is a fixed LogEntry.
type entry struct {
	key    string
	events []LogEvent
	d      time.Duration
}

func (e entry) CommandKey() string           { return e.key }
func (e entry) LogEvents() []LogEvent        { return e.events }
func (e entry) ExecutionTime() time.Duration { return e.d }

// ev builds events with count 1; "NAME*n" gives count n.
func ev(specs ...string) []LogEvent {
	out := make([]LogEvent, len(specs))
	for i, s := range specs {
		name, n, _ := strings.Cut(s, "*")
		out[i] = LogEvent{Name: name, Count: 1}
		if n != "" {
			out[i].Count = len(n) // "*xxxxx" = 5
		}
	}
	return out
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestRequestLogString(t *testing.T) {
	cases := []struct {
		name    string
		entries []entry
		want    string
	}{
		{"empty", nil, ""},
		{"one", []entry{{"GetUser", ev("SUCCESS"), ms(12)}}, "GetUser[SUCCESS][12ms]"},
		{
			"cache hit is a different display",
			[]entry{
				{"GetUser", ev("SUCCESS"), ms(12)},
				{"GetUser", ev("SUCCESS", "RESPONSE_FROM_CACHE"), -1},
			},
			"GetUser[SUCCESS][12ms], GetUser[SUCCESS, RESPONSE_FROM_CACHE][0ms]",
		},
		{
			"repeats fold with summed time",
			[]entry{
				{"TestCommand", ev("SUCCESS"), ms(1)},
				{"TestCommand", ev("SUCCESS"), ms(5)},
				{"TestCommand", ev("SUCCESS"), ms(0)},
				{"TestCommand", ev("SUCCESS"), ms(9)},
			},
			"TestCommand[SUCCESS][15ms]x4",
		},
		{
			"folding is by display, wherever it occurs, at the first position",
			[]entry{
				{"A", ev("SUCCESS"), ms(1)},
				{"B", ev("FAILURE", "FALLBACK_SUCCESS"), ms(2)},
				{"A", ev("SUCCESS"), ms(3)},
				{"A", ev("TIMEOUT", "FALLBACK_MISSING"), ms(4)},
			},
			"A[SUCCESS][4ms]x2, B[FAILURE, FALLBACK_SUCCESS][2ms], A[TIMEOUT, FALLBACK_MISSING][4ms]",
		},
		{
			"emit counts",
			[]entry{{"Stream", ev("EMIT*xxxxx", "FAILURE", "FALLBACK_EMIT*xxxxxx", "FALLBACK_FAILURE"), ms(100)}},
			"Stream[EMITx5, FAILURE, FALLBACK_EMITx6, FALLBACK_FAILURE][100ms]",
		},
		{
			"a single emit has no multiplier",
			[]entry{{"Stream", ev("EMIT*x", "SUCCESS"), ms(3)}},
			"Stream[EMIT, SUCCESS][3ms]",
		},
		{"zero count is shown plainly", []entry{{"K", []LogEvent{{Name: "SUCCESS"}}, ms(1)}}, "K[SUCCESS][1ms]"},
		{"no events yet", []entry{{"Pending", nil, -1}}, "Pending[Executed][0ms]"},
		{"sub-millisecond truncates", []entry{{"Fast", ev("SUCCESS"), 1999 * time.Microsecond}}, "Fast[SUCCESS][1ms]"},
		{
			"different emit counts do not fold",
			[]entry{{"S", ev("EMIT*xx", "SUCCESS"), ms(1)}, {"S", ev("EMIT*xxx", "SUCCESS"), ms(1)}},
			"S[EMITx2, SUCCESS][1ms], S[EMITx3, SUCCESS][1ms]",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var l RequestLog
			for _, e := range tc.entries {
				require.True(t, l.Add(e))
			}
			assert.Equal(t, tc.want, l.String())
		})
	}
}

type panickingEntry struct{ entry }

func (panickingEntry) LogEvents() []LogEvent { panic("broken entry") }

func TestRequestLogStringSurvivesAPanickingEntry(t *testing.T) {
	var l RequestLog
	l.Add(entry{key: "Fine"})
	l.Add(panickingEntry{})
	assert.Equal(t, "Unknown", l.String())
}

func TestRequestLogKeepsAtMostMaxEntries(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	var l RequestLog
	for i := range maxLogEntries {
		require.True(t, l.Add(entry{key: "Cmd", events: ev("SUCCESS"), d: ms(1)}), i)
	}
	assert.Empty(t, buf.String(), "no warning below the limit")

	for range 5 {
		assert.False(t, l.Add(entry{key: "Extra"}))
	}
	assert.Len(t, l.Entries(), maxLogEntries)
	assert.Equal(t, 5, l.droppedCount())
	assert.Equal(t, "Cmd[SUCCESS][1000ms]x1000", l.String())
	assert.Equal(t, 1, strings.Count(buf.String(), "request log full"), buf.String())
	assert.Contains(t, buf.String(), "limit=1000")
}

func TestRequestLogConcurrentAddAndString(t *testing.T) {
	var l RequestLog
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				l.Add(entry{key: "Cmd", events: ev("SUCCESS"), d: ms(1)})
				_ = l.String()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, "Cmd[SUCCESS][400ms]x400", l.String())
}

func BenchmarkRequestLogAdd(b *testing.B) {
	e := entry{key: "Cmd", events: ev("SUCCESS"), d: ms(1)}
	b.ReportAllocs()
	for b.Loop() {
		var l RequestLog
		l.Add(e)
	}
}
