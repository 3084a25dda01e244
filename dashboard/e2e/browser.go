package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/rxhystrix/rxhystrix/internal/e2eproc"
)

// Browser is one headless Chromium with one tab. It records every console error,
// uncaught exception, failed request and HTTP error response of the tab, and what
// Chromium printed (Report).
type Browser struct {
	Ctx    context.Context // the tab: pass it to chromedp.Run
	cancel func()
	out    e2eproc.Output

	mu       sync.Mutex
	problems []string
	cmd      *exec.Cmd // Chromium's, set when chromedp starts it
	closed   bool      // Close returned: Chromium has ended
	lost     bool      // the tab had ended before Close: Chromium died or hung up
}

// chromiumFlags are what Chromium needs on a closed network, as root, without a display.
var chromiumFlags = []chromedp.ExecAllocatorOption{
	chromedp.Headless,
	chromedp.DisableGPU,
	chromedp.NoFirstRun,
	chromedp.NoDefaultBrowserCheck,
	chromedp.Flag("disable-quic", true),
	chromedp.Flag("disable-background-networking", true),
	chromedp.Flag("disable-component-update", true),
	chromedp.Flag("disable-sync", true),
	chromedp.Flag("disable-extensions", true),
	chromedp.Flag("disable-default-apps", true),
	chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
	chromedp.Flag("metrics-recording-only", true),
	chromedp.Flag("mute-audio", true),
}

// ChromiumPath returns Debian's chromium (make e2e-setup installs it), or the first
// Chromium or Chrome on PATH.
func ChromiumPath() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no chromium on PATH: run make e2e-setup")
}

// NewBrowser starts Chromium with a fresh profile in userDataDir and a window of the
// given size, and opens a tab that records problems.
func NewBrowser(userDataDir string, width, height int) (*Browser, error) {
	path, err := ChromiumPath()
	if err != nil {
		return nil, err
	}
	b := &Browser{}
	opts := append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(userDataDir),
		chromedp.WindowSize(width, height),
		chromedp.CombinedOutput(&b.out),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			dieWithTest(cmd) // what chromedp does when there is no ModifyCmdFunc
			b.mu.Lock()
			b.cmd = cmd
			b.mu.Unlock()
		}),
	}, chromiumFlags...)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root in its sandbox
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelTab := chromedp.NewContext(alloc, chromedp.WithListener(b.record))
	b.Ctx, b.cancel = tab, func() { cancelTab(); cancelAlloc() }
	if err := chromedp.Do(tab); err != nil { // starts the browser, bound to tab, not to a timeout
		b.Close()
		return nil, fmt.Errorf("start chromium: %w\n%s", err, b.Report())
	}
	start, cancelStart := context.WithTimeout(tab, 30*time.Second)
	defer cancelStart()
	if _, err := chromedp.Call(start, network.Enable, network.EnableParams{}); err != nil {
		b.Close()
		return nil, fmt.Errorf("enable network events: %w\n%s", err, b.Report())
	}
	if _, err := chromedp.Call(start, log.Enable, cdp.Empty{}); err != nil {
		b.Close()
		return nil, fmt.Errorf("enable log events: %w\n%s", err, b.Report())
	}
	return b, nil
}

// Close ends the tab and the browser process, and waits until Chromium has ended.
func (b *Browser) Close() {
	lost := b.Ctx.Err() != nil
	b.cancel()
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed, b.lost = true, lost
	}
}

// Report tells what Chromium did: its command line, how it ended (once closed) and the
// last lines it printed.
func (b *Browser) Report() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil {
		return "chromium: never started\n" + b.out.Tail(40)
	}
	var state *os.ProcessState
	note := ""
	if b.closed {
		state = b.cmd.ProcessState // chromedp waited for it before Close returned
		note = "when the test closed it"
		if b.lost {
			note = "before the test closed it (the tab had ended)"
		}
	}
	return e2eproc.Describe("chromium", b.cmd, state, note, &b.out)
}

// Problems returns what went wrong in the tab so far.
func (b *Browser) Problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

func (b *Browser) record(ev any) {
	var p string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
			var args []string
			for _, a := range ev.Args {
				args = append(args, a.Description+string(a.Value))
			}
			p = fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		p = fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber, d.Text)
		if d.Exception != nil {
			p += " " + d.Exception.Description
		}
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
			p = fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL)
		}
	case *network.EventLoadingFailed:
		if !ev.Canceled {
			p = fmt.Sprintf("request %s failed: %s", ev.RequestID, ev.ErrorText)
		}
	case *network.EventResponseReceived:
		if ev.Response.Status >= 400 {
			p = fmt.Sprintf("HTTP %d for %s", ev.Response.Status, ev.Response.URL)
		}
	}
	if p != "" {
		b.mu.Lock()
		b.problems = append(b.problems, p)
		b.mu.Unlock()
	}
}
