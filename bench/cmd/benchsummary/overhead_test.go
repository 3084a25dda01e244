package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOverheadsOverTheBaseline(t *testing.T) {
	in := strings.Join([]string{
		"BenchmarkRoundTrip/bare-2       1000  50000 ns/op  5000 B/op  60 allocs/op",
		"BenchmarkRoundTrip/rxhystrix-2  1000  51000 ns/op  5300 B/op  66 allocs/op",
		"BenchmarkRoundTrip/failsafe-2   1000  54000 ns/op  7000 B/op  100 allocs/op",
		"BenchmarkRoundTrip/bare-2       1000  52000 ns/op  5000 B/op  60 allocs/op",
		"BenchmarkRoundTrip/rxhystrix-2  1000  53000 ns/op  5300 B/op  66 allocs/op",
		"BenchmarkRoundTrip/failsafe-2   1000  56000 ns/op  7000 B/op  100 allocs/op",
		"BenchmarkSuccess/rxhystrix-2    1000  400 ns/op  0 B/op  1 allocs/op",
	}, "\n")
	s, err := Parse(strings.NewReader(in))
	require.NoError(t, err)
	var out strings.Builder
	require.NoError(t, s.WriteMarkdown(&out))
	assert.Contains(t, out.String(), "| RoundTrip | rxhystrix | 1000 | 6 | (reference) |\n")
	assert.Contains(t, out.String(), "| RoundTrip | failsafe | 4000 | 40 | 0.25 |\n")
	assert.NotContains(t, out.String(), "| Success | rxhystrix | 0 |", "no baseline, no overhead row")
}

func TestNoOverheadTableWithoutABaseline(t *testing.T) {
	s, err := Parse(strings.NewReader("BenchmarkSuccess/rxhystrix-2 1000 400 ns/op 0 B/op 1 allocs/op\n"))
	require.NoError(t, err)
	assert.Empty(t, s.overheads())
}
