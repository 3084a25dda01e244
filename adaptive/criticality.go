package adaptive

import (
	"context"
	"fmt"
	"strings"
)

// Criticality is how much a call matters when the limit must refuse some: the lowest
// level is refused first. The zero value is Sheddable; a call with none set is Critical.
type Criticality uint8

// The levels, lowest first (the names of Google's SRE book).
const (
	// Sheddable calls may be refused whenever the dependency is busy (batch, prefetch).
	Sheddable Criticality = iota
	// SheddablePlus calls may be refused under overload; a retry later is expected.
	SheddablePlus
	// Critical calls are the default: a refusal is seen by a user.
	Critical
	// CriticalPlus calls are refused last.
	CriticalPlus

	// NumCriticalities is the number of levels.
	NumCriticalities = int(CriticalPlus) + 1
)

var criticalityNames = [NumCriticalities]string{"SHEDDABLE", "SHEDDABLE_PLUS", "CRITICAL", "CRITICAL_PLUS"}

// String returns the level's name: "CRITICAL_PLUS", "CRITICAL", "SHEDDABLE_PLUS" or
// "SHEDDABLE".
func (c Criticality) String() string {
	if int(c) < NumCriticalities {
		return criticalityNames[c]
	}
	return fmt.Sprintf("Criticality(%d)", uint8(c))
}

// ParseCriticality parses a level's name (letter case, surrounding spaces and '-' for '_'
// are forgiven: "critical-plus").
func ParseCriticality(s string) (Criticality, error) {
	n := strings.ReplaceAll(strings.ToUpper(strings.TrimSpace(s)), "-", "_")
	for c, name := range criticalityNames {
		if n == name {
			return Criticality(c), nil
		}
	}
	return 0, fmt.Errorf("adaptive: unknown criticality %q (want CRITICAL_PLUS, CRITICAL, SHEDDABLE_PLUS or SHEDDABLE)", s)
}

type ctxKey struct{}

// WithCriticality returns a copy of ctx whose calls carry criticality c.
func WithCriticality(ctx context.Context, c Criticality) context.Context {
	return context.WithValue(ctx, ctxKey{}, c)
}

// FromContext returns the criticality ctx carries, Critical when it carries none.
func FromContext(ctx context.Context) Criticality {
	if c, ok := Lookup(ctx); ok {
		return c
	}
	return Critical
}

// Lookup returns the criticality ctx was given (WithCriticality) and whether it was given
// one: a client passes it on to the next service only then.
func Lookup(ctx context.Context) (Criticality, bool) {
	c, ok := ctx.Value(ctxKey{}).(Criticality)
	return c, ok && int(c) < NumCriticalities
}
