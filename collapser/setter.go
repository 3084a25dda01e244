package collapser

import (
	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Scope says which requests may share a batch (Hystrix's Scope).
type Scope uint8

const (
	// RequestScope batches only requests of the same request context
	// (cache.NewRequestContext), the Hystrix default. A request made without one fails
	// with ErrNoRequestContext.
	RequestScope Scope = iota
	// GlobalScope batches requests of every caller of the collapser together.
	GlobalScope
)

// String returns "REQUEST" or "GLOBAL".
func (s Scope) String() string {
	if s == GlobalScope {
		return "GLOBAL"
	}
	return "REQUEST"
}

// Runtime is where a collapser gets its clock, properties and metrics. A
// *command.Runtime satisfies it, so a collapser and its batch commands can share one.
type Runtime interface {
	Clock() clock.Clock
	Config() *config.Store
	Metrics() *metrics.Registry
}

// Setter names a collapser and sets its properties in code (Hystrix's
// HystrixCollapser.Setter).
type Setter struct {
	// Runtime supplies the clock, config store and metrics registry; nil means the
	// system clock, config.Default() and metrics.Default().
	Runtime Runtime
	// CollapserKey names the collapser: properties (hystrix.collapser.<KEY>.*) and metrics
	// are per key. Required.
	CollapserKey string
	// Scope decides which requests share a batch; the zero value is RequestScope.
	Scope Scope
	// Properties are collapser properties set in code, by Hystrix short name, e.g.
	// "timerDelayInMilliseconds": "5" or "maxRequestsInBatch": "100". Dynamic
	// hystrix.collapser.<KEY>.* values beat them.
	Properties config.CollapserOverrides
}

// name is how errors name the collapser: "collapser GetUser", or "collapser" without a key.
func (s Setter) name() string {
	if s.CollapserKey == "" {
		return "collapser"
	}
	return "collapser " + s.CollapserKey
}

// defaultRuntime is the Runtime of a Setter without one.
type defaultRuntime struct{}

func (defaultRuntime) Clock() clock.Clock         { return clock.System() }
func (defaultRuntime) Config() *config.Store      { return config.Default() }
func (defaultRuntime) Metrics() *metrics.Registry { return metrics.Default() }
