package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

var colours = []string{"#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#ff7f0e"}

// panel is one plot of the SVG: a value per second per client, drawn up to top.
type panel struct {
	title string
	top   float64
	value func(second) float64
}

// plot writes an SVG of the scenario's results: goodput, admitted p99 and the limit
// against time, one line per client, the phases marked.
func plot(w io.Writer, s scenario, perSec float64, results []result) {
	const width, ph, left, gap = 900.0, 170.0, 60.0, 40.0
	dur := s.duration()
	n := int(dur / time.Second)
	secs := make([][]second, len(results))
	maxLimit := 0
	for i, r := range results {
		secs[i] = seconds(r, dur)
		for _, sec := range secs[i] {
			maxLimit = max(maxLimit, sec.limit)
		}
	}
	panels := []panel{
		{"goodput (successes within 100 ms, per s)", 3.2 * perSec, func(x second) float64 { return float64(x.good) }},
		{"admitted p99 (ms, drawn up to 400)", 400, func(x second) float64 { return float64(x.p99.Milliseconds()) }},
		{"limit (drawn up to 80)", float64(min(80, max(10, maxLimit))), func(x second) float64 { return float64(x.limit) }},
	}
	height := float64(len(panels))*(ph+gap) + 60
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", width+180, height)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	x := func(sec float64) float64 { return left + sec/float64(n)*(width-left) }
	for pi, p := range panels {
		top := 20 + float64(pi)*(ph+gap)
		y := func(v float64) float64 { return top + ph - min(v, p.top)/p.top*ph }
		fmt.Fprintf(w, `<text x="%.0f" y="%.0f" font-weight="bold">%s</text>`+"\n", left, top-6, p.title)
		fmt.Fprintf(w, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`+"\n", left, top, width-left, ph)
		for _, frac := range []float64{0, 0.5, 1} {
			fmt.Fprintf(w, `<text x="%.0f" y="%.1f" text-anchor="end">%.0f</text>`+"\n", left-4, y(frac*p.top)+4, frac*p.top)
		}
		var at time.Duration
		for _, st := range s.phases {
			fmt.Fprintf(w, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#ccc"/>`+"\n", x(at.Seconds()), top, x(at.Seconds()), top+ph)
			fmt.Fprintf(w, `<text x="%.1f" y="%.0f" fill="#777">%s</text>`+"\n", x(at.Seconds())+3, top+12, st.name)
			at += st.dur
		}
		if s.dropAt > 0 {
			fmt.Fprintf(w, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#f66" stroke-dasharray="4"/>`+"\n", x(s.dropAt.Seconds()), top, x(s.dropAt.Seconds()), top+ph)
		}
		for ri := range results {
			var pts []string
			for i, sec := range secs[ri] {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(float64(i)+0.5), y(p.value(sec))))
			}
			fmt.Fprintf(w, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", colours[ri%len(colours)], strings.Join(pts, " "))
		}
	}
	for ri, r := range results {
		fmt.Fprintf(w, `<text x="%.0f" y="%d" fill="%s">%s</text>`+"\n", width+10, 40+ri*16, colours[ri%len(colours)], r.client)
	}
	fmt.Fprintf(w, `<text x="%.0f" y="%.0f" fill="#777">seconds (%d s in all)</text>`+"\n", left, height-10, n)
	fmt.Fprintln(w, `</svg>`)
}
