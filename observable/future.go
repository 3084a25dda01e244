package observable

import (
	"context"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/internal/rx"
)

// ErrEmpty is the error of a Future whose observable completed without a value.
var ErrEmpty = rx.ErrEmpty

// Future is the pending outcome of some work: a value or an error, set once by its
// producer and read by any number of goroutines with Get, Done and Ready. A Future must
// not be copied after first use.
type Future[T any] rx.Future[T]

// producer returns f as its producer's future, whose methods these are.
func (f *Future[T]) producer() *rx.Future[T] { return (*rx.Future[T])(f) }

// Ready reports whether the outcome is known (then Get returns it at once).
func (f *Future[T]) Ready() bool { return f.producer().Ready() }

// Get waits for the outcome or for ctx to end (then it returns ctx's error; the work goes
// on: Cancel gives it up).
func (f *Future[T]) Get(ctx context.Context) (T, error) { return f.producer().Get(ctx) }

// Done is closed once the outcome is known.
func (f *Future[T]) Done() <-chan struct{} { return f.producer().Done() }

// Cancel asks the producer to give up the work (what that means is the producer's to say:
// for a command, see Command.Queue). A done future is not changed by it.
func (f *Future[T]) Cancel() { f.producer().Cancel() }

// Observable returns the hot observable of f's outcome: every subscription, early or late,
// gets the outcome as one value item or one error item, then completes. It costs no
// allocation: the observable is a view of f. A subscription made once the outcome is
// known gets a channel that already holds the item, with no goroutine; one made before
// waits for it on a producer goroutine, with the subscriber's context, as do the
// operators (Map, DoOnNext, ...), which rxgo applies to an rxgo observable of the outcome.
func (f *Future[T]) Observable() rxgo.Observable { return f.producer().Observable() }
