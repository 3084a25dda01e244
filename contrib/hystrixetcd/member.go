package hystrixetcd

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Member is one instance of a fleet in etcd: a lease kept alive while the instance runs,
// and the keys the instance holds under that lease (its stream URL, its open breakers).
// When the instance dies the lease expires after its TTL and etcd deletes the keys; Close
// revokes it, so a clean stop deletes them at once.
//
// Put and Delete never wait for etcd: they record what the instance holds and wake the
// member's goroutine, which writes it. A write that fails is retried (backoff 100 ms to
// 5 s) with the latest value of the key. When the lease is lost (etcd unreachable for
// longer than the TTL) the member grants a new one and writes every key again.
type Member struct {
	client *clientv3.Client
	prefix string
	id     string
	ttl    int64 // seconds

	mu      sync.Mutex
	held    map[string]string  // key -> value: what the instance holds
	pending map[string]*string // key -> value to write, nil to delete
	wake    chan struct{}

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Join starts the membership of instance id under prefix with a lease of ttl (at least
// one second, whole seconds): it grants the lease before it returns (failing if that
// does not succeed before ctx ends, or within 5 s: requestTimeout) and keeps it alive
// until Close. It refuses a nil client (ErrNilClient), an empty prefix (ErrEmptyPrefix)
// and a bad id (ErrBadID). The client stays the caller's.
func Join(ctx context.Context, client *clientv3.Client, prefix, id string, ttl time.Duration) (*Member, error) {
	switch {
	case client == nil:
		return nil, ErrNilClient
	case prefix == "":
		return nil, ErrEmptyPrefix
	case id == "" || strings.Contains(id, "/"):
		return nil, fmt.Errorf("%w: %q", ErrBadID, id)
	}
	if ttl < time.Second {
		return nil, fmt.Errorf("hystrixetcd: lease TTL %v is shorter than 1s", ttl)
	}
	m := &Member{client: client, prefix: prefix, id: id, ttl: int64(ttl / time.Second),
		held: map[string]string{}, pending: map[string]*string{}, wake: make(chan struct{}, 1)}
	lease, err := m.grant(ctx)
	if err != nil {
		return nil, fmt.Errorf("hystrixetcd: granting the lease of %s: %w", id, err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	m.wg.Go(func() { m.run(runCtx, lease) })
	return m, nil
}

// ID returns the instance id.
func (m *Member) ID() string { return m.id }

// Put makes the instance hold key (a full etcd key) with value under its lease.
func (m *Member) Put(key, value string) {
	m.mu.Lock()
	m.held[key] = value
	m.pending[key] = &value
	m.mu.Unlock()
	m.poke()
}

// Delete makes the instance hold key no more.
func (m *Member) Delete(key string) {
	m.mu.Lock()
	delete(m.held, key)
	m.pending[key] = nil
	m.mu.Unlock()
	m.poke()
}

// Close revokes the lease (so etcd deletes the instance's keys at once; at most 2 s) and
// stops the member. It is idempotent.
func (m *Member) Close() error {
	m.cancel()
	m.wg.Wait()
	return nil
}

func (m *Member) poke() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

func (m *Member) grant(ctx context.Context) (clientv3.LeaseID, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	resp, err := m.client.Grant(ctx, m.ttl)
	if err != nil {
		return 0, err
	}
	return resp.ID, nil
}

// run keeps lease alive and writes the pending keys under it; when the lease is lost it
// grants another and writes every held key again.
func (m *Member) run(ctx context.Context, lease clientv3.LeaseID) {
	defer func() { m.revoke(lease) }() // the lease held last
	for {
		m.mu.Lock()
		for k, v := range m.held {
			m.pending[k] = &v
		}
		m.mu.Unlock()
		m.keep(ctx, lease)
		if ctx.Err() != nil {
			return
		}
		slog.Warn("hystrixetcd: lease lost, granting a new one", "id", m.id)
		var ok bool
		if lease, ok = m.regrant(ctx); !ok {
			return
		}
	}
}

// keep keeps lease alive and writes what is pending until the lease is lost or ctx ends.
func (m *Member) keep(ctx context.Context, lease clientv3.LeaseID) {
	kctx, cancel := context.WithCancel(ctx)
	defer cancel()
	alive, err := m.client.KeepAlive(kctx, lease)
	if err != nil {
		return
	}
	retry := time.NewTimer(0)
	defer retry.Stop()
	wait := minBackoff
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-alive:
			if !ok {
				return
			}
			continue
		case <-m.wake:
		case <-retry.C:
		}
		if m.flush(ctx, lease) {
			wait = minBackoff
		} else {
			retry.Reset(wait)
			wait = min(2*wait, maxBackoff)
		}
	}
}

// flush writes the pending keys; a key that fails stays pending unless it changed
// meanwhile. It reports whether every write succeeded.
func (m *Member) flush(ctx context.Context, lease clientv3.LeaseID) bool {
	m.mu.Lock()
	batch := m.pending
	m.pending = map[string]*string{}
	m.mu.Unlock()
	ok := true
	for k, v := range batch {
		wctx, cancel := context.WithTimeout(ctx, requestTimeout)
		var err error
		if v != nil {
			_, err = m.client.Put(wctx, k, *v, clientv3.WithLease(lease))
		} else {
			_, err = m.client.Delete(wctx, k)
		}
		cancel()
		if err != nil {
			ok = false
			m.mu.Lock()
			if _, newer := m.pending[k]; !newer {
				m.pending[k] = v
			}
			m.mu.Unlock()
		}
	}
	return ok
}

// regrant grants a new lease until it succeeds or ctx ends.
func (m *Member) regrant(ctx context.Context) (clientv3.LeaseID, bool) {
	wait := minBackoff
	for {
		lease, err := m.grant(ctx)
		if err == nil {
			return lease, true
		}
		if !backOff(ctx, &wait) {
			return 0, false
		}
	}
}

// revoke revokes lease, so etcd deletes the instance's keys now rather than after the TTL.
func (m *Member) revoke(lease clientv3.LeaseID) {
	if lease == clientv3.NoLease { // closed while granting another
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := m.client.Revoke(ctx, lease); err != nil {
		slog.Warn("hystrixetcd: revoking the lease failed: its keys go when it expires", "id", m.id, "error", err)
	}
}
