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
	"sync"
	"sync/atomic"
	"syscall"
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
)

const prefix = "/e2e/hystrix/"

// etcd is a real etcd server on 127.0.0.1 over a temporary data directory.
type etcd struct {
	t       *testing.T
	dataDir string
	client  string // client URL
	peer    string // peer URL
	cmd     *exec.Cmd
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// newEtcd starts etcd on free ports and stops it in t.Cleanup.
func newEtcd(t *testing.T) *etcd {
	e := &etcd{t: t, dataDir: filepath.Join(t.TempDir(), "etcd")}
	e.client, e.peer = fmt.Sprintf("http://127.0.0.1:%d", freePort(t)), fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	e.start(e.client)
	t.Cleanup(e.stop)
	return e
}

// start runs etcd over the data directory, serving clients on clientURL.
func (e *etcd) start(clientURL string) {
	e.t.Helper()
	e.cmd = exec.Command("etcd", "--name", "e2e", "--data-dir", e.dataDir,
		"--listen-client-urls", clientURL, "--advertise-client-urls", clientURL,
		"--listen-peer-urls", e.peer, "--initial-advertise-peer-urls", e.peer,
		"--initial-cluster", "e2e="+e.peer, "--logger", "zap", "--log-level", "error")
	e.cmd.Stdout, e.cmd.Stderr = os.Stderr, os.Stderr
	require.NoError(e.t, e.cmd.Start())
	c := e.newClient(clientURL)
	defer c.Close()
	require.Eventually(e.t, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, err := c.Get(ctx, "ready")
		return err == nil
	}, 20*time.Second, 50*time.Millisecond, "etcd did not start")
}

// stop ends etcd and waits for it.
func (e *etcd) stop() {
	if e.cmd == nil {
		return
	}
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	_ = e.cmd.Wait()
	e.cmd = nil
}

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
	require.Eventually(t, func() bool { return props.ExecutionTimeout.Get() == 2*time.Second }, time.Second, time.Millisecond)
	t.Logf("etcdctl put applied %v after the put started", time.Since(start))
	v, err := slow()
	require.NoError(t, err)
	assert.Equal(t, "done", v)

	e.etcdctl("del", prefix+"hystrix.command.Slow."+timeoutName)
	require.Eventually(t, func() bool { return props.ExecutionTimeout.Get() == time.Second }, time.Second, time.Millisecond,
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
	require.Equal(t, 300*time.Millisecond, props.ExecutionTimeout.Get())

	var stop atomic.Bool
	var wrong atomic.Int64
	var reads sync.WaitGroup
	for range 4 {
		reads.Go(func() {
			for !stop.Load() {
				d := props.ExecutionTimeout.Get()
				if (d != 300*time.Millisecond && d != 700*time.Millisecond) || props.FallbackEnabled.Get() {
					wrong.Add(1)
				}
			}
		})
	}

	e.stop()
	time.Sleep(500 * time.Millisecond) // etcd stays down while the readers go on
	assert.Equal(t, 300*time.Millisecond, props.ExecutionTimeout.Get(), "the last values stay")

	other := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	e.start(other) // where the source does not look
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

	e.start(e.client)
	require.Eventually(t, func() bool {
		return props.ExecutionTimeout.Get() == 700*time.Millisecond && props.CircuitBreakerForceOpen.Get()
	}, 10*time.Second, time.Millisecond, "the changes made meanwhile apply")
	stop.Store(true)
	reads.Wait()
	assert.Zero(t, wrong.Load(), "no read saw a lost value")

	e.etcdctl("put", prefix+"hystrix.command.R."+timeoutName, "300")
	require.Eventually(t, func() bool { return props.ExecutionTimeout.Get() == 300*time.Millisecond }, time.Second, time.Millisecond,
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
	require.Eventually(t, func() bool { return !props.FallbackEnabled.Get() }, time.Second, time.Millisecond)
	assert.Equal(t, time.Second, props.ExecutionTimeout.Get())
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(refused) == 4 }, time.Second, time.Millisecond)
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
	require.Equal(t, 319*time.Millisecond, props.ExecutionTimeout.Get())

	e.stop()
	e.dataDir = filepath.Join(t.TempDir(), "restored")
	e.start(e.client)
	e.etcdctl("put", prefix+"hystrix.command.B."+timeoutName, "800")
	require.Eventually(t, func() bool { return props.ExecutionTimeout.Get() == 800*time.Millisecond }, 10*time.Second, time.Millisecond)
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
			if props[i].ExecutionTimeout.Get() != time.Duration(i+1)*time.Millisecond {
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
