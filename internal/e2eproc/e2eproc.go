// Package e2eproc runs the servers of the end-to-end suites (etcd, Prometheus, the demo)
// as child processes, so that a failing suite says which server did what: Start keeps the
// end of what a server prints and, when the test fails, logs the server's command line,
// how it ended and the last lines of its output. Describe does the same for a process
// started by someone else (chromedp's Chromium).
package e2eproc

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

const (
	keep      = 64 << 10         // bytes of output an Output keeps at least (up to twice that)
	tailLines = 40               // lines of output a report shows
	grace     = 10 * time.Second // how long Stop waits after SIGTERM before SIGKILL
)

// Output keeps the last 64 to 128 KiB a process printed. It is an io.Writer safe for
// concurrent use; the zero value is ready to use.
type Output struct {
	mu      sync.Mutex
	buf     []byte
	dropped bool          // the start of the output is gone
	changed chan struct{} // closed by the next write
}

// Write appends p; past 128 KiB it drops the oldest bytes down to 64 KiB.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, p...)
	if len(o.buf) > 2*keep {
		o.buf = append(o.buf[:0:0], o.buf[len(o.buf)-keep:]...)
		o.dropped = true
	}
	if o.changed != nil {
		close(o.changed)
		o.changed = nil
	}
	return len(p), nil
}

// Tail returns the last n lines kept, each indented by two spaces, or a line that says
// there was no output.
func (o *Output) Tail(n int) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	lines := strings.Split(strings.TrimRight(string(o.buf), "\n"), "\n")
	if len(o.buf) == 0 {
		return "  (no output)\n"
	}
	var b strings.Builder
	if len(lines) > n || o.dropped {
		fmt.Fprintf(&b, "  (last %d lines)\n", min(n, len(lines)))
		lines = lines[max(0, len(lines)-n):]
	}
	for _, l := range lines {
		b.WriteString("  | " + l + "\n")
	}
	return b.String()
}

// Lines returns the complete lines kept, oldest first (the first may be cut when the
// start of the output is gone).
func (o *Output) Lines() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	text := string(o.buf)
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		return strings.Split(text[:i], "\n")
	}
	return nil
}

// find returns the submatches of the first match of re in what is kept, or nil and a
// channel that the next write closes.
func (o *Output) find(re *regexp.Regexp) ([]string, <-chan struct{}) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if m := re.FindSubmatch(o.buf); m != nil {
		out := make([]string, len(m))
		for i, s := range m {
			out[i] = string(s)
		}
		return out, nil
	}
	if o.changed == nil {
		o.changed = make(chan struct{})
	}
	return nil, o.changed
}

// Describe tells what a process did: its name and command line, how it ended (state is
// nil while it runs) followed by note when there is one, and the last lines of out.
func Describe(name string, cmd *exec.Cmd, state *os.ProcessState, note string, out *Output) string {
	var how string
	switch {
	case cmd.Process == nil:
		how = "never started"
	case state == nil:
		how = fmt.Sprintf("pid %d, still running", cmd.Process.Pid)
	default:
		how = fmt.Sprintf("pid %d, ended: %s", cmd.Process.Pid, state)
	}
	if note != "" {
		how += " " + note
	}
	return fmt.Sprintf("%s: %s\n  %s\n%s", name, strings.Join(cmd.Args, " "), how, out.Tail(tailLines))
}

// Process is a server started by Start for one test.
type Process struct {
	name    string
	cmd     *exec.Cmd
	out     *Output
	started time.Time
	ended   time.Time     // set before exited is closed
	exited  chan struct{} // closed once cmd.Wait returned: cmd.ProcessState is set
	stopped atomic.Bool   // Stop was called
	stop    sync.Once
}

// Start starts cmd, called name in reports, with its standard output and error kept in
// an Output (cmd.Stdout and cmd.Stderr must be nil), and fails the test when it cannot
// start. When the test ends the process is stopped, and if the test failed its Report
// is logged.
func Start(t testing.TB, name string, cmd *exec.Cmd) *Process {
	t.Helper()
	p := &Process{name: name, cmd: cmd, out: &Output{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v (make e2e-setup installs the servers)\n%s", name, err, p.Report())
	}
	p.started = time.Now()
	go func() {
		_ = cmd.Wait()
		p.ended = time.Now()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("what %s did:\n%s", name, p.Report())
		}
	})
	return p
}

// Exited is closed when the process has ended.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Stop sends the process SIGTERM, and SIGKILL if it still runs 10 s later, and returns
// once it has ended. Further calls return at once.
func (p *Process) Stop() {
	p.stop.Do(func() {
		select {
		case <-p.exited:
			return
		default:
		}
		p.stopped.Store(true)
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(grace):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
}

// Await waits until the output matches re and returns the submatches; it fails when
// the process ends first or limit passes, with the Report in the error.
func (p *Process) Await(re *regexp.Regexp, limit time.Duration) ([]string, error) {
	timeout := time.NewTimer(limit)
	defer timeout.Stop()
	for {
		m, changed := p.out.find(re)
		if m != nil {
			return m, nil
		}
		select {
		case <-changed:
		case <-p.exited:
			if m, _ := p.out.find(re); m != nil {
				return m, nil
			}
			return nil, fmt.Errorf("%s ended before it printed %q:\n%s", p.name, re, p.Report())
		case <-timeout.C:
			return nil, fmt.Errorf("%s printed no %q within %v:\n%s", p.name, re, limit, p.Report())
		}
	}
}

// Lines returns the complete lines the process printed, as far as they are kept (Output).
func (p *Process) Lines() []string { return p.out.Lines() }

// Printed reports whether the output kept matches re.
func (p *Process) Printed(re *regexp.Regexp) bool {
	m, _ := p.out.find(re)
	return m != nil
}

// Report tells what the process did so far: Describe, with how long it ran and whether
// the test stopped it.
func (p *Process) Report() string {
	var state *os.ProcessState
	var note string
	select {
	case <-p.exited:
		state = p.cmd.ProcessState
		note = fmt.Sprintf("after %v", p.ended.Sub(p.started).Round(time.Millisecond))
		if p.stopped.Load() {
			note += ", stopped by the test"
		}
	default:
		if !p.started.IsZero() {
			note = fmt.Sprintf("after %v", time.Since(p.started).Round(time.Millisecond))
		}
	}
	return Describe(p.name, p.cmd, state, note, p.out)
}
