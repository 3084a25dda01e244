//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	shotsOnce sync.Once
	shotsDir  string
	shotsErr  error
)

// screenshotDir is one directory for the screenshots of the whole run, printed once; it
// outlives the run, so that the screenshots can be looked at.
func screenshotDir(t *testing.T) string {
	t.Helper()
	shotsOnce.Do(func() {
		shotsDir, shotsErr = os.MkdirTemp("", "rxhystrix-dashboard-")
		if shotsErr == nil {
			fmt.Println("screenshots in", shotsDir)
		}
	})
	require.NoError(t, shotsErr)
	return shotsDir
}

// screenshot writes a PNG of the window, or of the whole page when full, into the run's
// screenshot directory and prints its path.
func (tb *tab) screenshot(name string, full bool) string {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.b.Ctx, patience)
	defer cancel()
	shot := chromedp.CaptureScreenshot()
	if full {
		shot = chromedp.FullScreenshot(100)
	}
	png, err := chromedp.Run(ctx, shot)
	require.NoError(tb.t, err)
	path := filepath.Join(screenshotDir(tb.t), name)
	require.NoError(tb.t, os.WriteFile(path, png, 0o644))
	tb.t.Logf("screenshot: %s", path)
	fmt.Println("screenshot:", path)
	return path
}

// layoutJS looks at every card on screen and returns what a person would see wrong: text
// cut or clipped, a name shown other than whole, anything sticking out of its card, cards
// over one another, and a first row that leaves the right of its section empty.
const layoutJS = `(() => {
	const out = [];
	const onScreen = (r) => r.bottom > 0 && r.top < innerHeight && r.width > 0;
	const cards = [...document.querySelectorAll('.card')].filter((c) => !c.hidden && onScreen(c.getBoundingClientRect()));
	const rects = cards.map((c) => c.getBoundingClientRect());
	cards.forEach((c, i) => {
		const name = c.dataset.name, box = rects[i];
		const h3 = c.querySelector('h3');
		if (h3.textContent !== name) out.push(name + ': name shown as ' + h3.textContent);
		for (const e of [c, ...c.querySelectorAll('*')]) {
			const r = e.getBoundingClientRect();
			if (r.width === 0) continue;
			const what = name + ': ' + e.tagName + ' ' + JSON.stringify(e.textContent.slice(0, 40));
			if (r.right > box.right + 0.5 || r.left < box.left - 0.5) out.push(what + ' sticks out of its card');
			if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) out.push(what + ' is cut');
		}
		for (let j = 0; j < i; j++) {
			const o = rects[j];
			if (box.left < o.right - 0.5 && o.left < box.right - 0.5 && box.top < o.bottom - 0.5 && o.top < box.bottom - 0.5)
				out.push(name + ' overlaps ' + cards[j].dataset.name);
		}
	});
	for (const grid of document.querySelectorAll('.cards')) {
		const first = [...grid.children].filter((c) => !c.hidden);
		if (!first.length) continue;
		const top = first[0].getBoundingClientRect().top;
		const row = first.filter((c) => c.getBoundingClientRect().top === top);
		const right = row[row.length - 1].getBoundingClientRect().right;
		const edge = grid.getBoundingClientRect().right;
		if (edge - right > 2) out.push(grid.parentElement.id + ': first row leaves ' + Math.round(edge - right) + ' px empty');
	}
	return out;
})()`

// waitWritten waits until every card on screen shows its numbers: the page writes a card
// only once it is on screen or near it.
func (tb *tab) waitWritten(where string) {
	tb.t.Helper()
	tb.waitFor("the cards on screen written "+where, `[...document.querySelectorAll('.card')].every((c) => {
		const r = c.getBoundingClientRect();
		return c.hidden || r.bottom < 0 || r.top > innerHeight || c.querySelector('[data-field=hosts]').textContent !== '';
	})`, 10*time.Second)
}

// assertLayout checks what the window shows now: nothing cut, sticking out, overlapping or
// left empty (layoutJS).
func assertLayout(t *testing.T, tb *tab, where string) {
	t.Helper()
	assert.Empty(t, eval[[]string](tb, layoutJS), "layout problems %s", where)
}
