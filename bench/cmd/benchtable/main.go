// Command benchtable measures the performance tables of bench/README.md (the peer
// comparison and rxhystrix's front doors) with the libraries taking turns (bench.Compare),
// and prints them, checks the published ones against them, or writes them into the
// document as the section of this machine.
//
// Each run measures every case once; the tables show, per case, the median over the runs
// of rxhystrix's time per call, its allocations per call, and for every ratio the median
// of the runs' medians with the lowest and highest of them. A section starts with its
// Machine line: CPU model (/proc/cpuinfo), cores, Go version, conditions (the load
// average at the start, unless -conditions says more), date and runs.
//
//	go run ./cmd/benchtable [-runs 5] [-turns 100] [-turn 2ms]       # print this machine's section
//	go run ./cmd/benchtable -runs 5 -check README.md [-tolerance 0.2] # make bench-check
//	go run ./cmd/benchtable -runs 9 -write README.md                  # make bench-readme
//
// -check fails (exit status 1) when a section names other cases or publishes other
// allocations, or when a measured ratio is both more than -tolerance (relative) away
// from the published median and outside the published runs' range: those of the section
// of this CPU model and cores, or, when there is none or the model is unknown, those of
// every section; it also fails when a measurement leaves one of bench.Goals (issue 39's
// acceptance ratios and allocations), on any machine. -write replaces this machine's
// section, or adds one after the last.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/rxhystrix/rxhystrix/bench"
)

func main() {
	runs := flag.Int("runs", 5, "runs of every case; the tables show the median and the range of their medians")
	turns := flag.Int("turns", 100, "turns per case and run: the libraries take turns this many times")
	turn := flag.Duration("turn", 2*time.Millisecond, "about how long one library calls in each turn")
	check := flag.String("check", "", "a document whose sections the measurement must match")
	write := flag.String("write", "", "a document to write this machine's section into")
	tolerance := flag.Float64("tolerance", 0.2, "with -check: how far (relative) a ratio may be from a published one when it is also outside the published runs")
	cpu := flag.String("cpu", "", "the CPU model, when /proc/cpuinfo does not name it")
	conditions := flag.String("conditions", "", "what else ran on the machine (default: idle or loaded, from the load average at the start)")
	flag.Parse()
	m := thisMachine(*cpu, *conditions, *runs)
	if err := run(m, *turns, *turn, *check, *write, *tolerance); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// thisMachine describes the machine the measurement runs on; flags given win.
func thisMachine(cpu, conditions string, runs int) bench.Machine {
	m := bench.Machine{CPU: cpu, Cores: runtime.NumCPU(), Go: runtime.Version(), Conditions: conditions,
		Date: time.Now().UTC().Format(time.DateOnly), Runs: runs}
	if m.CPU == "" {
		b, _ := os.ReadFile("/proc/cpuinfo")
		m.CPU = bench.CPUModel(string(b))
	}
	if m.Conditions == "" {
		b, _ := os.ReadFile("/proc/loadavg")
		m.Conditions = bench.Load(string(b), m.Cores)
	}
	if m.Conditions == "" {
		m.Conditions = "conditions not recorded"
	}
	m.Conditions = strings.ReplaceAll(m.Conditions, ";", ",")
	return m
}

func run(m bench.Machine, turns int, turn time.Duration, check, write string, tolerance float64) error {
	if m.Runs < 1 || turns < 1 {
		return fmt.Errorf("need -runs >= 1 and -turns >= 1")
	}
	if write != "" && m.CPU == "" {
		return fmt.Errorf("-write: /proc/cpuinfo names no CPU model; give it with -cpu")
	}
	fmt.Fprintf(os.Stderr, "benchtable: measuring on %s\n", m.Name())
	var all [][]bench.Comparison
	for i := range m.Runs {
		fmt.Fprintf(os.Stderr, "benchtable: run %d of %d\n", i+1, m.Runs)
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
	section := bench.Section{Machine: m, Rows: bench.Summarize(all)}
	fmt.Print(section.Text())
	switch {
	case check != "":
		doc, err := os.ReadFile(check)
		if err != nil {
			return err
		}
		published, err := bench.ParseSections(string(doc))
		if err != nil {
			return err
		}
		if err := errors.Join(bench.Check(published, section.Rows, m, tolerance), bench.CheckGoals(bench.Goals, section.Rows)); err != nil {
			return fmt.Errorf("%s does not match the measurement, or a goal is left:\n%w", check, err)
		}
		fmt.Fprintf(os.Stderr, "benchtable: %s matches the measurement (tolerance %.0f %%) and every goal holds\n", check, tolerance*100)
	case write != "":
		doc, err := os.ReadFile(write)
		if err != nil {
			return err
		}
		updated, err := bench.ReplaceSection(string(doc), section)
		if err != nil {
			return err
		}
		return os.WriteFile(write, []byte(updated), 0o644)
	}
	return nil
}
