// Package observable holds the few RxJava-style pieces rxhystrix needs and RxGo v2 lacks:
// a typed deferred source, a future, and a replay for hot observables.
//
//   - Defer, Error: a cold observable that emits the result of a call (one value item or
//     one error item) on every subscription, without reflection; a panic in the call
//     becomes an error item. The collapser's Observe and ToObservable are built on it.
//   - Future, ToFuture: the pending outcome of some work, set once by its producer
//     (Complete) and read by any number of goroutines (Get, Done, Ready); ToFuture
//     resolves one from the first item of a subscription. Command.Queue returns a Future
//     kept with the command's outcomes; Collapser.Queue one made by ToFuture.
//   - Replay: the items of one run, replayed to every subscriber, early or late:
//     Stream.Observe and the request cache of streaming commands.
//
// Every observable returned here is a genuine rxgo.Observable built on rxgo.Defer: its
// producer selects on the subscriber's context for every send, so it composes with any
// RxGo operator and leaves no goroutine behind once the subscription ends. Subscribe
// with rxgo.WithContext and a context that is always cancelled eventually, as RxGo
// requires anyway.
//
// The command chain does not run through operators: package command runs its chain of
// stages on the caller's goroutine and uses these types only at its RxGo front doors
// (see the command package documentation for why).
package observable
