package hooktest

import (
	"context"

	"github.com/rxhystrix/rxhystrix/hooks"
)

// ReferenceOrder is the hook methods in the order of Hystrix's HystrixCommandExecutionHook.
var ReferenceOrder = []string{
	"OnStart", "OnThreadStart", "OnExecutionStart", "OnExecutionEmit", "OnEmit",
	"OnExecutionSuccess", "OnExecutionError", "OnThreadComplete", "OnFallbackStart",
	"OnFallbackEmit", "OnFallbackSuccess", "OnFallbackError", "OnSuccess", "OnError",
	"OnCacheHit", "OnUnsubscribe",
}

// CallAll calls every method of h once, in ReferenceOrder, the emit methods with v and
// the error methods with err, and returns what each returned (nil for those that return
// nothing).
func CallAll(ctx context.Context, h hooks.ExecutionHook, info hooks.Info, v any, err error) [16]error {
	return [16]error{
		func() error { _, err := h.OnStart(ctx, info); return err }(),
		h.OnThreadStart(ctx, info),
		h.OnExecutionStart(ctx, info),
		func() error { h.OnExecutionEmit(ctx, info, v); return nil }(),
		func() error { h.OnEmit(ctx, info, v); return nil }(),
		func() error { h.OnExecutionSuccess(ctx, info); return nil }(),
		func() error { h.OnExecutionError(ctx, info, err); return nil }(),
		func() error { h.OnThreadComplete(ctx, info); return nil }(),
		func() error { h.OnFallbackStart(ctx, info); return nil }(),
		func() error { h.OnFallbackEmit(ctx, info, v); return nil }(),
		func() error { h.OnFallbackSuccess(ctx, info); return nil }(),
		func() error { h.OnFallbackError(ctx, info, err); return nil }(),
		func() error { h.OnSuccess(ctx, info); return nil }(),
		func() error { h.OnError(ctx, info, err); return nil }(),
		func() error { h.OnCacheHit(ctx, info); return nil }(),
		func() error { h.OnUnsubscribe(ctx, info); return nil }(),
	}
}
