package doctest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is a testing.TB that records failures instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
	msgs   []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) { r.failed = true; r.msgs = append(r.msgs, fmt.Sprint(args...)) }

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

func TestSnippets(t *testing.T) {
	doc := "# T\n\n```go\nfunc a() {}\n```\n\n- item\n\n  ```go\n  func b() {\n  \tc()\n  }\n  ```\n\n```yaml\nx: 1\n```\n"
	assert.Equal(t, []Snippet{
		{Line: 4, Code: "func a() {}\n"},
		{Line: 10, Code: "func b() {\n\tc()\n}\n"},
	}, Snippets(doc))
}

func TestAssertCompiles(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(text), 0o600))
	}
	write("go.mod", "module example.com/m\n\ngo 1.25\n")
	write("lib/lib.go", "package lib\n\nfunc Answer() int { return 42 }\n")
	write("sub/go.mod", "module example.com/m/sub\n\ngo 1.25\n")
	write("sub/sub.go", "package sub\n\nconst Name = \"sub\"\n")
	good := "```go\nimport (\n\t\"fmt\"\n\n\t\"example.com/m/lib\"\n)\n\nfunc show() { fmt.Println(lib.Answer()) }\n```\n\n" +
		"A continuation uses the imports above:\n\n```go\nfunc again() { fmt.Println(lib.Answer()); show() }\n```\n\n" +
		"A block of the other module:\n\n```go\nimport \"example.com/m/sub\"\n\nvar name = sub.Name\n```\n"

	write("README.md", good)
	r := &recorder{TB: t}
	AssertCompiles(r, root, filepath.Join(root, "README.md"))
	assert.False(t, r.failed, "every block compiles: %v", r.msgs)

	write("README.md", good+"\n```go\nimport \"fmt\"\n\nfunc broken() { fmt.Println(fetchUser()) }\n```\n")
	r = &recorder{TB: t}
	AssertCompiles(r, root, filepath.Join(root, "README.md"))
	require.True(t, r.failed, "an undefined name is caught")
	assert.Contains(t, strings.Join(r.msgs, "\n"), "README.md:28:", "at its line in the document")
	assert.Contains(t, strings.Join(r.msgs, "\n"), "undefined: fetchUser")

	write("README.md", good+"\n```go\nimport \"fmt\"\n\nfunc unformatted() {  fmt.Println() }\n```\n")
	r = &recorder{TB: t}
	AssertCompiles(r, root, filepath.Join(root, "README.md"))
	assert.Equal(t, []string{"README.md:26: the Go block is not formatted as gofmt would"}, r.msgs)

	write("README.md", good)
	write("docs/page.md", "```go\nfunc more() { fmt.Println(lib.Answer()) }\n```\n")
	r = &recorder{TB: t}
	AssertCompiles(r, root, filepath.Join(root, "README.md"), filepath.Join(root, "docs/page.md"))
	require.True(t, r.failed, "a page does not continue the document before it")
	assert.Contains(t, strings.Join(r.msgs, "\n"), "docs/page.md:2:", "at its line in its page")

	write("README.md", "```go\nfunc alone() { fmt.Println() }\n```\n")
	r = &recorder{TB: t}
	AssertCompiles(r, root, filepath.Join(root, "README.md"))
	assert.True(t, r.failed, "a first block without imports has none")
}
