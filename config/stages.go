package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// floatCodec reads a finite decimal number.
var floatCodec = codec[float64]{parse: parseFloat,
	format: func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }}

func parseFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errors.New("not a finite number")
	}
	return f, nil
}

// positiveFloat rejects numbers <= 0.
func positiveFloat(f float64) error {
	if f <= 0 {
		return errors.New("must be > 0")
	}
	return nil
}

// percentFloat rejects numbers outside 0..100.
func percentFloat(f float64) error {
	if f < 0 || f > 100 {
		return errors.New("must be a percentage in 0..100")
	}
	return nil
}

// Fault is the value of faultInjection.fault: what the fault injection stage makes an
// execution it picks go through.
type Fault uint8

const (
	// FaultError: run returns an injected error instead of running (a FAILURE, through the
	// key's classifier, as the dependency's error would be).
	FaultError Fault = iota
	// FaultLatency: run is delayed by faultInjection.latencyInMilliseconds, then runs (the
	// delay counts against the timeout and ends with the run's context).
	FaultLatency
	// FaultPanic: run panics instead of running (a FAILURE with a *PanicError).
	FaultPanic
	// FaultHang: run blocks until its context ends (the timeout: a TIMEOUT; the caller
	// leaving: CANCELLED), then returns the context's error.
	FaultHang
	// FaultShortCircuited, FaultSemaphoreRejected, FaultThreadPoolRejected,
	// FaultRateLimited, FaultBadRequest: the execution ends with that outcome (its
	// event and failure type) without running.
	FaultShortCircuited
	FaultSemaphoreRejected
	FaultThreadPoolRejected
	FaultRateLimited
	FaultBadRequest
)

var faultNames = [...]string{"ERROR", "LATENCY", "PANIC", "HANG", "SHORT_CIRCUITED", "SEMAPHORE_REJECTED",
	"THREAD_POOL_REJECTED", "RATE_LIMITED", "BAD_REQUEST"}

// String returns the name faultInjection.fault is set with, e.g. "LATENCY".
func (f Fault) String() string {
	if int(f) < len(faultNames) {
		return faultNames[f]
	}
	return "Fault(" + strconv.Itoa(int(f)) + ")"
}

// ParseFault parses a Fault's name (surrounding spaces and letter case are ignored).
func ParseFault(s string) (Fault, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	for i, n := range faultNames {
		if n == t {
			return Fault(i), nil
		}
	}
	return 0, fmt.Errorf("unknown fault (want one of %s)", strings.Join(faultNames[:], ", "))
}

var faultCodec = codec[Fault]{parse: ParseFault, format: Fault.String, values: func() []Fault {
	v := make([]Fault, len(faultNames))
	for i := range v {
		v[i] = Fault(i)
	}
	return v
}()}
