package hystrixetcd

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// instancesDir is where instances register their stream URL, under the fleet prefix.
const instancesDir = "instances/"

// Register makes the member's instance known to the fleet at streamURL (its
// /hystrix.stream), under prefix + "instances/<id>" for as long as its lease lives.
func (m *Member) Register(streamURL string) { m.Put(m.prefix+instancesDir+m.id, streamURL) }

// Instances follows the instances registered under a fleet prefix.
type Instances struct{ mirror *mirror }

// WatchInstances reads the instances registered under prefix (failing if that does not
// succeed before ctx ends, or within 5 s: requestTimeout) and calls onChange with all of
// them (instance id -> stream URL) then and after every change, until Close: an
// instance appears when it registers and goes when its lease ends (Close, or its TTL
// after it died). onChange runs on the watcher's goroutine with no lock held (it may
// call Close; a panic of it is logged) and must not keep the map. For
// dashboard.Fleet.SetStreams. It refuses a nil client (ErrNilClient), an empty prefix
// (ErrEmptyPrefix) and a nil onChange (ErrNilArgument).
func WatchInstances(ctx context.Context, client *clientv3.Client, prefix string, onChange func(map[string]string)) (*Instances, error) {
	switch {
	case client == nil:
		return nil, ErrNilClient
	case prefix == "":
		return nil, ErrEmptyPrefix
	case onChange == nil:
		return nil, fmt.Errorf("%w: onChange", ErrNilArgument)
	}
	read, apply := wholePrefix(onChange)
	m, err := startMirror(ctx, client, prefix+instancesDir, read, apply)
	if err != nil {
		return nil, fmt.Errorf("hystrixetcd: reading %s%s: %w", prefix, instancesDir, err)
	}
	return &Instances{mirror: m}, nil
}

// Close stops following the registry and waits for its goroutines (called from onChange,
// it returns at once and they end when onChange returns). It is idempotent.
func (i *Instances) Close() error {
	i.mirror.stop()
	return nil
}
