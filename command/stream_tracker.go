package command

import (
	"context"
	"sync/atomic"
)

// StreamTracker gives a stream carried by a transport inside a Command's run (a gRPC
// stream, a streamed HTTP body) what a Stream has: the key's phase limits (stream.*
// properties) and the split of its failures by phase. The run gets one from its context
// with TrackStream, reports the stream's establishment and its items, ends the stream when
// Expired is closed, and returns its error through Result. A failure of the run after an
// Item is then a MID_STREAM_FAILURE, one before it counts like any command's, and a limit
// that passed before the first item is an ESTABLISH_TIMEOUT.
type StreamTracker struct {
	a     *attempt
	w     *streamWatch // nil: the key sets no limit
	items atomic.Int64
}

// TrackStream returns the tracker of the stream the run of ctx (a Command's run context)
// carries, starting its phase limits now; nil for another context. Call it once per run.
func TrackStream(ctx context.Context) *StreamTracker {
	a, ok := ctx.Value(attemptKey{}).(*attempt)
	if !ok {
		return nil
	}
	x := a.x
	return &StreamTracker{a: a, w: newStreamWatch(x.ks.rt, limitsOf(x.ks.props), x.now())}
}

// Established marks the stream established (response headers came): the establishment
// limit stops, the first-item limit starts.
func (t *StreamTracker) Established() {
	if t.w != nil {
		t.w.establish(t.a.x.now())
	}
}

// Waiting marks the receiver waiting for the next item: the idle clock runs.
func (t *StreamTracker) Waiting() {
	if t.w != nil {
		t.w.handed(t.a.x.now())
	}
}

// Item marks an item received and handed to the receiver: the idle clock waits until the
// receiver asks for the next one (Waiting).
func (t *StreamTracker) Item() {
	t.items.Add(1)
	if t.w != nil {
		t.w.handing(t.a.x.now())
	}
}

// Expired is closed when a limit passed; nil when the key sets none.
func (t *StreamTracker) Expired() <-chan struct{} {
	if t.w == nil {
		return nil
	}
	return t.w.done
}

// Err returns the error of the limit that passed (ErrStreamIdleTimeout, ...), once
// Expired is closed; nil before.
func (t *StreamTracker) Err() error {
	if t.w == nil {
		return nil
	}
	select {
	case <-t.w.done:
		return t.w.why
	default:
		return nil
	}
}

// Stop ends the tracker's limits: call it when the stream ended.
func (t *StreamTracker) Stop() {
	if t.w != nil {
		t.w.stop()
	}
}

// Result returns what the run returns for the stream's end with err: the error of a limit
// that passed, else err, marked as a cut when an item was delivered (nil stays nil). The
// run must return it as it is: the command reads the phase from it.
func (t *StreamTracker) Result(err error) error {
	if lerr := t.Err(); lerr != nil {
		err = lerr
	}
	if err == nil || t.items.Load() == 0 {
		return err
	}
	return &cutError{err}
}

// cutError is the run error of a tracked stream that failed after an item.
type cutError struct{ err error }

func (e *cutError) Error() string { return e.err.Error() }
func (e *cutError) Unwrap() error { return e.err }

// trackedFailure returns the kind of a Command run's failure with err: a tracked stream's
// (Result), or failed.
func trackedFailure(a *attempt, err error) kind {
	switch err {
	case ErrStreamEstablishTimeout, ErrStreamFirstItemTimeout, ErrStreamLifetime:
		return streamFailure(a, false, err)
	}
	if c, ok := err.(*cutError); ok {
		return streamFailure(a, true, c.err)
	}
	return failed
}
