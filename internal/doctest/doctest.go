// Package doctest keeps the code a Markdown file shows compiling and true:
// AssertCompiles compiles every Go block of the documents (make test runs it on the
// README and every page of docs/), and AssertShows checks that the document shows functions of an example file,
// whose Example tests run, verbatim.
package doctest

import (
	"os"
	"strings"
	"testing"
)

// AssertShows checks that the document doc contains, verbatim, each function of the Go
// file src whose text starts with one of prefixes (e.g. "func routes("), up to its
// closing brace at the start of a line.
func AssertShows(t testing.TB, doc, src string, prefixes ...string) {
	t.Helper()
	d, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
		return
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
		return
	}
	code := string(b)
	for _, p := range prefixes {
		start := strings.Index(code, p)
		if start < 0 {
			t.Errorf("%s has no %s", src, p)
			continue
		}
		end := strings.Index(code[start:], "\n}\n")
		if end < 0 {
			t.Errorf("%s: %s has no closing brace", src, p)
			continue
		}
		if fn := code[start : start+end+2]; !strings.Contains(string(d), fn) {
			t.Errorf("%s does not show %s as it is in %s:\n%s", doc, p, src, fn)
		}
	}
}
