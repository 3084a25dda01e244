//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/internal/e2eproc"
)

// demo is the rxhystrix-demo binary running on 127.0.0.1.
type demo struct {
	url     string    // the dashboard page
	started time.Time // before the process started: its elapsed time is at most ours
	proc    *e2eproc.Process
}

// printed returns the lines the demo printed so far (the last 64 KiB at least).
func (d *demo) printed() []string { return d.proc.Lines() }

var dashboardLine = regexp.MustCompile(`dashboard on (http://\S+)`)

// startDemo builds the demo, runs it on a free port and returns once it printed its
// dashboard URL; it is stopped when the test ends. A failing test logs what the demo
// did (e2eproc).
func startDemo(t *testing.T) *demo {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "rxhystrix-demo")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "..", "cmd", "rxhystrix-demo")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build the demo: %s", out)

	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-rate", "100")
	cmd.Dir = dir
	d := &demo{started: time.Now()}
	proc := e2eproc.Start(t, "demo", cmd)
	d.proc = proc
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-proc.Exited():
			assert.True(t, cmd.ProcessState.Success(), "the demo exits cleanly on interrupt: %v", cmd.ProcessState)
		case <-time.After(10 * time.Second):
			t.Error("the demo did not stop on interrupt")
		}
	})
	m, err := proc.Await(dashboardLine, patience)
	require.NoError(t, err)
	d.url = m[1]
	return d
}

// TestDemoDashboard opens the demo's dashboard and watches CheckInventory's breaker
// open in its outage (5 s to 20 s after the demo starts) and close after it.
func TestDemoDashboard(t *testing.T) {
	d := startDemo(t)
	tb := newTab(t, 1366, 768)
	tb.do(chromedp.Navigate(d.url))

	circuits := []string{"AuthorizePayment", "CheckInventory", "GetRecommendations", "GetUser"}
	pools := []string{"Inventory", "Recommendations"}
	tb.waitFor("every circuit and pool with traffic", `(() => {
		const rate = (s, n) => { const c = document.querySelector('#' + s + ' .card[data-name="' + n + '"] [data-field=rate]');
			return c ? parseFloat(c.textContent.replace(/,/g, '')) : 0; };
		return ['AuthorizePayment', 'CheckInventory', 'GetRecommendations', 'GetUser'].every(n => rate('circuits', n) > 0)
			&& ['Inventory', 'Recommendations'].every(n => rate('pools', n) > 0);
	})()`, 15*time.Second)

	got := tb.cards("circuits")
	assert.ElementsMatch(t, circuits, names(got))
	for _, c := range got {
		assertNumbers(t, c, circuitNumbers...)
		assert.Contains(t, []string{"Closed", "Open"}, c.Fields["state"], c.Name)
		assert.Equal(t, "1 host", c.Fields["hosts"], c.Name)
		if assert.NotNil(t, c.Circle, c.Name) {
			assert.Greater(t, c.Circle.R, 4.0, "%s has traffic: its circle grows", c.Name)
		}
	}
	gotPools := tb.cards("pools")
	assert.ElementsMatch(t, pools, names(gotPools))
	for _, c := range gotPools {
		assertNumbers(t, c, poolNumbers...)
	}
	// The demo's pools as it configures them: Inventory coreSize 20 (Hystrix's queue
	// threshold of 5), Recommendations coreSize 30 and queueSizeRejectionThreshold 20.
	inventory, recommendations := tb.card("pools", "Inventory"), tb.card("pools", "Recommendations")
	assert.Equal(t, []string{"20", "20", "5"}, fields(inventory, "coreSize", "maximumSize", "queueThreshold"))
	assert.Equal(t, []string{"30", "30", "20"}, fields(recommendations, "coreSize", "maximumSize", "queueThreshold"))
	assert.NotContains(t, eval[string](tb, `document.body.innerText`), "NaN")

	t.Run("filter", func(t *testing.T) {
		tb.do(chromedp.SendKeys(chromedp.CSS("#filter"), "inv"))
		assert.Equal(t, []string{"CheckInventory"}, names(tb.cards("circuits")))
		assert.Equal(t, []string{"Inventory"}, names(tb.cards("pools")))
		assert.Equal(t, "(1 of 4)", eval[string](tb, `document.querySelector('#circuits .count').textContent`))
		assertLayout(t, tb, "filtered to one card")
		setFilter(tb, "")
		assert.Len(t, tb.cards("circuits"), 4)
	})

	t.Run("sort", func(t *testing.T) {
		setSort(tb, "name")
		assert.Equal(t, circuits, names(tb.cards("circuits")))
		setSort(tb, "latency")
		p99 := values(t, tb.cards("circuits"), "p99")
		assert.True(t, slices.IsSortedFunc(p99, func(a, b float64) int { return int(b - a) }), "p99 descending: %v", p99)
		setSort(tb, "volume")
		rates := values(t, tb.cards("circuits"), "rate")
		assert.True(t, slices.IsSortedFunc(rates, func(a, b float64) int { return int((b - a) * 10) }), "rate descending: %v", rates)
		setSort(tb, "errorVolume")
	})

	inventoryState := func(state string) string {
		return cardCond("circuits", "CheckInventory", `c.querySelector('[data-field=state]').textContent === '`+state+`'`)
	}
	tb.waitFor("CheckInventory open in its outage", inventoryState("Open"), time.Until(d.started.Add(20*time.Second)))
	inv := tb.card("circuits", "CheckInventory")
	assert.Contains(t, inv.Classes, "open")
	assert.Contains(t, inv.Classes, "changed", "the change is highlighted")
	assert.Regexp(t, `^Open since [0-9]{2}:[0-9]{2}:[0-9]{2}$`, inv.Fields["since"])
	assert.Equal(t, "#b3261e", inv.Circle.Fill, "an open breaker's circle is red")
	assert.Greater(t, inv.Circle.R, 4.0, "calls still come while it is open: the circle stays")
	errs := values(t, tb.cards("circuits"), "errorPct")
	assert.True(t, slices.IsSortedFunc(errs, func(a, b float64) int { return int((b - a) * 10) }),
		"a change of state re-sorts by error then volume at once: %v", errs)
	for _, size := range [][2]int64{{1366, 768}, {1920, 1080}} {
		tb.do(chromedp.EmulateViewport(size[0], size[1]))
		where := fmt.Sprintf("at %dx%d", size[0], size[1])
		tb.waitWritten(where)
		assertLayout(t, tb, where)
		tb.screenshot(fmt.Sprintf("demo-%dx%d.png", size[0], size[1]), true)
		c := eval[contrast](tb, minContrastJS)
		assert.GreaterOrEqual(t, c.Ratio, 4.5, "lowest text contrast (WCAG AA) at %q %s", c.Text, where)
	}

	t.Run("req/s as the demo's table counts it", func(t *testing.T) {
		// While the breaker is open most calls are short circuits: Hystrix's own rate
		// (requestCount) would fall far below the table's.
		tb.waitFor("CheckInventory's window mostly short circuits", cardCond("circuits", "CheckInventory",
			`(() => { const n = (f) => parseFloat(c.querySelector('[data-field=' + f + ']').textContent.replace(/,/g, ''));
				return n('shortCircuited') >= 0.4 * 10 * n('rate'); })()`), time.Until(d.started.Add(25*time.Second)))
		for _, key := range []string{"CheckInventory", "GetUser"} {
			agreeWithTable(t, tb, d, key)
		}
	})

	tb.waitFor("CheckInventory closed after its outage", inventoryState("Closed"), time.Until(d.started.Add(40*time.Second)))
	assert.GreaterOrEqual(t, time.Since(d.started), 20*time.Second, "closed only after the outage")
	inv = tb.card("circuits", "CheckInventory")
	assert.NotContains(t, inv.Classes, "open")
	assert.Regexp(t, `^Closed since `, inv.Fields["since"])

	assert.Empty(t, tb.b.Problems(), "console errors and failed requests")
}

// fields returns the named fields of a card.
func fields(c card, keys ...string) []string {
	var out []string
	for _, k := range keys {
		out = append(out, c.Fields[k])
	}
	return out
}

func names(cards []card) []string {
	var out []string
	for _, c := range cards {
		out = append(out, c.Name)
	}
	return out
}

// values returns a numeric field of every card.
func values(t *testing.T, cards []card, field string) []float64 {
	t.Helper()
	var out []float64
	for _, c := range cards {
		v, err := strconv.ParseFloat(strings.ReplaceAll(c.Fields[field], ",", ""), 64)
		require.NoError(t, err, "%s %s", c.Name, field)
		out = append(out, v)
	}
	return out
}

// setFilter and setSort change the controls as a user does, with the events a user's
// change fires.
func setFilter(tb *tab, v string) {
	eval[bool](tb, `(() => { const f = document.getElementById('filter'); f.value = `+strconv.Quote(v)+`;
		return f.dispatchEvent(new Event('input')); })()`)
}

func setSort(tb *tab, v string) {
	eval[bool](tb, `(() => { const s = document.getElementById('sort'); s.value = `+strconv.Quote(v)+`;
		return s.dispatchEvent(new Event('change')); })()`)
}
