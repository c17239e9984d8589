package mcpbridge_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when any goroutine outlives them: a served call or an
// imported tool must not leave work behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
