package main

import (
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"time"
)

// dependency simulates a remote service as a real HTTP server on 127.0.0.1: a latency
// distribution, an error rate, and an optional outage schedule. While it fails it
// answers 503 Service Unavailable.
type dependency struct {
	name      string
	median    time.Duration // typical latency
	tail      time.Duration // latency of the slowest 1% of calls
	errorRate float64       // share of calls that fail outside an outage
	// outage, when set, reports whether the dependency is down at the given elapsed time.
	outage func(elapsed time.Duration) bool
	start  time.Time
	about  string // how it misbehaves, on purpose, as the demo tells at its start

	url string // where it listens, once started
	srv *http.Server
}

// listen starts serving d on a free port of 127.0.0.1.
func (d *dependency) listen() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	d.url = "http://" + ln.Addr().String() + "/" + d.name
	d.srv = &http.Server{Handler: d, ReadHeaderTimeout: 5 * time.Second}
	go d.srv.Serve(ln)
	return nil
}

// close stops d at once: every page is over by then, and the requests a dependency may
// still be serving were given up by their callers.
func (d *dependency) close() error { return d.srv.Close() }

// ServeHTTP waits for a simulated latency (or until the caller gives up) and answers
// or fails.
func (d *dependency) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	latency := d.median/2 + time.Duration(rand.Int64N(int64(d.median)+1))
	if rand.Float64() < 0.01 {
		latency = d.tail
	}
	down := d.outage != nil && d.outage(time.Since(d.start))
	t := time.NewTimer(latency)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return
	case <-t.C:
	}
	if down || rand.Float64() < d.errorRate {
		http.Error(w, "dependency unavailable", http.StatusServiceUnavailable)
		return
	}
	io.WriteString(w, d.name+" answer")
}

// periodicOutage is down from `from` to `from+down` in every `period`, so a breaker opens
// and closes again within each period.
func periodicOutage(period, from, down time.Duration) func(time.Duration) bool {
	return func(elapsed time.Duration) bool {
		at := elapsed % period
		return at >= from && at < from+down
	}
}
