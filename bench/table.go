package bench

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Spread is a ratio measured over several runs: the median of the runs' medians and the
// lowest and highest of them.
type Spread struct{ Median, Low, High float64 }

// Row is one case of the published tables: rxhystrix's time and allocations per call and
// its time ratio to each peer (rxhystrix/peer; for a front door, door/Execute).
type Row struct {
	Case    string
	NsPerOp float64
	Allocs  float64
	Ratios  map[string]Spread // by peer; absent: the peer does not take part
}

// Peers are the columns of the peer table, in order.
var Peers = []string{"cep21", "failsafe", "afex", "gobreaker"}

// The tables' header lines, which is how ParseSections finds them in a section.
const (
	peerHeader = "| Case | rxhystrix ns/op | allocs | vs cep21 | vs failsafe | vs afex | vs gobreaker |"
	doorHeader = "| Front door | rxhystrix ns/op | allocs | vs Execute |"
)

// Summarize turns several runs of the comparison (each run holding every case) into one
// row per case: the median over runs of rxhystrix's median time per call, its allocations
// (the least seen) and, per peer, the Spread of the runs' median per-turn ratios.
func Summarize(runs [][]Comparison) []Row {
	if len(runs) == 0 {
		return nil
	}
	var rows []Row
	for i, c := range runs[0] {
		row := Row{Case: c.Case, Allocs: math.Inf(1), Ratios: map[string]Spread{}}
		var ns []float64
		ratios := map[string][]float64{}
		for _, run := range runs {
			rx := run[i].Lane(Reference)
			ns = append(ns, Median(rx.NsPerOp))
			row.Allocs = min(row.Allocs, math.Round(rx.AllocsPerOp))
			for _, l := range run[i].Lanes {
				if l.Lib != Reference {
					ratios[l.Lib] = append(ratios[l.Lib], Median(run[i].Ratios(Reference, l.Lib)))
				}
			}
		}
		row.NsPerOp = Median(ns)
		for peer, rs := range ratios {
			row.Ratios[peer] = Spread{Median(rs), Quantile(rs, 0), Quantile(rs, 1)}
		}
		rows = append(rows, row)
	}
	return rows
}

// Reference is the library the ratios are taken of.
const Reference = "rxhystrix"

// door reports whether a row is a front door's (compared with Execute).
func (r Row) door() bool {
	_, ok := r.Ratios[Execute]
	return ok
}

// Tables returns the two Markdown tables of rows: the peer table, then the front doors.
func Tables(rows []Row) string {
	var b strings.Builder
	b.WriteString(peerHeader + "\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		if !r.door() {
			fmt.Fprintf(&b, "| %s | %.0f | %.0f |", r.Case, r.NsPerOp, r.Allocs)
			for _, p := range Peers {
				b.WriteString(" " + cell(r.Ratios, p) + " |")
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n" + doorHeader + "\n|---|---:|---:|---:|\n")
	for _, r := range rows {
		if r.door() {
			fmt.Fprintf(&b, "| %s | %.0f | %.0f | %s |\n", r.Case, r.NsPerOp, r.Allocs, cell(r.Ratios, Execute))
		}
	}
	return b.String()
}

// cell formats a ratio as "median (low-high)", or "-" when the peer did not take part.
func cell(ratios map[string]Spread, peer string) string {
	s, ok := ratios[peer]
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.2f (%.2f-%.2f)", s.Median, s.Low, s.High)
}

// parseTables reads the two tables back from text: for every row the case, rxhystrix's
// time and allocations, and each ratio's Spread.
func parseTables(text string) ([]Row, error) {
	var rows []Row
	for _, h := range []struct {
		header string
		peers  []string
	}{{peerHeader, Peers}, {doorHeader, []string{Execute}}} {
		lines, err := tableLines(text, h.header)
		if err != nil {
			return nil, err
		}
		for _, line := range lines {
			cells := strings.Split(strings.Trim(line, "| "), " | ")
			if len(cells) != 3+len(h.peers) {
				return nil, fmt.Errorf("bench: table row %q: %d cells, want %d", line, len(cells), 3+len(h.peers))
			}
			r := Row{Case: cells[0], Ratios: map[string]Spread{}}
			if r.NsPerOp, err = strconv.ParseFloat(cells[1], 64); err != nil {
				return nil, fmt.Errorf("bench: table row %q: %w", line, err)
			}
			if r.Allocs, err = strconv.ParseFloat(cells[2], 64); err != nil {
				return nil, fmt.Errorf("bench: table row %q: %w", line, err)
			}
			for i, p := range h.peers {
				if cells[3+i] == "-" {
					continue
				}
				var sp Spread
				if _, err := fmt.Sscanf(cells[3+i], "%g (%g-%g)", &sp.Median, &sp.Low, &sp.High); err != nil {
					return nil, fmt.Errorf("bench: table row %q, %s: %w", line, p, err)
				}
				r.Ratios[p] = sp
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// tableLines returns the rows of the table under header (after its separator line).
func tableLines(doc, header string) ([]string, error) {
	_, rest, ok := strings.Cut(doc, header+"\n")
	if !ok {
		return nil, fmt.Errorf("bench: no table %q", header)
	}
	lines := strings.Split(rest, "\n")[1:] // the separator
	for i, l := range lines {
		if !strings.HasPrefix(l, "|") {
			return lines[:i], nil
		}
	}
	return lines, nil
}

// Section is the published tables of one machine: its Machine line, then the peer table
// and the front-door table.
type Section struct {
	Machine Machine
	Rows    []Row
}

// Text returns the section as the document shows it.
func (s Section) Text() string { return s.Machine.String() + "\n\n" + Tables(s.Rows) }

// ParseSections reads every section of a document (bench/README.md), in order: each
// starts at a Machine line and holds the two tables that follow it.
func ParseSections(doc string) ([]Section, error) {
	var out []Section
	for _, sp := range sectionSpans(doc) {
		line, _, _ := strings.Cut(doc[sp.start:sp.end], "\n")
		m, err := ParseMachine(line)
		if err != nil {
			return nil, err
		}
		rows, err := parseTables(doc[sp.start:sp.end])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name(), err)
		}
		out = append(out, Section{Machine: m, Rows: rows})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bench: no line starting %q", machinePrefix)
	}
	return out, nil
}

// span is where a section lies in a document: from its Machine line to the end of its
// front-door table (the newline after the table's last row included).
type span struct{ start, end int }

// sectionSpans finds the sections of doc. A section whose tables are incomplete ends at
// the next Machine line (or the end), so parsing it reports what is missing.
func sectionSpans(doc string) []span {
	var starts []int
	for i := 0; i < len(doc); {
		if strings.HasPrefix(doc[i:], machinePrefix) {
			starts = append(starts, i)
		}
		next := strings.Index(doc[i:], "\n")
		if next < 0 {
			break
		}
		i += next + 1
	}
	var out []span
	for k, start := range starts {
		limit := len(doc)
		if k+1 < len(starts) {
			limit = starts[k+1]
		}
		end := limit
		if h := strings.Index(doc[start:limit], doorHeader+"\n"); h >= 0 {
			end = start + h + len(doorHeader) + 1
			for end < limit && strings.HasPrefix(doc[end:], "|") { // the separator, then the rows
				nl := strings.Index(doc[end:limit], "\n")
				if nl < 0 {
					end = limit
					break
				}
				end += nl + 1
			}
		}
		out = append(out, span{start, end})
	}
	return out
}

// ReplaceSection returns doc with the section of s's machine (the same CPU model and
// cores) replaced by s, or with s added after the last section when no section is of
// that machine. A section whose CPU model was not recorded is never replaced.
func ReplaceSection(doc string, s Section) (string, error) {
	published, err := ParseSections(doc)
	if err != nil {
		return "", err
	}
	spans := sectionSpans(doc)
	for i, p := range published {
		if p.Machine.Same(s.Machine) {
			return doc[:spans[i].start] + s.Text() + doc[spans[i].end:], nil
		}
	}
	end := spans[len(spans)-1].end
	return doc[:end] + "\n" + s.Text() + doc[end:], nil
}

// Check compares the published sections with rows measured on machine on. Every section
// must list the measured cases with the allocations measured (neither depends on the
// machine). A measured ratio is compared with the sections of the same machine (CPU model
// and cores) or, when none is of it or its CPU model is unknown, with every section: it
// passes when, for one of them, it is within tolerance (relative) of the published median
// or within the range of that machine's published runs (the noise of that very cell: a
// few ratios, such as two goroutines contending for gobreaker's mutex, vary more between
// runs than the rest). It returns every difference.
func Check(published []Section, measured []Row, on Machine, tolerance float64) error {
	var errs []error
	for _, s := range published {
		errs = append(errs, checkCases(s, measured)...)
	}
	var same []Section
	for _, s := range published {
		if s.Machine.Same(on) {
			same = append(same, s)
		}
	}
	against := "the published range for " + on.Name()
	if len(same) == 0 {
		same, against = published, "every published machine's range (no section is of "+on.Name()+")"
	}
	for _, m := range measured {
		for _, peer := range slices.Sorted(maps.Keys(m.Ratios)) {
			got := m.Ratios[peer]
			var ranges []string
			ok := false
			for _, s := range same {
				ps, found := s.row(m.Case).Ratios[peer]
				if !found {
					continue
				}
				ok = ok || math.Abs(got.Median/ps.Median-1) <= tolerance || (got.Median >= ps.Low && got.Median <= ps.High)
				ranges = append(ranges, fmt.Sprintf("%.2f (%.2f-%.2f) on %s", ps.Median, ps.Low, ps.High, s.Machine.Name()))
			}
			if !ok && len(ranges) > 0 {
				errs = append(errs, fmt.Errorf("%s vs %s: %.2f (%.2f-%.2f) measured: off by more than %.0f %% and outside %s: %s",
					m.Case, peer, got.Median, got.Low, got.High, tolerance*100, against, strings.Join(ranges, "; ")))
			}
		}
	}
	return errors.Join(errs...)
}

// row returns the section's row of a case (an empty one when it has none).
func (s Section) row(c string) Row {
	for _, r := range s.Rows {
		if r.Case == c {
			return r
		}
	}
	return Row{}
}

// checkCases compares what does not depend on the machine: the cases, the allocations,
// and which peers take part in each case.
func checkCases(s Section, measured []Row) []error {
	var errs []error
	name := s.Machine.Name()
	byCase := map[string]Row{}
	for _, r := range measured {
		byCase[r.Case] = r
	}
	for _, p := range s.Rows {
		m, ok := byCase[p.Case]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: %s: published, but no such case is measured", name, p.Case))
			continue
		}
		delete(byCase, p.Case)
		if p.Allocs != m.Allocs {
			errs = append(errs, fmt.Errorf("%s: %s: %.0f allocs/op published, %.0f measured", name, p.Case, p.Allocs, m.Allocs))
		}
		for _, peer := range slices.Sorted(maps.Keys(m.Ratios)) {
			if _, ok := p.Ratios[peer]; !ok {
				errs = append(errs, fmt.Errorf("%s: %s: no ratio to %s published, %.2f measured", name, p.Case, peer, m.Ratios[peer].Median))
			}
		}
		for _, peer := range slices.Sorted(maps.Keys(p.Ratios)) {
			if _, ok := m.Ratios[peer]; !ok {
				errs = append(errs, fmt.Errorf("%s: %s: a ratio to %s is published, but %s does not take part", name, p.Case, peer, peer))
			}
		}
	}
	for _, c := range slices.Sorted(maps.Keys(byCase)) {
		errs = append(errs, fmt.Errorf("%s: %s: measured, but not published", name, c))
	}
	return errs
}
