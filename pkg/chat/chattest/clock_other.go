//go:build !unix

package chattest

import "time"

// monotonicNow returns the wall clock in nanoseconds: processes share it, but it may step,
// which can make a linearizable history of several processes look otherwise. Unix systems
// read CLOCK_MONOTONIC instead.
func monotonicNow() int64 { return time.Now().UnixNano() }
