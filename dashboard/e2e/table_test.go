//go:build e2e

package e2e

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tableRate returns the mean req/s of key over the last n lines of the demo's table
// ("KEY  req/s  error%  breaker ..."), each of which counts one second.
func tableRate(t *testing.T, printed []string, key string, n int) float64 {
	t.Helper()
	var rates []float64
	for _, line := range printed {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(line, key+" ") { // not a line of the table, or another key's
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		require.NoError(t, err, "req/s of %q", line)
		rates = append(rates, v)
	}
	require.GreaterOrEqual(t, len(rates), n, "table lines of %s", key)
	sum := 0.0
	for _, v := range rates[len(rates)-n:] {
		sum += v
	}
	return sum / float64(n)
}

// agreeWithTable checks that the page's req/s of key comes within 15 % of the demo's
// table over its last ten lines, waiting a few seconds at most: the page's rate is over
// the 10 s rolling window, and the two windows may be a second apart.
func agreeWithTable(t *testing.T, tb *tab, d *demo, key string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		page := values(t, []card{tb.card("circuits", key)}, "rate")[0]
		table := tableRate(t, d.printed(), key, 10)
		if math.Abs(page-table) <= 0.15*table {
			t.Logf("%s: %.1f req/s on the page, %.1f in the table's last 10 s", key, page, table)
			return
		}
		if time.Now().After(deadline) {
			assert.InDelta(t, table, page, 0.15*table, "%s req/s: the page against the table's last 10 s", key)
			return
		}
		<-tick.C
	}
}
