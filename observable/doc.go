// Package observable holds Future, the pending outcome of a command's or a collapser's
// execution: Command.Queue and Collapser.Queue return one. Get waits for the outcome,
// Done and Ready tell whether it is known, Cancel gives the work up and Observable
// replays the outcome to any number of RxGo subscribers, early or late.
//
// A future is set once by its producer (package command or collapser) and read by any
// number of goroutines without a lock.
package observable
