//go:build e2e

package hystrixetcd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/e2eproc"
)

const prefix = "/e2e/hystrix/"

// etcd is a real etcd server on 127.0.0.1 over a temporary data directory.
type etcd struct {
	t       *testing.T
	name    string // member name, unique to the run: tells our etcd from another on its port
	dataDir string
	client  string // client URL
	peer    string // peer URL
	proc    *e2eproc.Process
}

// errPortTaken is the error of a start on a port that another process took first.
var errPortTaken = errors.New("port taken")

var (
	etcds     atomic.Int64
	addrInUse = regexp.MustCompile(`address already in use`)
)

// freePorts returns n distinct ports of 127.0.0.1 that were free a moment ago and are
// not in avoid.
func freePorts(t *testing.T, n int, avoid ...string) []int {
	t.Helper()
	var ports []int
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer l.Close() // held until all are chosen, so none is chosen twice
		p := l.Addr().(*net.TCPAddr).Port
		if !slices.Contains(avoid, localURL(p)) {
			ports = append(ports, p)
		}
	}
	return ports
}

func localURL(port int) string { return fmt.Sprintf("http://127.0.0.1:%d", port) }

// newEtcd starts etcd on free ports and stops it when the test ends.
func newEtcd(t *testing.T) *etcd {
	e := &etcd{t: t, name: fmt.Sprintf("e2e-%d-%d", os.Getpid(), etcds.Add(1))}
	e.client = e.startOnFreePort(true)
	return e
}

// startOnFreePort starts etcd with its client URL, and with newPeer its peer URL and a
// new data directory, on free ports, and returns the client URL. A port is free only a
// moment before etcd binds it: when another process took it first, it tries other ports
// (at most 5 times).
func (e *etcd) startOnFreePort(newPeer bool) string {
	e.t.Helper()
	for attempt := 1; ; attempt++ {
		ports := freePorts(e.t, 2, e.client, e.peer)
		if newPeer {
			e.peer, e.dataDir = localURL(ports[1]), filepath.Join(e.t.TempDir(), "etcd")
		}
		client := localURL(ports[0])
		err := e.start(client)
		if err == nil {
			return client
		}
		if !errors.Is(err, errPortTaken) || attempt == 5 {
			e.t.Fatal(err)
		}
		e.t.Logf("attempt %d: %v", attempt, err)
	}
}

// restart starts etcd again over its data directory, serving clients on clientURL.
func (e *etcd) restart(clientURL string) {
	e.t.Helper()
	require.NoError(e.t, e.start(clientURL))
}

// start runs etcd over the data directory, serving clients on clientURL, and returns once
// it serves: it answers as e.name and has a leader. It fails when etcd ends first or does
// not serve within a minute, wrapping errPortTaken when another process had one of its
// ports; what each etcd did is logged when the test fails (e2eproc).
func (e *etcd) start(clientURL string) error {
	e.t.Helper()
	p := e2eproc.Start(e.t, "etcd", exec.Command("etcd", "--name", e.name, "--data-dir", e.dataDir,
		"--listen-client-urls", clientURL, "--advertise-client-urls", clientURL,
		"--listen-peer-urls", e.peer, "--initial-advertise-peer-urls", e.peer,
		"--initial-cluster", e.name+"="+e.peer, "--logger", "zap", "--log-level", "warn"))
	c := e.newClient(clientURL)
	defer c.Close()
	for deadline := time.Now().Add(time.Minute); ; {
		err := e.serves(c)
		switch {
		case err == nil:
			e.proc = p
			return nil
		case errors.Is(err, errPortTaken):
			p.Stop()
			return fmt.Errorf("etcd on %s and %s: %w", clientURL, e.peer, err)
		case time.Now().After(deadline):
			return fmt.Errorf("etcd on %s not serving within a minute: %v", clientURL, err)
		}
		select {
		case <-p.Exited():
			if p.Printed(addrInUse) {
				return fmt.Errorf("etcd on %s and %s: %w", clientURL, e.peer, errPortTaken)
			}
			return fmt.Errorf("etcd on %s ended before it served", clientURL)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// serves returns nil when the etcd that c reaches is ours and has a leader, errPortTaken
// when another etcd answers on its address.
func (e *etcd) serves(c *clientv3.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	members, err := c.MemberList(ctx)
	if err != nil {
		return err
	}
	if len(members.Members) != 1 || members.Members[0].Name != e.name {
		return fmt.Errorf("%w: another etcd answers there: %v", errPortTaken, members.Members)
	}
	_, err = c.Get(ctx, "ready") // linearizable: a leader was elected
	return err
}

// stop ends etcd and waits for it.
func (e *etcd) stop() { e.proc.Stop() }

// newClient connects to url, reconnecting within a second after a loss.
func (e *etcd) newClient(url string) *clientv3.Client {
	e.t.Helper()
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{url},
		DialTimeout: 2 * time.Second,
		Logger:      zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, MaxDelay: time.Second},
			MinConnectTimeout: time.Second,
		})},
	})
	require.NoError(e.t, err)
	return c
}

// etcdctl writes with the etcdctl tool, as an operator would.
func (e *etcd) etcdctl(args ...string) {
	e.t.Helper()
	cmd := exec.Command("etcdctl", append([]string{"--endpoints", e.client}, args...)...)
	cmd.Env = append(os.Environ(), "ETCDCTL_API=3")
	out, err := cmd.CombinedOutput()
	require.NoError(e.t, err, "%s", out)
}

// newSource follows prefix on a fresh client; both are closed in t.Cleanup.
func (e *etcd) newSource() *Source {
	e.t.Helper()
	c := e.newClient(e.client)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	src, err := New(ctx, c, prefix)
	require.NoError(e.t, err)
	e.t.Cleanup(func() { src.Close(); c.Close() })
	return src
}

const timeoutName = "execution.isolation.thread.timeoutInMilliseconds"

func TestEtcdChangeReachesARunningCommandWithinOneSecond(t *testing.T) {
	e := newEtcd(t)
	e.etcdctl("put", prefix+"hystrix.command.Slow."+timeoutName, "50")
	src := e.newSource()
	store := config.NewStore(src)
	defer store.Close()
	rt := command.NewRuntime(command.WithConfig(store))
	defer rt.Close()

	slow := func() (string, error) {
		return command.New(command.Setter{Runtime: rt, CommandKey: "Slow",
			Properties: config.Set(config.ExecutionIsolationStrategy.Of(config.Semaphore))},
			func(ctx context.Context) (string, error) {
				select {
				case <-time.After(150 * time.Millisecond):
					return "done", nil
				case <-ctx.Done():
					return "", ctx.Err()
				}
			}).Execute(context.Background())
	}
	_, err := slow()
	require.ErrorIs(t, err, command.ErrTimeout, "50 ms from etcd")

	props, err := store.Command("Slow", nil)
	require.NoError(t, err)
	start := time.Now()
	e.etcdctl("put", prefix+"hystrix.command.Slow."+timeoutName, "2s")
	require.Eventually(t, func() bool { return config.ExecutionTimeout.In(props).Get() == 2*time.Second }, time.Second, time.Millisecond)
	t.Logf("etcdctl put applied %v after the put started", time.Since(start))
	v, err := slow()
	require.NoError(t, err)
	assert.Equal(t, "done", v)

	e.etcdctl("del", prefix+"hystrix.command.Slow."+timeoutName)
	require.Eventually(t, func() bool { return config.ExecutionTimeout.In(props).Get() == time.Second }, time.Second, time.Millisecond,
		"deleted: back to the built-in default")
}

// TestEtcdRestartLosesNothing: readers go on flat out while etcd stops; a change is
// made while the source cannot see etcd (on other ports) and a key compacted away;
// when etcd is back on its own address the source reads everything again.
func TestEtcdRestartLosesNothing(t *testing.T) {
	e := newEtcd(t)
	e.etcdctl("put", prefix+"hystrix.command.R."+timeoutName, "300")
	e.etcdctl("put", prefix+"hystrix.command.R.fallback.enabled", "false")
	src := e.newSource()
	store := config.NewStore(src)
	defer store.Close()
	props, err := store.Command("R", nil)
	require.NoError(t, err)
	require.Equal(t, 300*time.Millisecond, config.ExecutionTimeout.In(props).Get())

	var stop atomic.Bool
	var wrong atomic.Int64
	var reads sync.WaitGroup
	for range 4 {
		reads.Go(func() {
			for !stop.Load() {
				d := config.ExecutionTimeout.In(props).Get()
				if (d != 300*time.Millisecond && d != 700*time.Millisecond) || config.FallbackEnabled.In(props).Get() {
					wrong.Add(1)
				}
			}
		})
	}

	e.stop()
	time.Sleep(500 * time.Millisecond) // etcd stays down while the readers go on
	assert.Equal(t, 300*time.Millisecond, config.ExecutionTimeout.In(props).Get(), "the last values stay")

	other := e.startOnFreePort(false) // where the source does not look
	c := e.newClient(other)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = c.Put(ctx, prefix+"hystrix.command.R."+timeoutName, "700")
	require.NoError(t, err)
	resp, err := c.Put(ctx, prefix+"hystrix.command.R.circuitBreaker.forceOpen", "true")
	require.NoError(t, err)
	_, err = c.Compact(ctx, resp.Header.Revision)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	e.stop()

	e.restart(e.client)
	require.Eventually(t, func() bool {
		return config.ExecutionTimeout.In(props).Get() == 700*time.Millisecond && config.CircuitBreakerForceOpen.In(props).Get()
	}, 10*time.Second, time.Millisecond, "the changes made meanwhile apply")
	stop.Store(true)
	reads.Wait()
	assert.Zero(t, wrong.Load(), "no read saw a lost value")

	e.etcdctl("put", prefix+"hystrix.command.R."+timeoutName, "300")
	require.Eventually(t, func() bool { return config.ExecutionTimeout.In(props).Get() == 300*time.Millisecond }, 10*time.Second, time.Millisecond,
		"the source watches again")
}

func TestEtcdRefusedValuesKeepThePreviousOnes(t *testing.T) {
	e := newEtcd(t)
	src := e.newSource()
	store := config.NewStore(src)
	defer store.Close()
	var mu sync.Mutex
	var refused []error
	defer store.OnError(func(err error) { mu.Lock(); refused = append(refused, err); mu.Unlock() })()
	props, err := store.Command("Bad", nil)
	require.NoError(t, err)
	e.etcdctl("put", prefix+"hystrix.command.Bad."+timeoutName, "soon")
	e.etcdctl("put", prefix+"hystrix.command.Bad.execution.timeout.enable", "false")
	e.etcdctl("put", prefix+"hystrix.comand.Bad.fallback.enabled", "false")
	e.etcdctl("put", prefix+"timeout", "300")
	e.etcdctl("put", prefix+"hystrix.command.Bad.fallback.enabled", "false")
	require.Eventually(t, func() bool { return !config.FallbackEnabled.In(props).Get() }, 10*time.Second, time.Millisecond)
	assert.Equal(t, time.Second, config.ExecutionTimeout.In(props).Get())
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(refused) == 4 }, 10*time.Second, time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	assert.ErrorIs(t, refused[0], config.ErrInvalidValue)
	for i, hint := range []string{
		"did you mean hystrix.command.Bad.execution.timeout.enabled?",
		"did you mean hystrix.command.Bad.fallback.enabled?",
		"property names start with hystrix.command., hystrix.threadpool. or hystrix.collapser.",
	} {
		var pe *config.PropertyError
		require.True(t, errors.As(refused[i+1], &pe))
		assert.ErrorIs(t, pe, config.ErrUnknownProperty)
		assert.Equal(t, hint, pe.Hint)
	}
}

// TestEtcdRestoredFromBackup: etcd comes back on its address with other data and a
// lower revision (restored from a backup); a watch resumed from the old revision
// would wait for revisions that never come, so the source reads everything again.
func TestEtcdRestoredFromBackup(t *testing.T) {
	e := newEtcd(t)
	for i := range 20 { // a revision the restored etcd does not reach
		e.etcdctl("put", prefix+"hystrix.command.B."+timeoutName, fmt.Sprint(300+i))
	}
	src := e.newSource()
	store := config.NewStore(src)
	defer store.Close()
	props, err := store.Command("B", nil)
	require.NoError(t, err)
	require.Equal(t, 319*time.Millisecond, config.ExecutionTimeout.In(props).Get())

	e.stop()
	e.dataDir = filepath.Join(t.TempDir(), "restored")
	e.restart(e.client)
	e.etcdctl("put", prefix+"hystrix.command.B."+timeoutName, "800")
	require.Eventually(t, func() bool { return config.ExecutionTimeout.In(props).Get() == 800*time.Millisecond }, 10*time.Second, time.Millisecond)
}

// TestEtcdBurstKeepsUp: 200 puts in a burst, each for another of the 1,000 keys the Store
// holds: every value is in force within 100 ms of the last put.
func TestEtcdBurstKeepsUp(t *testing.T) {
	const keys, puts = 1000, 200
	e := newEtcd(t)
	src := e.newSource()
	store := config.NewStore(src)
	defer store.Close()
	props := make([]*config.CommandProperties, keys)
	for i := range props {
		var err error
		props[i], err = store.Command(fmt.Sprint("K", i), nil)
		require.NoError(t, err)
	}
	c := e.newClient(e.client)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < puts; i += 8 {
				_, err := c.Put(ctx, fmt.Sprintf("%shystrix.command.K%d.%s", prefix, i, timeoutName), fmt.Sprint(i+1))
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	last := time.Now()
	applied := func() bool {
		for i := range puts {
			if config.ExecutionTimeout.In(props[i]).Get() != time.Duration(i+1)*time.Millisecond {
				return false
			}
		}
		return true
	}
	require.Eventually(t, applied, 10*time.Second, time.Millisecond)
	lag := time.Since(last)
	t.Logf("every put in force %v after the last one returned", lag)
	assert.LessOrEqual(t, lag, 100*time.Millisecond)
}

// TestEtcdOnATakenPortIsToldApart: when another etcd holds the client port (another
// suite's, or a port taken between freePorts and the start), start says so instead of
// letting the test talk to the other etcd, and startOnFreePort tries other ports.
func TestEtcdOnATakenPortIsToldApart(t *testing.T) {
	first := newEtcd(t)
	second := &etcd{t: t, name: first.name + "-second", dataDir: filepath.Join(t.TempDir(), "etcd"),
		peer: localURL(freePorts(t, 1, first.client, first.peer)[0])}
	err := second.start(first.client)
	require.ErrorIs(t, err, errPortTaken)
	t.Log(err)
}
