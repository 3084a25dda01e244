package config

// forgetCollapser drops the properties of a collapser key (see ForgetCommand): no
// collapser key is dropped outside the tests.
func (s *Store) forgetCollapser(key string) bool { return forget(s, &s.collapsers, key, nil) }

// validateCommand checks the values set in code for a command key the way Store.Command
// does when it creates the key: every name a command property, every value parsable and
// in range, and the cross-property rules over the built-in defaults. The error joins one
// *PropertyError per problem, each naming the property and the value; an unknown name
// comes with a Hint (the closest known name, or the scope it belongs to). It reads no
// source and keeps nothing.
func validateCommand(key string, inCode Overrides) error { return commandScope.validate(key, inCode) }

// validateCollapser checks the values set in code for a collapser key (see
// validateCommand).
func validateCollapser(key string, inCode CollapserOverrides) error {
	return collapserScope.validate(key, inCode)
}

// effectiveMaximumSize is the pool's maximum number of workers: max(CoreSize,
// MaximumSize) when AllowMaximumSizeToDivergeFromCoreSize is true, else CoreSize (as
// Hystrix; a MaximumSize below CoreSize is thus harmless). It is at least 1: the Store
// rejects settings that make it 0, and a reader racing a change of several of these
// properties (each Property is updated on its own) never sees 0 either.
func (p *ThreadPoolProperties) effectiveMaximumSize() int {
	return max(1, effectiveMaximumSize(ThreadPoolCoreSize.In(p).Get(), ThreadPoolMaximumSize.In(p).Get(), ThreadPoolAllowMaximumSizeToDivergeFromCoreSize.In(p).Get()))
}
