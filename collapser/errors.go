package collapser

import "errors"

// Sentinel errors of the collapser. Callers test them with errors.Is; the errors a
// collapser returns wrap them with its key, e.g. "collapser GetUser: no response for the
// request in the batch".
var (
	// ErrNoResponse is the error of a request the batch left without a response:
	// mapResponse did not set one, a shard function dropped it, or (streaming) no item of
	// the batch matched its key and the missing-response handler set nothing.
	ErrNoResponse = errors.New("no response for the request in the batch")
	// ErrNoRequestContext is the error of a request to a collapser of REQUEST scope made
	// with a context that carries no open cache.RequestContext.
	ErrNoRequestContext = errors.New("REQUEST scope needs a request context (cache.NewRequestContext)")
	// ErrBadBatch is the error of a batch whose definition failed: createCommand returned
	// nil or panicked, shard or mapResponse panicked, or a streaming command emitted an
	// item of the wrong type; and of a single request whose CacheKey panicked.
	ErrBadBatch = errors.New("invalid batch")
)
