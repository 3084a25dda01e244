// Package rx holds the few RxJava-style pieces rxhystrix needs and RxGo v2 lacks:
// a typed deferred source, a future, views that subscribe without a producer goroutine,
// and a replay for hot observables. Packages command and collapser use them; users meet
// only the consumer side of Future, as observable.Future (a type defined on Future, so
// that it has Get, Done, Ready, Cancel and Observable and none of the producer's
// methods: a producer converts its *Future[T] to *observable.Future[T] at the door).
//
//   - Defer, Error: a cold observable that emits the result of a call (one value item or
//     one error item) on every subscription, without reflection; a panic in the call
//     becomes an error item. The collapser's Observe and ToObservable are built on it.
//   - Future, ToFuture: the pending outcome of some work, set once by its producer
//     (Complete) and read by any number of goroutines (Get, Done, Ready), without a lock;
//     ToFuture resolves one from the first item of a subscription. Command.Queue returns
//     the command's Future; Collapser.Queue one made by ToFuture (each as an
//     *observable.Future).
//   - Future.Observable: the hot observable of a future, replaying its outcome to every
//     subscriber, early or late; Command.Observe returns it. It is a view of the future
//     (no allocation); a subscription once the outcome is known gets a pre-filled channel
//     (filled) and no goroutine. Emit sends an outcome's item as a producer does, Send
//     puts it on a channel with room for it.
//   - View: an rxgo.Observable that subscribes its own way (its source's Observe) and
//     applies rxgo's operators (Map, ...) to an rxgo observable of the same items
//     (its source's Rx); Future.Observable and Command.ToObservable are views. A pointer source
//     makes the view cost no allocation.
//   - Replay: the items of one run, replayed to every subscriber, early or late:
//     Stream.Observe and the request cache of streaming commands.
//   - Stoppable: an observable whose operator chains end their subscription of it when
//     they stop reading (RxGo's Take, First, TakeUntil... leave their upstream blocked), and
//     tell it: Stream.ToObservable and Stream.Observe are stoppable.
//
// Every other observable returned here, and the Rx of the sources here, is a genuine
// rxgo.Observable built on rxgo.Defer: its producer selects on the subscriber's context
// for every send, so it composes with any RxGo operator and leaves no goroutine behind
// once the subscription ends. Subscribe with rxgo.WithContext and a context that is always
// cancelled eventually, as RxGo requires anyway.
//
// The command chain does not run through operators: package command runs its chain of
// stages on the caller's goroutine and uses these types only at its RxGo front doors
// (see the command package documentation for why).
package rx
