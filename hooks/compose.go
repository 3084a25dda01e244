package hooks

import (
	"context"
	"fmt"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Compose returns an ExecutionHook that calls each of hs in order, so that several
// plugins (a tracing hook and your own) can run side by side in one Registry. No-op hooks
// are left out; with none left Compose returns NoopHook{}, with one it returns that hook.
//
// OnStart threads the context: each hook gets the context the previous one returned, and
// the last one's is the execution's. If a hook's OnStart fails (error or panic), the
// hooks started before it get OnError with that error, latest first, so every OnStart
// that succeeded is still paired with exactly one of OnSuccess, OnError and
// OnUnsubscribe; then the failure goes to the command as from a single hook.
// OnThreadStart and OnExecutionStart stop at the first error. Every other method calls
// every hook even if an earlier one panics, and re-raises the first panic afterwards. The
// emit methods can be left out (EmitIgnorer) when they can on every hook.
func Compose(hs ...ExecutionHook) ExecutionHook {
	var c composite
	for _, h := range hs {
		if h != nil && !IsNoop(h) {
			c = append(c, h)
		}
	}
	switch len(c) {
	case 0:
		return NoopHook{}
	case 1:
		return c[0]
	}
	return c
}

// ComposeNotifiers returns an EventNotifier that calls each of ns in order, like Compose:
// no-op notifiers are left out, a panic in one does not keep the others from the call, and
// MarkCommandExecution can be left out (ExecutionIgnorer) when it can on every notifier.
func ComposeNotifiers(ns ...EventNotifier) EventNotifier {
	var c compositeNotifier
	for _, n := range ns {
		if n != nil && !IsNoopNotifier(n) {
			c = append(c, n)
		}
	}
	switch len(c) {
	case 0:
		return NoopNotifier{}
	case 1:
		return c[0]
	}
	return c
}

// each calls f for every element of s, even if some panic, then re-raises the first panic.
func each[T any](s []T, f func(T)) {
	var first any
	for _, v := range s {
		func() {
			defer func() {
				if p := recover(); p != nil && first == nil {
					first = p
				}
			}()
			f(v)
		}()
	}
	if first != nil {
		panic(first)
	}
}

//go:generate go run ../internal/forward -iface ExecutionHook -skip OnStart,OnThreadStart,OnExecutionStart -recv "c composite" -body "each(c, func(h ExecutionHook) { h.%m(%a) })" -out compose_hooks.go

// composite is Compose's hook: OnStart, OnThreadStart and OnExecutionStart are written
// here, the others call every hook (compose_hooks.go, generated).
type composite []ExecutionHook

// IgnoresEmits reports whether the emit methods can be left out on every hook of c.
func (c composite) IgnoresEmits() bool {
	for _, h := range c {
		if !IgnoresEmits(h) {
			return false
		}
	}
	return true
}

func (c composite) OnStart(ctx context.Context, info Info) (_ context.Context, err error) {
	started := 0
	defer func() {
		if started == len(c) {
			return
		}
		p := recover()
		if p != nil {
			err = fmt.Errorf("hooks: OnStart panicked: %v", p)
		}
		for i := started - 1; i >= 0; i-- {
			c[i].OnError(ctx, info, err)
		}
		if p != nil {
			panic(p)
		}
	}()
	for _, h := range c {
		next, err := h.OnStart(ctx, info)
		if err != nil {
			return ctx, err
		}
		if next != nil {
			ctx = next
		}
		started++
	}
	return ctx, nil
}

func (c composite) OnThreadStart(ctx context.Context, info Info) error {
	for _, h := range c {
		if err := h.OnThreadStart(ctx, info); err != nil {
			return err
		}
	}
	return nil
}

func (c composite) OnExecutionStart(ctx context.Context, info Info) error {
	for _, h := range c {
		if err := h.OnExecutionStart(ctx, info); err != nil {
			return err
		}
	}
	return nil
}

type compositeNotifier []EventNotifier

// IgnoresExecutions reports whether MarkCommandExecution can be left out on every
// notifier of c.
func (c compositeNotifier) IgnoresExecutions() bool {
	for _, n := range c {
		if !IgnoresExecutions(n) {
			return false
		}
	}
	return true
}

func (c compositeNotifier) MarkEvent(ctx context.Context, e metrics.EventType, key string) {
	each(c, func(n EventNotifier) { n.MarkEvent(ctx, e, key) })
}

func (c compositeNotifier) MarkCommandExecution(ctx context.Context, key string, isolation config.IsolationStrategy, d time.Duration, events []metrics.EventType) {
	each(c, func(n EventNotifier) { n.MarkCommandExecution(ctx, key, isolation, d, events) })
}
