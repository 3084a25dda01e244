package cache

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFromContextWithoutRequestContextIsNil(t *testing.T) {
	assert.Nil(t, FromContext(context.Background()))
}

func TestRequestContextFollowsDerivedContextsAndGoroutines(t *testing.T) {
	ctx, rc := NewRequestContext(context.Background())
	defer rc.Close()
	require.Same(t, rc, FromContext(ctx))

	child, cancel := context.WithTimeout(ctx, time.Hour)
	defer cancel()
	child = context.WithValue(child, struct{}{}, "other")

	var wg sync.WaitGroup
	seen := make([]*RequestContext, 8)
	for i := range seen {
		wg.Go(func() {
			seen[i] = FromContext(child)
			seen[i].Log().Add(entry{key: "FromGoroutine"})
		})
	}
	wg.Wait()
	for _, s := range seen {
		assert.Same(t, rc, s)
	}
	assert.Len(t, rc.Log().Entries(), len(seen))
	assert.Equal(t, "FromGoroutine[Executed][0ms]x8", rc.Log().String())
}

func TestNestedRequestContextShadowsTheOuterOne(t *testing.T) {
	outerCtx, outer := NewRequestContext(context.Background())
	innerCtx, inner := NewRequestContext(outerCtx)
	defer outer.Close()
	defer inner.Close()
	assert.NotSame(t, outer, inner)
	assert.Same(t, inner, FromContext(innerCtx))
	assert.Same(t, outer, FromContext(outerCtx))
}

func TestCloseEndsTheRequest(t *testing.T) {
	ctx, rc := NewRequestContext(context.Background())
	rc.Log().Add(entry{key: "Before", events: ev("SUCCESS"), d: time.Millisecond})
	rc.Cache().GetOrStart("Cmd", "1", func() any { return "cached" })
	require.Equal(t, 1, rc.Cache().len())

	rc.Close()
	rc.Close() // idempotent

	assert.True(t, rc.isClosed())
	assert.Nil(t, FromContext(ctx), "a closed request context is no request context")
	assert.Zero(t, rc.Cache().len(), "entries released")

	runs := 0
	for range 2 {
		v, hit := rc.Cache().GetOrStart("Cmd", "1", func() any { runs++; return "fresh" })
		assert.Equal(t, "fresh", v)
		assert.False(t, hit)
	}
	assert.Equal(t, 2, runs, "a closed cache caches nothing")

	assert.False(t, rc.Log().Add(entry{key: "After"}))
	assert.Equal(t, "Before[SUCCESS][1ms]", rc.Log().String(), "the log stays readable")
}
