package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []float64
		want float64
		ok   bool
	}{
		{"empty", nil, 0, false},
		{"one", []float64{3}, 3, true},
		{"odd unsorted", []float64{9, 1, 5}, 5, true},
		{"even takes the mean of the middle two", []float64{4, 1, 3, 2}, 2.5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]float64(nil), tc.in...)
			got, ok := Median(tc.in)
			assert.Equal(t, tc.ok, ok)
			assert.InDelta(t, tc.want, got, 1e-9)
			assert.Equal(t, in, tc.in, "Median must not reorder its input")
		})
	}
}

func TestParse(t *testing.T) {
	f, err := os.Open("testdata/sample.txt")
	require.NoError(t, err)
	defer f.Close()
	s, err := Parse(f)
	require.NoError(t, err)

	assert.Equal(t, []string{"Success", "ShortCircuit", "Observe"}, s.Cases, "cases in input order; top-level benchmarks ignored")
	assert.Equal(t, []string{"rxhystrix", "cep21", "gobreaker"}, s.Libs("Success"))
	assert.Equal(t, []string{"cep21", "afex"}, s.Libs("ShortCircuit"))
	rx := s.Runs["Success"]["rxhystrix"]
	assert.Equal(t, []float64{500, 700, 600}, rx.NsPerOp)
	assert.Equal(t, []float64{64, 64, 64}, rx.BytesPerOp)
	assert.Equal(t, []float64{2, 2, 2}, rx.AllocsPerOp)
	assert.Equal(t, []string{"goos: linux", "goarch: amd64", "pkg: github.com/rxhystrix/rxhystrix/bench", "cpu: Test CPU"}, s.Header)
}

func TestParseRejects(t *testing.T) {
	_, err := Parse(strings.NewReader("PASS\nok x 1s\n"))
	require.ErrorIs(t, err, ErrNoBenchmarks)

	_, err = Parse(strings.NewReader("BenchmarkA/b-2 10 x ns/op\n"))
	require.Error(t, err, "a malformed value is an error, not a silent zero")
}

func TestLibsOrderUnknownLast(t *testing.T) {
	s, err := Parse(strings.NewReader(strings.Join([]string{
		"BenchmarkA/zeta-2 10 5 ns/op",
		"BenchmarkA/gobreaker-2 10 5 ns/op",
		"BenchmarkA/alpha-2 10 5 ns/op",
		"BenchmarkA/rxhystrix-2 10 5 ns/op",
		"BenchmarkA/sub/cep21-2 10 5 ns/op",
	}, "\n")))
	require.NoError(t, err)
	assert.Equal(t, []string{"rxhystrix", "gobreaker", "alpha", "zeta"}, s.Libs("A"))
	assert.Equal(t, []string{"cep21"}, s.Libs("A/sub"), "the library is the last path element")
}

func TestWriteMarkdown(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"testdata/sample.txt"}, nil, &out))
	got := out.String()
	for _, row := range []string{
		"    cpu: Test CPU",
		"| Case | Lib | runs | ns/op | B/op | allocs/op | rxhystrix/peer ns/op | rxhystrix/peer allocs/op |",
		"| Success | rxhystrix | 3 | 600 | 64 | 2 | (reference) | (reference) |",
		"| Success | cep21 | 3 | 1100 | 272 | 4 | 0.55 | 0.50 |",
		"| Success | gobreaker | 3 | 110 | 0 | 0 | 5.45 | inf |",
		"| ShortCircuit | cep21 | 1 | 300 | 16 | 1 | n/a | n/a |",
		"| Observe | rxhystrix | 2 | 4500 | 900 | 20 | (reference) | (reference) |",
		"| cep21 | 1 | 0.55 |",
		"| gobreaker | 1 | 5.45 |",
	} {
		assert.Contains(t, got, row+"\n")
	}
	assert.Less(t, strings.Index(got, "| Success | rxhystrix"), strings.Index(got, "| Success | cep21"))
	assert.NotContains(t, got, "TopLevel")
	assert.NotContains(t, got, "\n| afex | ", "afex shares no case with rxhystrix: no geometric mean")
}

func TestRunStdinAndMissingFile(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(nil, strings.NewReader("BenchmarkA/rxhystrix-2 10 5.5 ns/op 0 B/op 0 allocs/op\n"), &out))
	assert.Contains(t, out.String(), "| A | rxhystrix | 1 | 5.50 | 0 | 0 | (reference) | (reference) |\n")

	require.Error(t, run([]string{"testdata/missing.txt"}, nil, &out))
}

func TestNumber(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 4: "4", 2.5: "2.50", 69.6: "69.6", 1234.4: "1234", 150.5: "151"} {
		assert.Equal(t, want, number(in), "number(%v)", in)
	}
}

// TestParseJoinsResultsCutByLogs checks that a result printed after log lines still
// counts for its benchmark, and that the dropped/op column appears when reported.
func TestParseJoinsResultsCutByLogs(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"testdata/interleaved.txt"}, nil, &out))
	got := out.String()
	assert.Contains(t, got, "| Case | Lib | runs | ns/op | B/op | allocs/op | rxhystrix/peer ns/op | rxhystrix/peer allocs/op | dropped/op |\n")
	assert.Contains(t, got, "| ShortCircuit | rxhystrix | 2 | 526 | 224 | 1 | (reference) | (reference) | 0.000367 |\n")
	assert.Contains(t, got, "| ParallelSuccess | rxhystrix | 1 | 495 | 224 | 1 | (reference) | (reference) | 0.18 |\n")
	assert.Contains(t, got, "| ParallelSuccess | cep21 | 1 | 1100 | 272 | 4 | 0.45 | 0.25 | - |\n")
}

// TestRunFailsOnFailedBenchmarks checks that a failed run is not summarised as a success.
func TestRunFailsOnFailedBenchmarks(t *testing.T) {
	in := "BenchmarkA/rxhystrix-2 10 5 ns/op\n--- FAIL: BenchmarkA/cep21\n    bench_test.go:1: boom\nFAIL\nexit status 1\n"
	var out bytes.Buffer
	err := run(nil, strings.NewReader(in), &out)
	require.ErrorContains(t, err, "--- FAIL: BenchmarkA/cep21")
	assert.Contains(t, out.String(), "| A | rxhystrix | 1 | 5 |", "the table is still written")
}
