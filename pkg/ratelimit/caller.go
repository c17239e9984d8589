package ratelimit

import "context"

// Caller is whom a run is for: a tenant (a customer, an organisation) and a user of that
// tenant. A user's limits are kept per tenant: user "ana" of tenant "acme" is not user "ana"
// of tenant "globex". The zero Caller is a caller that nobody identified.
type Caller struct {
	Tenant, User string
}

type callerKey struct{}

// WithCaller returns a copy of ctx that says whom the runs under it are for. Set it once, on
// the context of the top run: a delegated run's context derives from its caller's, so the
// identity reaches every run, model request and tool call of the tree, whether it has a chat
// or not. A server sets it where it authenticates a request (over MCP's streamable HTTP, in
// the function given to server.WithHTTPContextFunc). Set again lower in a tree, the nearer
// value wins, as context values do.
func WithCaller(ctx context.Context, tenant, user string) context.Context {
	return context.WithValue(ctx, callerKey{}, Caller{Tenant: tenant, User: user})
}

// CallerFrom returns the caller that WithCaller put in ctx, and whether there is one. Without
// one it returns the zero Caller: Middleware then limits the run as tenant "" and user "",
// one set of buckets shared by every unidentified run.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}
