package main

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// errDependencyDown is what a simulated dependency returns while it fails.
var errDependencyDown = errors.New("dependency unavailable")

// dependency simulates a remote service: a latency distribution, an error rate, and an
// optional outage schedule.
type dependency struct {
	name      string
	median    time.Duration // typical latency
	tail      time.Duration // latency of the slowest 1% of calls
	errorRate float64       // share of calls that fail outside an outage
	// outage, when set, reports whether the dependency is down at the given elapsed time.
	outage func(elapsed time.Duration) bool
	start  time.Time
}

// call waits for a simulated latency (or until ctx ends) and returns an answer or an error.
func (d *dependency) call(ctx context.Context) (string, error) {
	latency := d.median/2 + time.Duration(rand.Int64N(int64(d.median)+1))
	if rand.Float64() < 0.01 {
		latency = d.tail
	}
	down := d.outage != nil && d.outage(time.Since(d.start))
	t := time.NewTimer(latency)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-t.C:
	}
	if down || rand.Float64() < d.errorRate {
		return "", errDependencyDown
	}
	return d.name + " answer", nil
}

// periodicOutage is down from `from` to `from+down` in every `period`, so a breaker opens
// and closes again within each period.
func periodicOutage(period, from, down time.Duration) func(time.Duration) bool {
	return func(elapsed time.Duration) bool {
		at := elapsed % period
		return at >= from && at < from+down
	}
}
