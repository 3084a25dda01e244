package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// Target is one library configured as a Hystrix command of one key.
type Target interface {
	// Do calls run through the library. When run fails, times out, is rejected or the
	// circuit is open, the fallback answers FallbackAnswer with a nil error.
	Do(ctx context.Context, run Run) (int, error)
	// Close releases what the target started (where the library allows it).
	Close()
}

// Counter is a Target whose library keeps metrics of its own.
type Counter interface {
	// Recorded returns the number of executions the library's metrics recorded (one
	// terminal event per call: success, failure, timeout, short-circuit, rejection),
	// once the library's asynchronous metrics, if any, have settled.
	Recorded() int64
}

// Dropper is a Counter whose library reports the metric events it dropped.
type Dropper interface {
	// Dropped returns the number of metric events the library said it dropped.
	Dropped() int64
}

// Lib is one library of the comparison.
type Lib struct {
	// Name is the sub-benchmark name: rxhystrix, cep21, failsafe, afex, gobreaker.
	Name string
	// New returns a target for a command key; keys are unique per case and library.
	New func(key string, s Settings) Target
	// Goroutines is true when every call runs on a goroutine of the library (THREAD
	// isolation is then its normal mode).
	Goroutines bool
	// Thread is true when the library offers goroutine isolation (Settings.Thread); the
	// others ignore it.
	Thread bool
}

// Libraries returns the libraries of the comparison, rxhystrix first.
func Libraries() []Lib {
	return []Lib{
		{Name: "rxhystrix", New: NewRxhystrix, Thread: true},
		{Name: "cep21", New: NewCep21},
		{Name: "failsafe", New: NewFailsafe},
		{Name: "afex", New: NewAfex, Goroutines: true, Thread: true},
		{Name: "gobreaker", New: NewGobreaker},
	}
}

// FrontDoors is a Target with front doors besides its blocking call (rxhystrix, whose Do
// is Kind.ExecutePooled).
type FrontDoors interface {
	// NewExecute makes a new single-use command and executes it (New+Execute).
	NewExecute(ctx context.Context, run Run) (int, error)
	// Observe starts the command through its hot observable front door and consumes its
	// single value through RxGo.
	Observe(ctx context.Context, run Run) (int, error)
	// ToObservable subscribes to the command's cold observable and consumes it through RxGo.
	ToObservable(ctx context.Context, run Run) (int, error)
	// QueueGet queues the command and waits for its future.
	QueueGet(ctx context.Context, run Run) (int, error)
}

// Tripped is how a breaker opened under Trip.
type Tripped struct {
	// Failures are the times the failing calls reached the run, in order.
	Failures []time.Time
	// Open is when the first call was short-circuited.
	Open time.Time
}

// Trip opens t's breaker the way traffic does: it calls t with a failing run, one call a
// millisecond, until a call is answered without calling the run (short-circuited). It
// gives up after limit.
func Trip(ctx context.Context, t Target, limit time.Duration) (Tripped, error) {
	var tr Tripped
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		var reached atomic.Bool
		at := time.Now()
		if _, err := t.Do(ctx, func(ctx context.Context) (int, error) {
			reached.Store(true)
			return Fail(ctx)
		}); err != nil {
			return tr, fmt.Errorf("bench: trip: %w", err)
		}
		if !reached.Load() {
			tr.Open = at
			return tr, nil
		}
		tr.Failures = append(tr.Failures, at)
	}
	return tr, fmt.Errorf("bench: trip: the breaker did not open within %v", limit)
}
