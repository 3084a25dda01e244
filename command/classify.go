package command

import "errors"

// Class is how an error returned by run (or construct) counts.
type Class uint8

const (
	// ClassFailure: a FAILURE; the fallback runs and the error counts against health.
	ClassFailure Class = iota
	// ClassBadRequest: a BAD_REQUEST; no fallback, no effect on health or the breaker,
	// the error goes to the caller as is.
	ClassBadRequest
	// ClassSuccess: the error is a business outcome, not a fault of the dependency. The
	// execution counts as a SUCCESS for health and the breaker (so it can never trip
	// it), no fallback runs, and the caller gets the error as is.
	ClassSuccess
)

// String returns "FAILURE", "BAD_REQUEST" or "SUCCESS".
func (c Class) String() string {
	switch c {
	case ClassBadRequest:
		return "BAD_REQUEST"
	case ClassSuccess:
		return "SUCCESS"
	}
	return "FAILURE"
}

// Classifier decides how a non-nil error from run counts. It is called on the goroutine
// that ran the command and must be fast and safe for concurrent use. Better than
// Hystrix, where every error but HystrixBadRequestException trips the breaker.
type Classifier func(err error) Class

// DefaultClassifier treats an error of BadRequest (anywhere in the chain) as a bad request
// and everything else as a failure. It is what a command without a Classifier uses.
func DefaultClassifier(err error) Class {
	if asBadRequest(err) != nil {
		return ClassBadRequest
	}
	return ClassFailure
}

// classify applies c (or DefaultClassifier) and returns the class with the error the
// caller should see: the unwrapped error for a bad request (badRequestErr).
func classify(c Classifier, err error) (Class, error) {
	class := ClassFailure
	if c != nil {
		class = c(err)
	} else {
		class = DefaultClassifier(err)
	}
	if class == ClassBadRequest {
		return class, badRequestErr(err)
	}
	return class, err
}

// badRequestErr returns the error a caller gets for a bad request: the error a
// BadRequest wrapped, or err itself.
func badRequestErr(err error) error {
	if br := asBadRequest(err); br != nil && br.err != nil {
		return br.err
	}
	return err
}

// asBadRequest is errors.As for a *badRequestError, without the allocation errors.As
// costs a failing run (its target escapes): it walks err's tree itself, and leaves an
// error with an As method of its own to errors.As. errors.AsType replaces it once go.mod
// asks for Go 1.26.
func asBadRequest(err error) *badRequestError {
	for err != nil {
		if br, ok := err.(*badRequestError); ok {
			return br
		}
		switch e := err.(type) {
		case interface{ As(any) bool }: // errors.As asks it; it may also unwrap
			var br *badRequestError
			if errors.As(err, &br) {
				return br
			}
			return nil
		case interface{ Unwrap() error }:
			err = e.Unwrap()
		case interface{ Unwrap() []error }:
			for _, err := range e.Unwrap() {
				if br := asBadRequest(err); br != nil {
					return br
				}
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}
