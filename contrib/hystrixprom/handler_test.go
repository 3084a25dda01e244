package hystrixprom

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// get scrapes h with the Accept-Encoding given (none if empty) and returns the response
// and its body, gunzipped if it says gzip.
func get(t testing.TB, h http.Handler, acceptEncoding string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	resp := w.Result()
	var body io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(resp.Body)
		require.NoError(t, err)
		body = gz
	}
	b, err := io.ReadAll(body)
	require.NoError(t, err)
	return resp, string(b)
}

// families parses an exposition with expfmt's text parser and writes its families back
// in name order, each one's samples sorted: two expositions with the same families and
// samples give the same text.
func families(t testing.TB, exposition string) string {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(exposition))
	require.NoError(t, err)
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(fams)) {
		var f strings.Builder
		_, err := expfmt.MetricFamilyToText(&f, fams[name])
		require.NoError(t, err)
		lines := strings.SplitAfter(f.String(), "\n")
		slices.Sort(lines[2:]) // after # HELP and # TYPE
		b.WriteString(strings.Join(lines, ""))
	}
	return b.String()
}

// throughRegistry returns what c gives through a registry and promhttp, uncompressed.
func throughRegistry(t testing.TB, c *Collector) string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(c))
	resp, body := get(t, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), "")
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	return body
}

// The Handler writes what the Collector gives through a registry, family for family and
// sample for sample (in the registry's order but for the thread pools' events, which it
// writes pool by pool): many keys with every event type, labels
// that need escaping, percentiles, breaker states and transitions, an ADAPTIVE key, a
// stream, thread pools and a collapser.
func TestHandlerWritesWhatTheCollectorGives(t *testing.T) {
	rt, clk := newRuntime(t)
	c := New(rt)
	defer c.Close()
	h := NewHandler(rt, HandlerOpts{})
	defer h.Close()
	trans := make(chan breaker.Transition, 3)
	defer rt.Breakers().OnStateChange(func(tr breaker.Transition) { trans <- tr })()

	populate(t, rt, clk, 30)
	for range 20 {
		execute(rt, clk, "Trip", time.Millisecond, errors.New("down"))
	}
	advance(rt, clk, 500*time.Millisecond)
	require.Equal(t, breaker.Open, (<-trans).To)

	every := metrics.NewEventCounts(1<<metrics.NumEventTypes-1, 3, 2, 4)
	execute(rt, clk, "Every\"event\"\n\\type", time.Millisecond, nil) // a key known to the runtime, its labels escaped
	rt.Metrics().Command("Every\"event\"\n\\type").MarkComplete(metrics.NewExecutionResult(every, false, false, 0, 0))

	adaptive := command.Setter{Runtime: rt, CommandKey: "Adaptive", GroupKey: "Shop", Properties: config.Overrides{
		"execution.isolation.strategy": "ADAPTIVE", "execution.isolation.adaptive.minLimit": "1",
		"execution.isolation.adaptive.initialLimit": "1", "execution.isolation.adaptive.maxLimit": "1"}}
	_, _ = command.New(adaptive, func(context.Context) (string, error) {
		_, err := command.New(adaptive, func(context.Context) (string, error) { return "v", nil }).Execute(context.Background())
		return "v", err
	}).Execute(context.Background())

	stream := command.Setter{Runtime: rt, CommandKey: "Tail", GroupKey: "Logs",
		Properties: config.Overrides{"execution.timeout.enabled": "false"}}
	for range command.NewStream[int](stream, func(context.Context) rxgo.Observable {
		return rxgo.Just(1, 2, errors.New("cut"))()
	}).Values(context.Background()) {
	}

	batcher := rt.Metrics().Collapser("Batcher")
	batcher.MarkBatch(3)
	batcher.MarkResponseFromCache()
	advance(rt, clk, 10*time.Second)

	want := throughRegistry(t, c)
	resp, got := get(t, h, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, families(t, want), families(t, got))
	for _, s := range []string{`event="fault_injected"`, `event="emit"`, `event="adaptive_rejected"`, `from="closed"`,
		`hystrix_thread_pool_tasks_total`, `hystrix_collapser_batch_size{`, `command="Every\"event\"\n\\type"`} {
		assert.Contains(t, got, s)
	}
}

func TestHandlerNegotiatesGzip(t *testing.T) {
	rt, clk := newRuntime(t)
	h := NewHandler(rt, HandlerOpts{})
	defer h.Close()
	execute(rt, clk, "GetUser", time.Millisecond, nil)
	advance(rt, clk, time.Second)
	_, plain := get(t, h, "")

	for accept, gzipped := range map[string]bool{
		"":                        false,
		"gzip":                    true,
		"GZIP":                    true,
		"deflate, gzip;q=0.5":     true,
		"gzip; q=0":               false,
		"gzip;q=0.0, *":           false, // named and refused: the wildcard does not bring it back
		"*":                       true,
		"identity":                false,
		"br, zstd":                false,
		"gzip;q=garbage":          true, // an unreadable q is q=1
		"identity;q=1, *;q=0.001": true,
	} {
		resp, body := get(t, h, accept)
		assert.Equal(t, http.StatusOK, resp.StatusCode, accept)
		assert.Equal(t, "text/plain; version=0.0.4; charset=utf-8", resp.Header.Get("Content-Type"), accept)
		assert.Equal(t, "Accept-Encoding", resp.Header.Get("Vary"), accept)
		assert.Equal(t, gzipped, resp.Header.Get("Content-Encoding") == "gzip", accept)
		assert.Equal(t, plain, body, accept)
	}

	off := NewHandler(rt, HandlerOpts{DisableCompression: true})
	defer off.Close()
	resp, body := get(t, off, "gzip")
	assert.Empty(t, resp.Header.Get("Content-Encoding"), "gzip turned off")
	assert.Equal(t, plain, body)
	best := NewHandler(rt, HandlerOpts{CompressionLevel: gzip.BestCompression})
	defer best.Close()
	resp, body = get(t, best, "gzip")
	assert.Equal(t, "gzip", resp.Header.Get("Content-Encoding"))
	assert.Equal(t, plain, body)
	assert.Panics(t, func() { NewHandler(rt, HandlerOpts{CompressionLevel: 42}) })
}

// A key's series appear at the first scrape after it ran and disappear when it is
// evicted for idleness; the label strings kept follow.
func TestHandlerFollowsKeysThatComeAndGo(t *testing.T) {
	rt, clk := newRuntime(t, command.WithMetricsOptions(metrics.WithIdleTimeout(20*time.Second)))
	h := NewHandler(rt, HandlerOpts{})
	defer h.Close()
	execute(rt, clk, "First", time.Millisecond, nil)
	advance(rt, clk, time.Second)
	_, body := get(t, h, "gzip")
	assert.Contains(t, body, `command="First"`)
	assert.NotContains(t, body, `command="Second"`)

	execute(rt, clk, "Second", time.Millisecond, nil)
	_, body = get(t, h, "gzip")
	assert.Contains(t, body, `hystrix_command_events_total{command="Second",event="success",group="Shop",thread_pool="Shop"} 0`,
		"there at once, its count at the end of the bucket")
	advance(rt, clk, time.Second)
	_, body = get(t, h, "gzip")
	assert.Contains(t, body, `hystrix_command_events_total{command="Second",event="success",group="Shop",thread_pool="Shop"} 1`)

	advance(rt, clk, 80*time.Second) // both idle past the timeout: evicted
	resp, body := get(t, h, "gzip")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Empty(t, body, "no key, no family")
	execute(rt, clk, "First", time.Millisecond, nil)
	_, body = get(t, h, "gzip")
	assert.Contains(t, body, `command="First"`, "a key that comes back")
}

// Scrapes run side by side while commands run flat out on new and old keys, with the
// buckets rolling: every scrape is whole and parses (run with -race).
func TestHandlerConcurrentScrapes(t *testing.T) {
	rt, clk := newRuntime(t)
	h := NewHandler(rt, HandlerOpts{})
	defer h.Close()
	stop := make(chan struct{})
	var executions atomic.Int64
	var load sync.WaitGroup
	for w := range 3 {
		load.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var err error
				if i%3 == 0 {
					err = errors.New("down")
				}
				execute(rt, clk, fmt.Sprintf("Key%d", (w*1000+i)%60), 0, err)
				executions.Add(1)
			}
		})
	}
	load.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				advance(rt, clk, 100*time.Millisecond)
			}
		}
	})

	var scrapes sync.WaitGroup
	for s := range 3 {
		scrapes.Go(func() {
			for i := 0; i < 5 || executions.Load() < 300; i++ { // until keys are made under the scrapes
				accept := ""
				if (s+i)%2 == 0 {
					accept = "gzip"
				}
				resp, body := get(t, h, accept)
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				families(t, body)
			}
		})
	}
	scrapes.Wait()
	close(stop)
	load.Wait()
	_, body := get(t, h, "")
	for _, m := range rt.Metrics().Commands() {
		assert.Contains(t, body, `command="`+m.Key()+`"`, "keys made while scraping are there")
	}
}

// The families of a Gatherer follow the runtime's; a Gatherer that fails, or that holds
// families of the runtime, answers as ErrorHandling says.
func TestHandlerAppendsTheGatherersFamilies(t *testing.T) {
	rt, clk := newRuntime(t)
	execute(rt, clk, "GetUser", time.Millisecond, nil)
	advance(rt, clk, time.Second)
	reg := prometheus.NewRegistry()
	requests := prometheus.NewCounter(prometheus.CounterOpts{Name: "app_requests_total", Help: "Requests."})
	requests.Add(3)
	reg.MustRegister(requests)
	h := NewHandler(rt, HandlerOpts{Gatherer: reg})
	defer h.Close()
	alone := NewHandler(rt, HandlerOpts{})
	defer alone.Close()

	_, body := get(t, h, "gzip")
	_, ours := get(t, alone, "")
	assert.Equal(t, ours+"# HELP app_requests_total Requests.\n# TYPE app_requests_total counter\napp_requests_total 3\n", body)
	families(t, body)

	c := New(rt)
	defer c.Close()
	both := prometheus.NewRegistry()
	both.MustRegister(c)
	var logged []string
	log := logger(func(v ...any) { logged = append(logged, fmt.Sprint(v...)) })
	resp, body := get(t, NewHandler(rt, HandlerOpts{Gatherer: both, ErrorLog: log}), "gzip")
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Content-Encoding"))
	assert.Contains(t, body, "hystrix_circuit_breaker_state")
	require.Len(t, logged, 1)

	resp, body = get(t, NewHandler(rt, HandlerOpts{Gatherer: both, ErrorHandling: promhttp.ContinueOnError}), "")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, ours, body, "the runtime's families, once")

	failing := prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) { return nil, errors.New("broken") })
	assert.PanicsWithError(t, "broken", func() {
		get(t, NewHandler(rt, HandlerOpts{Gatherer: failing, ErrorHandling: promhttp.PanicOnError}), "")
	})
}

type logger func(v ...any)

func (l logger) Println(v ...any) { l(v...) }

// appendValue writes what expfmt writes for a sample value.
func TestAppendValue(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 2, 17, 999999, -999999, 1e6, -1e6, 123456789, 0.5,
		0.025, 1e-7, 2.5e21, 1 << 53, math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1)} {
		var want strings.Builder
		_, err := expfmt.MetricFamilyToText(&want, &dto.MetricFamily{Name: ptr("x"), Type: dto.MetricType_GAUGE.Enum(),
			Metric: []*dto.Metric{{Gauge: &dto.Gauge{Value: &v}}}})
		require.NoError(t, err)
		assert.Equal(t, strings.TrimPrefix(strings.TrimSpace(want.String()), "# TYPE x gauge\nx "),
			string(appendValue(nil, v)), strconv.FormatFloat(v, 'g', -1, 64))
	}
}

func ptr[T any](v T) *T { return &v }

// A label set's text is in name order, its values escaped as the text format wants and
// made valid UTF-8 (a registry refuses a scrape with an invalid one).
func TestLabelString(t *testing.T) {
	assert.Equal(t, `{a="q\"\\\n",b="x`+"\uFFFD"+`"}`, labelString("", []string{"b", "a"}, []string{"x\xff", "q\"\\\n"}))
}
