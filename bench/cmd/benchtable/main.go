// Command benchtable measures the README's performance tables (the peer comparison and
// rxhystrix's front doors) with the libraries taking turns (bench.Compare), and prints
// them, checks the README's against them, or rewrites the README's.
//
// Each run measures every case once; the tables show, per case, the median over the runs
// of rxhystrix's time per call, its allocations per call, and for every ratio the median
// of the runs' medians with the lowest and highest of them.
//
//	go run ./cmd/benchtable [-runs 5] [-turns 100] [-turn 2ms]          # print the tables
//	go run ./cmd/benchtable -runs 5 -check ../README.md [-tolerance 0.2] # make bench-check
//	go run ./cmd/benchtable -runs 5 -write ../README.md                 # regenerate them
//
// -check fails (exit status 1) when the README's tables name other cases, publish other
// allocations, or publish a ratio that the measured median is both more than -tolerance
// (relative) away from and outside the published range of: the README cannot drift from
// the code by more than the machine's noise.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/rxhystrix/rxhystrix/bench"
)

func main() {
	runs := flag.Int("runs", 5, "runs of every case; the tables show the median and the range of their medians")
	turns := flag.Int("turns", 100, "turns per case and run: the libraries take turns this many times")
	turn := flag.Duration("turn", 2*time.Millisecond, "about how long one library calls in each turn")
	check := flag.String("check", "", "a README whose tables must match the measurement")
	write := flag.String("write", "", "a README whose tables to replace with the measurement")
	tolerance := flag.Float64("tolerance", 0.2, "with -check: how far (relative) a ratio may be from the published one when it is also outside the published runs")
	flag.Parse()
	if err := run(*runs, *turns, *turn, *check, *write, *tolerance); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

func run(runs, turns int, turn time.Duration, check, write string, tolerance float64) error {
	if runs < 1 || turns < 1 {
		return fmt.Errorf("need -runs >= 1 and -turns >= 1")
	}
	var all [][]bench.Comparison
	for i := range runs {
		fmt.Fprintf(os.Stderr, "benchtable: run %d of %d\n", i+1, runs)
		var cs []bench.Comparison
		for _, c := range bench.Cases() {
			cmp, err := bench.Compare(c, bench.Libraries(), turns, turn)
			if err != nil {
				return err
			}
			cs = append(cs, cmp)
		}
		all = append(all, cs)
	}
	rows := bench.Summarize(all)
	fmt.Print(bench.Tables(rows))
	switch {
	case check != "":
		doc, err := os.ReadFile(check)
		if err != nil {
			return err
		}
		published, err := bench.ParseTables(string(doc))
		if err != nil {
			return err
		}
		if err := bench.Check(published, rows, tolerance); err != nil {
			return fmt.Errorf("%s does not match the measurement:\n%w", check, err)
		}
		fmt.Fprintf(os.Stderr, "benchtable: %s matches the measurement (tolerance %.0f %%)\n", check, tolerance*100)
	case write != "":
		doc, err := os.ReadFile(write)
		if err != nil {
			return err
		}
		updated, err := bench.ReplaceTables(string(doc), rows)
		if err != nil {
			return err
		}
		return os.WriteFile(write, []byte(updated), 0o644)
	}
	return nil
}
