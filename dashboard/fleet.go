package dashboard

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/rxhystrix/rxhystrix/dashboard/internal/sse"
	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
)

// Fleet is a Turbine: it reads the /hystrix.stream of every instance it is given
// (SetStreams, e.g. from a registry such as hystrixetcd.WatchInstances) and serves their
// sum as one stream (StreamHandler), so the page or the Hystrix Dashboard watches a whole
// fleet through one URL.
//
// Frames are summed per type and name as Turbine sums them: numbers and objects of
// numbers (percentiles) added, reportingHosts added (a frame without it counts as one
// host), isCircuitBreakerOpen as {"true": hosts open, "false": hosts closed}, the forced
// flags true when any instance's is, other values from the first instance in name order.
// A stream's frames count while its connection lives and for at most 5 s after they
// came; a stream that fails is read again every second while it is in the set.
type Fleet struct {
	client *http.Client
	logger *slog.Logger

	mu      sync.Mutex
	streams map[string]*fleetStream // instance name -> its stream
	closed  bool
}

// fleetStale is how long a frame of an instance counts after it came; fleetRetry the wait
// before a failed stream is read again.
const (
	fleetStale = 5 * time.Second
	fleetRetry = time.Second
)

// NewFleet returns a Fleet with no streams. logger (nil: slog.Default()) gets a line
// when a stream fails and when it is read again.
func NewFleet(logger *slog.Logger) *Fleet {
	if logger == nil {
		logger = slog.Default()
	}
	dial := &net.Dialer{Timeout: 2 * time.Second}
	return &Fleet{
		client: &http.Client{Transport: &http.Transport{DialContext: dial.DialContext,
			ResponseHeaderTimeout: 5 * time.Second, MaxIdleConnsPerHost: 1}},
		logger:  logger,
		streams: map[string]*fleetStream{},
	}
}

// SetStreams makes the fleet read exactly these streams (instance name -> stream URL):
// it starts reading the new ones and stops the others, whose frames leave the sums at
// once. An instance whose URL changed is read again from its new URL.
func (f *Fleet) SetStreams(streams map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	for name, s := range f.streams {
		if url, ok := streams[name]; !ok || url != s.url {
			s.stop()
			delete(f.streams, name)
		}
	}
	for name, url := range streams {
		if _, ok := f.streams[name]; !ok {
			f.streams[name] = f.start(name, url)
		}
	}
}

// Instances returns the instances the fleet reads (name -> stream URL).
func (f *Fleet) Instances() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]string, len(f.streams))
	for name, s := range f.streams {
		out[name] = s.url
	}
	return out
}

// Close stops reading every stream and waits for the readers. It is idempotent; the
// fleet reads nothing afterwards.
func (f *Fleet) Close() {
	f.mu.Lock()
	f.closed = true
	streams := f.streams
	f.streams = map[string]*fleetStream{}
	f.mu.Unlock()
	for _, s := range streams {
		s.stop()
	}
	f.client.CloseIdleConnections()
}

// StreamHandler returns the handler of the fleet's aggregated /hystrix.stream: every
// interval (default 500 ms) one summed frame per command, then per thread pool, then
// per collapser, each in name order, then a ping.
func (f *Fleet) StreamHandler(opts ...Option) *Handler {
	return newHandler(sse.DefaultInterval, func(fr *sse.Frames, now time.Time) {
		for _, m := range f.sum(now) {
			fr.Data(m)
		}
	}, opts)
}

// sum returns the summed frames of the fleet at now, commands first, then thread pools,
// then collapsers, each in name order; currentTime is now.
func (f *Fleet) sum(now time.Time) []map[string]any {
	f.mu.Lock()
	names := slices.Sorted(maps.Keys(f.streams))
	streams := make([]*fleetStream, len(names))
	for i, n := range names {
		streams[i] = f.streams[n]
	}
	f.mu.Unlock()
	groups := map[frameKey][]map[string]any{}
	for _, s := range streams {
		s.mu.Lock()
		for k, fr := range s.frames {
			if now.Sub(fr.at) <= fleetStale {
				groups[k] = append(groups[k], fr.values)
			}
		}
		s.mu.Unlock()
	}
	keys := slices.SortedFunc(maps.Keys(groups), func(a, b frameKey) int {
		return cmp.Or(cmp.Compare(typeOrder[a.typ], typeOrder[b.typ]), cmp.Compare(a.name, b.name))
	})
	out := make([]map[string]any, len(keys))
	for i, k := range keys {
		out[i] = sumFrames(groups[k])
		out[i]["currentTime"] = now.UnixMilli()
	}
	return out
}

// typeOrder is the order of the types in a summed interval; other types are not summed.
var typeOrder = map[string]int{wire.TypeCommand: 0, wire.TypeThreadPool: 1, wire.TypeCollapser: 2}

type frameKey struct{ typ, name string }

type fleetFrame struct {
	values map[string]any // decoded with UseNumber: numbers are json.Number
	at     time.Time
}

// fleetStream reads one instance's stream on its own goroutine until stopped.
type fleetStream struct {
	url    string
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	frames map[frameKey]fleetFrame
}

func (f *Fleet) start(name, url string) *fleetStream {
	ctx, cancel := context.WithCancel(context.Background())
	s := &fleetStream{url: url, cancel: cancel, done: make(chan struct{}), frames: map[frameKey]fleetFrame{}}
	go func() {
		defer close(s.done)
		for failures := 0; ; failures++ {
			err := s.read(ctx, f.client)
			s.mu.Lock()
			clear(s.frames) // a lost stream leaves the sums at once
			s.mu.Unlock()
			if ctx.Err() != nil {
				return
			}
			if failures == 0 {
				f.logger.Warn("dashboard: fleet stream lost, reading it again", "instance", name, "url", url, "error", err)
			}
			t := time.NewTimer(fleetRetry)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *fleetStream) stop() {
	s.cancel()
	<-s.done
}

// read reads the stream until it ends, keeping the latest frame of each type and name.
func (s *fleetStream) read(ctx context.Context, client *http.Client) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &statusError{resp.Status}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:"))
		if !ok {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var v map[string]any
		if dec.Decode(&v) != nil {
			continue // not an object: nothing to sum
		}
		typ, _ := v["type"].(string)
		name, _ := v["name"].(string)
		if _, ok := typeOrder[typ]; !ok {
			continue
		}
		s.mu.Lock()
		s.frames[frameKey{typ, name}] = fleetFrame{values: v, at: time.Now()}
		s.mu.Unlock()
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return errStreamEnded
}

type statusError struct{ status string }

func (e *statusError) Error() string { return "dashboard: fleet stream answered " + e.status }

var errStreamEnded = &statusError{"200 OK and ended"}

// sumFrames sums the frames of one type and name from several instances (see Fleet).
func sumFrames(frames []map[string]any) map[string]any {
	out := map[string]any{}
	hosts, open := int64(0), int64(0)
	forced := map[string]bool{}
	for _, f := range frames {
		h := max(1, intOf(f["reportingHosts"]))
		hosts += h
		if b, _ := f["isCircuitBreakerOpen"].(bool); b {
			open += h
		}
		for k, v := range f {
			switch v := v.(type) {
			case json.Number:
				out[k] = addNumber(out[k], v)
			case map[string]any:
				o, _ := out[k].(map[string]any)
				if o == nil {
					o = map[string]any{}
					out[k] = o
				}
				for p, n := range v {
					if n, ok := n.(json.Number); ok {
						o[p] = addNumber(o[p], n)
					}
				}
			case bool:
				if k == "propertyValue_circuitBreakerForceOpen" || k == "propertyValue_circuitBreakerForceClosed" {
					forced[k] = forced[k] || v
				} else if _, ok := out[k]; !ok {
					out[k] = v
				}
			default:
				if _, ok := out[k]; !ok {
					out[k] = v
				}
			}
		}
	}
	for k, v := range forced {
		out[k] = v
	}
	out["reportingHosts"] = hosts
	if _, ok := out["isCircuitBreakerOpen"]; ok {
		out["isCircuitBreakerOpen"] = map[string]int64{"true": open, "false": hosts - open}
	}
	return out
}

// addNumber adds n to sum (nil, an int64 or a float64): integers stay integers.
func addNumber(sum any, n json.Number) any {
	if i, err := n.Int64(); err == nil {
		switch s := sum.(type) {
		case int64:
			return s + i
		case float64:
			return s + float64(i)
		}
		return i
	}
	x, _ := n.Float64()
	switch s := sum.(type) {
	case int64:
		return float64(s) + x
	case float64:
		return s + x
	}
	return x
}

func intOf(v any) int64 {
	if n, ok := v.(json.Number); ok {
		i, _ := n.Int64()
		return i
	}
	return 0
}
