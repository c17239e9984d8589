package ratelimit_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when any goroutine outlives them: a request waiting for
// room must return when its run does.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
