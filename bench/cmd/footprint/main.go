// Command footprint measures what each library adds to a program's binary and prints it
// as a Markdown table. It builds the minimal program of every library in footprint/ (one
// call through the library: its breaker, and its timeout and fallback where it has them)
// with go build, as is and stripped (-ldflags=-s -w), next to a program that only prints
// with fmt.
//
// The rxhystrix program is built a second time against a copy of RxGo whose non-test
// helpers (assert.go, which imports testify's assert, and the testify mock in
// duration.go) are cut out: a build no user can make, which shows what those helpers
// cost every program that imports RxGo.
//
//	cd bench && go run ./cmd/footprint
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// programs are the directories under footprint/, in the order of the table.
var programs = []struct{ dir, name string }{
	{"stdlib", "Go alone (`fmt.Println`)"},
	{"gobreaker", "sony/gobreaker"},
	{"failsafe", "failsafe-go"},
	{"afex", "afex/hystrix-go"},
	{"cep21", "cep21/circuit"},
	{"rxhystrix", "rxhystrix"},
}

const rxgo = "github.com/reactivex/rxgo/v2"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "footprint:", err)
		os.Exit(1)
	}
}

func run() error {
	tmp, err := os.MkdirTemp("", "footprint")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	fmt.Println("| program | go build | -ldflags=\"-s -w\" |")
	fmt.Println("|---|---:|---:|")
	for _, p := range programs {
		plain, stripped, err := sizes(tmp, p.dir)
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %s | %s |\n", p.name, mb(plain), mb(stripped))
	}
	modfile, err := withoutRxGoHelpers(tmp)
	if err != nil {
		return err
	}
	plain, stripped, err := sizes(tmp, "rxhystrix", "-modfile", modfile)
	if err != nil {
		return err
	}
	fmt.Printf("| rxhystrix, RxGo's test helpers cut out (not a build users can make) | %s | %s |\n", mb(plain), mb(stripped))
	return nil
}

// sizes builds footprint/dir as is and stripped and returns the sizes of both binaries.
func sizes(tmp, dir string, flags ...string) (plain, stripped int64, err error) {
	for i, ld := range []string{"", "-s -w"} {
		out := filepath.Join(tmp, dir+strconv.Itoa(i))
		args := append([]string{"build", "-o", out, "-ldflags=" + ld}, flags...)
		cmd := exec.Command("go", append(args, "./footprint/"+dir)...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			return 0, 0, fmt.Errorf("go build %s: %v\n%s", dir, err, msg)
		}
		fi, err := os.Stat(out)
		if err != nil {
			return 0, 0, err
		}
		if i == 0 {
			plain = fi.Size()
		} else {
			stripped = fi.Size()
		}
	}
	return plain, stripped, nil
}

// withoutRxGoHelpers copies RxGo into tmp without assert.go and the mock of duration.go,
// and returns a copy of this module's go.mod (with go.sum beside it) that uses the copy.
func withoutRxGoHelpers(tmp string) (modfile string, err error) {
	src, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", rxgo).Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %w", rxgo, err)
	}
	from, to := strings.TrimSpace(string(src)), filepath.Join(tmp, "rxgo")
	if err := os.MkdirAll(to, 0o755); err != nil {
		return "", err
	}
	files, err := os.ReadDir(from)
	if err != nil {
		return "", err
	}
	for _, f := range files {
		name := f.Name()
		if f.IsDir() || name == "assert.go" || strings.HasSuffix(name, "_test.go") ||
			!(strings.HasSuffix(name, ".go") || name == "go.mod") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			return "", err
		}
		if name == "duration.go" {
			if b, err = withoutMock(b); err != nil {
				return "", err
			}
		}
		if err := os.WriteFile(filepath.Join(to, name), b, 0o644); err != nil {
			return "", err
		}
	}

	root, err := filepath.Abs("..")
	if err != nil {
		return "", err
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		return "", err
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		return "", err
	}
	mod = bytes.Replace(mod, []byte("=> ../"), []byte("=> "+root), 1)
	mod = fmt.Appendf(mod, "\nreplace %s => %s\n", rxgo, to)
	modfile = filepath.Join(tmp, "go.mod")
	if err := os.WriteFile(modfile, mod, 0o644); err != nil {
		return "", err
	}
	return modfile, os.WriteFile(filepath.Join(tmp, "go.sum"), sum, 0o644)
}

// withoutMock returns RxGo's duration.go without the type that embeds testify's
// mock.Mock, its methods and the import.
func withoutMock(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "duration.go", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	const mocked = "mockDuration"
	var decls []ast.Decl
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.TYPE && d.Specs[0].(*ast.TypeSpec).Name.Name == mocked {
				continue
			}
			if d.Tok == token.IMPORT {
				var specs []ast.Spec
				for _, s := range d.Specs {
					if !strings.Contains(s.(*ast.ImportSpec).Path.Value, "testify") {
						specs = append(specs, s)
					}
				}
				d.Specs = specs
			}
		case *ast.FuncDecl:
			if d.Recv != nil && strings.Contains(types(d.Recv), mocked) {
				continue
			}
		}
		decls = append(decls, d)
	}
	f.Decls, f.Comments = decls, nil
	var b bytes.Buffer
	err = format.Node(&b, fset, f)
	return b.Bytes(), err
}

// types returns the receiver's type as written.
func types(l *ast.FieldList) string {
	var b bytes.Buffer
	_ = format.Node(&b, token.NewFileSet(), l.List[0].Type)
	return b.String()
}

// mb formats a size in MB with one decimal.
func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
