package observable

import "unsafe"

// prefetch asks the CPU to start bringing the cache line at addr into its cache, ready
// for a write, without waiting for it (PREFETCHW where the CPU has it, else PREFETCHT0).
// Queue.Offer uses it for the next slot: a ring larger than the cache has its slots
// evicted between two laps, and the seq-cst store that publishes an item would otherwise
// wait for that miss.
func prefetch(addr unsafe.Pointer) {
	if hasPrefetchW {
		prefetchw(addr)
	} else {
		prefetcht0(addr)
	}
}

var hasPrefetchW = cpuidPRFCHW()

//go:noescape
func prefetchw(addr unsafe.Pointer)

//go:noescape
func prefetcht0(addr unsafe.Pointer)

func cpuidPRFCHW() bool
