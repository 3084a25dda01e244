package dashboard

import (
	"encoding/json"
	"html"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pageServer serves the page under /hystrix/ as a user mounts it.
func pageServer(t *testing.T, streams ...string) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("/hystrix/", NewPageHandler(streams...))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func fetch(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := http.DefaultTransport.RoundTrip(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	return fetch(t, req)
}

var dataStreams = regexp.MustCompile(`data-streams="([^"]*)"`)

// pageStreams returns the default streams written into an index page.
func pageStreams(t *testing.T, index string) []string {
	t.Helper()
	m := dataStreams.FindStringSubmatch(index)
	require.NotNil(t, m, "no data-streams attribute")
	var streams []string
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(m[1])), &streams))
	return streams
}

func TestPageIndex(t *testing.T) {
	srv := pageServer(t)
	resp, body := get(t, srv.URL+"/hystrix/")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "script-src 'self'")
	assert.Equal(t, []string{defaultStream}, pageStreams(t, body))

	resp, _ = get(t, srv.URL+"/hystrix")
	assert.Equal(t, http.StatusTemporaryRedirect, resp.StatusCode, "the mux redirects to the pattern's slash")
	assert.Equal(t, "/hystrix/", resp.Header.Get("Location"))
}

func TestPageStreamsAreEscaped(t *testing.T) {
	streams := []string{"http://a:1/hystrix.stream", `/x"><script>alert(1)</script>`}
	_, body := get(t, pageServer(t, streams...).URL+"/hystrix/")
	assert.Equal(t, streams, pageStreams(t, body))
	assert.NotContains(t, body, "<script>alert")
}

// TestPageFiles serves every file the index refers to, with its type, and the embedded
// bytes; a name the page does not have is 404.
func TestPageFiles(t *testing.T) {
	srv := pageServer(t)
	_, index := get(t, srv.URL+"/hystrix/")
	refs := regexp.MustCompile(`(?:src|href)="([^":]+)"`).FindAllStringSubmatch(index, -1)
	require.Len(t, refs, 2, "the script and the style sheet")
	types := map[string]string{"dashboard.js": "text/javascript; charset=utf-8", "dashboard.css": "text/css; charset=utf-8"}
	for _, ref := range refs {
		resp, body := get(t, srv.URL+"/hystrix/"+ref[1])
		assert.Equal(t, http.StatusOK, resp.StatusCode, ref[1])
		assert.Equal(t, types[ref[1]], resp.Header.Get("Content-Type"), ref[1])
		want, err := pageFiles.ReadFile("page/" + ref[1])
		require.NoError(t, err)
		assert.Equal(t, string(want), body)
	}
	resp, _ := get(t, srv.URL+"/hystrix/nothing.js")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestPageMethods(t *testing.T) {
	srv := pageServer(t)
	req, err := http.NewRequest(http.MethodHead, srv.URL+"/hystrix/dashboard.js", nil)
	require.NoError(t, err)
	resp, body := fetch(t, req)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Empty(t, body)

	req, err = http.NewRequest(http.MethodPost, srv.URL+"/hystrix/", nil)
	require.NoError(t, err)
	resp, _ = fetch(t, req)
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, "GET, HEAD", resp.Header.Get("Allow"))
}

func TestPageRevalidatesByETag(t *testing.T) {
	srv := pageServer(t)
	resp, _ := get(t, srv.URL+"/hystrix/dashboard.css")
	etag := resp.Header.Get("ETag")
	require.NotEmpty(t, etag)
	assert.Equal(t, "no-cache", resp.Header.Get("Cache-Control"))
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/hystrix/dashboard.css", nil)
	require.NoError(t, err)
	req.Header.Set("If-None-Match", etag)
	resp, body := fetch(t, req)
	assert.Equal(t, http.StatusNotModified, resp.StatusCode)
	assert.Empty(t, body)
}

// TestPageAssetsBudget keeps everything the page loads under 200 KB.
func TestPageAssetsBudget(t *testing.T) {
	total := 0
	require.NoError(t, fs.WalkDir(pageFiles, "page", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		total += int(info.Size())
		return err
	}))
	assert.Less(t, total, 200<<10)
	t.Logf("page assets: %d bytes", total)
}

func TestAllowOrigin(t *testing.T) {
	s, _ := newSampleStream(t)
	assert.Empty(t, s.connect().resp.Header.Get("Access-Control-Allow-Origin"), "none by default")
	s, _ = newSampleStream(t, WithAllowOrigin("http://ops.example"))
	assert.Equal(t, "http://ops.example", s.connect().resp.Header.Get("Access-Control-Allow-Origin"))
}
