//go:build unix

package chattest

import "golang.org/x/sys/unix"

// monotonicNow returns the time of CLOCK_MONOTONIC in nanoseconds: a clock that every process
// on the machine reads alike and that never steps back, so that the operations of several
// processes are ordered by the instants they were called and returned.
func monotonicNow() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("chattest: reading CLOCK_MONOTONIC: " + err.Error())
	}
	return ts.Nano()
}
