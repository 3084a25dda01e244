package command

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPermitsAreHeldWhileRunAndFallbackRun(t *testing.T) {
	e := newEnv(t)
	type held struct{ exec, fallback int }
	var inRun, inFallback held
	_, err := New(e.setter("P"), func(context.Context) (string, error) {
		inRun.exec, inRun.fallback = e.rt.Permits("P")
		return "", errors.New("boom")
	}).WithFallback(func(context.Context, error) (string, error) {
		inFallback.exec, inFallback.fallback = e.rt.Permits("P")
		return "fallback", nil
	}).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, held{1, 0}, inRun, "run holds the execution permit")
	assert.Equal(t, held{0, 1}, inFallback, "the fallback holds the fallback permit, the run's is back")
	exec, fallback := e.rt.Permits("P")
	assert.Equal(t, held{0, 0}, held{exec, fallback}, "both are back after Execute")
	exec, fallback = e.rt.Permits("NeverRan")
	assert.Equal(t, held{0, 0}, held{exec, fallback})
}
