package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/zeromicro/go-zero/core/breaker"

	"github.com/rxhystrix/rxhystrix/bench/internal/loopback"
	"github.com/rxhystrix/rxhystrix/command"
)

// client is one way of calling the backend: a guard in front of an HTTP call.
type client interface {
	// call calls the backend and reports whether the guard refused the call locally.
	call(ctx context.Context) (refused bool)
	close()
}

// clientNames are the clients, in the order of the tables.
var clientNames = []string{"throttle", "throttle+breaker", "throttle+breaker75", "hystrix-breaker", "go-zero"}

func newClient(name string, hc *http.Client, url string, window time.Duration) (client, error) {
	props := map[string]string{"execution.isolation.strategy": "SEMAPHORE",
		"execution.isolation.semaphore.maxConcurrentRequests": "100000"}
	switch name {
	case "throttle", "throttle+breaker", "throttle+breaker75":
		switch name {
		case "throttle":
			props["circuitBreaker.enabled"] = "false"
		case "throttle+breaker75":
			props["circuitBreaker.errorThresholdPercentage"] = "75"
		}
		props["throttle.enabled"] = "true"
		props["throttle.windowInMilliseconds"] = fmt.Sprint(window.Milliseconds())
	case "hystrix-breaker":
	case "go-zero":
		return goZero{b: breaker.NewBreaker(), hc: hc, url: url}, nil
	default:
		return nil, fmt.Errorf("unknown client %q", name)
	}
	rt := command.NewRuntime()
	k, err := command.Define[struct{}](command.Setter{Runtime: rt, CommandKey: name, Properties: props})
	if err != nil {
		rt.Close()
		return nil, err
	}
	return rxhystrix{rt: rt, k: k, hc: hc, url: url}, nil
}

// rxhystrix is a Kind of its own runtime (the properties of newClient).
type rxhystrix struct {
	rt  *command.Runtime
	k   *command.Kind[struct{}]
	hc  *http.Client
	url string
}

func (c rxhystrix) call(ctx context.Context) bool {
	_, err := c.k.ExecutePooled(ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, loopback.Get(ctx, c.hc, c.url) })
	return errors.Is(err, command.ErrThrottled) || errors.Is(err, command.ErrShortCircuited)
}

func (c rxhystrix) close() { c.rt.Close() }

// goZero is go-zero's breaker (Google SRE's throttling with go-zero's K of 1.5, its 10 s
// window and its forced pass a second) with its defaults.
type goZero struct {
	b   breaker.Breaker
	hc  *http.Client
	url string
}

func (c goZero) call(ctx context.Context) bool {
	err := c.b.DoCtx(ctx, func() error { return loopback.Get(ctx, c.hc, c.url) })
	return errors.Is(err, breaker.ErrServiceUnavailable)
}

func (goZero) close() {}
