//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// patience bounds one browser action; the tests wait for page state with their own limits.
const patience = 30 * time.Second

// tab is a fresh browser showing one page, with helpers that fail the test.
type tab struct {
	t *testing.T
	b *Browser
}

func newTab(t *testing.T, width, height int64) *tab {
	t.Helper()
	b, err := NewBrowser(t.TempDir(), int(width), int(height))
	require.NoError(t, err)
	t.Cleanup(func() {
		b.Close()
		if t.Failed() {
			t.Logf("what Chromium did:\n%s", b.Report())
		}
	})
	tb := &tab{t: t, b: b}
	tb.do(chromedp.EmulateViewport(width, height))
	return tb
}

func (tb *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.b.Ctx, patience)
	defer cancel()
	require.NoError(tb.t, chromedp.Do(ctx, steps...))
}

// eval returns the value of a JavaScript expression.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.b.Ctx, patience)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(tb.t, err, expr)
	return v
}

// waitFor polls a JavaScript condition until it holds, or fails after limit.
func (tb *tab) waitFor(what, cond string, limit time.Duration) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.b.Ctx, limit)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(100*time.Millisecond)))
	require.NoError(tb.t, err, "waiting for %s", what)
}

// card is what a card on the page shows.
type card struct {
	Name    string            `json:"name"`
	Classes string            `json:"classes"`
	Fields  map[string]string `json:"fields"`
	Circle  *circle           `json:"circle"` // circuits only
}

// circle is a circuit's health circle: its radius in a 52 by 52 box and its colour.
type circle struct {
	R    float64 `json:"r"`
	Fill string  `json:"fill"`
}

// cards returns the visible cards of a section ("circuits", "pools", "collapsers") in
// page order.
func (tb *tab) cards(section string) []card {
	tb.t.Helper()
	return eval[[]card](tb, fmt.Sprintf(`[...document.querySelectorAll('#%s .card')].filter(c => !c.hidden)
		.map(c => { const o = c.querySelector('circle');
			return {name: c.dataset.name, classes: c.className,
				fields: Object.fromEntries([...c.querySelectorAll('[data-field]')].map(e => [e.dataset.field, e.textContent])),
				circle: o && {r: parseFloat(o.getAttribute('r')), fill: o.getAttribute('fill')}}; })`,
		section))
}

func (tb *tab) card(section, name string) card {
	tb.t.Helper()
	for _, c := range tb.cards(section) {
		if c.Name == name {
			return c
		}
	}
	tb.t.Fatalf("no card %s in %s", name, section)
	return card{}
}

// cardCond is a JavaScript condition on the card of a name.
func cardCond(section, name, cond string) string {
	return fmt.Sprintf(`(() => { const c = document.querySelector('#%s .card[data-name=%q]'); return !!c && (%s); })()`,
		section, name, cond)
}

// number is how the page writes a count, a rate or a percentage.
var number = regexp.MustCompile(`^[0-9]{1,3}(,[0-9]{3})*(\.[0-9])?$`)

// assertNumbers checks that the named fields of a card are numbers as the page writes them.
func assertNumbers(t *testing.T, c card, fields ...string) {
	t.Helper()
	for _, f := range fields {
		v, ok := c.Fields[f]
		if !ok || !number.MatchString(v) {
			t.Errorf("%s %s = %q, want a number", c.Name, f, v)
		}
	}
}

var (
	circuitNumbers = []string{"rate", "errorPct", "success", "shortCircuited", "badRequest", "timeout", "rejected",
		"failure", "p50", "p90", "p99", "p995", "mean"}
	poolNumbers = []string{"rate", "active", "queued", "poolSize", "coreSize", "maximumSize", "maxActive", "executions",
		"rejections", "queueThreshold"}
)

// minContrastJS returns the text on the page with the lowest WCAG contrast ratio
// against its background.
const minContrastJS = `(() => {
	const rgba = (c) => { const p = c.match(/[0-9.]+/g).map(Number); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1}; };
	const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
	const lum = (c) => 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
	const background = (el) => {
		for (let e = el; e; e = e.parentElement) {
			const c = rgba(getComputedStyle(e).backgroundColor);
			if (c.a > 0) return c;
		}
		return {r: 255, g: 255, b: 255, a: 1};
	};
	let worst = {ratio: 100, text: ''};
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walk.nextNode(); n; n = walk.nextNode()) {
		const el = n.parentElement;
		if (!n.textContent.trim() || !el || el.getClientRects().length === 0) continue;
		const fg = lum(rgba(getComputedStyle(el).color)), bg = lum(background(el));
		const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
		if (ratio < worst.ratio) worst = {ratio, text: n.textContent.trim().slice(0, 40)};
	}
	return worst;
})()`

type contrast struct {
	Ratio float64 `json:"ratio"`
	Text  string  `json:"text"`
}
