//go:build e2e

package hystrixetcd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/dashboard"
	"github.com/rxhystrix/rxhystrix/internal/e2eproc"
)

// instanceEnv holds "<etcd URL> <instance id> <executions>" in an instance process.
const instanceEnv = "HYSTRIXETCD_E2E_INSTANCE"

func init() { runAsInstance = instanceMain }

// instanceMain is an instance process: it runs its executions of the command Work,
// serves /hystrix.stream on a free port of 127.0.0.1, registers it with a 2 s lease and
// prints "registered <URL>", then serves until SIGTERM.
func instanceMain() bool {
	args := strings.Fields(os.Getenv(instanceEnv))
	if len(args) != 3 {
		return false
	}
	if err := serveInstance(args[0], args[1], args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "instance:", err)
		os.Exit(1)
	}
	return true
}

func serveInstance(etcdURL, id, executions string) error {
	n, err := strconv.Atoi(executions)
	if err != nil {
		return err
	}
	rt := command.NewRuntime()
	defer rt.Close()
	for range n {
		_, _ = command.New(command.Setter{Runtime: rt, CommandKey: "Work",
			Properties: config.Set(config.ExecutionIsolationStrategy.Of(config.Semaphore))},
			func(context.Context) (string, error) { return "ok", nil }).Execute(context.Background())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	src := dashboard.Registries{Properties: rt.Config(), Metrics: rt.Metrics(), Breakers: rt.Breakers(),
		CommandKeys: rt.CommandKeys}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Handler: dashboard.NewStreamHandler(src, dashboard.WithInterval(100*time.Millisecond)),
		BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdURL}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return err
	}
	defer client.Close()
	member, err := Join(ctx, client, fleetPrefix, id, 2*time.Second)
	if err != nil {
		return err
	}
	defer member.Close()
	url := "http://" + ln.Addr().String() + "/hystrix.stream"
	member.Register(url)
	fmt.Println("registered", url)
	<-ctx.Done()
	return nil
}

var registered = regexp.MustCompile(`registered (\S+)`)

// startInstance starts an instance process that ran executions and waits until it says
// it registered; it returns the process, its stream URL and when it registered.
func (e *etcd) startInstance(id string, executions int) (*exec.Cmd, string, time.Time) {
	e.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d", instanceEnv, e.client, id, executions))
	p := e2eproc.Start(e.t, "instance "+id, cmd)
	m, err := p.Await(registered, 30*time.Second)
	require.NoError(e.t, err)
	return cmd, m[1], time.Now()
}

// aggregate is a client of an aggregated stream: the latest frame of the command Work.
type aggregate struct{ frames chan map[string]any }

func readStream(t *testing.T, url string) *aggregate {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	a := &aggregate{frames: make(chan map[string]any, 1024)}
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); resp.Body.Close(); <-done })
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var v map[string]any
			if json.Unmarshal([]byte(line), &v) == nil && v["name"] == "Work" {
				select {
				case a.frames <- v:
				default:
				}
			}
		}
	}()
	return a
}

// await waits up to limit for a frame of Work that ok accepts and returns it and when.
func (a *aggregate) await(t *testing.T, limit time.Duration, ok func(map[string]any) bool) (map[string]any, time.Time) {
	t.Helper()
	deadline := time.After(limit)
	var last map[string]any
	for {
		select {
		case f := <-a.frames:
			if last = f; ok(f) {
				return f, time.Now()
			}
		case <-deadline:
			t.Fatalf("no frame of Work as wanted within %v; last %v", limit, last)
		}
	}
}

func hostsAre(n float64) func(map[string]any) bool {
	return func(f map[string]any) bool { return f["reportingHosts"] == n }
}

// TestFleetDashboardFollowsTheRegistry: a Fleet fed by WatchInstances sums the streams
// of the instance processes that register: a new one within 2 s of registering, its
// counts those of the instances' own streams; one killed with kill -9 leaves the sum
// within its lease TTL (2 s) and the registry when the lease expires.
func TestFleetDashboardFollowsTheRegistry(t *testing.T) {
	e := newEtcd(t)
	fleet := dashboard.NewFleet(nil)
	c := e.newClient(e.client)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	watch, err := WatchInstances(ctx, c, fleetPrefix, fleet.SetStreams)
	require.NoError(t, err)
	t.Cleanup(func() { watch.Close(); fleet.Close(); c.Close() })
	agg := httptest.NewServer(fleet.StreamHandler(dashboard.WithInterval(100 * time.Millisecond)))
	t.Cleanup(agg.Close)
	stream := readStream(t, agg.URL)

	_, urlA, _ := e.startInstance("a", 30)
	killed, urlB, _ := e.startInstance("b", 20)
	stream.await(t, 10*time.Second, hostsAre(2))
	_, urlC, at := e.startInstance("c", 10)
	f, seen := stream.await(t, 2*time.Second, hostsAre(3))
	t.Logf("a new instance in the aggregated stream %v after it registered", seen.Sub(at))

	// The instances' own counts once their executions left the bucket in progress.
	own := 0.0
	for i, url := range []string{urlA, urlB, urlC} {
		want := float64(30 - 10*i)
		readStream(t, url).await(t, 5*time.Second, func(f map[string]any) bool { return f["rollingCountSuccess"] == want })
		own += want
	}
	f, _ = stream.await(t, time.Second, func(f map[string]any) bool { return f["rollingCountSuccess"] == own })
	assert.Equal(t, 3.0, f["reportingHosts"], "the aggregated counts are the sum of the instances' own")

	require.NoError(t, killed.Process.Kill()) // kill -9
	died := time.Now()
	f, gone := stream.await(t, 2*time.Second, hostsAre(2))
	t.Logf("a killed instance left the aggregated stream %v after kill -9", gone.Sub(died))
	assert.Equal(t, own-20, f["rollingCountSuccess"])
	require.Eventually(t, func() bool { _, ok := fleet.Instances()["b"]; return !ok }, 4*time.Second, 10*time.Millisecond)
	t.Logf("and the registry %v after (lease TTL 2 s, expiry checked by etcd every 500 ms)", time.Since(died))
}
