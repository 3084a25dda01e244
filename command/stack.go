package command

// executionStack is the stack an execution needs on the SEMAPHORE paths, with room to
// spare: a goroutine that will run one grows its stack to this first (growStack).
const executionStack = 8 << 10

// growStack grows the calling goroutine's stack to about executionStack while it is
// shallow. A new goroutine starts with a small stack and the runtime doubles it by copying
// when a call runs out: done deep inside an execution, the copy walks every frame above
// it, which cost ToObservable's producer goroutine about a quarter of its time; done here,
// at the goroutine's top, it copies almost nothing (cockroachdb's growstack does the same).
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
