package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSettle(t *testing.T) {
	final, at := settle([]int{20, 15, 10, 8, 8, 9, 8, 8})
	assert.Equal(t, 8, final)
	assert.Equal(t, 3, at, "from the fourth second on, within 1 (10 % of 8, rounded up) of 8")
	_, at = settle([]int{8, 8, 8, 8, 30})
	assert.Equal(t, -1, at, "the last second is off: not settled")
}

func TestArrivalsAreTheSameForEveryClientAndOfTheirRate(t *testing.T) {
	s := scenario{phases: []phase{{"2C", 2, 10 * time.Second, 1}, {"0.5C", 0.5, 10 * time.Second, 1}}}
	a := s.arrivals(400, 1)
	assert.Equal(t, a, s.arrivals(400, 1))
	var first int
	for _, at := range a {
		if at < 10*time.Second {
			first++
		}
	}
	assert.InEpsilon(t, 8000, first, 0.05)
	assert.InEpsilon(t, 2000, len(a)-first, 0.1)
}

func TestStatsOfAPhase(t *testing.T) {
	s := scenario{phases: []phase{{"p", 1, 2 * time.Second, 1}}}
	r := result{records: []record{
		{at: 0, lat: 10 * time.Millisecond, out: succeeded},
		{at: time.Second, lat: 200 * time.Millisecond, out: succeeded}, // beyond the SLO
		{at: time.Second, out: rejected},
		{at: time.Second, lat: 50 * time.Millisecond, out: failed},
	}, limits: []limitSample{{at: 0, limit: 5}, {at: time.Second, limit: 6}}}
	st := statsOf(r, s, 1)[0]
	assert.Equal(t, 0.5, st.goodput, "one success within the SLO in 2 s, capacity 1/s")
	assert.Equal(t, 1.0, st.served, "two successes")
	assert.Equal(t, 200*time.Millisecond, st.p99, "of the admitted calls")
	assert.Equal(t, 0.25, st.rejected)
	assert.Equal(t, 6, st.limit)
}
