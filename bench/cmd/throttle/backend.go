package main

import (
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/ratelimit"
)

// mode is how the backend answers.
type mode int32

const (
	shedding  mode = iota // accepts up to its capacity a second, answers the rest 503 at once
	failing               // fails a share of the calls at random (500), whatever the load
	recovered             // accepts everything
)

// backend is a loopback HTTP dependency that counts the calls it received and accepted.
type backend struct {
	srv   *http.Server
	url   string
	start time.Time
	cap   *ratelimit.Bucket // the capacity of shedding
	share float64           // the share failing fails
	mode  atomic.Int32

	received, accepted atomic.Int64

	mu  sync.Mutex
	rng *rand.Rand
}

func newBackend(perSec float64, failShare float64, seed uint64) (*backend, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	bucket, err := ratelimit.NewBucket(ratelimit.Rate{PerSecond: perSec, Burst: max(1, int(perSec/20))})
	if err != nil {
		return nil, err
	}
	b := &backend{url: "http://" + ln.Addr().String() + "/", start: time.Now(), cap: bucket, share: failShare,
		rng: rand.New(rand.NewPCG(seed, 3))}
	b.srv = &http.Server{Handler: b}
	go b.srv.Serve(ln)
	return b, nil
}

func (b *backend) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	b.received.Add(1)
	ok := true
	switch mode(b.mode.Load()) {
	case shedding:
		wait, got := b.cap.Reserve(time.Since(b.start), 0)
		ok = got && wait == 0
	case failing:
		b.mu.Lock()
		ok = b.rng.Float64() >= b.share
		b.mu.Unlock()
	}
	if !ok {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	b.accepted.Add(1)
	w.WriteHeader(http.StatusOK)
}

// counts returns the calls received and accepted so far.
func (b *backend) counts() (received, accepted int64) { return b.received.Load(), b.accepted.Load() }

func (b *backend) close() { b.srv.Close() }
