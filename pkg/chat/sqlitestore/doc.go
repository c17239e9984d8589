// Package sqlitestore keeps chats in a SQLite file: the embedded, persistent chat.Store, for a
// program that runs as one process (several processes may share the file, at SQLite's pace).
// It uses modernc.org/sqlite, a translation of SQLite to Go: no cgo, no C toolchain.
//
// The file holds two tables. chats has a row a chat (tenant, user, chat, its state, when it
// last changed and how many messages it holds); messages has a row a message (the chat's row,
// its position, and the message encoded by chat.MarshalMessages). An Append writes its
// messages in one transaction, so they are stored whole and together or not at all. The file
// runs in WAL mode, so readers do not wait for writers. Writers wait their turn instead of
// failing: those of one Store in a queue, those of several Stores and processes at SQLite's
// write lock, which a waiting write looks at every millisecond, for up to 10 s.
package sqlitestore
