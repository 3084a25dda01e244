package collapser

import (
	"context"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func first(t *testing.T, obs rxgo.Observable) (any, error) {
	t.Helper()
	for it := range obs.Observe() {
		return it.V, it.E
	}
	t.Fatal("observable completed empty")
	return nil, nil
}

func TestFrontDoors(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	col := newCollapser(t, e.setter("Doors", GlobalScope), rec.batch())

	hot := col.Observe(context.Background(), 1)
	cold := col.ToObservable(2)
	require.Equal(t, 1, queued(col.c), "Observe is hot, ToObservable cold")

	coldOut := make(chan any, 1)
	go func() {
		v, err := first(t, cold)
		assert.NoError(t, err)
		coldOut <- v
	}()
	require.Eventually(t, func() bool { return queued(col.c) == 2 }, 5*time.Second, time.Millisecond)
	exec := execAsync(t, context.Background(), col, 3, 3)
	e.clk.Advance(10 * time.Millisecond)

	assert.Equal(t, outcome{v: "v3"}, await(t, exec))
	assert.Equal(t, "v2", <-coldOut)
	for range 2 { // replayed to every subscriber
		v, err := first(t, hot)
		require.NoError(t, err)
		assert.Equal(t, "v1", v)
	}
	assert.Equal(t, [][]int{{1, 2, 3}}, rec.allBatches())
}

func TestFrontDoorsReportSubmitErrors(t *testing.T) {
	e := newEnv(t)
	col := newCollapser(t, e.setter("NoContext", RequestScope), (&recorder{}).batch())
	_, err := first(t, col.Observe(context.Background(), 1))
	assert.ErrorIs(t, err, ErrNoRequestContext)
	_, err = first(t, col.ToObservable(1))
	assert.ErrorIs(t, err, ErrNoRequestContext)
	_, err = col.Queue(context.Background(), 1).Get(context.Background())
	assert.ErrorIs(t, err, ErrNoRequestContext)

	sc2, err := NewStream(e.setter("StreamNoContext", RequestScope), streamBatch(manyPerArg))
	require.NoError(t, err)
	_, err = sc2.Execute(context.Background(), 1)
	assert.ErrorIs(t, err, ErrNoRequestContext)
	_, err = first(t, sc2.Observe(context.Background(), 1))
	assert.ErrorIs(t, err, ErrNoRequestContext)
	_, err = first(t, sc2.ToObservable(1))
	assert.ErrorIs(t, err, ErrNoRequestContext)
	_, err = sc2.Queue(context.Background(), 1).Get(context.Background())
	assert.ErrorIs(t, err, ErrNoRequestContext)
	assert.Equal(t, "StreamNoContext", sc2.Key())
	assert.Equal(t, "NoContext", col.Key())
}
