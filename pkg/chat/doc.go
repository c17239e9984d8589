// Package chat keeps conversations: a conversation's identity carried in a context ([WithID]),
// the [Store] interface that keeps its messages, a [Memory] store, and the [Window] of history
// an assistant loads for a run.
//
// An assistant given a store (assistant.WithStore) and run under a context with an ID loads the
// chat's recent history before the user's turn, and appends the turn and every message the run
// added when the run ends — a failed run too, in a shape the next request is valid with. The
// system prompt is never stored.
//
// Stores keep chats apart by tenant and user: a chat ID of another tenant, or of another user,
// is not found, whatever the ID. Persistent stores live in subpackages: sqlitestore (one
// process, a file) and redisstore (several processes sharing history). chattest is the
// behaviour suite every Store passes: run it on your own.
package chat
