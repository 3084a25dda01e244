package doctest

import (
	"encoding/json"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Snippet is a Go code block of a Markdown document.
type Snippet struct {
	Line int    // the document's line of the block's first line of code
	Code string // the code, without the fences and the fences' indentation
}

// Snippets returns the ```go blocks of the Markdown text doc, in order. A fence may be
// indented (a block inside a list item); its indentation is removed from every line.
func Snippets(doc string) []Snippet {
	var out []Snippet
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		indent, ok := strings.CutSuffix(lines[i], "```go")
		if !ok || strings.TrimSpace(indent) != "" {
			continue
		}
		s := Snippet{Line: i + 2}
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			s.Code += strings.TrimPrefix(lines[i], indent) + "\n"
		}
		out = append(out, s)
	}
	return out
}

// AssertCompiles compiles every Go block of the Markdown files docs and reports each
// error at its line in its document. A block is a Go file without its package clause,
// formatted as gofmt would: its imports, then declarations, so a reader can copy it whole.
// A block without imports continues the block before it in the same document: they are
// compiled as one file. Each block is compiled as a package of its own in the module of
// the repository at root whose path is the longest prefix of one of its imports (a contrib
// module for a block that imports it, else the module at root), so its imports resolve as
// a user's would, with go build and an overlay: nothing is written into the repository.
// The blocks of every document are built together, one go build per module.
func AssertCompiles(t testing.TB, root string, docs ...string) {
	t.Helper()
	mods, err := modules(root)
	if err != nil {
		t.Fatal(err)
		return
	}
	files := map[string][]string{} // module dir -> the files of its snippet packages
	for _, doc := range docs {
		if err := collect(t, doc, root, mods, files); err != nil {
			t.Fatal(err)
			return
		}
	}
	for dir, pkgs := range files {
		if out, err := build(t.TempDir(), dir, pkgs); err != nil {
			t.Errorf("the Go blocks of %s do not compile (%v):\n%s", strings.Join(docs, ", "), err, out)
		}
	}
}

// collect adds the snippet files of the Markdown file doc to files, by module directory.
func collect(t testing.TB, doc, root string, mods []module, files map[string][]string) error {
	t.Helper()
	text, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	name, err := filepath.Rel(root, doc)
	if err != nil {
		name = doc
	}
	var file string // the file being built: a block and its continuations
	flush := func() {
		if file == "" {
			return
		}
		dir, err := moduleOf(file, mods, root)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		files[dir] = append(files[dir], file)
		file = ""
	}
	for _, s := range Snippets(string(text)) {
		if src := "package snippet\n\n" + s.Code; !gofmted(src) {
			t.Errorf("%s:%d: the Go block is not formatted as gofmt would", name, s.Line)
		}
		code := "//line " + name + ":" + strconv.Itoa(s.Line) + "\n" + s.Code
		if file != "" && !hasImports(s.Code) {
			file += code // a continuation of the block before
			continue
		}
		flush()
		file = "package snippet\n\n" + code
	}
	flush()
	return nil
}

// gofmted reports whether src is formatted as gofmt would.
func gofmted(src string) bool {
	out, err := format.Source([]byte(src))
	return err == nil && string(out) == src
}

// hasImports reports whether the code of a block starts with imports.
func hasImports(code string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), "snippet.go", "package snippet\n"+code, parser.ImportsOnly)
	return err == nil && len(f.Imports) > 0
}

// module is a Go module of the repository.
type module struct{ path, dir string }

var modulePath = regexp.MustCompile(`(?m)^module\s+(\S+)`)

// modules returns the modules of the repository at root, longest path first.
func modules(root string) ([]module, error) {
	var mods []module
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.Name() != "go.mod" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if m := modulePath.FindSubmatch(b); m != nil {
			mods = append(mods, module{path: string(m[1]), dir: filepath.Dir(p)})
		}
		return nil
	})
	slices.SortFunc(mods, func(a, b module) int { return len(b.path) - len(a.path) })
	return mods, err
}

// moduleOf returns the directory of the module a snippet file compiles in.
func moduleOf(file string, mods []module, root string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "snippet.go", file, parser.ImportsOnly)
	if err != nil {
		return "", err
	}
	for _, m := range mods { // longest path first
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == m.path || strings.HasPrefix(p, m.path+"/") {
				return m.dir, nil
			}
		}
	}
	return root, nil
}

// build compiles each file as a package of its own in the module at dir, through an
// overlay kept in tmp, and returns go build's output.
func build(tmp, dir string, files []string) ([]byte, error) {
	overlay := map[string]map[string]string{"Replace": {}}
	args := []string{"build", "-overlay", filepath.Join(tmp, "overlay.json")}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for i, f := range files {
		pkg := fmt.Sprintf("doctest_snippet%d", i+1)
		src := filepath.Join(tmp, pkg+".go")
		if err := os.WriteFile(src, []byte(f), 0o600); err != nil {
			return nil, err
		}
		overlay["Replace"][filepath.Join(abs, pkg, "snippet.go")] = src
		args = append(args, "./"+pkg)
	}
	b, err := json.Marshal(overlay)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "overlay.json"), b, 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}
