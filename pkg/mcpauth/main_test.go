package mcpauth_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when any goroutine outlives them: an Authorizer refreshes
// its keys only while its context lasts, and a request through Protect leaves nothing behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
