// Package e2e drives the dashboard page (dashboard.NewPageHandler) in a real headless
// Chromium with chromedp: against the demo, against several streams summed like Turbine,
// through a lost stream, and with 200 circuits of long names. It checks what a person
// would see (no text cut, nothing overlapping or sticking out, no row left half empty) at
// 1366x768 and 1920x1080 and writes screenshots into a directory it prints, measures
// the page's render cost, and compares the page's req/s with the demo's printed table.
// It is a module of its own so that chromedp never enters the core module. The tests
// carry the build tag e2e; run them with make e2e-browser (make e2e installs Chromium
// first when it is missing).
package e2e
