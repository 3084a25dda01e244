package hooktest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type ctxKey struct{}

func TestRecordingHookRecordsEveryMethodByName(t *testing.T) {
	rec := &RecordingHook{}
	info := hooks.Info{CommandKey: "Cmd", GroupKey: "Grp", ThreadPoolKey: "Pool"}
	boom := errors.New("boom")
	ctx := context.WithValue(t.Context(), ctxKey{}, "caller")
	for _, err := range CallAll(ctx, rec, info, 42, boom) {
		require.NoError(t, err)
	}
	assert.Equal(t, ReferenceOrder, rec.Names())

	calls := rec.Calls()
	require.Len(t, calls, len(ReferenceOrder))
	for _, c := range calls {
		assert.Equal(t, info, c.Info, c.Method)
		assert.Equal(t, "caller", c.Ctx.Value(ctxKey{}), c.Method)
		switch c.Method {
		case "OnExecutionEmit", "OnEmit", "OnFallbackEmit":
			assert.Equal(t, 42, c.Value, c.Method)
			assert.NoError(t, c.Err, c.Method)
		case "OnExecutionError", "OnFallbackError", "OnError":
			assert.Same(t, boom, c.Err, c.Method)
			assert.Nil(t, c.Value, c.Method)
		default:
			assert.Nil(t, c.Value, c.Method)
			assert.NoError(t, c.Err, c.Method)
		}
	}

	rec.Reset()
	assert.Empty(t, rec.Names())
}

// failingStart shows the documented way to make a recording hook fail.
type failingStart struct{ *RecordingHook }

func (f failingStart) OnStart(ctx context.Context, i hooks.Info) (context.Context, error) {
	_, _ = f.RecordingHook.OnStart(ctx, i)
	return ctx, errors.New("refused")
}

func TestRecordingHookCanBeEmbeddedToFail(t *testing.T) {
	h := failingStart{&RecordingHook{}}
	_, err := h.OnStart(t.Context(), hooks.Info{})
	require.EqualError(t, err, "refused")
	h.OnSuccess(t.Context(), hooks.Info{})
	assert.Equal(t, []string{"OnStart", "OnSuccess"}, h.Names())
}

func TestRecordingNotifierRecordsCopies(t *testing.T) {
	rec := &RecordingNotifier{}
	rec.MarkEvent(t.Context(), metrics.Failure, "Cmd")
	rec.MarkEvent(t.Context(), metrics.FallbackSuccess, "Cmd")
	events := []metrics.EventType{metrics.Failure, metrics.FallbackSuccess}
	rec.MarkCommandExecution(t.Context(), "Cmd", config.Thread, 3*time.Millisecond, events)
	events[0] = metrics.Timeout // the caller may reuse its slice

	assert.Equal(t, []Mark{{metrics.Failure, "Cmd"}, {metrics.FallbackSuccess, "Cmd"}}, rec.Marks())
	require.Len(t, rec.Executions(), 1)
	assert.Equal(t, Execution{
		Key: "Cmd", Isolation: config.Thread, Duration: 3 * time.Millisecond,
		Events: []metrics.EventType{metrics.Failure, metrics.FallbackSuccess},
	}, rec.Executions()[0])
}
