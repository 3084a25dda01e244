package hystrixetcd

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/connectivity"
)

// TestNewFailsWithoutEtcd: nothing listens on the endpoint, so New gives up with ctx.
func TestNewFailsWithoutEtcd(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{addr}, DialTimeout: time.Second})
	require.NoError(t, err)
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = New(ctx, client, "/app/")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, "hystrixetcd: reading /app/")
	assert.Less(t, time.Since(start), 2*time.Second)
}

// scriptedConnection is a connection whose states, as GetState reads them, follow a
// script: each WaitForStateChange moves to the next one; at the end of the script it
// closes done and waits for ctx.
type scriptedConnection struct {
	states []connectivity.State
	at     int
	done   chan struct{}
}

func (c *scriptedConnection) GetState() connectivity.State { return c.states[c.at] }

func (c *scriptedConnection) WaitForStateChange(ctx context.Context, _ connectivity.State) bool {
	if c.at+1 < len(c.states) {
		c.at++
		return true
	}
	close(c.done)
	<-ctx.Done()
	return false
}

// TestReconnectionsAreSignalled: the source reads everything again whenever the
// connection is ready after a loss, however the watcher saw the loss: a failure, an idle
// channel, or no other state at all (it changed and came back between two looks, which
// a busy machine makes likely: etcd restored from a backup then went unnoticed).
func TestReconnectionsAreSignalled(t *testing.T) {
	const (
		ready      = connectivity.Ready
		idle       = connectivity.Idle
		connecting = connectivity.Connecting
		failure    = connectivity.TransientFailure
	)
	tests := []struct {
		name    string
		states  []connectivity.State
		signals int
	}{
		{"never lost", []connectivity.State{ready}, 0},
		{"lost and back", []connectivity.State{ready, failure, connecting, ready}, 1},
		{"idle and back", []connectivity.State{ready, idle, ready}, 1},
		{"lost and back between two looks", []connectivity.State{ready, ready}, 1},
		{"lost before the first look", []connectivity.State{connecting, ready}, 1},
		{"lost, not back yet", []connectivity.State{ready, failure, connecting}, 0},
		{"twice", []connectivity.State{ready, failure, ready, idle, ready}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn := &scriptedConnection{states: tt.states, done: make(chan struct{})}
			reconnected := make(chan struct{}, len(tt.states))
			ctx, cancel := context.WithCancel(context.Background())
			ended := make(chan struct{})
			go func() {
				defer close(ended)
				watchConnection(ctx, conn, reconnected)
			}()
			<-conn.done
			cancel()
			<-ended
			assert.Len(t, reconnected, tt.signals)
		})
	}
}

// TestConstructorsRefuseWhatCannotWork: a nil client, an empty prefix, a nil member,
// registry or callback are refused at once, never found later by a panic on a goroutine
// of the module.
func TestConstructorsRefuseWhatCannotWork(t *testing.T) {
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{"127.0.0.1:1"}, DialTimeout: time.Second})
	require.NoError(t, err)
	defer client.Close()
	ctx := context.Background()
	_, err = New(ctx, nil, "/app/")
	assert.ErrorIs(t, err, ErrNilClient)
	_, err = New(ctx, client, "")
	assert.ErrorIs(t, err, ErrEmptyPrefix)
	_, err = Join(ctx, nil, "/fleet/", "a", time.Second)
	assert.ErrorIs(t, err, ErrNilClient)
	_, err = Join(ctx, client, "", "a", time.Second)
	assert.ErrorIs(t, err, ErrEmptyPrefix)
	_, err = Join(ctx, client, "/fleet/", "a/b", time.Second)
	assert.ErrorIs(t, err, ErrBadID)
	_, err = NewSignals(ctx, nil, nil, 2)
	assert.ErrorIs(t, err, ErrNilArgument)
	assert.ErrorContains(t, err, "member")
	_, err = NewSignals(ctx, &Member{}, nil, 2)
	assert.ErrorIs(t, err, ErrNilArgument)
	assert.ErrorContains(t, err, "breaker registry")
	_, err = WatchInstances(ctx, nil, "/fleet/", func(map[string]string) {})
	assert.ErrorIs(t, err, ErrNilClient)
	_, err = WatchInstances(ctx, client, "", func(map[string]string) {})
	assert.ErrorIs(t, err, ErrEmptyPrefix)
	_, err = WatchInstances(ctx, client, "/fleet/", nil)
	assert.ErrorIs(t, err, ErrNilArgument)
}
