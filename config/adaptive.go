package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rxhystrix/rxhystrix/adaptive"
)

// AdaptiveAlgorithm is the value of execution.isolation.adaptive.algorithm: how an
// ADAPTIVE key's limit learns (see docs/configuration.md, "ADAPTIVE isolation").
type AdaptiveAlgorithm uint8

const (
	// Gradient2 scales the limit by how far the latency is from its baseline (the default).
	Gradient2 AdaptiveAlgorithm = iota
	// Vegas keeps the queue it estimates in the dependency between two bounds.
	Vegas
)

// String returns "GRADIENT2" or "VEGAS".
func (a AdaptiveAlgorithm) String() string {
	switch a {
	case Gradient2:
		return "GRADIENT2"
	case Vegas:
		return "VEGAS"
	}
	return "AdaptiveAlgorithm(" + strconv.Itoa(int(a)) + ")"
}

// parseAdaptiveAlgorithm parses "GRADIENT2" or "VEGAS" (surrounding spaces and letter case
// are ignored).
func parseAdaptiveAlgorithm(s string) (AdaptiveAlgorithm, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "GRADIENT2":
		return Gradient2, nil
	case "VEGAS":
		return Vegas, nil
	}
	return 0, errors.New("unknown adaptive algorithm (want GRADIENT2 or VEGAS)")
}

// Reserved is the value of execution.isolation.adaptive.reserved: for each criticality,
// the percentage of an ADAPTIVE key's limit that lower criticalities may not use (see
// package adaptive). It is written as LEVEL=percent pairs separated by commas, e.g.
// "CRITICAL=30,SHEDDABLE_PLUS=20" (the default); the percentages add up to at most 90,
// and SHEDDABLE, the lowest level, reserves nothing.
type Reserved [adaptive.NumCriticalities]int

// String returns the LEVEL=percent pairs of the levels that reserve a share, highest
// first ("" when none does).
func (r Reserved) String() string {
	var parts []string
	for c := adaptive.NumCriticalities - 1; c >= 0; c-- {
		if r[c] != 0 {
			parts = append(parts, adaptive.Criticality(c).String()+"="+strconv.Itoa(r[c]))
		}
	}
	return strings.Join(parts, ",")
}

// Shares returns the reserved shares as fractions of the limit, for the limiter's
// settings (internal/adaptivelimit.Settings.Reserved).
func (r Reserved) Shares() [adaptive.NumCriticalities]float64 {
	var s [adaptive.NumCriticalities]float64
	for c, p := range r {
		s[c] = float64(p) / 100
	}
	return s
}

// parseReserved parses LEVEL=percent pairs (see Reserved); "" reserves nothing.
func parseReserved(s string) (Reserved, error) {
	var r Reserved
	for part := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		level, pct, ok := strings.Cut(part, "=")
		if !ok {
			return r, fmt.Errorf("%q is not LEVEL=percent", strings.TrimSpace(part))
		}
		c, err := adaptive.ParseCriticality(level)
		if err != nil {
			return r, fmt.Errorf("unknown criticality %q (want CRITICAL_PLUS, CRITICAL or SHEDDABLE_PLUS)", strings.TrimSpace(level))
		}
		n, err := strconv.Atoi(strings.TrimSpace(pct))
		if err != nil || n < 0 || n > 90 {
			return r, fmt.Errorf("%s: %q is not a percentage in 0..90", c, strings.TrimSpace(pct))
		}
		r[c] = n
	}
	return r, nil
}

// validReserved refuses a share for the lowest level and shares over 90 % in all.
func validReserved(r Reserved) error {
	if r[adaptive.Sheddable] != 0 {
		return errors.New("SHEDDABLE is the lowest criticality: there is nobody to reserve a share from")
	}
	sum := 0
	for _, p := range r {
		sum += p
	}
	if sum > 90 {
		return fmt.Errorf("the shares add up to %d %% (at most 90)", sum)
	}
	return nil
}

var (
	adaptiveAlgorithmCodec = codec[AdaptiveAlgorithm]{parse: parseAdaptiveAlgorithm,
		format: AdaptiveAlgorithm.String, values: []AdaptiveAlgorithm{Gradient2, Vegas}}
	reservedCodec = codec[Reserved]{parse: parseReserved, format: Reserved.String}
)

// limitRange requires minLimit <= initialLimit <= maxLimit. The error is about the
// property that changed (the initial limit when several did).
func limitRange(sc *scope[cmd]) check[cmd] {
	lo, init, hi := sc.index(AdaptiveMinLimit.Name()), sc.index(AdaptiveInitialLimit.Name()), sc.index(AdaptiveMaxLimit.Name())
	return check[cmd]{fields: []int{lo, init, hi}, run: func(r *resolution[cmd]) *PropertyError {
		l, i, h := candValue[int](r, lo), candValue[int](r, init), candValue[int](r, hi)
		if l <= i && i <= h {
			return nil
		}
		blame := init
		if !r.sc.fields[init].changed(r, init) {
			for _, f := range []int{lo, hi} {
				if r.sc.fields[f].changed(r, f) {
					blame = f
				}
			}
		}
		f := r.sc.fields[blame]
		return &PropertyError{Name: r.k.name(f.shortName()), Value: f.formatCand(r, blame),
			Err: fmt.Errorf("want minLimit <= initialLimit <= maxLimit (now %d, %d, %d)", l, i, h)}
	}}
}
