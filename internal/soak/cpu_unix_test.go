//go:build unix

package soak

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used so far, user and system.
func cpuTime() (time.Duration, bool) {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0, false
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()), true
}
