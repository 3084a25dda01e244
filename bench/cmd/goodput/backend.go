package main

import (
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"
)

// backend is a dependency with a real capacity: W workers, each call holding one for a
// service time drawn from an exponential distribution (a timer: the shared cores are not
// what is measured). Calls beyond W wait in a FIFO queue, as in a server's accept backlog;
// a call whose client gave up leaves the queue.
type backend struct {
	srv     *http.Server
	url     string
	workers chan struct{} // a token per free worker
	mean    time.Duration

	mu  sync.Mutex
	rng *rand.Rand
	// held are the worker tokens taken out to lower the capacity (setWorkers).
	held int
}

func newBackend(workers int, mean time.Duration, seed uint64) (*backend, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &backend{workers: make(chan struct{}, workers), mean: mean, rng: rand.New(rand.NewPCG(seed, 1))}
	for range workers {
		b.workers <- struct{}{}
	}
	b.srv = &http.Server{Handler: b}
	b.url = "http://" + ln.Addr().String() + "/"
	go b.srv.Serve(ln)
	return b, nil
}

func (b *backend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case <-b.workers:
	case <-r.Context().Done():
		return
	}
	b.mu.Lock()
	d := time.Duration(b.rng.ExpFloat64() * float64(b.mean))
	b.mu.Unlock()
	time.Sleep(d)
	b.workers <- struct{}{}
	w.WriteHeader(http.StatusOK)
}

// lower takes n workers away (for the rest of the run): it waits for them to be free.
func (b *backend) lower(n int) {
	for range n {
		<-b.workers
	}
	b.mu.Lock()
	b.held += n
	b.mu.Unlock()
}

// restore gives back the workers lower took.
func (b *backend) restore() {
	b.mu.Lock()
	n := b.held
	b.held = 0
	b.mu.Unlock()
	for range n {
		b.workers <- struct{}{}
	}
}

func (b *backend) close() { b.srv.Close() }
