// Package cache holds the per-request state of rxhystrix: the request context, the
// request cache and the request log.
//
// A RequestContext is a value in a context.Context (no thread-locals), so it follows the
// request across goroutines, pools and timers for free. Create it where a request enters
// the service and close it when the request ends:
//
//	ctx, rc := cache.NewRequestContext(r.Context())
//	defer rc.Close()
//	... run commands with ctx ...
//	w.Header().Set("X-Hystrix-Log", rc.Log().String())
//
// Data flow inside a command:
//
//	ctx ─▶ FromContext(ctx) ─▶ *RequestContext (nil: no caching, no log)
//	          ├─▶ Log().Add(cmd)                       cmd is a LogEntry, read at String()
//	          └─▶ Cache().GetOrStart(cmdKey, cacheKey, start)
//	                 miss: start() runs once, its handle (e.g. a replaying
//	                       observable) is stored and returned, hit=false
//	                 hit or concurrent duplicate: the same handle, hit=true
//	                       (the command adds RESPONSE_FROM_CACHE)
//
// The cache stores the in-flight execution, not its value, so duplicates that arrive while
// the first still runs share it, and failures are shared as well. The log keeps up to
// 1,000 commands (later ones are dropped, with one warning logged) and formats them as
// Hystrix does:
// "GetUser[SUCCESS][12ms], GetUser[SUCCESS, RESPONSE_FROM_CACHE][0ms]".
package cache
