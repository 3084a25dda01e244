package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Reference is the library every other one is compared with.
const Reference = "rxhystrix"

// libOrder is the column order of the known libraries; others follow by name.
var libOrder = []string{Reference, "cep21", "failsafe", "afex", "gobreaker"}

// Runs are the measurements of one (case, lib) pair, one value per -count run.
type Runs struct {
	NsPerOp, BytesPerOp, AllocsPerOp []float64
	// DroppedPerOp is the custom metric "dropped/op": metric events the library dropped.
	DroppedPerOp []float64
}

// Summary is the parsed benchmark output.
type Summary struct {
	// Header holds the goos/goarch/pkg/cpu lines, in input order.
	Header []string
	// Cases are the case names in input order.
	Cases []string
	// Runs maps case -> lib -> runs.
	Runs map[string]map[string]*Runs
	// Failures are the input's failure lines ("--- FAIL: ...", "FAIL ..."), in order.
	Failures []string
}

var (
	// benchLine matches "BenchmarkCase/lib-2   1000   1234 ns/op ...".
	benchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.*ns/op.*)$`)
	// nameLine matches a benchmark name whose result line was cut by log output.
	nameLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?(?:\s|$)`)
	// resultLine matches the rest of a cut result line: "1000   1234 ns/op ...".
	resultLine = regexp.MustCompile(`^\d+\s+(.*ns/op.*)$`)
)

// ErrNoBenchmarks is returned when the input holds no Benchmark<Case>/<lib> line.
var ErrNoBenchmarks = errors.New("no Benchmark<Case>/<lib> results in the input")

// Parse reads `go test -bench` output. Lines that are not results of a Benchmark<Case>/<lib>
// (PASS, ok, logs, top-level benchmarks) are ignored. A result whose line was cut by log
// output (go test prints the name, then anything the benchmark logged, then the result)
// is joined to its name.
func Parse(r io.Reader) (*Summary, error) {
	s := &Summary{Runs: map[string]map[string]*Runs{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	pending := "" // the name of a cut result line
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		for _, h := range []string{"goos:", "goarch:", "pkg:", "cpu:"} {
			if strings.HasPrefix(line, h) && !slices.Contains(s.Header, line) {
				s.Header = append(s.Header, line)
			}
		}
		if strings.HasPrefix(line, "--- FAIL") || strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "panic:") {
			s.Failures = append(s.Failures, line)
		}
		name, fields := "", ""
		if m := benchLine.FindStringSubmatch(line); m != nil {
			name, fields, pending = m[1], m[2], ""
		} else if m := resultLine.FindStringSubmatch(line); m != nil && pending != "" {
			name, fields, pending = pending, m[1], ""
		} else if m := nameLine.FindStringSubmatch(line); m != nil {
			pending = m[1]
			continue
		} else {
			continue
		}
		i := strings.LastIndexByte(name, '/')
		if i <= 0 || i == len(name)-1 {
			continue
		}
		if err := s.runs(name[:i], name[i+1:]).add(fields); err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(s.Cases) == 0 {
		return nil, ErrNoBenchmarks
	}
	return s, nil
}

// runs returns the runs of (c, lib), creating them.
func (s *Summary) runs(c, lib string) *Runs {
	libs, ok := s.Runs[c]
	if !ok {
		libs = map[string]*Runs{}
		s.Runs[c] = libs
		s.Cases = append(s.Cases, c)
	}
	r, ok := libs[lib]
	if !ok {
		r = &Runs{}
		libs[lib] = r
	}
	return r
}

// add records the "value unit" pairs of one result line.
func (r *Runs) add(fields string) error {
	f := strings.Fields(fields)
	for i := 0; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return fmt.Errorf("value %q: %w", f[i], err)
		}
		switch f[i+1] {
		case "ns/op":
			r.NsPerOp = append(r.NsPerOp, v)
		case "B/op":
			r.BytesPerOp = append(r.BytesPerOp, v)
		case "allocs/op":
			r.AllocsPerOp = append(r.AllocsPerOp, v)
		case "dropped/op":
			r.DroppedPerOp = append(r.DroppedPerOp, v)
		}
	}
	return nil
}

// Median returns the median of xs (the mean of the middle two for an even count) and
// false when xs is empty.
func Median(xs []float64) (float64, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2], true
	}
	return (s[n/2-1] + s[n/2]) / 2, true
}

// Libs returns the libraries of case c in table order.
func (s *Summary) Libs(c string) []string {
	var libs []string
	for lib := range s.Runs[c] {
		libs = append(libs, lib)
	}
	sortLibs(libs)
	return libs
}

// sortLibs sorts libs in libOrder, unknown libraries last by name.
func sortLibs(libs []string) {
	rank := func(lib string) int {
		if i := slices.Index(libOrder, lib); i >= 0 {
			return i
		}
		return len(libOrder)
	}
	slices.SortFunc(libs, func(a, b string) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
}

// WriteMarkdown writes the header lines and the table.
func (s *Summary) WriteMarkdown(w io.Writer) error {
	b := &strings.Builder{}
	for _, h := range s.Header {
		fmt.Fprintf(b, "    %s\n", h)
	}
	if len(s.Header) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "Medians over the runs; ratios are %s/peer (below 1.00: %s is faster or allocates less).\n\n", Reference, Reference)
	dropped := s.hasDropped()
	fmt.Fprintf(b, "| Case | Lib | runs | ns/op | B/op | allocs/op | %[1]s/peer ns/op | %[1]s/peer allocs/op |", Reference)
	sep := "|---|---|---:|---:|---:|---:|---:|---:|"
	if dropped {
		b.WriteString(" dropped/op |")
		sep += "---:|"
	}
	b.WriteString("\n" + sep + "\n")
	for _, c := range s.Cases {
		ref := s.Runs[c][Reference]
		for _, lib := range s.Libs(c) {
			r := s.Runs[c][lib]
			timeRatio, allocRatio := "", ""
			switch {
			case lib == Reference:
				timeRatio, allocRatio = "(reference)", "(reference)"
			case ref == nil:
				timeRatio, allocRatio = "n/a", "n/a"
			default:
				timeRatio = ratio(ref.NsPerOp, r.NsPerOp)
				allocRatio = ratio(ref.AllocsPerOp, r.AllocsPerOp)
			}
			fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %s | %s |", c, lib, len(r.NsPerOp),
				median(r.NsPerOp), median(r.BytesPerOp), median(r.AllocsPerOp), timeRatio, allocRatio)
			if dropped {
				fmt.Fprintf(b, " %s |", droppedCell(r.DroppedPerOp))
			}
			b.WriteString("\n")
		}
	}
	if dropped {
		b.WriteString("\ndropped/op: metric events the library dropped per call (median; its metrics did not see them).\n")
	}
	if g := s.geomeans(); g != "" {
		b.WriteString("\n" + g)
	}
	if o := s.overheads(); o != "" {
		b.WriteString("\n" + o)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// hasDropped reports whether any result carries the dropped/op metric.
func (s *Summary) hasDropped() bool {
	for _, libs := range s.Runs {
		for _, r := range libs {
			if len(r.DroppedPerOp) > 0 {
				return true
			}
		}
	}
	return false
}

// droppedCell formats the median dropped/op with three significant digits.
func droppedCell(xs []float64) string {
	m, ok := Median(xs)
	switch {
	case !ok:
		return "-"
	case m == 0:
		return "0"
	}
	return strconv.FormatFloat(m, 'g', 3, 64)
}

// geomeans returns a one-row table of the geometric mean of the time ratios per peer over
// the cases both ran, or "" when no case has the reference and a peer.
func (s *Summary) geomeans() string {
	logs := map[string][]float64{}
	for _, c := range s.Cases {
		ref, ok := s.Runs[c][Reference]
		if !ok {
			continue
		}
		rm, ok := Median(ref.NsPerOp)
		if !ok || rm <= 0 {
			continue
		}
		for lib, r := range s.Runs[c] {
			if pm, ok := Median(r.NsPerOp); ok && pm > 0 && lib != Reference {
				logs[lib] = append(logs[lib], math.Log(rm/pm))
			}
		}
	}
	if len(logs) == 0 {
		return ""
	}
	var peers []string
	for lib := range logs {
		peers = append(peers, lib)
	}
	sortLibs(peers)
	b := &strings.Builder{}
	fmt.Fprintf(b, "Geometric mean of the time ratio %s/peer over the cases both ran:\n\n", Reference)
	fmt.Fprintf(b, "| Peer | cases | %s/peer ns/op |\n|---|---:|---:|\n", Reference)
	for _, lib := range peers {
		sum := 0.0
		for _, l := range logs[lib] {
			sum += l
		}
		fmt.Fprintf(b, "| %s | %d | %.2f |\n", lib, len(logs[lib]), math.Exp(sum/float64(len(logs[lib]))))
	}
	return b.String()
}

// median formats the median of xs ("-" when there is none).
func median(xs []float64) string {
	m, ok := Median(xs)
	if !ok {
		return "-"
	}
	return number(m)
}

// ratio formats median(ref)/median(peer).
func ratio(ref, peer []float64) string {
	rm, ok1 := Median(ref)
	pm, ok2 := Median(peer)
	switch {
	case !ok1 || !ok2:
		return "-"
	case pm == 0 && rm == 0:
		return "1.00"
	case pm == 0:
		return "inf"
	}
	return fmt.Sprintf("%.2f", rm/pm)
}

// number formats a measurement with at most three significant decimals below 100.
func number(v float64) string {
	switch {
	case v == math.Trunc(v) || v >= 100:
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}
