package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestGrowthIsMeasuredFromTheBaseline(t *testing.T) {
	base := sample{at: time.Minute, heap: 10 * mib, goroutines: 70, held: held{exec: 5, running: 5}}
	tol := tolerance{heap: 4 * mib, goroutines: 100, held: 50}
	within := sample{at: 2 * time.Minute, heap: 14 * mib, goroutines: 170, held: held{exec: 30, fallback: 10, running: 20}}
	assert.Empty(t, within.growth(base, tol))
	beyond := sample{at: 3 * time.Minute, heap: 14*mib + 1, goroutines: 171, held: held{exec: 30, running: 20, active: 10, queued: 1}}
	assert.Equal(t, []string{
		"heap 14.0 MiB at 3m0s > 10.0 MiB at 1m0s + 4.0 MiB",
		"goroutines 171 at 3m0s > 70 at 1m0s + 100",
		"held 61 (exec 30 fallback 0 running 20 pool 10+1q batches 0) at 3m0s > 10 at 1m0s + 50",
	}, beyond.growth(base, tol))
}
