package config

import (
	"errors"
	"fmt"
)

// ErrInvalidValue matches (errors.Is) every *PropertyError about a value that does not
// parse, is out of range or breaks a cross-property rule.
var ErrInvalidValue = errors.New("config: invalid property value")

// ErrUnknownProperty matches (errors.Is) a *PropertyError about a name in Overrides that
// is not a property of that kind (a typo must not pass silently).
var ErrUnknownProperty = errors.New("config: unknown property")

// PropertyError reports one rejected property value.
type PropertyError struct {
	// Name is the full Hystrix name the value came from, e.g.
	// "hystrix.command.default.circuitBreaker.errorThresholdPercentage".
	Name string
	// Value is the rejected raw value.
	Value string
	// InCode is true when the value came from Overrides (the value set in code).
	InCode bool
	// Err says why; it is ErrUnknownProperty for unknown names, ErrUnknownKey for a
	// property of a key the Store does not hold.
	Err error
	// Hint helps with an unknown name: the closest known name, or the scope that has it.
	Hint string
}

// Error names the property and the rejected value.
func (e *PropertyError) Error() string {
	where := ""
	if e.InCode {
		where = " (set in code)"
	}
	if errors.Is(e.Err, ErrUnknownKey) {
		return fmt.Sprintf("config: %s (value %q): %s", e.Name, e.Value, e.Hint)
	}
	if errors.Is(e.Err, ErrUnknownProperty) {
		msg := fmt.Sprintf("config: unknown property %s%s (value %q)", e.Name, where, e.Value)
		if e.Hint != "" {
			msg += "; " + e.Hint
		}
		return msg
	}
	return fmt.Sprintf("config: %s%s: invalid value %q: %v", e.Name, where, e.Value, e.Err)
}

// Unwrap returns the reason.
func (e *PropertyError) Unwrap() error { return e.Err }

// Is reports whether target is ErrInvalidValue and e is not about an unknown name or key.
func (e *PropertyError) Is(target error) bool {
	return target == ErrInvalidValue && !errors.Is(e.Err, ErrUnknownProperty) && !errors.Is(e.Err, ErrUnknownKey)
}
