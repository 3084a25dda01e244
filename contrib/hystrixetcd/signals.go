package hystrixetcd

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/config"
)

// Signals shares the breakers of a fleet through etcd (see the package doc, "Breaker
// signals"): it publishes the transitions of its instance's breakers and forces a key
// open while its own breaker is closed and at least a quorum of other instances have
// theirs open. It is a config.Source of circuitBreaker.forceOpen values: add it to the
// Store the breakers read.
type Signals struct {
	member   *Member
	prefix   string // <fleet prefix>breakers/
	quorum   int
	breakers *breaker.Registry
	mem      *config.MemorySource

	mu         sync.Mutex
	open       map[string]map[string]bool // command key -> other instances reporting it open
	forced     map[string]bool            // command keys forced open
	mine       map[string]bool            // command keys this instance reports open
	publishing bool                       // a goroutine is making mem follow forced (publish)
	stale      bool                       // open or forced changed since the last publish
	closed     bool

	// What Open and Forced report: open and forced as of the last publish, so that when
	// they report a change every subscriber has been told of it (called from a
	// subscriber, they report the state before the change it is told of).
	shownOpen   map[string]int
	shownForced map[string]bool

	unlisten func()
	mirror   *mirror
	stop     context.CancelFunc
	swept    sync.WaitGroup
}

// sweepEvery is how often the signals withdraw the entries of breakers the registry has
// dropped: a key evicted while open reports no transition, and its entry would count
// towards the others' quorum for as long as the instance lives.
const sweepEvery = 5 * time.Second

// NewSignals publishes the transitions of breakers (from now on) under the member's
// prefix + "breakers/<command key>/<instance id>", reads the states the other instances
// report (failing if that does not succeed before ctx ends) and follows them until
// Close. quorum is how many other instances must report a key open (OPEN or HALF_OPEN)
// for this one to force it open, at least 1.
func NewSignals(ctx context.Context, member *Member, breakers *breaker.Registry, quorum int) (*Signals, error) {
	switch {
	case member == nil:
		return nil, fmt.Errorf("%w: the member", ErrNilArgument)
	case breakers == nil:
		return nil, fmt.Errorf("%w: the breaker registry", ErrNilArgument)
	case quorum < 1:
		return nil, fmt.Errorf("hystrixetcd: signals quorum must be at least 1, got %d", quorum)
	}
	s := &Signals{member: member, prefix: member.prefix + "breakers/", quorum: quorum, breakers: breakers,
		mem: config.NewMemorySource(), open: map[string]map[string]bool{}, forced: map[string]bool{},
		mine: map[string]bool{}}
	read, apply := wholePrefix(s.reported)
	m, err := startMirror(ctx, member.client, s.prefix, read, apply)
	if err != nil {
		return nil, fmt.Errorf("hystrixetcd: reading %s: %w", s.prefix, err)
	}
	s.mirror = m
	s.unlisten = breakers.OnStateChange(s.transition)
	sctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.swept.Go(func() {
		t := time.NewTicker(sweepEvery)
		defer t.Stop()
		for {
			select {
			case <-sctx.Done():
				return
			case <-t.C:
				contained("sweeping the signals", s.sweep)
			}
		}
	})
	return s, nil
}

// sweep withdraws the entries of keys whose breaker the registry no longer holds.
func (s *Signals) sweep() {
	s.mu.Lock()
	for key := range s.mine {
		if _, ok := s.breakers.Lookup(key); !ok {
			delete(s.mine, key)
			s.member.Delete(s.prefix + key + "/" + s.member.id)
			s.decide(key)
		}
	}
	s.mu.Unlock()
	s.publish()
}

// Open returns how many other instances report key open, once the source's subscribers
// have been told (see shownOpen).
func (s *Signals) Open(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shownOpen[key]
}

// Forced reports whether the signals force key open, once the source's subscribers have
// been told (see shownOpen).
func (s *Signals) Forced(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shownForced[key]
}

// transition publishes a transition of this instance's breaker and decides its key again.
func (s *Signals) transition(t breaker.Transition) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	etcdKey := s.prefix + t.Key + "/" + s.member.id
	if t.To == breaker.Closed {
		delete(s.mine, t.Key)
		s.member.Delete(etcdKey)
	} else {
		s.mine[t.Key] = true
		s.member.Put(etcdKey, t.To.String())
	}
	s.decide(t.Key)
	s.mu.Unlock()
	s.publish()
}

// reported takes the states every instance reports (<command key>/<instance id> ->
// state) and decides every key they or the forced ones concern.
func (s *Signals) reported(values map[string]string) {
	open := map[string]map[string]bool{}
	for k := range values {
		i := strings.LastIndexByte(k, '/')
		if i < 0 || k[i+1:] == s.member.id {
			continue
		}
		key, id := k[:i], k[i+1:]
		if open[key] == nil {
			open[key] = map[string]bool{}
		}
		open[key][id] = true
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.open = open
	s.stale = true
	for key := range open {
		s.decide(key)
	}
	for key := range s.forced {
		s.decide(key)
	}
	s.mu.Unlock()
	s.publish()
}

// decide forces key open when this instance's breaker is closed and a quorum of others
// report it open, and lifts the force otherwise; publish then tells the source's
// subscribers. Under s.mu.
func (s *Signals) decide(key string) {
	own := s.mine[key] // as of the transitions delivered so far
	if b, ok := s.breakers.Lookup(key); ok && b.State() != breaker.Closed {
		own = true // or opened before the signals started, or since
	}
	if !own && len(s.open[key]) >= s.quorum {
		s.forced[key] = true
	} else {
		delete(s.forced, key)
	}
	s.stale = true
}

// publish makes the source hold the forceOpen of the forced keys and notifies its
// subscribers with no lock of the Signals held, so that they may call any method of the
// Signals. One goroutine publishes at a time, in order: a change made meanwhile (by
// another goroutine, or by a subscriber) is published by it before it returns. A
// subscriber that panics is logged.
func (s *Signals) publish() {
	s.mu.Lock()
	if s.publishing {
		s.mu.Unlock()
		return
	}
	s.publishing = true
	defer func() {
		s.publishing = false
		s.mu.Unlock()
	}()
	for s.stale {
		s.stale = false
		values := make(map[string]string, len(s.forced))
		forced := make(map[string]bool, len(s.forced))
		for key := range s.forced {
			values[forceOpenName(key)] = "true"
			forced[key] = true
		}
		open := make(map[string]int, len(s.open))
		for key, ids := range s.open {
			open[key] = len(ids)
		}
		s.mu.Unlock()
		contained("notifying the subscribers of the signals", func() {
			_ = s.mem.Replace(values) // the Stores report the values they refuse
		})
		s.mu.Lock()
		s.shownOpen, s.shownForced = open, forced
	}
}

func forceOpenName(key string) string {
	return "hystrix.command." + key + "." + config.CircuitBreakerForceOpen.Name()
}

// Get returns the value of a full Hystrix name: "true" for the forceOpen of a forced key.
func (s *Signals) Get(name string) (string, bool) { return s.mem.Get(name) }

// Names returns the forceOpen names of the forced keys.
func (s *Signals) Names() []string { return s.mem.Names() }

// Subscribe calls onChange after every change of the forced keys, with no lock of the
// Signals held: it may call any of their methods (see publish).
func (s *Signals) Subscribe(onChange func() error) (cancel func()) { return s.mem.Subscribe(onChange) }

// SubscribeNames calls onChange with the names each change concerns.
func (s *Signals) SubscribeNames(onChange func(names []string) error) (cancel func()) {
	return s.mem.SubscribeNames(onChange)
}

// OnlyProperties returns true: every name of the source is a property.
func (s *Signals) OnlyProperties() bool { return true }

// Close stops publishing and following, withdraws this instance's open breakers and lifts
// every force. It waits for the Signals' goroutines, unless their subscribers are being
// notified (Close called from a subscriber, for one): the goroutines then end as soon as
// the subscribers return, and change nothing more. It is idempotent; the Member stays
// the caller's.
func (s *Signals) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	notifying := s.publishing
	mine := s.mine
	s.mine, s.open, s.forced = map[string]bool{}, map[string]map[string]bool{}, map[string]bool{}
	s.stale = true
	s.mu.Unlock()
	s.unlisten()
	s.stop()
	if !notifying {
		s.swept.Wait()
	}
	s.mirror.stop()
	for key := range mine {
		s.member.Delete(s.prefix + key + "/" + s.member.id)
	}
	s.publish()
	return nil
}

var (
	_ config.Source         = (*Signals)(nil)
	_ config.NameSubscriber = (*Signals)(nil)
	_ config.PropertiesOnly = (*Signals)(nil)
)
