package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// rollingBucket is the width of a rolling-stats bucket with the default properties
// (metrics.rollingStats.timeInMilliseconds / numBuckets): cumulative counts move once per
// bucket, so the final comparison waits one out.
const rollingBucket = time.Second

// compare checks that the library's cumulative counts equal the callers' tallies, exactly:
// per command key and event type, per thread pool (EXECUTED, REJECTED), per collapser
// (BATCH_EXECUTED, ADDED_TO_BATCH, RESPONSE_FROM_CACHE). It also checks that the load did
// what it is meant to (every outcome happened, breakers opened and closed), and that every
// hook panic that only gets logged was logged.
func (s *soak) compare() error {
	var bad []string
	mismatch := func(what string, e fmt.Stringer, tallied, counted int64) {
		if tallied != counted {
			bad = append(bad, fmt.Sprintf("%s %s: callers saw %d, metrics counted %d", what, e, tallied, counted))
		}
	}
	byKey := map[string]*metrics.CommandMetrics{}
	for _, m := range s.rt.Metrics().Commands() {
		byKey[m.Key()] = m
	}
	var total, counted [metrics.NumEventTypes]int64
	executed, rejected := map[string]int64{}, map[string]int64{}
	for _, k := range s.keys {
		m := byKey[k.name]
		for _, e := range metrics.AllEventTypes() {
			if e == metrics.CommandMaxActive {
				continue // a rolling maximum, not a count
			}
			var c int64
			if m != nil {
				c = m.CumulativeCount(e)
			}
			mismatch(k.name, e, k.tally.count(e), c)
			total[e] += k.tally.count(e)
			counted[e] += c
		}
		if k.iso == config.Thread {
			executed[k.pool] += k.tally.poolExecuted()
			rejected[k.pool] += k.tally.count(metrics.ThreadPoolRejected)
		}
	}
	for _, m := range s.rt.Metrics().ThreadPools() {
		mismatch("pool "+m.Key(), metrics.Executed, executed[m.Key()], m.CumulativeCount(metrics.Executed))
		mismatch("pool "+m.Key(), metrics.Rejected, rejected[m.Key()], m.CumulativeCount(metrics.Rejected))
		delete(executed, m.Key())
	}
	for p := range executed {
		bad = append(bad, "pool "+p+": no metrics")
	}
	var answers [3]int64
	for _, b := range s.batchers {
		m := s.rt.Metrics().Collapser(b.col.Key())
		mismatch("collapser "+b.col.Key(), metrics.BatchExecuted, b.batches.Load(), m.CumulativeCount(metrics.BatchExecuted))
		mismatch("collapser "+b.col.Key(), metrics.AddedToBatch, b.requests.Load(), m.CumulativeCount(metrics.AddedToBatch))
		mismatch("collapser "+b.col.Key(), metrics.CollapserResponseFromCache, 0, m.CumulativeCount(metrics.CollapserResponseFromCache))
		for i := range answers {
			answers[i] += b.answers[i].Load()
		}
	}

	fmt.Fprintln(s.out, "counts (callers / metrics, cumulative over every key):")
	for _, e := range metrics.AllEventTypes() {
		if e != metrics.CommandMaxActive {
			fmt.Fprintf(s.out, "  %-22s %12d %12d\n", e, total[e], counted[e])
		}
	}
	fmt.Fprintf(s.out, "collapser callers: %d answered, %d errors, %d left; breakers: %d opened, %d closed\n",
		answers[0], answers[1], answers[2], s.opened.Load(), s.closed.Load())
	errs := []error{}
	if len(bad) > 0 {
		n := len(bad)
		errs = append(errs, fmt.Errorf("%d counts differ from what the callers saw, e.g.:\n  %s", n,
			strings.Join(bad[:min(n, 30)], "\n  ")))
	} else {
		fmt.Fprintln(s.out, "every count equals what the callers saw")
	}
	var coverage error
	if missing := s.missing(total); len(missing) > 0 {
		coverage = fmt.Errorf("the load never produced: %s", strings.Join(missing, ", "))
	}
	return errors.Join(append(errs, coverage, s.checkLogs())...)
}

// tallied returns the callers' counts over every key so far.
func (s *soak) tallied() (total [metrics.NumEventTypes]int64) {
	for _, k := range s.keys {
		for _, e := range metrics.AllEventTypes() {
			total[e] += k.tally.count(e)
		}
	}
	return total
}

// missing lists the outcomes the load is meant to produce and has not (total: the
// callers' counts), breakers opening and closing included: a soak that missed one proved
// less than it claims.
func (s *soak) missing(total [metrics.NumEventTypes]int64) []string {
	var missing []string
	for _, e := range metrics.AllEventTypes() {
		switch e {
		case metrics.FallbackDisabled, metrics.CommandMaxActive:
			continue // fallbacks are never disabled; a maximum, not an event
		case metrics.Retry, metrics.Hedge, metrics.BudgetExhausted, metrics.RateLimited, metrics.FaultInjected, metrics.Throttled:
			continue // no soak key retries, hedges, limits its rate, injects faults or throttles yet (the stages' own tests count them)
		case metrics.StreamEstablishTimeout, metrics.StreamIdleTimeout, metrics.StreamResumed:
			continue // the load sets no stream limits and no resume (command's stream tests cover them)
		}
		if total[e] == 0 {
			missing = append(missing, e.String())
		}
	}
	if s.opened.Load() == 0 || s.closed.Load() == 0 {
		missing = append(missing, "breakers opening and closing")
	}
	return missing
}

// hookPanicLogged is the message the runtime logs a contained hook panic with.
const hookPanicLogged = "ERROR command: execution hook or event notifier panicked"

// checkLogs prints what the runtime logged and checks that each hook panic that changes
// no outcome was logged once.
func (s *soak) checkLogs() error {
	keys, counts := s.log.messages()
	fmt.Fprintln(s.out, "logged by the runtime:")
	for _, k := range keys {
		fmt.Fprintf(s.out, "  %8d  %s\n", counts[k], k)
	}
	if want, got := s.hook.logged.Load(), counts[hookPanicLogged]; want != got {
		return fmt.Errorf("%d hook panics should have been logged, %d were", want, got)
	}
	return nil
}
