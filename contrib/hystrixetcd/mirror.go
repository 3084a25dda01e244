package hystrixetcd

import (
	"context"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// mirror follows every key under a prefix (keys without the prefix): it hands the whole
// prefix to read after each read of it, and the changes of each watch response to apply,
// on its goroutine. When the watch ends or the connection comes back after a loss it
// reads everything again, so it ends up with what etcd holds then, whatever happened
// meanwhile (changes, compaction, a restore from backup); while etcd is unreachable it
// calls nothing, so its user keeps the last values. read and apply run with no lock of
// the mirror held and may stop it; a panic of theirs is logged.
type mirror struct {
	client *clientv3.Client
	prefix string
	read   func(values map[string]string)
	apply  func(set map[string]string, deleted []string)

	mu      sync.Mutex
	calling bool // read or apply runs
	stopped bool

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// requestTimeout bounds one request to etcd (a read of the prefix, a grant, a write of a
// Member) whatever the caller's context allows; backoff the wait between failed ones.
const (
	requestTimeout = 5 * time.Second
	minBackoff     = 100 * time.Millisecond
	maxBackoff     = 5 * time.Second
)

// startMirror reads the prefix (failing if that does not succeed before ctx ends) and
// follows it until stop.
func startMirror(ctx context.Context, client *clientv3.Client, prefix string,
	read func(map[string]string), apply func(map[string]string, []string)) (*mirror, error) {
	m := &mirror{client: client, prefix: prefix, read: read, apply: apply}
	rev, err := m.readAll(ctx)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	reconnected := make(chan struct{}, 1)
	m.wg.Go(func() { watchConnection(runCtx, client.ActiveConnection(), reconnected) })
	m.wg.Go(func() { m.run(runCtx, rev, reconnected) })
	return m, nil
}

// wholePrefix adapts onChange, which wants every key of the prefix after each change, to
// a mirror's read and apply: it keeps the copy. onChange must not keep or modify it.
func wholePrefix(onChange func(map[string]string)) (read func(map[string]string), apply func(map[string]string, []string)) {
	var values map[string]string
	read = func(v map[string]string) { values = v; onChange(values) }
	apply = func(set map[string]string, deleted []string) {
		maps.Copy(values, set)
		for _, k := range deleted {
			delete(values, k)
		}
		onChange(values)
	}
	return read, apply
}

// stop ends the mirror and waits for its goroutines, unless read or apply runs (stop
// called from them, for one): the goroutines then end when it returns, calling nothing
// more. It is idempotent.
func (m *mirror) stop() {
	m.mu.Lock()
	m.stopped = true
	calling := m.calling
	m.mu.Unlock()
	m.cancel()
	if !calling {
		m.wg.Wait()
	}
}

// deliver calls f (read or apply) unless the mirror is stopped.
func (m *mirror) deliver(f func()) {
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		return
	}
	m.calling = true
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.calling = false
		m.mu.Unlock()
	}()
	contained("in a callback following "+m.prefix, f)
}

// readAll hands everything under the prefix to read and returns the revision read.
func (m *mirror) readAll(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	resp, err := m.client.Get(ctx, m.prefix, clientv3.WithPrefix())
	if err != nil {
		return 0, err
	}
	values := make(map[string]string, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		values[strings.TrimPrefix(string(kv.Key), m.prefix)] = string(kv.Value)
	}
	m.deliver(func() { m.read(values) })
	return resp.Header.Revision, nil
}

// run watches from the revision after rev; whenever the watch ends or the connection
// came back, it reads everything again and watches anew.
func (m *mirror) run(ctx context.Context, rev int64, reconnected <-chan struct{}) {
	for {
		why := m.follow(ctx, rev, reconnected)
		if ctx.Err() != nil {
			return
		}
		slog.Info("hystrixetcd: reading the prefix again", "prefix", m.prefix, "reason", why)
		var ok bool
		if rev, ok = m.reread(ctx); !ok {
			return
		}
	}
}

// follow applies the watch's events until it ends or the connection came back, and
// says why it returned.
func (m *mirror) follow(ctx context.Context, rev int64, reconnected <-chan struct{}) string {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	wch := m.client.Watch(wctx, m.prefix, clientv3.WithPrefix(), clientv3.WithRev(rev+1))
	for {
		select {
		case <-reconnected:
			return "connection back"
		case resp, ok := <-wch:
			if !ok {
				return "watch closed"
			}
			if err := resp.Err(); err != nil {
				return err.Error()
			}
			if len(resp.Events) == 0 {
				continue
			}
			set, deleted := changes(resp.Events, m.prefix)
			m.deliver(func() { m.apply(set, deleted) })
		}
	}
}

// reread reads until it succeeds (calling nothing meanwhile) or ctx ends.
func (m *mirror) reread(ctx context.Context) (int64, bool) {
	wait := minBackoff
	for failures := 0; ; failures++ {
		rev, err := m.readAll(ctx)
		if err == nil {
			if failures > 0 {
				slog.Info("hystrixetcd: etcd reachable again, values reconciled", "prefix", m.prefix)
			}
			return rev, true
		}
		if ctx.Err() != nil {
			return 0, false
		}
		if failures == 0 {
			slog.Warn("hystrixetcd: etcd unreachable, the last values stay", "prefix", m.prefix, "error", err)
		}
		if !backOff(ctx, &wait) {
			return 0, false
		}
	}
}

// backOff waits *wait, then doubles it up to maxBackoff; it reports false, at once, when
// ctx ends first.
func backOff(ctx context.Context, wait *time.Duration) bool {
	t := time.NewTimer(*wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	}
	*wait = min(2**wait, maxBackoff)
	return true
}
