package hystrixetcd

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/connectivity"

	"github.com/rxhystrix/rxhystrix/config"
)

// Source is a config.Source over the keys under a prefix of etcd (see the package doc).
// Its values change on the goroutine it runs; Close stops it.
type Source struct {
	mem    *config.MemorySource
	mirror *mirror
}

// New reads every key under prefix (it fails if that does not succeed before ctx ends,
// or within 5 s: requestTimeout) and then follows the changes until Close. It refuses a
// nil client (ErrNilClient) and an empty prefix (ErrEmptyPrefix). The client stays the
// caller's.
func New(ctx context.Context, client *clientv3.Client, prefix string) (*Source, error) {
	switch {
	case client == nil:
		return nil, ErrNilClient
	case prefix == "":
		return nil, ErrEmptyPrefix
	}
	s := &Source{mem: config.NewMemorySource()}
	// The Stores report the values they refuse.
	m, err := startMirror(ctx, client, prefix,
		func(values map[string]string) { _ = s.mem.Replace(values) },
		func(set map[string]string, deleted []string) { _ = s.mem.Apply(set, deleted) })
	if err != nil {
		return nil, fmt.Errorf("hystrixetcd: reading %s: %w", prefix, err)
	}
	s.mirror = m
	return s, nil
}

// Get returns the value of a full Hystrix name.
func (s *Source) Get(name string) (string, bool) { return s.mem.Get(name) }

// Names returns every name under the prefix.
func (s *Source) Names() []string { return s.mem.Names() }

// Subscribe calls onChange after every change (on the source's goroutine, with no lock
// held: it may call any method of the source, Close included; a panic of it is logged).
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

// Close stops following etcd and waits for the source's goroutines (called from a
// subscriber, it returns at once and they end when the subscriber returns); the values
// stay. It is idempotent.
func (s *Source) Close() error {
	s.mirror.stop()
	return nil
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
