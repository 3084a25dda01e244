package command

// executionStack is what growStack reserves: from a new goroutine's 2 KB it makes the
// runtime grow the stack to 8 KB at once, twice what the SEMAPHORE success path uses.
const executionStack = 3 << 10

// growStack grows the calling goroutine's stack while it is shallow. A new goroutine
// starts with a small stack, and the runtime grows it by copying when a call runs out:
// done deep inside an execution, the copy walks every frame above it, which cost the
// rxgo.Defer producer of ToObservable's operators about half of its time; done here, at
// the goroutine's top, it walks almost none (cockroachdb's growstack does the same).
//
//go:noinline
func growStack() {
	var reserve [executionStack]byte
	touch(reserve[:])
}

// touch keeps growStack's reserve on its stack.
//
//go:noinline
func touch([]byte) {}
