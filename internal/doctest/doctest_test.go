package doctest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is a testing.TB that records failures instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }

func TestAssertShows(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "x.go")
	doc := filepath.Join(dir, "README.md")
	write := func(name, text string) {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(src, "package x\n\nfunc a() {\n\tb()\n}\n\nfunc c() {}\n")

	write(doc, "text\n```go\nfunc a() {\n\tb()\n}\n```\n")
	r := &recorder{TB: t}
	AssertShows(r, doc, src, "func a(")
	assert.False(t, r.failed, "the document shows a verbatim")

	write(doc, "```go\nfunc a() {\n\tc()\n}\n```\n")
	r = &recorder{TB: t}
	AssertShows(r, doc, src, "func a(")
	assert.True(t, r.failed, "a different body is caught")

	r = &recorder{TB: t}
	AssertShows(r, doc, src, "func missing(")
	assert.True(t, r.failed, "a function the source lacks is caught")
}
