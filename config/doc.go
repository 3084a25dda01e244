// Package config holds every Hystrix command, thread-pool and collapser property: names,
// built-in defaults, precedence, dynamic sources, validation, and typed values that are
// cheap to read on the hot path.
//
// Main types: Store (resolves and caches properties per key; Default is process-wide,
// NewStore makes a fresh one, NewDefaultStore one over Default's sources, now and later),
// CommandProperties / ThreadPoolProperties / CollapserProperties (one *Property per
// Hystrix property), Property[T] (Get is one atomic load), Key[O, T] (the typed name of a
// property: ExecutionTimeout, ThreadPoolCoreSize, ...), Values[O] (values set in code for
// a key of scope O, by short name: Overrides for a command, ThreadPoolOverrides,
// CollapserOverrides; Set builds them from Keys, and one scope's do not compile where
// another's go), Source with MemorySource, NewEnvSource and FileSource (the etcd source is in
// the module contrib/hystrixetcd), PropertyError and RefusedError.
//
// Values set in code, typed or as strings, and values set at run time in a dynamic
// source, for one key or at the default level:
//
//	config.Set(config.ExecutionTimeout.Of(300*time.Millisecond))  // a typo does not compile
//	config.Overrides{"execution.isolation.thread.timeoutInMilliseconds": "300ms"}
//	config.ExecutionTimeout.SetIn(config.DefaultSource(), "GetUser", 300*time.Millisecond)
//	config.CircuitBreakerForceOpen.SetDefaultIn(config.DefaultSource(), true)
//
// A .properties file (FileSource) is read as java.util.Properties reads one, escapes
// included: a key with a colon or a space, like hystrixhttp's default key "GET
// host:port", is written with \: and "\ ":
//
//	hystrix.command.GET\ api.example.com\:8080.execution.isolation.thread.timeoutInMilliseconds=300
//
// Durations take Hystrix's whole units ("300") or Go syntax ("300ms", "1.5s") in every
// source: a whole number of the unit in their name, or of microseconds for the waits of a
// call (hedge delay, retry backoffs, rate limit wait, injected latency, collapser timer
// delay: "6.6ms"). Store.Command, ThreadPool and Collapser check values set in code on
// every call: unknown names (with the nearest known one), values that do not parse or
// are out of range, cross-property rules (ValidateThreadPool checks a thread pool's
// without making it); only the first call for a key applies its values (Values.Diff says
// what a later one would change).
//
// Precedence, high to low, e.g. for a command:
//
//	hystrix.command.<KEY>.X  >  Overrides (set in code)  >  hystrix.command.default.X  >  built-in default
//
// and likewise hystrix.threadpool.<POOL>.X and hystrix.collapser.<KEY>.X. Among several
// sources the first one that has a name wins: those passed to NewStore in their order,
// then those added with Store.AddSource in the order added. Default is over
// DefaultSource, then the environment, then what is added (a file, etcd).
//
// A change from a source is applied synchronously (config/DESIGN.md draws the path): the
// Store re-resolves the keys the changed names concern (hystrix.<scope>.<KEY>.X: that key;
// hystrix.<scope>.default.X: every key of the scope), checks each value, keeps the
// previous one for a bad value (a PropertyError, logged with slog and passed to the
// OnError callbacks) and warns once for a changed name meant to be a property that names
// none. A change thus costs what it touches, not what the Store holds. A source that does
// not say which names changed (a Source without NameSubscriber) makes the Store re-resolve
// every key and check every name. The refused entries travel back: onChange returns every
// entry refused now, and the source's change call (MemorySource.Set, FileSource.Reload)
// returns those of its own as a *RefusedError.
//
// Nothing is refused in silence, and a Store fails fast when asked: a refused entry is
// logged once, passed to OnError and returned by the change call that brought it;
// Store.Check lists every entry a Store cannot apply, properties of keys it does not hold
// included (ErrUnknownKey, "did you mean" the nearest held key); a strict Store
// (SetStrict) adds no source and creates no key with an entry it cannot apply, and
// returns them all as one *RefusedError. By default a Store applies what it can, as
// Hystrix does: a running service survives a bad edit.
//
// Everything but Get happens off the hot path: building names, looking up sources and
// parsing run only when a key is created or a source changes. Each Property is updated
// on its own, so a reader racing a change may briefly see old and new values of
// different properties mixed.
//
// Environment names fold case, punctuation and non-ASCII letters (see NewEnvSource), so two keys
// can share them ("get-user" and "GET_USER"); a Store that holds both refuses the shared
// variables for both and says so.
//
// A command key costs about 2.1 KB of heap with its properties, a thread-pool or
// collapser key about 0.6 KB (memory_test.go).
//
// Keys are held until forgotten: Store.ForgetCommand and ForgetThreadPool drop a key
// (for dynamic keys gone idle); the next Command or ThreadPool for it starts over. Properties handed out before keep following the sources for as long as
// they are referenced. A reader that may come before a key's definition (a dashboard,
// metrics.Registry.Command) peeks instead (PeekCommand, PeekThreadPool, PeekCollapser):
// the key's properties from the sources, not held, so the definition still sets its own.
//
//	store := config.NewStore(mem, config.NewEnvSource())
//	props, err := store.Command("GetUser", config.Set(config.ExecutionTimeout.Of(500*time.Millisecond)))
//	timeout := config.ExecutionTimeout.In(props).Get() // 500ms unless hystrix.command.GetUser.… is set
package config
