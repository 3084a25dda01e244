// Package hystrixetcd is a config.Source over a key prefix of etcd v3, for Hystrix
// properties shared by a fleet (what Archaius did for Hystrix).
//
// A property is the key prefix + its full Hystrix name, the value its raw string:
//
//	etcdctl put /myapp/hystrix/hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds 300
//
// Data flow:
//
//	New: Get(prefix) --> values --> config.MemorySource.Replace --> Stores re-resolve
//	run: Watch(prefix, from the revision read) --> a response's events, folded
//	         --> MemorySource.Apply --> Stores re-resolve the keys those names concern
//	     watch error, compaction, or the connection back after a loss:
//	         re-read everything (Replace: the names that differ), then watch again
//
// While etcd is unreachable the source keeps its last values (and so do the
// properties); when the connection comes back it reads the whole prefix again, so it
// ends up with what etcd holds then, whatever happened meanwhile (changes, compaction,
// a restore from backup). The client's gRPC backoff decides how soon it reconnects:
// pass grpc.WithConnectParams in clientv3.Config.DialOptions for a shorter maximum
// delay than gRPC's default of two minutes.
//
// A change costs the Stores what it touches (the keys its names concern), not what they
// hold, so a burst of puts keeps up. Values a Store refuses are logged by the Store
// (slog) and passed to its OnError callbacks, as for every source; and since every key
// under the prefix is meant to be a property, so is each that names none (a misspelt
// property, scope or prefix, or no Hystrix name at all), with the nearest property name.
//
//	src, err := hystrixetcd.New(ctx, client, "/myapp/hystrix/")
//	if err != nil {
//		return err
//	}
//	defer src.Close()
//	remove, err := config.Default().AddSource(src) // an error only for a closed Store
//	if err != nil {
//		return err
//	}
//	defer remove()
//
// The watchEtcd of docs/configuration.md is the same as a complete function.
//
// # Deadlines, callbacks, bad input
//
// New, Join, NewSignals and WatchInstances give up when ctx ends or after 5 s,
// whichever comes first (every request to etcd has that deadline at most), and refuse
// what cannot work with an error: a nil client (ErrNilClient), an empty prefix
// (ErrEmptyPrefix), a bad instance id (ErrBadID), a nil member, breaker registry or
// callback (ErrNilArgument).
//
// Every callback of the module (the subscribers of a Source or of the Signals,
// WatchInstances' onChange) runs on a goroutine of the module with no lock of it held:
// it may call any method of its owner, Close included (Close called from a callback
// returns at once, and the goroutines end when the callback returns, calling nothing
// more). A panic of a callback is logged (slog) and the module goes on.
//
// # Fleet membership
//
// Join makes an instance a Member of a fleet under a prefix of its own (not the config
// prefix): a lease of a few seconds' TTL kept alive by the client, under which the
// instance holds its keys. A process killed with kill -9 stops the keep-alives and etcd
// deletes its keys when the TTL is over; Member.Close revokes the lease, so they go at
// once. Member.Put and Delete never wait for etcd: the member's goroutine writes them
// (retrying with backoff), and writes every key again under a new lease when etcd was
// gone for longer than the TTL.
//
//	<fleet prefix>instances/<id>               = stream URL      Member.Register
//	<fleet prefix>breakers/<command key>/<id>  = OPEN|HALF_OPEN  Signals
//
// # Breaker signals
//
// NewSignals shares the breakers of a fleet off the request path. Each instance
// publishes its breakers' transitions (breaker.Registry.OnStateChange: a key's entry is
// put when its breaker opens, deleted when it closes), reads every instance's entries
// at start and watches them. A key is opened early on an instance when at least quorum
// other instances report it OPEN or HALF_OPEN while the instance's own breaker is
// CLOSED (quorum 2 in a fleet of 3: one instance whose dependency fails never opens the
// other two; two of three open the third):
//
//	breaker transition --OnStateChange--> Member.Put/Delete --> etcd
//	etcd --watch--> entries of the other instances --> per key: others open >= quorum
//	    and own breaker CLOSED? --> hystrix.command.<key>.circuitBreaker.forceOpen=true
//	    in the Signals source (a config.Source: add it to the Store the breakers read)
//
// "Open early" is circuitBreaker.forceOpen, set by the signal: the key short-circuits
// (SHORT_CIRCUITED, then its fallback) and the dashboard shows it open and forced, but
// the instance's own breaker is left as it is and keeps deciding on its own counts; a
// forced key changes no state of the breaker, so it publishes nothing and cannot count
// towards anyone's quorum. The force is lifted as soon as the quorum is gone: another
// instance's breaker closes after its trial, an instance dies and its lease expires, or
// an instance's registry drops the breaker (an idle key evicted while open: its entry is
// withdrawn within 5 s). An instance whose own breaker is open is never forced, so it runs its own
// trials: were the open instances forced by each other, none would ever try the
// dependency again. A dynamic forceOpen of the key set in a source ahead of the Signals
// (an operator's false) wins over the signal. Transitions reach the other instances in
// a few milliseconds (the e2e suite checks 200 ms at the 99th percentile).
//
// Why etcd rather than Redis pub/sub: the entries are state, not messages. A new instance
// reads the current states with one Get and watches from that revision, with no gap;
// a missed message on a reconnect is read again (the watch resumes or the prefix is
// read again); a dead instance's states go with its lease instead of counting forever;
// and a fleet that takes its Hystrix properties from etcd already runs it. Redis pub/sub
// delivers only to those subscribed at the time and keeps nothing.
//
//	member, err := hystrixetcd.Join(ctx, client, "/myapp/fleet/", hostname, 5*time.Second)
//	signals, err := hystrixetcd.NewSignals(ctx, member, command.Default().Breakers(), 2)
//	remove, err := config.Default().AddSource(signals)
//
// # Fleet dashboard
//
// Member.Register puts the instance's stream URL under its lease; WatchInstances follows
// the registered instances and hands them to dashboard.Fleet.SetStreams, which sums
// their streams (a Turbine) for the page and the Hystrix Dashboard. An instance appears
// as soon as it registers and goes when its lease does (kill -9: within the TTL).
//
// The module is separate from rxhystrix, so that only its users link the etcd client.
package hystrixetcd
