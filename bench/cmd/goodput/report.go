package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"
)

// slo is the latency within which a success counts as goodput.
const slo = 100 * time.Millisecond

// second is one second of a run: goodput, the admitted calls' p99 and the median limit.
type second struct {
	good  int
	p99   time.Duration
	limit int
}

// seconds folds a result into one second per entry, by when the calls were due.
func seconds(r result, dur time.Duration) []second {
	n := int(dur / time.Second)
	out := make([]second, n)
	lats := make([][]time.Duration, n)
	for _, rec := range r.records {
		i := int(rec.at / time.Second)
		if i >= n {
			continue
		}
		if rec.out == succeeded && rec.lat <= slo {
			out[i].good++
		}
		if rec.out != rejected {
			lats[i] = append(lats[i], rec.lat)
		}
	}
	limits := make([][]int, n)
	for _, l := range r.limits {
		if i := int(l.at / time.Second); i < n {
			limits[i] = append(limits[i], l.limit)
		}
	}
	for i := range out {
		out[i].p99 = quantile(lats[i], 0.99)
		out[i].limit = quantile(limits[i], 0.5)
	}
	return out
}

// phaseStats are a client's figures over one phase.
type phaseStats struct {
	goodput  float64       // successes within the SLO per second, as a share of the phase's capacity
	served   float64       // successes, within the SLO or not, per second, as a share of the capacity
	p99      time.Duration // of the admitted calls
	rejected float64       // share of the calls refused by the limit
	limit    int           // median limit over the phase's second half
	settle   int           // seconds until the limit stays within 10 % (at least 1) of limit; -1: never
}

func statsOf(r result, s scenario, perSec float64) []phaseStats {
	secs := seconds(r, s.duration())
	var out []phaseStats
	var start time.Duration
	for _, p := range s.phases {
		var good, served, total, refused int
		var lats []time.Duration
		for _, rec := range r.records {
			if rec.at < start || rec.at >= start+p.dur {
				continue
			}
			total++
			switch {
			case rec.out == rejected:
				refused++
				continue
			case rec.out == succeeded:
				served++
				if rec.lat <= slo {
					good++
				}
			}
			lats = append(lats, rec.lat)
		}
		capacity := perSec
		if p.capacity > 0 {
			capacity *= p.capacity
		}
		st := phaseStats{goodput: float64(good) / p.dur.Seconds() / capacity, served: float64(served) / p.dur.Seconds() / capacity,
			p99: quantile(lats, 0.99)}
		if total > 0 {
			st.rejected = float64(refused) / float64(total)
		}
		var limits []int
		for _, sec := range secs[int(start/time.Second):int((start+p.dur)/time.Second)] {
			limits = append(limits, sec.limit)
		}
		st.limit, st.settle = settle(limits)
		out = append(out, st)
		start += p.dur
	}
	return out
}

// settle returns the median of the second half of limits (one per second) and the first
// second from which every limit stays within 10 % of it (at least 1: limits are whole).
func settle(limits []int) (int, int) {
	if len(limits) == 0 {
		return 0, -1
	}
	final := quantile(limits[len(limits)/2:], 0.5)
	tol := max(1, int(math.Ceil(0.1*float64(final))))
	s := len(limits)
	for s > 0 && abs(limits[s-1]-final) <= tol {
		s--
	}
	if s == len(limits) {
		return final, -1
	}
	return final, s
}

func abs(n int) int { return max(n, -n) }

// quantile returns the q quantile of xs (0 for none).
func quantile[T int | time.Duration](xs []T, q float64) T {
	if len(xs) == 0 {
		return 0
	}
	ys := slices.Clone(xs)
	slices.Sort(ys)
	return ys[min(len(ys)-1, int(q*float64(len(ys))))]
}

// table writes a scenario's results as a markdown table: per client and phase, goodput
// and all successes as a share of the phase's capacity, the admitted p99 and its ratio to the client's
// unloaded p99 (unloaded, by client), the share refused, the settled limit and how long
// it took to settle.
func table(w io.Writer, s scenario, perSec float64, results []result, unloaded map[string]time.Duration) {
	fmt.Fprintf(w, "| client | phase | goodput / capacity | served / capacity | admitted p99 | p99 / unloaded | refused | limit | settled after |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		st := statsOf(r, s, perSec)
		unloaded := unloaded[r.client]
		for i, p := range s.phases {
			settled := "-"
			if st[i].settle >= 0 {
				settled = fmt.Sprintf("%d s", st[i].settle)
			}
			fmt.Fprintf(w, "| %s | %s | %.2f | %.2f | %d ms | %.2f | %.0f %% | %d | %s |\n", r.client, p.name, st[i].goodput,
				st[i].served, st[i].p99.Milliseconds(), float64(st[i].p99)/float64(max(1, unloaded)), 100*st[i].rejected, st[i].limit, settled)
		}
	}
}

// drift writes the median limit of the first and the last minute of each result.
func drift(w io.Writer, results []result, dur time.Duration) {
	fmt.Fprintf(w, "| client | median limit, first minute | median limit, last minute | change |\n|---|---|---|---|\n")
	for _, r := range results {
		var first, last []int
		for _, l := range r.limits {
			switch {
			case l.at < time.Minute:
				first = append(first, l.limit)
			case l.at >= dur-time.Minute:
				last = append(last, l.limit)
			}
		}
		f, l := quantile(first, 0.5), quantile(last, 0.5)
		fmt.Fprintf(w, "| %s | %d | %d | %+.0f %% |\n", r.client, f, l, 100*float64(l-f)/float64(max(1, f)))
	}
}
