//go:build linux || darwin

package redislimit_test

import "golang.org/x/sys/unix"

// monotonic reads CLOCK_MONOTONIC, in nanoseconds: one clock for every process of the
// machine, which the processes of a linearizability check stamp their calls with. (Go's
// time.Now carries a monotonic reading too, but one that is relative to its own process.)
func monotonic() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("reading CLOCK_MONOTONIC: " + err.Error())
	}
	return ts.Nano()
}

// haveMonotonic says whether monotonic reads a clock that processes share.
const haveMonotonic = true
