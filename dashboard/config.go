package dashboard

// Config is the one object per interval of /hystrix/config.stream: the properties every
// known command, thread pool and collapser runs with, keyed by name. Properties are keyed
// by their Hystrix short name (e.g. "execution.isolation.strategy") with the value as
// Hystrix prints it ("THREAD", "1000", "true"). Type is set by the handler; nil maps are
// written as {}.
//
// The shape is smaller than Hystrix's HystrixConfig object (which nests a hand-picked
// subset of properties): every property is listed, under the name users configure it by.
type Config struct {
	Type        string                   `json:"type"`
	Commands    map[string]CommandConfig `json:"commands"`
	ThreadPools map[string]KeyConfig     `json:"threadpools"`
	Collapsers  map[string]KeyConfig     `json:"collapsers"`
}

// CommandConfig is the configuration of one command key.
type CommandConfig struct {
	GroupKey      string            `json:"groupKey"`
	ThreadPoolKey string            `json:"threadPoolKey"`
	Properties    map[string]string `json:"properties"`
}

// KeyConfig is the configuration of one thread pool or collapser key.
type KeyConfig struct {
	Properties map[string]string `json:"properties"`
}
