//go:build e2e

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/internal/e2eproc"
)

var etcdReady = regexp.MustCompile(`ready to serve client requests`)

// startEtcd runs a real etcd on 127.0.0.1 over a temporary data directory until the test
// ends and returns its client address.
func startEtcd(t *testing.T) string {
	t.Helper()
	client, peer := "http://"+freeAddr(t), "http://"+freeAddr(t)
	p := e2eproc.Start(t, "etcd", exec.Command("etcd", "--name", "fleet", "--data-dir", filepath.Join(t.TempDir(), "etcd"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", "fleet="+peer))
	_, err := p.Await(etcdReady, time.Minute)
	require.NoError(t, err)
	return strings.TrimPrefix(client, "http://")
}

var joined = regexp.MustCompile(`fleet page on (http://\S+)`)

// startDemo runs the demo binary as instance id of the fleet in etcd (lease 2 s) and
// returns the process once it joined, with its fleet page URL and when it joined.
func startDemo(t *testing.T, bin, etcd, id string) (*exec.Cmd, string, time.Time) {
	t.Helper()
	cmd := exec.Command(bin, "-addr", freeAddr(t), "-rate", "20", "-duration", "1m",
		"-etcd", etcd, "-instance", id, "-lease", "2s")
	p := e2eproc.Start(t, "demo "+id, cmd)
	m, err := p.Await(joined, 30*time.Second)
	require.NoError(t, err)
	return cmd, m[1], time.Now()
}

// hosts follows an aggregated stream and sends the reportingHosts of GetUser's frames.
func hosts(t *testing.T, url string) <-chan int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	out := make(chan int, 256)
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); resp.Body.Close(); <-done })
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			var f struct {
				Name           string `json:"name"`
				ReportingHosts int    `json:"reportingHosts"`
			}
			if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok && json.Unmarshal([]byte(line), &f) == nil && f.Name == "GetUser" {
				select {
				case out <- f.ReportingHosts:
				default:
				}
			}
		}
	}()
	return out
}

// awaitHosts waits up to limit for a frame with n hosts and returns when it came.
func awaitHosts(t *testing.T, frames <-chan int, n int, limit time.Duration) time.Time {
	t.Helper()
	deadline := time.After(limit)
	last := -1
	for {
		select {
		case h := <-frames:
			if last = h; h == n {
				return time.Now()
			}
		case <-deadline:
			t.Fatalf("no frame with %d hosts within %v (last %d)", n, limit, last)
		}
	}
}

// TestFleetDemo runs 3 demo processes in a fleet in a real etcd: the fleet page of
// the first serves the aggregated stream of every instance, a new one within 2 s of
// joining, and drops one killed with kill -9 within its lease TTL (2 s).
func TestFleetDemo(t *testing.T) {
	etcd := startEtcd(t)
	bin := filepath.Join(t.TempDir(), "rxhystrix-demo")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	_, page, _ := startDemo(t, bin, etcd, "a")
	resp, err := http.Get(page)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "the fleet page")
	frames := hosts(t, page+"hystrix.stream")
	awaitHosts(t, frames, 1, 10*time.Second)
	killed, _, _ := startDemo(t, bin, etcd, "b")
	awaitHosts(t, frames, 2, 10*time.Second)
	_, _, at := startDemo(t, bin, etcd, "c")
	seen := awaitHosts(t, frames, 3, 2*time.Second)
	t.Logf("the fleet page's stream showed a new demo %v after it joined", seen.Sub(at))

	require.NoError(t, killed.Process.Kill())
	died := time.Now()
	gone := awaitHosts(t, frames, 2, 2*time.Second)
	t.Logf("and dropped one killed with kill -9 %v after", gone.Sub(died))
}
