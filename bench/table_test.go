package bench

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// comparison builds a Comparison whose lanes take the given times per turn.
func comparison(name string, lanes map[string][]float64, allocs float64) Comparison {
	c := Comparison{Case: name}
	for _, lib := range append([]string{Reference, Execute}, Peers...) {
		if ns, ok := lanes[lib]; ok {
			c.Lanes = append(c.Lanes, Lane{Lib: lib, NsPerOp: ns, AllocsPerOp: allocs})
		}
	}
	return c
}

func TestSummarizeTakesMediansOfPairedTurns(t *testing.T) {
	runs := [][]Comparison{
		{comparison("A", map[string][]float64{Reference: {100, 200, 300}, "cep21": {200, 200, 200}}, 2.1)},
		{comparison("A", map[string][]float64{Reference: {100, 100, 100}, "cep21": {50, 400, 100}}, 1.9)},
		{comparison("A", map[string][]float64{Reference: {300, 300, 300}, "cep21": {600, 600, 600}}, 2)},
	}
	rows := Summarize(runs)
	require.Len(t, rows, 1)
	assert.Equal(t, "A", rows[0].Case)
	assert.Equal(t, 200.0, rows[0].NsPerOp, "the median of the runs' medians 200, 100, 300")
	assert.Equal(t, 2.0, rows[0].Allocs)
	// per-turn ratios: run 1 0.5, 1, 1.5 (median 1); run 2 2, 0.25, 1 (1); run 3 0.5 (0.5)
	assert.Equal(t, Spread{1, 0.5, 1}, rows[0].Ratios["cep21"])
	assert.NotContains(t, rows[0].Ratios, "afex")
}

func TestTablesRoundTripThroughTheReadme(t *testing.T) {
	rows := []Row{
		{Case: "SuccessCtx", NsPerOp: 464.4, Allocs: 2, Ratios: map[string]Spread{
			"cep21": {0.78, 0.74, 0.82}, "failsafe": {0.3, 0.28, 0.31}, "afex": {0.1, 0.1, 0.1}, "gobreaker": {3, 2.5, 3.5}}},
		{Case: "ThreadIsolated", NsPerOp: 1500, Allocs: 5, Ratios: map[string]Spread{"afex": {0.3, 0.29, 0.31}}},
		{Case: "Observe", NsPerOp: 707, Allocs: 11, Ratios: map[string]Spread{Execute: {1.8, 1.7, 1.9}}},
	}
	tables := Tables(rows)
	assert.Contains(t, tables, "| SuccessCtx | 464 | 2 | 0.78 (0.74-0.82) | 0.30 (0.28-0.31) | 0.10 (0.10-0.10) | 3.00 (2.50-3.50) |\n")
	assert.Contains(t, tables, "| ThreadIsolated | 1500 | 5 | - | - | 0.30 (0.29-0.31) | - |\n")
	assert.Contains(t, tables, "| Observe | 707 | 11 | 1.80 (1.70-1.90) |\n")

	doc := "# Title\n\nbefore\n\n" + tables + "\nafter\n"
	parsed, err := ParseTables(doc)
	require.NoError(t, err)
	require.Len(t, parsed, 3)
	assert.Equal(t, Row{Case: "SuccessCtx", NsPerOp: 464, Allocs: 2, Ratios: map[string]Spread{
		"cep21": {0.78, 0.74, 0.82}, "failsafe": {0.3, 0.28, 0.31}, "afex": {0.1, 0.1, 0.1}, "gobreaker": {3, 2.5, 3.5}}}, parsed[0])
	assert.Equal(t, map[string]Spread{"afex": {0.3, 0.29, 0.31}}, parsed[1].Ratios)
	assert.Equal(t, map[string]Spread{Execute: {1.8, 1.7, 1.9}}, parsed[2].Ratios)

	rows[0].Allocs = 3
	updated, err := ReplaceTables(doc, rows[:1])
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(updated, "# Title\n\nbefore\n\n| Case |"), updated)
	assert.True(t, strings.HasSuffix(updated, "|---|---:|---:|---:|\n\nafter\n"), "the empty front-door table, then the rest:\n%s", updated)
	assert.Contains(t, updated, "| SuccessCtx | 464 | 3 |")
	assert.NotContains(t, updated, "ThreadIsolated")
}

func TestCheckFindsEveryDrift(t *testing.T) {
	measured := []Row{
		{Case: "A", Allocs: 2, Ratios: map[string]Spread{"cep21": {0.8, 0.8, 0.8}, "afex": {0.1, 0.1, 0.1}}},
		{Case: "B", Allocs: 1, Ratios: map[string]Spread{"cep21": {1, 1, 1}}},
	}
	require.NoError(t, Check(measured, measured, 0.2))
	within := []Row{
		{Case: "A", Allocs: 2, Ratios: map[string]Spread{"cep21": {0.95, 0.95, 0.95}, "afex": {0.085, 0.085, 0.085}}},
		{Case: "B", Allocs: 1, Ratios: map[string]Spread{"cep21": {0.7, 0.6, 1.1}}},
	}
	require.NoError(t, Check(within, measured, 0.2), "every ratio within 20 % or the published runs")

	err := Check([]Row{
		{Case: "A", Allocs: 1, Ratios: map[string]Spread{"cep21": {0.5, 0.45, 0.79}, "gobreaker": {2, 2, 2}}},
		{Case: "C", Allocs: 1},
	}, measured, 0.2)
	require.Error(t, err)
	for _, want := range []string{
		"A: 1 allocs/op published, 2 measured",
		"A vs cep21: 0.50 (0.45-0.79) published, 0.80 (0.80-0.80) measured: off by more than 20 % and outside the published runs",
		"A: no ratio to afex published, 0.10 measured",
		"A: a ratio to gobreaker is published, but gobreaker does not take part",
		"C: published, but no such case is measured",
		"B: measured, but not published",
	} {
		assert.Contains(t, err.Error(), want)
	}
}

// TestReadmeTablesAreTheCases checks the README's performance tables against the code, as
// far as a shared machine allows in make test: they list exactly the benchmark cases, and
// every allocation count they publish is what rxhystrix allocates per call now (the
// ratios are checked by make bench-check, which needs a quiet machine).
func TestReadmeTablesAreTheCases(t *testing.T) {
	doc, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	published, err := ParseTables(string(doc))
	require.NoError(t, err)
	var names []string
	for _, c := range Cases() {
		names = append(names, c.Name)
	}
	var got []string
	rx := Libraries()[0]
	for _, row := range published {
		got = append(got, row.Case)
		c, ok := CaseNamed(row.Case)
		if !ok {
			continue
		}
		tg, call, err := c.Open(rx)
		require.NoError(t, err)
		allocs, err := allocsPerCall(call, c.Want)
		tg.Close()
		require.NoError(t, err)
		assert.Equal(t, row.Allocs, math.Round(allocs), "%s: allocations per call (README)", row.Case)
	}
	assert.ElementsMatch(t, names, got, "the README's tables list every case, and only those")
}
