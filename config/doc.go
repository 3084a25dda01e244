// Package config holds every Hystrix command, thread-pool and collapser property: names,
// built-in defaults, precedence, dynamic sources, validation, and typed values that are
// cheap to read on the hot path.
//
// Main types: Store (resolves and caches properties per key; Default is process-wide,
// NewStore makes a fresh one), CommandProperties / ThreadPoolProperties /
// CollapserProperties (one *Property per Hystrix property), Property[T] (Get is one
// atomic load), Source with MemorySource, EnvSource and FileSource, Overrides (values
// set in code) and PropertyError.
//
// Precedence, high to low, e.g. for a command:
//
//	hystrix.command.<KEY>.X  >  Overrides (set in code)  >  hystrix.command.default.X  >  built-in default
//
// and likewise hystrix.threadpool.<POOL>.X and hystrix.collapser.<KEY>.X. Among several
// sources the first one passed to NewStore that has a name wins.
//
// How a value flows from a source to Property.Get:
//
//	MemorySource.Set / FileSource.Reload
//	      | onChange (synchronous, no source lock held)
//	      v
//	Store.refresh (Store lock) -- for every key: for every property:
//	      |   resolve raw by precedence -> parse -> range check -> cross-property checks
//	      |   bad value: keep previous, PropertyError -> slog.Warn + OnError callbacks
//	      v
//	Property.v.Store(&newValue)       (only when the value changed)
//	      v
//	Property.Get() == *v.Load()       (hot path: one atomic load, no alloc)
//
// Everything but Get happens off the hot path: building names, looking up sources and
// parsing run only when a key is created or a source changes. Each Property is updated
// on its own, so a reader racing a change may briefly see old and new values of
// different properties mixed.
//
// Memory: what is the same for every key (short names, defaults, codecs, range and
// cross-property rules) lives once in package-level tables; a key holds only its
// owner struct and one small Property per property, whose value points to a shared
// variable when it is the built-in default or a bool or IsolationStrategy. Full names
// are built on demand (Property.Name, Settings). A command key costs about 0.9 KB of
// heap, a thread-pool or collapser key about 0.4 KB (see memory_test.go).
//
// Keys are held until forgotten: Store.ForgetCommand, ForgetThreadPool and
// ForgetCollapser drop a key (for dynamic keys gone idle); the next Command etc. for it
// starts over. Properties handed out before keep following the sources for as long as
// they are referenced.
//
//	store := config.NewStore(mem, config.NewEnvSource())
//	props, err := store.Command("GetUser", config.Overrides{
//		"execution.isolation.thread.timeoutInMilliseconds": "500"})
//	timeout := props.ExecutionTimeout.Get() // 500ms unless hystrix.command.GetUser.… is set
package config
