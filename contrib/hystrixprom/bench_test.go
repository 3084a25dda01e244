package hystrixprom

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// withKeys returns a runtime holding n command keys (populate), with latencies in their
// percentile window: 24 series per key, and 11 per pool (1,000 keys: 24,110 series). It
// evicts no key: populating takes 2 s of the fake clock per key, past the hour of idleness
// after which keys are evicted by default.
func withKeys(b *testing.B, n int) *command.Runtime {
	rt, clk := newRuntime(b, command.WithMetricsOptions(metrics.WithIdleTimeout(0)))
	populate(b, rt, clk, n)
	advance(rt, clk, 10*time.Second) // a percentile bucket closed for every key
	return rt
}

// populate runs n command keys in 10 thread pools, each with a success, a failure and a
// timeout answered by fallbacks, and waits for the pools' counts.
func populate(t testing.TB, rt *command.Runtime, clk *clock.Fake, n int) {
	for i := range n {
		setter := command.Setter{Runtime: rt, CommandKey: fmt.Sprintf("Command%04d", i),
			GroupKey: fmt.Sprintf("Group%d", i%10)}
		for _, d := range []time.Duration{time.Millisecond, 2 * time.Millisecond, 2 * time.Second} {
			_, _ = command.New(setter, func(ctx context.Context) (int, error) {
				clk.Advance(d)
				if d == 2*time.Millisecond {
					return 0, errors.New("down")
				}
				return i, ctx.Err()
			}).WithFallback(func(context.Context, error) (int, error) { return 0, nil }).Execute(context.Background())
		}
	}
	require.Eventually(t, func() bool {
		var done int64
		for _, p := range rt.Metrics().ThreadPools() {
			done += p.Gauges().CompletedTaskCount
		}
		return done == int64(3*n)
	}, 30*time.Second, time.Millisecond, "the workers count a task after the caller has its value")
}

// BenchmarkScrape compares whole scrapes of 1,000 keys (withKeys), after the first, gzipped
// as a Prometheus server asks for them and uncompressed: the Collector through a
// registry and promhttp, and the Handler. Responses go to a writer that keeps nothing.
func BenchmarkScrape(b *testing.B) {
	rt := withKeys(b, 1000)
	c := New(rt)
	defer c.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	h := NewHandler(rt, HandlerOpts{})
	defer h.Close()
	for _, s := range []struct {
		name string
		h    http.Handler
	}{{"registry", promhttp.HandlerFor(reg, promhttp.HandlerOpts{})}, {"handler", h}} {
		for _, enc := range []string{"gzip", "identity"} {
			b.Run(s.name+"/"+enc, func(b *testing.B) { scrapes(b, s.h, enc) })
		}
	}
}

// BenchmarkHandler measures a gzipped scrape of the Handler, after the first, of 100,
// 1,000 and 10,000 keys (withKeys), per key: its cost is linear in the keys.
func BenchmarkHandler(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			h := NewHandler(withKeys(b, n), HandlerOpts{})
			defer h.Close()
			cpu := scrapes(b, h, "gzip")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/key")
		})
	}
}

// BenchmarkGzipLevel compares the Handler's gzip levels on a scrape of 1,000 keys: the
// time and the bytes sent.
func BenchmarkGzipLevel(b *testing.B) {
	rt := withKeys(b, 1000)
	for _, level := range []int{gzip.BestSpeed, gzip.DefaultCompression} {
		b.Run(fmt.Sprintf("level=%d", level), func(b *testing.B) {
			h := NewHandler(rt, HandlerOpts{CompressionLevel: level})
			defer h.Close()
			scrapes(b, h, "gzip")
		})
	}
}

// scrapes scrapes h once, then b.N times, with the Accept-Encoding given, and reports
// per scrape the milliseconds, the CPU milliseconds of the process (cpuTime) and the
// bytes sent. It returns the CPU time per scrape.
func scrapes(b *testing.B, h http.Handler, acceptEncoding string) time.Duration {
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept-Encoding", acceptEncoding)
	w := &discard{header: http.Header{}}
	scrape := func() {
		clear(w.header)
		w.sent, w.code = 0, http.StatusOK
		h.ServeHTTP(w, req)
		if w.code != http.StatusOK {
			b.Fatal(w.code)
		}
	}
	scrape() // the keys' label pairs and strings are made at their first scrape
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		scrape()
	}
	cpu = (cpuTime() - cpu) / time.Duration(b.N)
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1e3, "cpu-ms/scrape")
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/scrape")
	b.ReportMetric(float64(w.sent), "bytes-sent")
	return cpu
}

// discard is an http.ResponseWriter that counts the bytes written and keeps none, as a
// socket would.
type discard struct {
	header http.Header
	code   int
	sent   int
}

func (d *discard) Header() http.Header { return d.header }

func (d *discard) Write(p []byte) (int, error) {
	d.sent += len(p)
	return len(p), nil
}

func (d *discard) WriteHeader(code int) { d.code = code }

// BenchmarkCollect measures the Collector's own part of a scrape of 100, 1,000 and 4,000
// keys (withKeys), its samples sent to a channel that holds them all: a new Collector's
// first scrape, which makes the label pairs of every key, and a later one.
func BenchmarkCollect(b *testing.B) {
	for _, n := range []int{100, 1000, 4000} {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			rt := withKeys(b, n)
			ch := make(chan prometheus.Metric, 30*n)
			collect := func(c *Collector) int {
				c.Collect(ch)
				series := len(ch)
				for range series {
					<-ch
				}
				return series
			}
			b.Run("first", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					c := New(rt)
					collect(c)
					c.Close()
				}
			})
			b.Run("later", func(b *testing.B) {
				c := New(rt)
				defer c.Close()
				series := collect(c)
				b.ReportAllocs()
				for b.Loop() {
					collect(c)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(series), "ns/series")
			})
		})
	}
}

// BenchmarkExecute compares Execute on a runtime without an exporter and on one whose
// Collector is registered and has been scraped: the Collector only reads, so executions
// must cost the same.
func BenchmarkExecute(b *testing.B) {
	for _, collector := range []bool{false, true} {
		b.Run(fmt.Sprintf("collector=%v", collector), func(b *testing.B) {
			rt := command.NewRuntime()
			defer rt.Close()
			setter := command.Setter{Runtime: rt, CommandKey: "Bench",
				Properties: config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}}
			run := func(context.Context) (int, error) { return 1, nil }
			fallback := func(context.Context, error) (int, error) { return 0, nil }
			_, _ = command.New(setter, run).WithFallback(fallback).Execute(context.Background())
			if collector {
				c := New(rt)
				defer c.Close()
				reg := prometheus.NewRegistry()
				reg.MustRegister(c)
				if _, err := reg.Gather(); err != nil {
					b.Fatal(err)
				}
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := command.New(setter, run).WithFallback(fallback).Execute(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
