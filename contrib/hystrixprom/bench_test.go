package hystrixprom

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// withKeys returns a runtime holding n command keys (in 10 thread pools), each with
// successes, failures, timeouts and fallbacks and latencies in its percentile window: 24
// series per key, and 11 per pool (1,000 keys: 24,110 series).
func withKeys(b *testing.B, n int) *command.Runtime {
	rt, clk := newRuntime(b)
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
	advance(rt, clk, 10*time.Second) // a percentile bucket closed for every key
	return rt
}

// BenchmarkScrape measures one whole scrape of 1,000 keys (withKeys) after the first: the
// Collector reads, the registry gathers and promhttp encodes, gzip included, as a
// Prometheus server asks for it.
func BenchmarkScrape(b *testing.B) {
	c := New(withKeys(b, 1000))
	defer c.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	scrape := func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
	scrape() // the keys' label pairs are made at their first scrape

	b.ReportAllocs()
	for b.Loop() {
		scrape()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/scrape")
}

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
