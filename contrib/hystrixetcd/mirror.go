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

// mirror keeps a copy of every key under a prefix (keys without the prefix) and calls
// onChange with it after the first read and after each change, on its goroutine. Like
// Source, it reads everything again when the watch ends or the connection comes back,
// keeping the last copy while etcd is unreachable.
type mirror struct {
	client   *clientv3.Client
	prefix   string
	onChange func(map[string]string) // must not keep or modify the map
	values   map[string]string

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startMirror reads the prefix (failing if that does not succeed before ctx ends), calls
// onChange with it and follows the changes until stop.
func startMirror(ctx context.Context, client *clientv3.Client, prefix string, onChange func(map[string]string)) (*mirror, error) {
	m := &mirror{client: client, prefix: prefix, onChange: onChange}
	rev, err := m.read(ctx)
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

// stop ends the mirror and waits for its goroutines.
func (m *mirror) stop() {
	m.cancel()
	m.wg.Wait()
}

func (m *mirror) read(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	resp, err := m.client.Get(ctx, m.prefix, clientv3.WithPrefix())
	if err != nil {
		return 0, err
	}
	m.values = make(map[string]string, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		m.values[strings.TrimPrefix(string(kv.Key), m.prefix)] = string(kv.Value)
	}
	m.onChange(m.values)
	return resp.Header.Revision, nil
}

func (m *mirror) run(ctx context.Context, rev int64, reconnected <-chan struct{}) {
	for {
		why := m.follow(ctx, rev, reconnected)
		if ctx.Err() != nil {
			return
		}
		slog.Info("hystrixetcd: reading the prefix again", "prefix", m.prefix, "reason", why)
		wait := minBackoff
		for {
			var err error
			if rev, err = m.read(ctx); err == nil {
				break
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			wait = min(2*wait, maxBackoff)
		}
	}
}

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
			maps.Copy(m.values, set)
			for _, k := range deleted {
				delete(m.values, k)
			}
			m.onChange(m.values)
		}
	}
}
