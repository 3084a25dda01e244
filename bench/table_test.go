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

// epyc and unknown are the machines of the section tests.
var (
	epyc    = Machine{CPU: "AMD EPYC", Cores: 2, Go: "go1.26.8", Conditions: "idle (load average 0.08 at the start)", Date: "2026-12-02", Runs: 5}
	unknown = Machine{Cores: 2, Go: "go1.26.8", Conditions: "shared with other jobs", Date: "2026-12-01", Runs: 9}
)

func TestSectionsRoundTripThroughTheDocument(t *testing.T) {
	rows := []Row{
		{Case: "SuccessCtx", NsPerOp: 464.4, Allocs: 2, Ratios: map[string]Spread{
			"cep21": {0.78, 0.74, 0.82}, "failsafe": {0.3, 0.28, 0.31}, "afex": {0.1, 0.1, 0.1}, "gobreaker": {3, 2.5, 3.5}}},
		{Case: "ThreadIsolated", NsPerOp: 1500, Allocs: 5, Ratios: map[string]Spread{"afex": {0.3, 0.29, 0.31}}},
		{Case: "Observe", NsPerOp: 707, Allocs: 11, Ratios: map[string]Spread{Execute: {1.8, 1.7, 1.9}}},
	}
	text := Section{Machine: unknown, Rows: rows}.Text()
	assert.True(t, strings.HasPrefix(text, "Machine: CPU model not recorded; 2 cores; go1.26.8; shared with other jobs; 2026-12-01; 9 runs\n\n| Case |"), text)
	assert.Contains(t, text, "| SuccessCtx | 464 | 2 | 0.78 (0.74-0.82) | 0.30 (0.28-0.31) | 0.10 (0.10-0.10) | 3.00 (2.50-3.50) |\n")
	assert.Contains(t, text, "| ThreadIsolated | 1500 | 5 | - | - | 0.30 (0.29-0.31) | - |\n")
	assert.Contains(t, text, "| Observe | 707 | 11 | 1.80 (1.70-1.90) |\n")

	doc := "# Title\n\nbefore\n\n" + text + "\nafter\n"
	parsed, err := ParseSections(doc)
	require.NoError(t, err)
	require.Len(t, parsed, 1)
	assert.Equal(t, unknown, parsed[0].Machine)
	require.Len(t, parsed[0].Rows, 3)
	assert.Equal(t, Row{Case: "SuccessCtx", NsPerOp: 464, Allocs: 2, Ratios: map[string]Spread{
		"cep21": {0.78, 0.74, 0.82}, "failsafe": {0.3, 0.28, 0.31}, "afex": {0.1, 0.1, 0.1}, "gobreaker": {3, 2.5, 3.5}}}, parsed[0].Rows[0])
	assert.Equal(t, map[string]Spread{"afex": {0.3, 0.29, 0.31}}, parsed[0].Rows[1].Ratios)
	assert.Equal(t, map[string]Spread{Execute: {1.8, 1.7, 1.9}}, parsed[0].Rows[2].Ratios)

	// A machine of its own: a section added after the last, the others kept as they were.
	doc, err = ReplaceSection(doc, Section{Machine: epyc, Rows: rows[:1]})
	require.NoError(t, err)
	want := "# Title\n\nbefore\n\n" + text + "\n" + Section{Machine: epyc, Rows: rows[:1]}.Text() + "\nafter\n"
	assert.Equal(t, want, doc)
	// The same CPU model and cores again: its section replaced, on another date.
	later := epyc
	later.Date, later.Conditions = "2026-12-03", "loaded (load average 3.10 at the start)"
	rows[0].Allocs = 3
	doc, err = ReplaceSection(doc, Section{Machine: later, Rows: rows[:1]})
	require.NoError(t, err)
	want = "# Title\n\nbefore\n\n" + text + "\n" + Section{Machine: later, Rows: rows[:1]}.Text() + "\nafter\n"
	assert.Equal(t, want, doc)
	parsed, err = ParseSections(doc)
	require.NoError(t, err)
	require.Len(t, parsed, 2)
	assert.Equal(t, later, parsed[1].Machine)
	assert.Equal(t, 3.0, parsed[1].Rows[0].Allocs)
	assert.Len(t, parsed[0].Rows, 3, "the section of an unrecorded CPU is never replaced")
}

func TestParseSectionsReportsWhatIsMissing(t *testing.T) {
	_, err := ParseSections("no machine here\n")
	assert.ErrorContains(t, err, `no line starting "Machine: "`)
	_, err = ParseSections("Machine: AMD EPYC; 2 cores; go1.26.8; idle; 2026-12-02\n")
	assert.ErrorContains(t, err, "six fields")
	_, err = ParseSections(epyc.String() + "\n\n" + peerHeader + "\n|---|\n\n" + unknown.String() + "\n\n" + Tables(nil))
	assert.ErrorContains(t, err, "AMD EPYC, 2 cores: bench: no table \"| Front door", "the next machine's tables are not this one's")
}

func TestMachineLine(t *testing.T) {
	for _, m := range []Machine{epyc, unknown} {
		back, err := ParseMachine(m.String())
		require.NoError(t, err)
		assert.Equal(t, m, back)
	}
	assert.Equal(t, "AMD EPYC, 2 cores", epyc.Name())
	assert.Equal(t, "CPU model not recorded, 2 cores", unknown.Name())
	assert.True(t, epyc.Same(Machine{CPU: "AMD EPYC", Cores: 2, Date: "2030-01-01"}))
	assert.False(t, epyc.Same(Machine{CPU: "AMD EPYC", Cores: 4}), "as many cores")
	assert.False(t, unknown.Same(unknown), "an unknown model is no machine's")
	_, err := ParseMachine("Machine: AMD EPYC; two cores; go1.26.8; idle; 2026-12-02; 5 runs")
	assert.ErrorContains(t, err, "<n> cores")
}

func TestCPUModelAndLoad(t *testing.T) {
	cpuinfo := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13 64-Core Processor\n\nprocessor\t: 1\nmodel name\t: other\n"
	assert.Equal(t, "AMD EPYC 7B13 64-Core Processor", CPUModel(cpuinfo))
	assert.Equal(t, "a, b", CPUModel("model name : a; b\n"), "a ; would split the Machine line")
	assert.Empty(t, CPUModel("processor : 0\n"))
	assert.Equal(t, "idle (load average 0.08 at the start)", Load("0.08 0.19 0.23 1/86 26552\n", 2))
	assert.Equal(t, "loaded (load average 5.69 at the start)", Load("5.69 4.46 2.12 1/86 26552\n", 2))
	assert.Empty(t, Load("", 2))
}

func TestCheckFindsEveryDrift(t *testing.T) {
	measured := []Row{
		{Case: "A", Allocs: 2, Ratios: map[string]Spread{"cep21": {0.8, 0.8, 0.8}, "afex": {0.1, 0.1, 0.1}}},
		{Case: "B", Allocs: 1, Ratios: map[string]Spread{"cep21": {1, 1, 1}}},
	}
	on := func(m Machine, rows ...Row) Section { return Section{Machine: m, Rows: rows} }
	require.NoError(t, Check([]Section{on(epyc, measured...)}, measured, epyc, 0.2))
	within := []Row{
		{Case: "A", Allocs: 2, Ratios: map[string]Spread{"cep21": {0.95, 0.95, 0.95}, "afex": {0.085, 0.085, 0.085}}},
		{Case: "B", Allocs: 1, Ratios: map[string]Spread{"cep21": {0.7, 0.6, 1.1}}},
	}
	require.NoError(t, Check([]Section{on(epyc, within...)}, measured, epyc, 0.2), "every ratio within 20 % or the published runs")

	err := Check([]Section{on(epyc,
		Row{Case: "A", Allocs: 1, Ratios: map[string]Spread{"cep21": {0.5, 0.45, 0.79}, "gobreaker": {2, 2, 2}}},
		Row{Case: "C", Allocs: 1},
	)}, measured, epyc, 0.2)
	require.Error(t, err)
	for _, want := range []string{
		"AMD EPYC, 2 cores: A: 1 allocs/op published, 2 measured",
		"A vs cep21: 0.80 (0.80-0.80) measured: off by more than 20 % and outside the published range for AMD EPYC, 2 cores: 0.50 (0.45-0.79) on AMD EPYC, 2 cores",
		"AMD EPYC, 2 cores: A: no ratio to afex published, 0.10 measured",
		"AMD EPYC, 2 cores: A: a ratio to gobreaker is published, but gobreaker does not take part",
		"AMD EPYC, 2 cores: C: published, but no such case is measured",
		"AMD EPYC, 2 cores: B: measured, but not published",
	} {
		assert.Contains(t, err.Error(), want)
	}
}

func TestCheckTakesTheRangeOfItsMachine(t *testing.T) {
	fast := Row{Case: "A", Allocs: 1, Ratios: map[string]Spread{"cep21": {0.54, 0.53, 0.55}}}
	slow := Row{Case: "A", Allocs: 1, Ratios: map[string]Spread{"cep21": {0.75, 0.71, 0.8}}}
	published := []Section{{Machine: unknown, Rows: []Row{fast}}, {Machine: epyc, Rows: []Row{slow}}}
	measured := func(r float64) []Row {
		return []Row{{Case: "A", Allocs: 1, Ratios: map[string]Spread{"cep21": {r, r, r}}}}
	}

	require.NoError(t, Check(published, measured(0.78), epyc, 0.2))
	err := Check(published, measured(0.54), epyc, 0.2)
	require.Error(t, err, "the other machine's figure does not count on a machine with a section of its own")
	assert.ErrorContains(t, err, "outside the published range for AMD EPYC, 2 cores: 0.75 (0.71-0.80) on AMD EPYC, 2 cores")

	xeon := Machine{CPU: "Intel Xeon", Cores: 2}
	for _, r := range []float64{0.54, 0.78, 0.5} {
		require.NoError(t, Check(published, measured(r), xeon, 0.2), "%.2f: within one machine's range, with no section of its own", r)
		require.NoError(t, Check(published, measured(r), Machine{Cores: 2}, 0.2), "%.2f: an unknown model takes the union", r)
	}
	err = Check(published, measured(1.2), xeon, 0.2)
	require.Error(t, err)
	assert.ErrorContains(t, err, "outside every published machine's range (no section is of Intel Xeon, 2 cores): "+
		"0.54 (0.53-0.55) on CPU model not recorded, 2 cores; 0.75 (0.71-0.80) on AMD EPYC, 2 cores")
	require.Error(t, Check(published, measured(0.35), Machine{Cores: 2}, 0.2), "below every range")
}

// TestReadmeTablesAreTheCases checks the performance tables of bench/README.md against
// the code, as far as a shared machine allows in make test: every machine's section lists
// exactly the benchmark cases, and every allocation count it publishes is what rxhystrix
// allocates per call now (the ratios are checked by make bench-check). A section whose
// allocations no longer hold was measured on other code: measure it again on its machine
// (make bench-readme) or delete it.
func TestReadmeTablesAreTheCases(t *testing.T) {
	doc, err := os.ReadFile("README.md")
	require.NoError(t, err)
	sections, err := ParseSections(string(doc))
	require.NoError(t, err)
	var names []string
	for _, c := range Cases() {
		names = append(names, c.Name)
	}
	allocs := map[string]float64{}
	rx := Libraries()[0]
	for _, c := range Cases() {
		tg, call, err := c.Open(rx)
		require.NoError(t, err)
		a, err := allocsPerCall(call, c.Want)
		tg.Close()
		require.NoError(t, err)
		allocs[c.Name] = math.Round(a)
	}
	for _, s := range sections {
		var got []string
		for _, row := range s.Rows {
			got = append(got, row.Case)
			if want, ok := allocs[row.Case]; ok {
				assert.Equal(t, want, row.Allocs, "%s: %s: allocations per call", s.Machine.Name(), row.Case)
			}
		}
		assert.ElementsMatch(t, names, got, "%s: the tables list every case, and only those", s.Machine.Name())
	}
}
