package command

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

var errBoom = errors.New("boom")

func TestExecuteSuccess(t *testing.T) {
	e := newEnv(t)
	cmd := New(e.setter("A"), value("v"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())
	assert.True(t, cmd.IsSuccessfulExecution())
	assert.True(t, cmd.IsExecutionComplete())
	assert.False(t, cmd.IsExecutedInThread())
	assert.False(t, cmd.IsResponseFromFallback())
	assert.False(t, cmd.IsFailedExecution())
	assert.NoError(t, cmd.FailedExecutionError())
	assert.False(t, cmd.IsCircuitBreakerOpen())
	assert.Equal(t, "A", cmd.CommandKey())
	assert.Equal(t, "G", cmd.GroupKey())
	assert.Equal(t, "G", cmd.ThreadPoolKey())
	assert.Equal(t, []string{"OnStart", "OnExecutionStart", "OnExecutionEmit", "OnEmit",
		"OnExecutionSuccess", "OnSuccess"}, e.rec.Names())
	e.assertIdle("A")
}

func TestExecutedTwiceIsABadRequest(t *testing.T) {
	e := newEnv(t)
	cmd := New(e.setter("A"), value("v"))
	_, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	_, err = cmd.Execute(context.Background())
	re := runtimeErr(t, err, BadRequestException)
	assert.ErrorIs(t, err, ErrBadRequest)
	assert.ErrorIs(t, err, ErrIllegalState)
	assert.Equal(t, "A", re.CommandKey)
	assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents(), "the second call records nothing")
	e.assertIdle("A")
}

func TestFailure(t *testing.T) {
	errFallback := errors.New("fallback boom")
	tests := []struct {
		name     string
		fallback func(context.Context, error) (string, error)
		want     []metrics.EventType
		value    string
		fbErr    error // nil: the command succeeds through its fallback
	}{
		{"no fallback", nil, ev(metrics.Failure, metrics.FallbackMissing), "", ErrFallbackMissing},
		{"working fallback", fallbackValue("fb"), ev(metrics.Failure, metrics.FallbackSuccess), "fb", nil},
		{"failing fallback", fallbackFailing(errFallback), ev(metrics.Failure, metrics.FallbackFailure), "", errFallback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			var seen error
			cmd := New(e.setter("F"), failing(errBoom))
			if tt.fallback != nil {
				cmd.WithFallback(func(ctx context.Context, err error) (string, error) {
					seen = err
					assert.True(t, cmd.IsFailedExecution(), "FAILURE is recorded before the fallback runs")
					return tt.fallback(ctx, err)
				})
			}
			got, err := cmd.Execute(context.Background())
			assert.Equal(t, tt.want, cmd.ExecutionEvents())
			assert.Equal(t, tt.value, got)
			assert.True(t, cmd.IsFailedExecution())
			assert.Equal(t, errBoom, cmd.FailedExecutionError())
			if tt.fallback != nil {
				assert.Equal(t, errBoom, seen)
			}
			if tt.fbErr == nil {
				require.NoError(t, err)
				assert.True(t, cmd.IsResponseFromFallback())
			} else {
				re := runtimeErr(t, err, CommandException)
				assert.ErrorIs(t, err, ErrCommandFailed)
				assert.ErrorIs(t, err, errBoom, "Unwrap gives the cause")
				assert.Equal(t, tt.fbErr, re.FallbackErr)
				assert.Equal(t, err, cmd.ExecutionError())
			}
			e.assertIdle("F")
		})
	}
}

func TestBadRequest(t *testing.T) {
	for _, withFallback := range []bool{false, true} {
		t.Run(map[bool]string{false: "without fallback", true: "with fallback"}[withFallback], func(t *testing.T) {
			e := newEnv(t)
			cmd := New(e.setter("B"), failing(BadRequest(errBoom)))
			called := false
			if withFallback {
				cmd.WithFallback(func(context.Context, error) (string, error) {
					called = true
					return "fb", nil
				})
			}
			_, err := cmd.Execute(context.Background())
			assert.Same(t, errBoom, err, "the wrapped error goes to the caller as is")
			assert.False(t, called, "no fallback for a bad request")
			assert.Equal(t, ev(metrics.BadRequest), cmd.ExecutionEvents())
			assert.Equal(t, []string{"OnStart", "OnExecutionStart", "OnExecutionError", "OnError"}, e.rec.Names())
			e.assertIdle("B")
		})
	}
}

func TestClassifier(t *testing.T) {
	errNotFound := errors.New("not found")
	classify := func(err error) Class {
		switch {
		case errors.Is(err, errNotFound):
			return ClassSuccess
		case errors.Is(err, errBoom):
			return ClassBadRequest
		}
		return ClassFailure
	}
	t.Run("business error counts as success", func(t *testing.T) {
		e := newEnv(t)
		s := e.setter("C")
		s.Classifier = classify
		cmd := New(s, failing(errNotFound)).WithFallback(fallbackValue("fb"))
		_, err := cmd.Execute(context.Background())
		assert.Same(t, errNotFound, err)
		assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())
		assert.Equal(t, []string{"OnStart", "OnExecutionStart", "OnExecutionSuccess", "OnSuccess"}, e.rec.Names())
		e.assertIdle("C")
	})
	t.Run("classified bad request", func(t *testing.T) {
		e := newEnv(t)
		s := e.setter("C")
		s.Classifier = classify
		cmd := New(s, failing(errBoom)).WithFallback(fallbackValue("fb"))
		_, err := cmd.Execute(context.Background())
		assert.Same(t, errBoom, err)
		assert.Equal(t, ev(metrics.BadRequest), cmd.ExecutionEvents())
	})
	t.Run("failure", func(t *testing.T) {
		e := newEnv(t)
		s := e.setter("C")
		s.Classifier = classify
		cmd := New(s, failing(errors.New("other"))).WithFallback(fallbackValue("fb"))
		got, err := cmd.Execute(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "fb", got)
		assert.Equal(t, ev(metrics.Failure, metrics.FallbackSuccess), cmd.ExecutionEvents())
	})
}

func TestFallbackDisabled(t *testing.T) {
	e := newEnv(t)
	cmd := New(e.setter("D", "fallback.enabled", "false"), failing(errBoom)).WithFallback(fallbackValue("fb"))
	_, err := cmd.Execute(context.Background())
	re := runtimeErr(t, err, CommandException)
	assert.Equal(t, ErrFallbackDisabled, re.FallbackErr)
	assert.Equal(t, ev(metrics.Failure), cmd.ExecutionEvents())
	e.assertIdle("D")
}

func TestPanics(t *testing.T) {
	t.Run("in run", func(t *testing.T) {
		e := newEnv(t)
		cmd := New(e.setter("P"), func(context.Context) (string, error) { panic("run exploded") }).
			WithFallback(fallbackValue("fb"))
		got, err := cmd.Execute(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "fb", got)
		assert.Equal(t, ev(metrics.Failure, metrics.FallbackSuccess), cmd.ExecutionEvents())
		var pe *PanicError
		require.ErrorAs(t, cmd.FailedExecutionError(), &pe)
		assert.Equal(t, "run exploded", pe.Value)
		assert.Contains(t, string(pe.Stack), "command_test.go", "the stack is kept")
		e.assertIdle("P")
	})
	t.Run("in run and fallback", func(t *testing.T) {
		e := newEnv(t)
		cmd := New(e.setter("P"), func(context.Context) (string, error) { panic(errBoom) }).
			WithFallback(func(context.Context, error) (string, error) { panic("fallback exploded") })
		_, err := cmd.Execute(context.Background())
		re := runtimeErr(t, err, CommandException)
		assert.ErrorIs(t, err, errBoom, "an error panic value is unwrapped")
		var pe *PanicError
		require.ErrorAs(t, re.FallbackErr, &pe)
		assert.Equal(t, "fallback exploded", pe.Value)
		assert.Equal(t, ev(metrics.Failure, metrics.FallbackFailure), cmd.ExecutionEvents())
		e.assertIdle("P")
	})
}

func TestInvalidPropertiesFailTheExecution(t *testing.T) {
	e := newEnv(t)
	_, err := New(e.setter("X", "fallback.enabled", "maybe"), value("v")).Execute(context.Background())
	re := runtimeErr(t, err, BadRequestException)
	assert.ErrorIs(t, err, config.ErrInvalidValue)
	assert.Contains(t, re.Error(), "fallback.enabled")
	got, err := New(e.setter("X"), value("v")).Execute(context.Background())
	require.NoError(t, err, "a later valid setter resolves the key")
	assert.Equal(t, "v", got)
	e.assertIdle("X")
}
