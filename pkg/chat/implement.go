package chat

import "context"

// Check returns the error a Store method returns before doing any work for a call on id under
// ctx: ctx's error when it is done, else what id.Valid reports. It is for Store
// implementations, so that every store rejects the same calls the same way.
func Check(ctx context.Context, id ID) error { return check(ctx, id) }

// NotFound returns the error a Store returns for a chat that does not exist: it wraps
// ErrNotFound and names id's parts. It is for Store implementations.
func NotFound(id ID) error { return notFound(id) }
