//go:build !(linux || darwin)

package redislimit_test

// monotonic has no clock that processes share here.
func monotonic() int64 { return 0 }

// haveMonotonic says whether monotonic reads a clock that processes share.
const haveMonotonic = false
