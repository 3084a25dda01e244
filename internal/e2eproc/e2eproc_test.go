package e2eproc

import (
	"fmt"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeT is a testing.TB whose failure, logs and cleanups the test controls.
type fakeT struct {
	testing.TB
	mu       sync.Mutex
	failed   bool
	logs     []string
	cleanups []func()
}

func (f *fakeT) Helper() {}
func (f *fakeT) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}
func (f *fakeT) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) Logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.Logf(format, args...)
	f.mu.Lock()
	f.failed = true
	f.mu.Unlock()
	runtime.Goexit()
}

// end runs the cleanups as the end of a test does, last registered first.
func (f *fakeT) end() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

func (f *fakeT) logged() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.logs, "\n")
}

func TestReportOfAServerThatExited(t *testing.T) {
	ft := &fakeT{TB: t}
	p := Start(ft, "shell", exec.Command("sh", "-c", "echo listening on 127.0.0.1:4242; echo bind: address already in use >&2; exit 3"))
	m, err := p.Await(regexp.MustCompile(`listening on (\S+)`), time.Minute)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:4242", m[1])
	<-p.Exited()
	assert.True(t, p.Printed(regexp.MustCompile("address already in use")))
	assert.False(t, p.Printed(regexp.MustCompile("serving")))

	r := p.Report()
	assert.Contains(t, r, "shell: sh -c echo listening on")
	assert.Regexp(t, `pid [0-9]+, ended: exit status 3 after [0-9.]+m?s\n`, r)
	assert.Contains(t, r, "  | listening on 127.0.0.1:4242\n  | bind: address already in use\n")
	assert.NotContains(t, r, "stopped by the test")

	ft.end()
	assert.Empty(t, ft.logged(), "a test that passed logs nothing")
}

func TestAFailedTestLogsWhatEachServerDid(t *testing.T) {
	ft := &fakeT{TB: t}
	first := Start(ft, "first", exec.Command("sh", "-c", "echo started; exec sleep 60"))
	_, err := first.Await(regexp.MustCompile("started"), time.Minute) // a server the test used
	require.NoError(t, err)
	second := Start(ft, "second", exec.Command("sh", "-c", "echo gone; exit 1"))
	<-second.Exited()
	ft.failed = true
	ft.end()

	logs := ft.logged()
	assert.Contains(t, logs, "what first did:\nfirst: sh -c echo started; exec sleep 60\n")
	assert.Regexp(t, `ended: signal: terminated after [0-9.]+m?s, stopped by the test\n  \| started\n`, logs)
	assert.Contains(t, logs, "what second did:\nsecond: sh -c echo gone; exit 1\n")
	assert.Regexp(t, `ended: exit status 1 after [0-9.]+m?s\n  \| gone\n`, logs)
}

func TestAwaitFailsWithTheReport(t *testing.T) {
	ft := &fakeT{TB: t}
	defer ft.end()
	quiet := Start(ft, "quiet", exec.Command("sleep", "60"))
	_, err := quiet.Await(regexp.MustCompile("ready"), 10*time.Millisecond)
	require.Error(t, err)
	assert.Regexp(t, `^quiet printed no "ready" within 10ms:\nquiet: sleep 60\n  pid [0-9]+, still running after`, err.Error())
	assert.Contains(t, err.Error(), "  (no output)\n")

	crashed := Start(ft, "crashed", exec.Command("sh", "-c", "echo panic: boom; exit 2"))
	_, err = crashed.Await(regexp.MustCompile("ready"), time.Minute)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `crashed ended before it printed "ready":`)
	assert.Contains(t, err.Error(), "ended: exit status 2")
	assert.Contains(t, err.Error(), "  | panic: boom\n")
}

func TestStartFailsTheTestWhenTheServerIsMissing(t *testing.T) {
	ft := &fakeT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(ft, "nothing", exec.Command("/nonexistent/server", "--flag"))
	}()
	<-done
	assert.True(t, ft.Failed())
	assert.Contains(t, ft.logged(), "start nothing: ")
	assert.Contains(t, ft.logged(), "make e2e-setup installs the servers")
	assert.Contains(t, ft.logged(), "nothing: /nonexistent/server --flag\n  never started\n")
}

func TestOutputKeepsTheEnd(t *testing.T) {
	var o Output
	assert.Equal(t, "  (no output)\n", o.Tail(3))
	for i := range 100_000 { // about 800 KiB
		fmt.Fprintf(&o, "line %d\n", i)
	}
	assert.Equal(t, "  (last 3 lines)\n  | line 99997\n  | line 99998\n  | line 99999\n", o.Tail(3))
	o.mu.Lock()
	assert.GreaterOrEqual(t, len(o.buf), keep)
	assert.LessOrEqual(t, len(o.buf), 2*keep)
	o.mu.Unlock()
}
