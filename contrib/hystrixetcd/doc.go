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
// The README's watchEtcd is the same as a complete function.
//
// The module is separate from rxhystrix, so that only its users link the etcd client.
package hystrixetcd
