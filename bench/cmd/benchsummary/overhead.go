package main

import (
	"fmt"
	"strings"
)

// Baseline is the library that makes a case's call with no protection at all (bare in
// BenchmarkRoundTrip): in a case that has it, a library's overhead is its median minus
// the baseline's.
const Baseline = "bare"

// overheads returns a table of every library's overhead over the Baseline, in ns/op and
// allocs/op, with the ratio Reference/peer of the time overheads, for the cases that
// have a baseline; "" when none has.
func (s *Summary) overheads() string {
	b := &strings.Builder{}
	for _, c := range s.Cases {
		base, ok := s.Runs[c][Baseline]
		if !ok {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(b, "Overhead over %s (median minus %[1]s's median); ratio %s/peer of the time overheads:\n\n", Baseline, Reference)
			fmt.Fprintf(b, "| Case | Lib | overhead ns/op | overhead allocs/op | %s/peer overhead |\n|---|---|---:|---:|---:|\n", Reference)
		}
		ref := over(s.Runs[c][Reference], base)
		for _, lib := range s.Libs(c) {
			if lib == Baseline {
				continue
			}
			o := over(s.Runs[c][lib], base)
			cell := "(reference)"
			if lib != Reference {
				cell = ratio(ref.NsPerOp, o.NsPerOp)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", c, lib, median(o.NsPerOp), median(o.AllocsPerOp), cell)
		}
	}
	return b.String()
}

// over returns r's medians minus base's, as single runs (none where either is missing).
func over(r, base *Runs) *Runs {
	o := &Runs{}
	if r == nil {
		return o
	}
	if rm, ok := Median(r.NsPerOp); ok {
		if bm, ok := Median(base.NsPerOp); ok {
			o.NsPerOp = []float64{rm - bm}
		}
	}
	if rm, ok := Median(r.AllocsPerOp); ok {
		if bm, ok := Median(base.AllocsPerOp); ok {
			o.AllocsPerOp = []float64{rm - bm}
		}
	}
	return o
}
