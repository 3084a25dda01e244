package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// Machine is where a section of the published tables was measured. Ratios move between
// CPUs (and with the cores a parallel case gets), so bench-check compares a measurement
// with the figures of the same CPU model and cores.
type Machine struct {
	CPU        string // the CPU model, as /proc/cpuinfo names it; "" when not recorded
	Cores      int    // runtime.NumCPU
	Go         string // runtime.Version
	Conditions string // what else ran: "idle", "loaded (load average 3.10 at the start)", ...
	Date       string // when, YYYY-MM-DD
	Runs       int    // how many runs the section's medians and ranges are over
}

// machinePrefix starts the line of a section's Machine.
const machinePrefix = "Machine: "

// unrecorded is the CPU of a Machine whose model is not known.
const unrecorded = "CPU model not recorded"

// String returns the Machine line, e.g. "Machine: AMD EPYC; 2 cores; go1.26.8; idle;
// 2026-12-02; 5 runs". Its fields are separated by "; ", so none may contain one.
func (m Machine) String() string {
	return fmt.Sprintf("%s%s; %d cores; %s; %s; %s; %d runs", machinePrefix, m.cpu(), m.Cores, m.Go, m.Conditions, m.Date, m.Runs)
}

// Name returns the CPU model and cores, e.g. "AMD EPYC, 2 cores".
func (m Machine) Name() string { return fmt.Sprintf("%s, %d cores", m.cpu(), m.Cores) }

func (m Machine) cpu() string {
	if m.CPU == "" {
		return unrecorded
	}
	return m.CPU
}

// Same reports whether m and o are the same kind of machine: a known CPU model, the same
// on both, and as many cores.
func (m Machine) Same(o Machine) bool { return m.CPU != "" && m.CPU == o.CPU && m.Cores == o.Cores }

// ParseMachine reads a Machine line back.
func ParseMachine(line string) (Machine, error) {
	fields := strings.Split(strings.TrimPrefix(line, machinePrefix), "; ")
	if !strings.HasPrefix(line, machinePrefix) || len(fields) != 6 {
		return Machine{}, fmt.Errorf("bench: machine line %q: want %q and six fields separated by \"; \"", line, machinePrefix)
	}
	m := Machine{CPU: fields[0], Go: fields[2], Conditions: fields[3], Date: fields[4]}
	if m.CPU == unrecorded {
		m.CPU = ""
	}
	cores, ok := strings.CutSuffix(fields[1], " cores")
	runs, ok2 := strings.CutSuffix(fields[5], " runs")
	var err, err2 error
	m.Cores, err = strconv.Atoi(cores)
	m.Runs, err2 = strconv.Atoi(runs)
	if !ok || !ok2 || err != nil || err2 != nil {
		return Machine{}, fmt.Errorf("bench: machine line %q: want \"<n> cores\" second and \"<n> runs\" last", line)
	}
	return m, nil
}

// CPUModel returns the first "model name" of a /proc/cpuinfo, "" when it names none.
func CPUModel(cpuinfo string) string {
	for line := range strings.Lines(cpuinfo) {
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(name) == "model name" {
			return strings.ReplaceAll(strings.TrimSpace(value), ";", ",")
		}
	}
	return ""
}

// Load describes the machine's load from a /proc/loadavg and its cores: "idle" below a
// quarter of a runnable task per core over the last minute, else "loaded", with the
// figure; "" when loadavg cannot be read.
func Load(loadavg string, cores int) string {
	fields := strings.Fields(loadavg)
	if len(fields) == 0 || cores < 1 {
		return ""
	}
	l, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return ""
	}
	state := "loaded"
	if l < 0.25*float64(cores) {
		state = "idle"
	}
	return fmt.Sprintf("%s (load average %.2f at the start)", state, l)
}
