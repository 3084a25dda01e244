package config

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// codec parses a raw property string into T and formats T back the way Hystrix prints it.
// values, when set, lists every value of a type with few values: properties publish
// pointers to these shared variables instead of allocating.
type codec[T any] struct {
	parse  func(string) (T, error)
	format func(T) string
	values []T
}

// Raw values are trimmed; integers are Java ints (32 bit), as in Hystrix.
var (
	intCodec  = codec[int]{parse: parseInt, format: strconv.Itoa}
	boolCodec = codec[bool]{parse: parseBool, format: strconv.FormatBool, values: []bool{false, true}}
	strCodec  = codec[string]{parse: func(s string) (string, error) { return strings.TrimSpace(s), nil },
		format: func(s string) string { return s }}
	isolationCodec = codec[IsolationStrategy]{parse: ParseIsolationStrategy,
		format: IsolationStrategy.String, values: []IsolationStrategy{Thread, Semaphore, Adaptive}}
	millisCodec  = durationCodec(time.Millisecond, time.Millisecond)
	minutesCodec = durationCodec(time.Minute, time.Minute)
	// waitCodec is the codec of the waits of a call (a hedge's delay, a retry's backoff, a
	// rate limit's wait, an injected latency, a collapser's window), whose useful values
	// may be below a millisecond: "6.6ms" is 6.6 ms, not refused.
	waitCodec = durationCodec(time.Millisecond, time.Microsecond)
)

func parseInt(s string) (int, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil {
		return 0, errors.New("not a 32-bit integer")
	}
	return int(n), nil
}

// parseBool accepts only "true" and "false" (any letter case).
func parseBool(s string) (bool, error) {
	switch t := strings.TrimSpace(s); {
	case strings.EqualFold(t, "true"):
		return true, nil
	case strings.EqualFold(t, "false"):
		return false, nil
	}
	return false, errors.New("not a boolean (want true or false)")
}

// durationCodec reads a whole number of unit (the unit in the property name, Hystrix's
// form: "300") or a Go duration that is a whole number of precision ("300ms", "1.5s",
// with a precision below the unit "6.6ms"), at most a 32-bit int of unit either way. It
// prints a whole number of unit, or Go syntax ("6.6ms") for a value between two units.
func durationCodec(unit, precision time.Duration) codec[time.Duration] {
	return codec[time.Duration]{
		parse: func(s string) (time.Duration, error) { return parseDuration(s, unit, precision) },
		format: func(d time.Duration) string {
			if d%unit != 0 {
				return d.String()
			}
			return strconv.FormatInt(int64(d/unit), 10)
		},
	}
}

// unitNames are the unit words of the duration errors.
var unitNames = map[time.Duration]string{time.Microsecond: "microseconds", time.Millisecond: "milliseconds",
	time.Minute: "minutes"}

func parseDuration(s string, unit, precision time.Duration) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return unitsToDuration(n, unit)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("not a duration (want whole %s, e.g. 300, or Go syntax, e.g. 300ms)",
			unitNames[unit])
	}
	if d%precision != 0 {
		return 0, fmt.Errorf("not a whole number of %s", unitNames[precision])
	}
	if _, err := unitsToDuration(int64(d/unit), unit); err != nil {
		return 0, err
	}
	return d, nil
}

// unitsToDuration returns n units, refusing what is no 32-bit int (a Java int, as in
// Hystrix) or does not fit a time.Duration.
func unitsToDuration(n int64, unit time.Duration) (time.Duration, error) {
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, errors.New("out of the 32-bit integer range")
	}
	if n > math.MaxInt64/int64(unit) || n < math.MinInt64/int64(unit) {
		return 0, errors.New("too large")
	}
	return time.Duration(n) * unit, nil
}

// atLeast rejects ints below lo.
func atLeast(lo int) func(int) error {
	return func(n int) error {
		if n < lo {
			return errors.New("must be >= " + strconv.Itoa(lo))
		}
		return nil
	}
}

// within rejects ints outside lo..hi.
func within(lo, hi int) func(int) error {
	return func(n int) error {
		if n < lo || n > hi {
			return errors.New("must be in " + strconv.Itoa(lo) + ".." + strconv.Itoa(hi))
		}
		return nil
	}
}

// percentage rejects ints outside 0..100.
func percentage(n int) error {
	if n < 0 || n > 100 {
		return errors.New("must be a percentage in 0..100")
	}
	return nil
}

// positive rejects durations <= 0.
func positive(d time.Duration) error {
	if d <= 0 {
		return errors.New("must be > 0")
	}
	return nil
}

// nonNegative rejects durations < 0.
func nonNegative(d time.Duration) error {
	if d < 0 {
		return errors.New("must be >= 0")
	}
	return nil
}

// oneOf rejects strings other than the values given.
func oneOf(values ...string) func(string) error {
	return func(s string) error {
		if !slices.Contains(values, s) {
			return errors.New("must be one of " + strings.Join(values, ", "))
		}
		return nil
	}
}

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

// atLeastFloat rejects numbers below lo.
func atLeastFloat(lo float64) func(float64) error {
	return func(f float64) error {
		if f < lo {
			return errors.New("must be >= " + strconv.FormatFloat(lo, 'g', -1, 64))
		}
		return nil
	}
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

// parseFault parses a Fault's name (surrounding spaces and letter case are ignored).
func parseFault(s string) (Fault, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	for i, n := range faultNames {
		if n == t {
			return Fault(i), nil
		}
	}
	return 0, fmt.Errorf("unknown fault (want one of %s)", strings.Join(faultNames[:], ", "))
}

var faultCodec = codec[Fault]{parse: parseFault, format: Fault.String, values: func() []Fault {
	v := make([]Fault, len(faultNames))
	for i := range v {
		v[i] = Fault(i)
	}
	return v
}()}
