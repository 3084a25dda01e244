package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hystrixhttp"
)

// services are the demo's four dependencies, real HTTP servers on 127.0.0.1, each
// called through a hystrixhttp.Transport of its own command key.
type services struct {
	base                             *http.Transport // the connections to every dependency
	users, inventory, recs, payments endpoint
}

// endpoint is a dependency with the client that calls it as command key.
type endpoint struct {
	*dependency
	key    string
	client *http.Client
}

// newServices starts the dependencies; stop them with close.
func newServices(rt *command.Runtime, start time.Time) (*services, error) {
	s := &services{base: &http.Transport{MaxIdleConnsPerHost: 100}}
	// Fast and healthy, semaphore isolated.
	s.users = s.endpoint(&dependency{name: "user", median: 4 * time.Millisecond, tail: 40 * time.Millisecond,
		errorRate: 0.01, start: start, about: "healthy: 1 % of its calls fail, answered by the fallback"}, command.Setter{
		Runtime: rt, CommandKey: "GetUser", GroupKey: "UserService",
		Properties: config.Overrides{"execution.isolation.semaphore.maxConcurrentRequests": "50"},
	}, "anonymous")
	// Goes down 5 s into every 45 s and recovers 15 s later: its breaker opens and closes
	// again within the first half minute.
	s.inventory = s.endpoint(&dependency{name: "inventory", median: 15 * time.Millisecond, tail: 150 * time.Millisecond,
		errorRate: 0.02, start: start, outage: periodicOutage(45*time.Second, 5*time.Second, 15*time.Second),
		about: "down 5 s to 20 s into every 45 s: its breaker opens about 10 s in and closes at the first " +
			"trial (one every 5 s) after the recovery, 20 to 25 s in; 2 % of its calls fail otherwise"},
		command.Setter{
			Runtime: rt, CommandKey: "CheckInventory", GroupKey: "Inventory",
			Properties:           config.Overrides{"execution.isolation.strategy": "THREAD"},
			ThreadPoolProperties: config.ThreadPoolOverrides{"coreSize": "20"},
		}, "stock unknown")
	// Slow: about a quarter of its calls pass the 250 ms timeout.
	s.recs = s.endpoint(&dependency{name: "recommendations", median: 200 * time.Millisecond, tail: 2 * time.Second,
		start: start, about: "slow: about a quarter of its calls pass the 250 ms timeout, answered by the fallback"}, command.Setter{
		Runtime: rt, CommandKey: "GetRecommendations", GroupKey: "Recommendations",
		Properties: config.Overrides{
			"execution.isolation.strategy":                     "THREAD",
			"execution.isolation.thread.timeoutInMilliseconds": "250",
		},
		ThreadPoolProperties: config.ThreadPoolOverrides{
			"coreSize": "30", "maxQueueSize": "20", "queueSizeRejectionThreshold": "20",
		},
	}, "popular items")
	// Tight semaphore and no fallback: bursts are rejected.
	s.payments = s.endpoint(&dependency{name: "payment", median: 40 * time.Millisecond, tail: 300 * time.Millisecond,
		errorRate: 0.05, start: start, about: "5 % of its calls fail and only 4 run at a time: failures and " +
			"rejections reach the caller (no fallback)"}, command.Setter{
		Runtime: rt, CommandKey: "AuthorizePayment", GroupKey: "Payments",
		Properties: config.Overrides{"execution.isolation.semaphore.maxConcurrentRequests": "4"},
	}, "")
	for _, e := range s.all() {
		if err := e.listen(); err != nil {
			return nil, errors.Join(err, s.close())
		}
	}
	return s, nil
}

// latencyWindow is the latency percentiles' window of the demo's keys: 10 s of 1 s
// buckets (Hystrix's default is 60 s of 10 s buckets), so the table shows the first
// latencies a second after the start rather than ten.
var latencyWindow = config.Set(
	config.RollingPercentileWindow.Of(10*time.Second),
	config.RollingPercentileBuckets.Of(10),
)

// endpoint returns d with a client that calls it as commands of setter, answering
// fallback (when not empty) whenever a call fails or is refused.
func (s *services) endpoint(d *dependency, setter command.Setter, fallback string) endpoint {
	setter.Properties = maps.Clone(setter.Properties)
	maps.Copy(setter.Properties, latencyWindow)
	t := &hystrixhttp.Transport{Base: s.base, Setter: setter}
	if fallback != "" {
		t.Fallback = func(req *http.Request, _ error) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Request: req,
				Body: io.NopCloser(strings.NewReader(fallback))}, nil
		}
	}
	return endpoint{dependency: d, key: setter.CommandKey, client: &http.Client{Transport: t}}
}

func (s *services) all() []endpoint { return []endpoint{s.users, s.inventory, s.recs, s.payments} }

// close stops the dependencies that were started and drops the idle connections.
func (s *services) close() error {
	var err error
	for _, e := range s.all() {
		if e.srv != nil {
			err = errors.Join(err, e.dependency.close())
		}
	}
	s.base.CloseIdleConnections()
	return err
}

// page is one simulated user request: it reads the user, then calls the other
// dependencies.
func (s *services) page(ctx context.Context) {
	for _, e := range s.all() {
		_, _ = e.get(ctx)
	}
}

// get calls the dependency and returns its answer.
func (e endpoint) get(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.url, nil)
	if err != nil {
		return "", err
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %s", e.name, resp.Status)
	}
	return string(body), err
}

// tell prints what each dependency does on purpose, so that its errors in the table are
// read as the demo's, not the library's.
func (s *services) tell(w io.Writer) {
	fmt.Fprintln(w, "rxhystrix demo: every dependency misbehaves on purpose; the errors in the table are the demo's:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range s.all() {
		fmt.Fprintf(tw, "  %s\t%s\n", e.key, e.about)
	}
	tw.Flush()
}
