package hystrixetcd

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/connectivity"

	"github.com/rxhystrix/rxhystrix/config"
)

// Source is a config.Source over the keys under a prefix of etcd (see the package doc).
// Its values change on the goroutine it runs; Close stops it.
type Source struct {
	client *clientv3.Client
	prefix string
	mem    *config.MemorySource

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// readTimeout bounds one read of the prefix; backoff the wait between failed ones.
const (
	readTimeout = 5 * time.Second
	minBackoff  = 100 * time.Millisecond
	maxBackoff  = 5 * time.Second
)

// New reads every key under prefix (it fails if that does not succeed before ctx ends)
// and then follows the changes until Close. The client stays the caller's.
func New(ctx context.Context, client *clientv3.Client, prefix string) (*Source, error) {
	s := &Source{client: client, prefix: prefix, mem: config.NewMemorySource()}
	rev, err := s.read(ctx)
	if err != nil {
		return nil, fmt.Errorf("hystrixetcd: reading %s: %w", prefix, err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	reconnected := make(chan struct{}, 1)
	s.wg.Add(2)
	go func() { defer s.wg.Done(); watchConnection(runCtx, client.ActiveConnection(), reconnected) }()
	go func() { defer s.wg.Done(); s.run(runCtx, rev, reconnected) }()
	return s, nil
}

// Get returns the value of a full Hystrix name.
func (s *Source) Get(name string) (string, bool) { return s.mem.Get(name) }

// Names returns every name under the prefix.
func (s *Source) Names() []string { return s.mem.Names() }

// Subscribe calls onChange after every change (on the source's goroutine).
func (s *Source) Subscribe(onChange func() error) (cancel func()) {
	return s.mem.Subscribe(onChange)
}

// SubscribeNames calls onChange with the names each change concerns (see
// config.NameSubscriber): a watch response costs the Stores what its keys touch.
func (s *Source) SubscribeNames(onChange func(names []string) error) (cancel func()) {
	return s.mem.SubscribeNames(onChange)
}

// OnlyProperties returns true: every key under the prefix is meant to be a property, so
// the Stores refuse (and log) each that names none, with the nearest property name.
func (s *Source) OnlyProperties() bool { return true }

// Close stops following etcd and waits for the source's goroutines; the values stay.
// It is idempotent.
func (s *Source) Close() error {
	s.cancel()
	s.wg.Wait()
	return nil
}

// read replaces the values with everything under the prefix and returns the revision
// read.
func (s *Source) read(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	resp, err := s.client.Get(ctx, s.prefix, clientv3.WithPrefix())
	if err != nil {
		return 0, err
	}
	values := make(map[string]string, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		values[strings.TrimPrefix(string(kv.Key), s.prefix)] = string(kv.Value)
	}
	_ = s.mem.Replace(values) // the Stores report what they refuse
	return resp.Header.Revision, nil
}

// run watches from the revision after rev; whenever the watch ends or the connection
// came back, it reads everything again and watches anew.
func (s *Source) run(ctx context.Context, rev int64, reconnected <-chan struct{}) {
	for {
		why := s.follow(ctx, rev, reconnected)
		if ctx.Err() != nil {
			return
		}
		slog.Info("hystrixetcd: reading the prefix again", "prefix", s.prefix, "reason", why)
		var ok bool
		if rev, ok = s.reread(ctx); !ok {
			return
		}
	}
}

// follow applies the watch's events until it ends or the connection came back, and
// says why it returned.
func (s *Source) follow(ctx context.Context, rev int64, reconnected <-chan struct{}) string {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	wch := s.client.Watch(wctx, s.prefix, clientv3.WithPrefix(), clientv3.WithRev(rev+1))
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
			_ = s.mem.Apply(changes(resp.Events, s.prefix)) // the Stores report what they refuse
		}
	}
}

// changes folds the events of a watch response, in order, into the names they set (to
// their last value) and those they delete.
func changes(events []*clientv3.Event, prefix string) (set map[string]string, deleted []string) {
	set = map[string]string{}
	gone := map[string]bool{}
	for _, ev := range events {
		name := strings.TrimPrefix(string(ev.Kv.Key), prefix)
		if ev.Type == clientv3.EventTypeDelete {
			delete(set, name)
			gone[name] = true
		} else {
			set[name] = string(ev.Kv.Value)
			delete(gone, name)
		}
	}
	return set, slices.Collect(maps.Keys(gone))
}

// reread reads until it succeeds (keeping the last values meanwhile) or ctx ends.
func (s *Source) reread(ctx context.Context) (int64, bool) {
	wait := minBackoff
	for failures := 0; ; failures++ {
		rev, err := s.read(ctx)
		if err == nil {
			if failures > 0 {
				slog.Info("hystrixetcd: etcd reachable again, values reconciled", "prefix", s.prefix)
			}
			return rev, true
		}
		if ctx.Err() != nil {
			return 0, false
		}
		if failures == 0 {
			slog.Warn("hystrixetcd: etcd unreachable, the last values stay", "prefix", s.prefix, "error", err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, false
		case <-t.C:
		}
		wait = min(2*wait, maxBackoff)
	}
}

// connection is what watchConnection reads of the client's connection
// (*grpc.ClientConn).
type connection interface {
	GetState() connectivity.State
	WaitForStateChange(ctx context.Context, from connectivity.State) bool
}

// watchConnection signals reconnected when the client's connection is ready again after
// it was lost. Any state but Ready is a loss, and so is a change away from Ready however
// soon it is Ready again: the watcher may look only after the connection came back (a
// busy machine), and then only the change tells it that etcd was gone, perhaps restored
// from a backup that the resumed watch would never see.
func watchConnection(ctx context.Context, conn connection, reconnected chan<- struct{}) {
	state := conn.GetState()
	lost := state != connectivity.Ready // New read etcd: it was lost before this look
	for conn.WaitForStateChange(ctx, state) {
		if state == connectivity.Ready {
			lost = true // it left Ready, whatever it is now
		}
		state = conn.GetState()
		if state == connectivity.Ready && lost {
			lost = false
			select {
			case reconnected <- struct{}{}:
			default:
			}
		}
	}
}

var (
	_ config.Source         = (*Source)(nil)
	_ config.NameSubscriber = (*Source)(nil)
	_ config.PropertiesOnly = (*Source)(nil)
)
