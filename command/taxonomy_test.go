package command_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/adaptive"
	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/isolation"
)

// TestErrorTaxonomy holds the table of errors of docs/errors.md to the code: for each way a
// command can fail, the error the caller gets and what errors.Is and errors.As find in it.
func TestErrorTaxonomy(t *testing.T) {
	clk := clock.NewFake(time.Unix(1_000_000, 0))
	rt := command.NewRuntime(command.WithClock(clk), command.WithLogger(slog.New(slog.DiscardHandler)))
	defer rt.Close()
	ctx := context.Background()
	errDown, errNotFound := errors.New("dependency down"), errors.New("no such user")
	setter := func(key string, props ...config.Entry[config.CommandProperties]) command.Setter {
		return command.Setter{Runtime: rt, CommandKey: key, Properties: config.Set(
			append(props, config.ExecutionIsolationStrategy.Of(config.Semaphore))...)}
	}
	ok := func(context.Context) (int, error) { return 1, nil }
	fail := func(context.Context) (int, error) { return 0, errDown }
	commandError := func(t *testing.T, err error, ft command.FailureType) *command.Error {
		t.Helper()
		var e *command.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, ft, e.Type)
		return e
	}

	t.Run("run failed", func(t *testing.T) {
		_, err := command.New(setter("Failed"), fail).Execute(ctx)
		e := commandError(t, err, command.CommandException)
		assert.ErrorIs(t, err, command.ErrCommandFailed)
		assert.ErrorIs(t, err, errDown)
		assert.Equal(t, command.ErrFallbackMissing, e.FallbackErr)
	})
	t.Run("run panicked", func(t *testing.T) {
		_, err := command.New(setter("Panicked"), func(context.Context) (int, error) { panic("boom") }).Execute(ctx)
		commandError(t, err, command.CommandException)
		var p *command.PanicError
		require.ErrorAs(t, err, &p)
		assert.Equal(t, "boom", p.Value)
	})
	t.Run("timed out", func(t *testing.T) {
		_, err := command.New(setter("TimedOut", config.ExecutionTimeout.Of(time.Second)),
			func(context.Context) (int, error) { clk.Advance(2 * time.Second); return 1, nil }).Execute(ctx)
		commandError(t, err, command.Timeout)
		assert.ErrorIs(t, err, command.ErrTimeout)
	})
	t.Run("breaker open", func(t *testing.T) {
		_, err := command.New(setter("Open", config.CircuitBreakerForceOpen.Of(true)), ok).Execute(ctx)
		commandError(t, err, command.ShortCircuit)
		assert.ErrorIs(t, err, command.ErrShortCircuited)
	})
	t.Run("semaphore full", func(t *testing.T) {
		_, err := command.New(setter("Full", config.ExecutionMaxConcurrentRequests.Of(0)), ok).Execute(ctx)
		commandError(t, err, command.RejectedSemaphoreExecution)
		assert.ErrorIs(t, err, command.ErrSemaphoreRejected)
	})
	t.Run("pool full", func(t *testing.T) {
		pool := func(key string) command.Setter {
			return command.Setter{Runtime: rt, CommandKey: key, ThreadPoolKey: "OneWorker",
				ThreadPoolProperties: config.Set(config.ThreadPoolCoreSize.Of(1))}
		}
		var err error
		_, _ = command.New(pool("Holder"), func(ctx context.Context) (int, error) {
			_, err = command.New(pool("Rejected"), ok).Execute(ctx) // the one worker is busy here
			return 1, nil
		}).Execute(ctx)
		commandError(t, err, command.RejectedThreadExecution)
		assert.ErrorIs(t, err, command.ErrThreadPoolFull)
		assert.ErrorIs(t, err, isolation.ErrRejected)
		var r *isolation.RejectedError
		require.ErrorAs(t, err, &r)
		assert.Equal(t, "OneWorker", r.Pool)
	})
	t.Run("adaptive limit refused", func(t *testing.T) {
		one := command.Setter{Runtime: rt, CommandKey: "OnePermit", Properties: config.Set(
			config.ExecutionIsolationStrategy.Of(config.Adaptive), config.AdaptiveInitialLimit.Of(1),
			config.AdaptiveMaxLimit.Of(1))}
		var err error
		_, _ = command.New(one, func(ctx context.Context) (int, error) {
			_, err = command.New(one, ok).Execute(ctx) // the one permit is held here
			return 1, nil
		}).Execute(ctx)
		commandError(t, err, command.RejectedAdaptiveExecution)
		assert.ErrorIs(t, err, command.ErrAdaptiveRejected)
		assert.ErrorIs(t, err, adaptive.ErrLimit)
	})
	t.Run("fallback semaphore full", func(t *testing.T) {
		_, err := command.New(setter("NoFallbackPermit", config.FallbackMaxConcurrentRequests.Of(0)), fail).
			WithFallback(func(context.Context, error) (int, error) { return -1, nil }).Execute(ctx)
		commandError(t, err, command.RejectedSemaphoreFallback)
		assert.ErrorIs(t, err, command.ErrFallbackRejected)
		assert.ErrorIs(t, err, errDown, "and the cause of the failure before it")
	})
	t.Run("fallback failed", func(t *testing.T) {
		errNoCache := errors.New("no cached value")
		_, err := command.New(setter("FallbackFailed"), fail).
			WithFallback(func(context.Context, error) (int, error) { return 0, errNoCache }).Execute(ctx)
		e := commandError(t, err, command.CommandException)
		assert.ErrorIs(t, err, command.ErrCommandFailed)
		assert.Equal(t, errNoCache, e.FallbackErr)
		assert.NotErrorIs(t, err, errNoCache, "the fallback's error is a field, not in the chain")
	})
	t.Run("library misused", func(t *testing.T) {
		c := command.New(setter("Twice"), ok)
		_, _ = c.Execute(ctx)
		_, err := c.Execute(ctx)
		commandError(t, err, command.BadRequestException)
		assert.ErrorIs(t, err, command.ErrBadRequest)
		assert.ErrorIs(t, err, command.ErrIllegalState)

		_, err = command.New(setter("CacheKey"), ok).WithCacheKey("1").Execute(ctx)
		assert.ErrorIs(t, err, command.ErrBadRequest)
		assert.ErrorIs(t, err, command.ErrNoRequestContext)

		_, err = command.New(command.Setter{Runtime: rt, CommandKey: "Invalid",
			Properties: config.Overrides{"circuitBreaker.errorThresholdPercentage": "200"}}, ok).Execute(ctx)
		assert.ErrorIs(t, err, command.ErrBadRequest)
		assert.ErrorIs(t, err, config.ErrInvalidValue)
		var pe *config.PropertyError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "200", pe.Value)

		_, err = command.New(command.Setter{Runtime: rt, CommandKey: "Typo",
			Properties: config.Overrides{"execution.timeout.enable": "false"}}, ok).Execute(ctx)
		assert.ErrorIs(t, err, command.ErrBadRequest)
		assert.ErrorIs(t, err, config.ErrUnknownProperty)
	})
	t.Run("bad request", func(t *testing.T) {
		_, err := command.New(setter("BadRequest"), func(context.Context) (int, error) {
			return 0, command.BadRequest(errNotFound)
		}).Execute(ctx)
		assert.Same(t, errNotFound, err, "the caller gets its own error back")
		assert.NotErrorIs(t, err, command.ErrBadRequest)
		var e *command.Error
		assert.False(t, errors.As(err, &e))
	})
	t.Run("business outcome", func(t *testing.T) {
		s := setter("Business")
		s.Classifier = func(error) command.Class { return command.ClassSuccess }
		_, err := command.New(s, func(context.Context) (int, error) { return 0, errNotFound }).Execute(ctx)
		assert.Same(t, errNotFound, err)
	})
	t.Run("caller gone", func(t *testing.T) {
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		_, err := command.New(setter("Gone"), ok).Execute(cancelled)
		assert.Same(t, context.Canceled, err)
		var e *command.Error
		assert.False(t, errors.As(err, &e))
	})
}
