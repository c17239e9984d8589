// Package postgresstore keeps chats in PostgreSQL, through pgx: the chat.Store for several
// processes that serve the same conversations and keep their data in PostgreSQL already, so
// that they need no Redis beside it.
//
// # Tables
//
// New and Open make two tables when they are missing, in the schema WithSchema names (created
// too), or else in the first schema of the connection's search_path (usually public):
//
//	cadre_chats     a row a chat: id, tenant, user_id, chat, state, updated, length
//	cadre_messages  a row a message: chat_id (cadre_chats.id), seq, message
//
// The ID's parts are kept as bytea, since an ID may hold bytes that are not UTF-8; a message
// is the bytes of chat.MarshalMessages. A role that may not create tables can use tables made
// beforehand by one that may (running New once). The comment of cadre_chats says the tables'
// layout, and a Store refuses tables of a later one.
//
// # Atomicity
//
// Every call is one statement, so one transaction. An Append inserts or updates the chat's row,
// which locks it until the statement ends, and inserts its messages after the chat's last: the
// Appends of one chat take their turns, each call's messages stand together, and a chat is never
// listed without its messages. A TakeState locks the chat's row (SELECT ... FOR UPDATE), reads
// its state and removes it: of several at once, from any number of processes, the first takes
// the state and the others, once the lock is theirs, read the row as it left it, with none. A
// chat's time comes from the server's clock, so processes with different clocks agree on List's
// order.
package postgresstore
