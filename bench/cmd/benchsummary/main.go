package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchsummary:", err)
		os.Exit(1)
	}
}

// run summarises the files named in args, or stdin when there are none, into out. It
// fails after writing the table when the input reports a failed test or benchmark, so
// that `go test ... | tee bench.txt && benchsummary < bench.txt` fails too.
func run(args []string, stdin io.Reader, out io.Writer) error {
	var in []io.Reader
	for _, name := range args {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = append(in, f)
	}
	if len(in) == 0 {
		in = append(in, stdin)
	}
	s, err := Parse(io.MultiReader(in...))
	if err != nil {
		return err
	}
	if err := s.WriteMarkdown(out); err != nil {
		return err
	}
	if len(s.Failures) > 0 {
		return fmt.Errorf("the benchmark run failed: %s", strings.Join(s.Failures, "; "))
	}
	return nil
}
