//go:build unix

package hystrixprom

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used so far, user and system, all its
// threads (the garbage collector's included): on a machine shared with other jobs, a
// measure of the work a scrape does that their load does not inflate as it does the
// wall-clock time.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
