package postgresstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/tmc/langchaingo/llms"
)

// Store is a chat.Store in PostgreSQL. It is safe for concurrent use by any number of
// goroutines, and any number of Stores, in any number of processes, may share the tables of one
// database and schema.
type Store struct {
	pool   *pgxpool.Pool
	owned  bool   // Open made the pool, and Close closes it
	schema string // WithSchema's; "" for the first schema of the connection's search_path
	// chats and messages are the tables' names as the statements write them: quoted, and
	// qualified with the schema when there is one.
	chats, messages string
	sql             statements
}

// Option configures a Store.
type Option func(*Store)

// WithSchema keeps the Store's tables in the PostgreSQL schema name, which the Store creates
// when it makes its tables, instead of the first schema of the connection's search_path
// (usually public): to keep applications, or tests, that share a database apart. Stores with
// different schemas see none of each other's chats.
func WithSchema(name string) Option {
	return func(s *Store) { s.schema = name }
}

// Tables are the names of the Store's tables, in its schema.
const (
	ChatsTable    = "cadre_chats"
	MessagesTable = "cadre_messages"
)

// New returns a Store that keeps chats in the database pool connects to, making its tables
// when they are missing. It does not own pool: close the pool when done with the Store. Every
// call takes its time limits from its context and the pool's configuration; a server that
// cannot be reached is an error, never an empty history.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	s := &Store{pool: pool}
	for _, opt := range opts {
		opt(s)
	}
	s.chats, s.messages = pgx.Identifier{ChatsTable}.Sanitize(), pgx.Identifier{MessagesTable}.Sanitize()
	where := "the search path's first schema"
	if s.schema != "" {
		s.chats = pgx.Identifier{s.schema, ChatsTable}.Sanitize()
		s.messages = pgx.Identifier{s.schema, MessagesTable}.Sanitize()
		where = fmt.Sprintf("schema %q", s.schema)
	}
	s.sql = newStatements(s.chats, s.messages)
	if err := s.prepare(ctx); err != nil {
		return nil, fmt.Errorf("postgresstore: preparing the tables in %s: %w", where, err)
	}
	return s, nil
}

// Open connects to the PostgreSQL database at url (postgres://user:password@host:port/database
// or a key=value connection string, as pgxpool.ParseConfig reads it), makes the Store's tables
// when they are missing, and returns the Store, which owns its connections: Close it when done.
func Open(ctx context.Context, url string, opts ...Option) (*Store, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("postgresstore: %w", err)
	}
	s, err := New(ctx, pool, opts...)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// Close closes the Store's connections when Open made them, waiting for those in use to be
// returned; calls after Close return errors. A Store made by New leaves its pool open.
func (s *Store) Close() {
	if s.owned {
		s.pool.Close()
	}
}

// statements are the Store's SQL, with its tables' names in.
type statements struct {
	load, append, list, delete, state, setState, takeState, takeStateIf string
}

// touch is when a chat of tenant $1 changes now: the server's clock, unless another of the
// tenant's chats changed at that time or later, so that List's order is the order of changes
// even when the clock repeats a reading or steps back. %[1]s is the chats table.
const touch = `greatest(clock_timestamp(), (SELECT max(updated) FROM %[1]s WHERE tenant = $1) + interval '1 microsecond')`

// touched is the updated of a chat row c whose change was timed excluded.updated: never
// earlier than its last change, which another transaction may have made while this one waited
// for its row.
const touched = `greatest(excluded.updated, c.updated + interval '1 microsecond')`

func newStatements(chats, messages string) statements {
	sql := func(format string) string {
		format = strings.ReplaceAll(format, "TOUCHED", touched)
		format = strings.ReplaceAll(format, "TOUCH", touch)
		return fmt.Sprintf(format, chats, messages)
	}
	return statements{
		// One statement reads a consistent chat: a row with a NULL message for a chat without
		// messages, no row for no chat.
		load: sql(`SELECT m.message FROM %[1]s c LEFT JOIN %[2]s m ON m.chat_id = c.id
			WHERE c.tenant = $1 AND c.user_id = $2 AND c.chat = $3 ORDER BY m.seq`),
		// The upsert locks the chat's row until the statement ends, so that Appends of one chat
		// take their turns, each numbering its messages after those of the one before.
		append: sql(`WITH chat AS (
				INSERT INTO %[1]s AS c (tenant, user_id, chat, updated, length) VALUES ($1, $2, $3, TOUCH, $4::integer)
				ON CONFLICT (tenant, user_id, chat) DO UPDATE SET updated = TOUCHED, length = c.length + excluded.length
				RETURNING id, length - $4::integer AS first
			)
			INSERT INTO %[2]s (chat_id, seq, message)
			SELECT chat.id, chat.first + m.n - 1, m.message FROM chat, unnest($5::bytea[]) WITH ORDINALITY AS m (message, n)`),
		list: sql(`SELECT user_id, chat, length, updated FROM %[1]s WHERE tenant = $1 ORDER BY updated DESC, id DESC`),
		// The messages go with the chat (ON DELETE CASCADE).
		delete: sql(`DELETE FROM %[1]s WHERE tenant = $1 AND user_id = $2 AND chat = $3`),
		state:  sql(`SELECT state FROM %[1]s WHERE tenant = $1 AND user_id = $2 AND chat = $3`),
		setState: sql(`INSERT INTO %[1]s AS c (tenant, user_id, chat, updated, length, state) VALUES ($1, $2, $3, TOUCH, 0, $4)
			ON CONFLICT (tenant, user_id, chat) DO UPDATE SET updated = TOUCHED, state = excluded.state`),
		// FOR UPDATE locks the chat's row: a TakeState that waited for another's lock reads the
		// row as the other left it, with no state, and takes nothing. The statement returns no
		// row for no chat, and the state the chat had, which the update removes.
		takeState: sql(`WITH old AS (
				SELECT id, state FROM %[1]s WHERE tenant = $1 AND user_id = $2 AND chat = $3 FOR UPDATE
			), taken AS (
				UPDATE %[1]s c SET state = NULL, updated = greatest(TOUCH, c.updated + interval '1 microsecond')
				FROM old WHERE c.id = old.id AND old.state IS NOT NULL
			)
			SELECT state FROM old`),
		// The same lock: a TakeStateIf that waited for another's reads the row as the other
		// left it. The statement returns no row for no chat, and whether the state was $4, which
		// the update then removed; a NULL or empty $4 is no chat's state.
		takeStateIf: sql(`WITH old AS (
				SELECT id, state = $4::bytea AND octet_length($4::bytea) > 0 AS taken FROM %[1]s
				WHERE tenant = $1 AND user_id = $2 AND chat = $3 FOR UPDATE
			), taken AS (
				UPDATE %[1]s c SET state = NULL, updated = greatest(TOUCH, c.updated + interval '1 microsecond')
				FROM old WHERE c.id = old.id AND old.taken
			)
			SELECT coalesce(taken, false) FROM old`),
	}
}

// key is id's parts as the statements take them: bytes, since an ID may hold any byte but NUL.
func key(id chat.ID) [3][]byte {
	return [3][]byte{[]byte(id.Tenant), []byte(id.User), []byte(id.Chat)}
}

// Load implements chat.Store.
func (s *Store) Load(ctx context.Context, id chat.ID) ([]llms.MessageContent, error) {
	if err := chat.Check(ctx, id); err != nil {
		return nil, err
	}
	k := key(id)
	rows, err := s.pool.Query(ctx, s.sql.load, k[0], k[1], k[2])
	if err != nil {
		return nil, fmt.Errorf("postgresstore: loading chat %s: %w", id, err)
	}
	defer rows.Close()
	var msgs []llms.MessageContent
	found := false
	for rows.Next() {
		found = true
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("postgresstore: loading chat %s: %w", id, err)
		}
		if data == nil {
			continue
		}
		m, err := chat.UnmarshalMessages(data)
		if err != nil {
			return nil, fmt.Errorf("postgresstore: loading chat %s, message %d: %w", id, len(msgs), err)
		}
		msgs = append(msgs, m...)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgresstore: loading chat %s: %w", id, err)
	}
	if !found {
		return nil, chat.NotFound(id)
	}
	return msgs, nil
}

// Append implements chat.Store. The messages are written by one statement, which holds the
// chat's row until it ends: all of them, after every message of the Appends before it, or none.
func (s *Store) Append(ctx context.Context, id chat.ID, msgs []llms.MessageContent) error {
	if err := chat.Check(ctx, id); err != nil {
		return err
	}
	encoded := make([][]byte, len(msgs))
	for i := range msgs {
		data, err := chat.MarshalMessages(msgs[i : i+1])
		if err != nil {
			return fmt.Errorf("postgresstore: appending to chat %s: message %d: %w", id, i, err)
		}
		encoded[i] = data
	}
	k := key(id)
	if _, err := s.pool.Exec(ctx, s.sql.append, k[0], k[1], k[2], len(encoded), encoded); err != nil {
		return fmt.Errorf("postgresstore: appending to chat %s: %w", id, err)
	}
	return nil
}

// List implements chat.Store.
func (s *Store) List(ctx context.Context, tenant string) ([]chat.Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, s.sql.list, []byte(tenant))
	if err != nil {
		return nil, fmt.Errorf("postgresstore: listing the chats of tenant %q: %w", tenant, err)
	}
	defer rows.Close()
	var infos []chat.Info
	for rows.Next() {
		var user, name []byte
		var info chat.Info
		if err := rows.Scan(&user, &name, &info.Messages, &info.Updated); err != nil {
			return nil, fmt.Errorf("postgresstore: listing the chats of tenant %q: %w", tenant, err)
		}
		info.ID = chat.ID{Tenant: tenant, User: string(user), Chat: string(name)}
		infos = append(infos, info)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgresstore: listing the chats of tenant %q: %w", tenant, err)
	}
	return infos, nil
}

// Delete implements chat.Store.
func (s *Store) Delete(ctx context.Context, id chat.ID) error {
	if err := chat.Check(ctx, id); err != nil {
		return err
	}
	k := key(id)
	tag, err := s.pool.Exec(ctx, s.sql.delete, k[0], k[1], k[2])
	if err != nil {
		return fmt.Errorf("postgresstore: deleting chat %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return chat.NotFound(id)
	}
	return nil
}

// State implements chat.Store.
func (s *Store) State(ctx context.Context, id chat.ID) ([]byte, error) {
	if err := chat.Check(ctx, id); err != nil {
		return nil, err
	}
	return s.readState(ctx, id, s.sql.state, "reading the state of chat")
}

// SetState implements chat.Store.
func (s *Store) SetState(ctx context.Context, id chat.ID, state []byte) error {
	if err := chat.Check(ctx, id); err != nil {
		return err
	}
	k := key(id)
	if _, err := s.pool.Exec(ctx, s.sql.setState, k[0], k[1], k[2], state); err != nil { // nil is NULL
		return fmt.Errorf("postgresstore: keeping the state of chat %s: %w", id, err)
	}
	return nil
}

// TakeState implements chat.Store: one statement locks the chat's row, reads its state and
// removes it. Of several at once, in any number of processes, the first to lock the row takes
// the state; the others wait for the lock, then read the row as the first left it.
func (s *Store) TakeState(ctx context.Context, id chat.ID) ([]byte, error) {
	if err := chat.Check(ctx, id); err != nil {
		return nil, err
	}
	return s.readState(ctx, id, s.sql.takeState, "taking the state of chat")
}

// TakeStateIf implements chat.Store: one statement locks the chat's row, compares its state
// with want and removes it when they are equal. Of several at once, in any number of processes,
// the first to lock the row takes the state; the others wait for the lock, then find none.
func (s *Store) TakeStateIf(ctx context.Context, id chat.ID, want []byte) (bool, error) {
	if err := chat.Check(ctx, id); err != nil {
		return false, err
	}
	k := key(id)
	var taken bool
	err := s.pool.QueryRow(ctx, s.sql.takeStateIf, k[0], k[1], k[2], want).Scan(&taken)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, chat.NotFound(id)
	}
	if err != nil {
		return false, fmt.Errorf("postgresstore: taking the state of chat %s: %w", id, err)
	}
	return taken, nil
}

// readState runs statement, which returns the state of chat id in a row, or no row when the
// chat does not exist.
func (s *Store) readState(ctx context.Context, id chat.ID, statement, doing string) ([]byte, error) {
	k := key(id)
	var state []byte
	err := s.pool.QueryRow(ctx, statement, k[0], k[1], k[2]).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, chat.NotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("postgresstore: %s %s: %w", doing, id, err)
	}
	return state, nil
}

var _ chat.Store = (*Store)(nil)
