package assistant_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when any goroutine outlives them: a run must wait for its
// tool calls and model requests before it returns, also when it is cancelled.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
