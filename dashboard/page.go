package dashboard

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"net/http"
	"path"
	"strings"
	"time"
)

// defaultStream is the stream the page watches when NewPageHandler is given none.
const defaultStream = "/hystrix.stream"

//go:embed page
var pageFiles embed.FS

// pageCSP lets the page run only its own script and style and connect to any stream.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; " +
	"connect-src *; form-action 'self'; base-uri 'none'; frame-ancestors 'self'"

// pageHandler serves the dashboard page: index.html (with the default streams filled
// in), dashboard.js and dashboard.css, all read once at construction.
type pageHandler struct {
	files map[string]pageFile // by base name; index.html is also served for ".../"
}

// pageTypes are the content types of the page's files (not mime's table, which the
// system's mime.types can change).
var pageTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}

type pageFile struct {
	body        []byte
	contentType string
	etag        string
}

// NewPageHandler returns the handler of the dashboard page, a single page that shows
// live what /hystrix.stream publishes: every circuit (a circle sized by its request rate
// and coloured by its health, requests per second counting every call short circuits
// included, error percentage, event counts, breaker state with the time it changed,
// latency percentiles and a two-minute sparkline), every thread pool (with its core and
// maximum size and queue limit) and every collapser, with a filter and a sort. Mount it
// on a pattern that ends in "/", e.g. mux.Handle("/hystrix/", ...): the page loads its
// script and style relative to its own address.
//
// streams are the stream URLs it watches (absolute, or relative to the page), default
// /hystrix.stream; the page address can name others with ?stream=URL (repeated, or
// separated by spaces). With several streams the page sums each name over them, as
// Turbine sums hosts, and shows the host count; streams on another origin must allow
// the page's origin (WithAllowOrigin). The page needs no other file and no internet.
//
// Only GET and HEAD are answered (405 otherwise); unknown names get 404.
func NewPageHandler(streams ...string) http.Handler {
	if len(streams) == 0 {
		streams = []string{defaultStream}
	}
	list, err := json.Marshal(streams)
	if err != nil {
		panic(err) // strings always marshal
	}
	h := &pageHandler{files: map[string]pageFile{}}
	index := template.Must(template.ParseFS(pageFiles, "page/index.html"))
	var b bytes.Buffer
	if err := index.Execute(&b, string(list)); err != nil {
		panic(err) // a string always renders
	}
	h.add("index.html", b.Bytes())
	for _, name := range []string{"dashboard.js", "dashboard.css"} {
		body, err := pageFiles.ReadFile("page/" + name)
		if err != nil {
			panic(err) // embedded at build time
		}
		h.add(name, body)
	}
	return h
}

func (h *pageHandler) add(name string, body []byte) {
	sum := sha256.Sum256(body)
	h.files[name] = pageFile{body: body, contentType: pageTypes[path.Ext(name)],
		etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
}

// ServeHTTP serves one file of the page, revalidated by ETag.
func (h *pageHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: "+r.Method, http.StatusMethodNotAllowed)
		return
	}
	name := path.Base(r.URL.Path)
	if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") {
		name = "index.html"
	}
	f, ok := h.files[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", f.contentType)
	hdr.Set("Cache-Control", "no-cache") // revalidate, so an upgrade shows at once
	hdr.Set("ETag", f.etag)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Security-Policy", pageCSP)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(f.body))
}
