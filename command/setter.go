package command

import "github.com/rxhystrix/rxhystrix/config"

// Setter names a command and sets its properties in code (Hystrix's
// HystrixCommand.Setter). Only the first Setter seen for a command key in a Runtime
// decides its group, thread-pool key and properties; later ones reuse that state (one
// that differs is logged once). Define checks a Setter at once and returns its error.
type Setter struct {
	// Runtime holds the registries the command uses; nil means Default().
	Runtime *Runtime
	// CommandKey names the command: metrics, breaker, semaphores and properties are per
	// command key. Empty means GroupKey.
	CommandKey string
	// GroupKey groups commands for reporting and is the default thread-pool key. Empty
	// means CommandKey.
	GroupKey string
	// ThreadPoolKey names the goroutine pool of THREAD isolation. Empty means GroupKey;
	// the threadPoolKeyOverride property beats both.
	ThreadPoolKey string
	// Properties are command properties set in code, by Hystrix short name, e.g.
	// "execution.isolation.thread.timeoutInMilliseconds": "500". Dynamic
	// hystrix.command.<KEY>.* values beat them.
	Properties config.Overrides
	// ThreadPoolProperties are thread-pool properties set in code, e.g. "coreSize": "4".
	ThreadPoolProperties config.ThreadPoolOverrides
	// Classifier decides how errors from run count; nil means DefaultClassifier. Like
	// the properties it is taken from the first Setter of the key.
	Classifier Classifier
}

// normalize fills the empty keys and returns the runtime to use.
func (s *Setter) normalize() *Runtime {
	if s.CommandKey == "" {
		s.CommandKey = s.GroupKey
	}
	if s.GroupKey == "" {
		s.GroupKey = s.CommandKey
	}
	if s.ThreadPoolKey == "" {
		s.ThreadPoolKey = s.GroupKey
	}
	if s.Runtime == nil {
		return Default()
	}
	return s.Runtime
}
