package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSoak runs the soak's load for 20 s over 200 keys, with the same checks as make
// soak: growth after the warm-up, hangs, the callers' tally against the library's
// cumulative counts, nothing held at the end, no goroutine left after Runtime.Close.
// The dependency flaps every 8 s so that breakers open and close within the run.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak runs for 20 s")
	}
	set := settings{Duration: 20 * time.Second, Report: 5 * time.Second, Warmup: 10 * time.Second,
		Flap: 8 * time.Second, Keys: 200, Workers: 8, Hang: 30 * time.Second, Seed: 1}
	var out bytes.Buffer
	err := run(context.Background(), set, &out)
	t.Log("\n" + out.String())
	require.NoError(t, err)
	assert.Contains(t, out.String(), "every count equals what the callers saw")
}

func TestSettingsAreChecked(t *testing.T) {
	set := defaults()
	require.NoError(t, set.validate())
	set.Warmup = set.Duration
	assert.Error(t, set.validate())
	set = defaults()
	set.Keys = collapsers
	assert.Error(t, set.validate())
}
