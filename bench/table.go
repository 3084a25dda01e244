package bench

import (
	"errors"
	"fmt"
	"math"
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

// The tables' header lines, which is how ParseTables finds them in the README.
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

// ParseTables reads the two tables back from a document (the README): for every row the
// case, rxhystrix's time and allocations, and each ratio's Spread.
func ParseTables(doc string) ([]Row, error) {
	var rows []Row
	for _, h := range []struct {
		header string
		peers  []string
	}{{peerHeader, Peers}, {doorHeader, []string{Execute}}} {
		lines, err := tableLines(doc, h.header)
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

// ReplaceTables returns doc with both tables replaced by those of rows.
func ReplaceTables(doc string, rows []Row) (string, error) {
	start := strings.Index(doc, peerHeader+"\n")
	if start < 0 {
		return "", fmt.Errorf("bench: no table %q", peerHeader)
	}
	lines, err := tableLines(doc, doorHeader)
	if err != nil {
		return "", err
	}
	end := strings.Index(doc, doorHeader+"\n") + len(doorHeader) + 1
	end += strings.Index(doc[end:], "\n") + 1 // the separator
	for _, l := range lines {
		end += len(l) + 1
	}
	return doc[:start] + Tables(rows) + doc[end:], nil
}

// Check compares published rows with measured ones: the same cases, the same allocations,
// and every measured ratio within tolerance (relative) of the published median or within
// the range of the published runs (the noise of that very cell: a few ratios, such as two
// goroutines contending for gobreaker's mutex, vary more between runs than the rest). It
// returns every difference.
func Check(published, measured []Row, tolerance float64) error {
	var errs []error
	byCase := map[string]Row{}
	for _, r := range measured {
		byCase[r.Case] = r
	}
	for _, p := range published {
		m, ok := byCase[p.Case]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: published, but no such case is measured", p.Case))
			continue
		}
		delete(byCase, p.Case)
		if p.Allocs != m.Allocs {
			errs = append(errs, fmt.Errorf("%s: %.0f allocs/op published, %.0f measured", p.Case, p.Allocs, m.Allocs))
		}
		for peer, s := range m.Ratios {
			ps, ok := p.Ratios[peer]
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("%s: no ratio to %s published, %.2f measured", p.Case, peer, s.Median))
			case math.Abs(s.Median/ps.Median-1) > tolerance && (s.Median < ps.Low || s.Median > ps.High):
				errs = append(errs, fmt.Errorf("%s vs %s: %.2f (%.2f-%.2f) published, %.2f (%.2f-%.2f) measured: off by more than %.0f %% and outside the published runs",
					p.Case, peer, ps.Median, ps.Low, ps.High, s.Median, s.Low, s.High, tolerance*100))
			}
		}
		for peer := range p.Ratios {
			if _, ok := m.Ratios[peer]; !ok {
				errs = append(errs, fmt.Errorf("%s: a ratio to %s is published, but %s does not take part", p.Case, peer, peer))
			}
		}
	}
	for c := range byCase {
		errs = append(errs, fmt.Errorf("%s: measured, but not published", c))
	}
	return errors.Join(errs...)
}
