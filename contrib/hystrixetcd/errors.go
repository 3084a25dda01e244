package hystrixetcd

import (
	"errors"
	"log/slog"
	"runtime/debug"
)

// The constructors (New, Join, NewSignals, WatchInstances) refuse what cannot work with
// these errors (errors.Is), rather than fail later on a goroutine of their own.
var (
	// ErrBadID is returned by Join for an id that is empty or holds a '/'.
	ErrBadID = errors.New("hystrixetcd: instance id must be non-empty and hold no '/'")
	// ErrNilClient is returned for a nil etcd client.
	ErrNilClient = errors.New("hystrixetcd: the etcd client is nil")
	// ErrEmptyPrefix is returned for an empty key prefix (the whole of etcd).
	ErrEmptyPrefix = errors.New("hystrixetcd: the key prefix is empty")
	// ErrNilArgument is returned for a nil member, breaker registry or callback.
	ErrNilArgument = errors.New("hystrixetcd: nil argument")
)

// contained runs f, which calls the user's code (a callback, a subscriber) on a
// goroutine of the module, and logs a panic of it instead of letting it end the process.
func contained(what string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("hystrixetcd: panic "+what+"; going on", "panic", p, "stack", string(debug.Stack()))
		}
	}()
	f()
}
