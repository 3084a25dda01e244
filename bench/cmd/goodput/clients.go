package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/failsafe-go/failsafe-go/adaptivelimiter"

	"github.com/rxhystrix/rxhystrix/bench/internal/loopback"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// outcome is how one call ended.
type outcome uint8

const (
	succeeded outcome = iota
	rejected          // refused by the client's limit, without reaching the backend
	failed            // admitted, then failed or timed out
)

// client is one way of calling the backend: a limit in front of an HTTP call.
type client interface {
	call(ctx context.Context) outcome
	// limit returns the current limit (a static one for a semaphore).
	limit() int
	close()
}

// timeout bounds every call (the command timeout, the client's context).
const timeout = time.Second

// rxClient is rxhystrix: a command per call, on its own runtime, under ADAPTIVE or
// SEMAPHORE isolation. The breaker is disabled unless props set circuitBreaker.enabled:
// SEMAPHORE_REJECTED counts against health, and at twice the capacity half the calls are
// refused, which would open it; the benchmark compares the limits. (ADAPTIVE_REJECTED is
// neutral: rxhystrix-gradient2-breaker keeps the breaker at its defaults.)
type rxClient struct {
	rt  *command.Runtime
	s   command.Setter
	hc  *http.Client
	url string
	max int // SEMAPHORE: the semaphore's size
}

func newRx(hc *http.Client, url string, props config.Overrides) *rxClient {
	rt := command.NewRuntime()
	if _, set := props["circuitBreaker.enabled"]; !set {
		props["circuitBreaker.enabled"] = "false"
	}
	props["execution.isolation.thread.timeoutInMilliseconds"] = fmt.Sprint(timeout.Milliseconds())
	c := &rxClient{rt: rt, hc: hc, url: url, s: command.Setter{Runtime: rt, CommandKey: "backend", Properties: props}}
	if props["execution.isolation.strategy"] == "SEMAPHORE" {
		fmt.Sscan(props["execution.isolation.semaphore.maxConcurrentRequests"], &c.max)
	}
	return c
}

func (c *rxClient) call(ctx context.Context) outcome {
	_, err := command.New(c.s, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, loopback.Get(ctx, c.hc, c.url)
	}).Execute(ctx)
	switch {
	case err == nil:
		return succeeded
	case errors.Is(err, command.ErrAdaptiveRejected), errors.Is(err, command.ErrSemaphoreRejected),
		errors.Is(err, command.ErrShortCircuited):
		return rejected
	}
	return failed
}

func (c *rxClient) limit() int {
	if c.max > 0 {
		return c.max
	}
	g, _ := c.rt.Metrics().Command("backend").AdaptiveGauges()
	return g.Limit
}

func (c *rxClient) close() { c.rt.Close() }

// failsafeClient is failsafe-go's adaptive limiter with its defaults, in front of the same
// call: a permit without waiting, Record on success, Drop on a failure or timeout.
type failsafeClient struct {
	l   adaptivelimiter.AdaptiveLimiter[any]
	hc  *http.Client
	url string
}

func newFailsafe(hc *http.Client, url string) *failsafeClient {
	return &failsafeClient{l: adaptivelimiter.NewWithDefaults[any](), hc: hc, url: url}
}

func (c *failsafeClient) call(ctx context.Context) outcome {
	p, ok := c.l.TryAcquirePermit()
	if !ok {
		return rejected
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := loopback.Get(ctx, c.hc, c.url); err != nil {
		p.Drop()
		return failed
	}
	p.Record()
	return succeeded
}

func (c *failsafeClient) limit() int { return c.l.Limit() }
func (c *failsafeClient) close()     {}

// clientNames are the clients a run can compare, in the table's order.
var clientNames = []string{"rxhystrix-gradient2", "rxhystrix-gradient2-breaker", "rxhystrix-vegas", "failsafe-go",
	"semaphore-W", "semaphore-16W"}

// newClient makes the named client for a backend of w workers at url.
func newClient(name string, hc *http.Client, url string, w int) (client, error) {
	switch name {
	case "rxhystrix-gradient2":
		return newRx(hc, url, config.Overrides{"execution.isolation.strategy": "ADAPTIVE",
			"execution.isolation.adaptive.algorithm": "GRADIENT2"}), nil
	case "rxhystrix-gradient2-breaker": // every other property at its default, the breaker's too
		return newRx(hc, url, config.Overrides{"execution.isolation.strategy": "ADAPTIVE",
			"execution.isolation.adaptive.algorithm": "GRADIENT2", "circuitBreaker.enabled": "true"}), nil
	case "rxhystrix-vegas":
		return newRx(hc, url, config.Overrides{"execution.isolation.strategy": "ADAPTIVE",
			"execution.isolation.adaptive.algorithm": "VEGAS"}), nil
	case "failsafe-go":
		return newFailsafe(hc, url), nil
	case "semaphore-W":
		return newRx(hc, url, config.Overrides{"execution.isolation.strategy": "SEMAPHORE",
			"execution.isolation.semaphore.maxConcurrentRequests": fmt.Sprint(w)}), nil
	case "semaphore-16W":
		return newRx(hc, url, config.Overrides{"execution.isolation.strategy": "SEMAPHORE",
			"execution.isolation.semaphore.maxConcurrentRequests": fmt.Sprint(16 * w)}), nil
	}
	return nil, fmt.Errorf("unknown client %q (want one of %v)", name, clientNames)
}
