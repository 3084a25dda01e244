//go:build !amd64

package observable

import "unsafe"

// prefetch is a no-op where no prefetch instruction is wired up.
func prefetch(unsafe.Pointer) {}
