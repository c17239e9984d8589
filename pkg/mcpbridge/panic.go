package mcpbridge

import (
	"context"
	"fmt"
	"runtime/debug"
)

// PanicError is a panic recovered from an agent or a tool served by the bridge. The MCP client
// is told only that an internal error happened, since a panic's value may hold anything; the
// handler given with WithErrorHandler receives the PanicError.
type PanicError struct {
	Name  string // the prompt or tool, as registered
	Value any    // what was passed to panic
	Stack []byte // the stack of the goroutine that panicked
}

// Error says what panicked and with what value: it is for logs, not for clients.
func (e *PanicError) Error() string { return fmt.Sprintf("%q panicked: %v", e.Name, e.Value) }

// internalError is what a client is told of a panic.
func internalError(kind, name string) string {
	return fmt.Sprintf("%s %q failed unexpectedly (an internal error; the server's log has the details)", kind, name)
}

// recovered turns a recovered panic value into a reported *PanicError. Call it only from a
// deferred function, with recover()'s non-nil result.
func (c *config) recovered(ctx context.Context, v any) {
	c.report(ctx, &PanicError{Name: c.name, Value: v, Stack: debug.Stack()})
}

// register runs add, which registers a prompt or tool with mcp-go, and turns a panic of
// mcp-go's (it panics on some conflicts) into an error.
func register(kind, name string, add func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("mcpbridge: the server refused %s %q: %v", kind, name, v)
		}
	}()
	add()
	return nil
}
