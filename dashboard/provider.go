package dashboard

// Provider supplies the objects of /hystrix.stream. Each connection calls Snapshot once
// per interval from its own goroutine, so it must be safe for concurrent use. The
// handler does not keep or modify the returned slices.
type Provider interface {
	Snapshot() Snapshot
}

// ProviderFunc adapts a function to Provider.
type ProviderFunc func() Snapshot

// Snapshot calls f.
func (f ProviderFunc) Snapshot() Snapshot { return f() }

// UtilizationProvider supplies the object of /hystrix/utilization.stream, like Provider.
type UtilizationProvider interface {
	Utilization() Utilization
}

// UtilizationProviderFunc adapts a function to UtilizationProvider.
type UtilizationProviderFunc func() Utilization

// Utilization calls f.
func (f UtilizationProviderFunc) Utilization() Utilization { return f() }

// ConfigProvider supplies the object of /hystrix/config.stream, like Provider.
type ConfigProvider interface {
	Config() Config
}

// ConfigProviderFunc adapts a function to ConfigProvider.
type ConfigProviderFunc func() Config

// Config calls f.
func (f ConfigProviderFunc) Config() Config { return f() }
