package hystrixprom

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/telemetry"
)

// ContentType is the media type a Handler answers with: the Prometheus text format 0.0.4.
const ContentType = string(expfmt.FmtText)

// HandlerOpts configures a Handler. The zero value serves the runtime's metrics alone.
type HandlerOpts struct {
	// Gatherer, when set, is gathered at every scrape and its families written after
	// the runtime's, through expfmt's text encoder: the scrape then costs what
	// client_golang costs for those families (a registry with the Go collector: about
	// 0.4 ms, 73 KB and 435 allocations). It must not hold a Collector of this package:
	// a family named like one of the Handler's is an error.
	Gatherer prometheus.Gatherer
	// ErrorHandling says what a failed Gather does to the scrape, as in promhttp:
	// HTTPErrorOnError (the zero value) answers 500, ContinueOnError serves what was
	// gathered, PanicOnError panics.
	ErrorHandling promhttp.HandlerErrorHandling
	// ErrorLog, when set, is told of every error of a Gather.
	ErrorLog promhttp.Logger
	// DisableCompression answers every scrape uncompressed, even those that accept gzip.
	DisableCompression bool
	// CompressionLevel is the gzip level of the scrapes that accept gzip; 0 means
	// gzip.BestSpeed (see the package doc for its cost). A level gzip does not know makes
	// NewHandler panic.
	CompressionLevel int
}

// Handler is an http.Handler that serves the metrics of a command.Runtime in the
// Prometheus text format, the same families, names, help, types, labels and values as a
// Collector registered in a prometheus.Registry, written without the registry: each
// key's label strings are made once, and a scrape appends its samples into reused
// buffers and writes them out, gzipped when the scraper accepts it. Close it when the
// Runtime is discarded. Concurrent scrapes are safe.
type Handler struct {
	r      *telemetry.Reader[string]
	names  [telemetry.NumMetrics]string // Prometheus names
	header [telemetry.NumMetrics]string // # HELP and # TYPE lines
	order  []int                        // metrics in name order, as a registry sorts them
	opts   HandlerOpts
	// spare holds the buffers and gzip writers of scrapes that are over, for the next:
	// not a sync.Pool, which a garbage collection between two scrapes would empty.
	spare chan *scrape
}

// spares is how many scrapes' buffers a Handler keeps: as many as run at once, usually
// one or two (Prometheus servers in a pair).
const spares = 2

// NewHandler returns a Handler of rt. It counts circuit-breaker transitions from now on.
func NewHandler(rt *command.Runtime, opts HandlerOpts) *Handler {
	if opts.CompressionLevel == 0 {
		opts.CompressionLevel = gzip.BestSpeed
	}
	if l := opts.CompressionLevel; l < gzip.HuffmanOnly || l > gzip.BestCompression {
		panic(fmt.Sprintf("hystrixprom: gzip level %d, not one of gzip's", l))
	}
	h := &Handler{opts: opts}
	for i, m := range telemetry.Catalogue {
		h.names[i] = name(m)
		kind := "gauge"
		if m.Kind == telemetry.Counter {
			kind = "counter"
		}
		h.header[i] = "# HELP " + h.names[i] + " " + helpEscaper.Replace(m.Help) + "\n# TYPE " + h.names[i] + " " + kind + "\n"
		h.order = append(h.order, i)
	}
	slices.SortFunc(h.order, func(a, b int) int { return strings.Compare(h.names[a], h.names[b]) })
	h.spare = make(chan *scrape, spares)
	h.r = telemetry.NewReader(rt, labelString)
	return h
}

// scrape is the text of one scrape, a buffer per metric, and its gzip writer (nil until
// a scrape asks for gzip), reused from scrape to scrape.
type scrape struct {
	h      *Handler
	family [telemetry.NumMetrics][]byte
	gz     *gzip.Writer
}

// add appends one sample line to its metric's buffer, which it doubles when a line may
// not fit (append's growth by a quarter would copy a large buffer many times over).
func (s *scrape) add(metric int, labels string, v float64) {
	b := s.family[metric]
	if line := len(s.h.names[metric]) + len(labels) + 32; cap(b)-len(b) < line {
		b = slices.Grow(b, max(cap(b), 4*line))
	}
	b = append(b, s.h.names[metric]...)
	b = append(b, labels...)
	b = append(b, ' ')
	b = appendValue(b, v)
	s.family[metric] = append(b, '\n')
}

// ServeHTTP answers a scrape: the runtime's families in name order, then the
// Gatherer's, gzipped if the request accepts gzip.
func (h *Handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var others []*dto.MetricFamily
	if h.opts.Gatherer != nil {
		var err error
		if others, err = h.gather(); err != nil {
			if h.opts.ErrorLog != nil {
				h.opts.ErrorLog.Println("error gathering metrics:", err)
			}
			switch h.opts.ErrorHandling {
			case promhttp.PanicOnError:
				panic(err)
			case promhttp.HTTPErrorOnError:
				http.Error(w, "An error has occurred while serving metrics:\n\n"+err.Error(), http.StatusInternalServerError)
				return
			}
		}
	}

	var s *scrape
	select {
	case s = <-h.spare:
		for i := range s.family {
			s.family[i] = s.family[i][:0]
		}
	default:
		s = &scrape{h: h}
	}
	defer func() {
		select {
		case h.spare <- s:
		default: // more scrapes at once than spares: this one's buffers go
		}
	}()
	h.r.Read(s.add)

	header := w.Header()
	header.Set("Content-Type", ContentType)
	header.Add("Vary", "Accept-Encoding")
	var out io.Writer = w
	if !h.opts.DisableCompression && acceptsGzip(req) {
		header.Set("Content-Encoding", "gzip")
		if s.gz == nil {
			s.gz, _ = gzip.NewWriterLevel(w, h.opts.CompressionLevel) // checked by NewHandler
		} else {
			s.gz.Reset(w)
		}
		defer s.gz.Close() // before the scrape is spare (deferred calls run last first)
		out = s.gz
	}
	for _, m := range h.order {
		if len(s.family[m]) == 0 {
			continue
		}
		if _, err := io.WriteString(out, h.header[m]); err != nil {
			return // the scraper is gone
		}
		if _, err := out.Write(s.family[m]); err != nil {
			return
		}
	}
	enc := expfmt.NewEncoder(out, expfmt.FmtText)
	for _, f := range others {
		if err := enc.Encode(f); err != nil {
			return
		}
	}
}

// gather gathers the Gatherer's families and checks that none is named like the
// Handler's.
func (h *Handler) gather() ([]*dto.MetricFamily, error) {
	families, err := h.opts.Gatherer.Gather()
	for _, f := range families {
		if slices.Contains(h.names[:], f.GetName()) {
			return nil, fmt.Errorf("the Gatherer has a family of its own named %s, as the Handler's: register no Collector of this package in it", f.GetName())
		}
	}
	return families, err
}

// Close stops counting breaker transitions. Scrapes after Close still work; the
// transition counters stop growing.
func (h *Handler) Close() { h.r.Close() }
