package sqlitestore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/tmc/langchaingo/llms"
	"modernc.org/sqlite" // the "sqlite" database/sql driver, and its errors
	sqlite3 "modernc.org/sqlite/lib"
)

// Store is a chat.Store in a SQLite file. It is safe for concurrent use by any number of
// goroutines, and several Stores (in one process or several) may open the same file. Close
// it when done; a closed Store answers every call with an error.
type Store struct {
	db *sql.DB // reads wait for a busy file up to SQLite's busy timeout
	// writes holds the connection of the Store's write transactions, which do not wait in
	// SQLite for the file's write lock: write waits, looking at the lock more often than
	// SQLite's busy handler would.
	writes *sql.DB
	// writer is a token that each write of the Store holds. SQLite lets one writer in at a
	// time anyway; queueing here is fair and quick. Writers of other Stores and processes
	// still meet at SQLite's lock.
	writer chan struct{}
}

// schemaVersion is the layout the tables below have, kept in the file's user_version: a file
// of a later layout is refused rather than misread.
const schemaVersion = 1

const schema = `
CREATE TABLE IF NOT EXISTS chats (
	id      INTEGER PRIMARY KEY,
	tenant  TEXT NOT NULL,
	user    TEXT NOT NULL,
	chat    TEXT NOT NULL,
	state   BLOB,              -- NULL when the chat has none
	updated INTEGER NOT NULL,  -- Unix nanoseconds; a tenant's are all different
	length  INTEGER NOT NULL,  -- how many messages the chat holds
	UNIQUE (tenant, user, chat)
);
CREATE INDEX IF NOT EXISTS chats_by_change ON chats (tenant, updated);
CREATE TABLE IF NOT EXISTS messages (
	chat_id INTEGER NOT NULL,  -- chats.id
	seq     INTEGER NOT NULL,  -- the message's position in the chat, from 0
	message BLOB NOT NULL,     -- chat.MarshalMessages of the one message
	PRIMARY KEY (chat_id, seq)
) WITHOUT ROWID;`

// Open opens the SQLite database file at path, creating it and its tables when missing, and
// returns the Store that keeps chats in it. The caller must Close the Store. path names a
// file: ":memory:" would give every pooled connection a database of its own.
func Open(path string) (*Store, error) {
	db, err := sql.Open("sqlite", dsn(path, lockWait))
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: opening %s: %w", path, err)
	}
	if err := prepare(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlitestore: preparing %s: %w", path, err)
	}
	writes, err := sql.Open("sqlite", dsn(path, 0))
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlitestore: opening %s: %w", path, err)
	}
	writes.SetMaxOpenConns(1) // the writer token lets one write in at a time
	return &Store{db: db, writes: writes, writer: make(chan struct{}, 1)}, nil
}

// dsn is path as a SQLite URI, with what every connection needs: WAL, so that readers do not
// wait for a writer; a busy timeout, how long a statement waits for a lock held by another
// connection before it fails; and transactions that take the write lock when they begin, so
// that two never deadlock upgrading a read lock.
func dsn(path string, busy time.Duration) string {
	escaped := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_txlock=immediate", escaped, busy.Milliseconds())
}

func prepare(db *sql.DB) error {
	var version int
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if version > schemaVersion {
		return fmt.Errorf("the file's chats are of layout %d, newer than this program's %d: use a newer cadre", version, schemaVersion)
	}
	_, err := db.Exec(schema + fmt.Sprintf("PRAGMA user_version = %d;", schemaVersion))
	return err
}

// lockWait is how long a statement waits for a lock that another connection (of this Store,
// another Store or another process) holds, before it fails with "database is locked".
const lockWait = 10 * time.Second

// lockPoll is how often a write looks at the file's write lock while another process holds
// it. A process that writes without pause, as a Store does under load, frees the lock for
// microseconds between two of its transactions. SQLite's busy handler looks at the lock every
// 100 ms once it has waited a quarter of a second, and so seldom found it free: beside a busy
// Store of another process, a write waited for seconds, and failed after lockWait (make soak;
// TestAnAppendTakesTheLockWhenItIsFreedForAMoment). A look costs a few microseconds.
const lockPoll = time.Millisecond

// write runs fn, a write transaction on s.writes, holding the Store's writer token, or
// returns ctx's error while it waits for the token. While another connection holds the file's
// write lock, fn fails at once with SQLITE_BUSY having written nothing, and write runs it
// again every lockPoll or so, for up to lockWait.
func (s *Store) write(ctx context.Context, fn func() error) error {
	select {
	case s.writer <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.writer }()
	deadline := time.Now().Add(lockWait)
	for {
		err := fn()
		if !busy(err) || time.Now().After(deadline) {
			return err
		}
		// The jitter keeps the writers of several processes from looking in step.
		t := time.NewTimer(lockPoll/2 + rand.N(lockPoll))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

// busy reports whether err is SQLite's "database is locked": another connection holds the lock.
func busy(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}

// Close closes the database. Calls after Close return errors. It is safe to call once the
// Store's other calls have returned.
func (s *Store) Close() error { return errors.Join(s.writes.Close(), s.db.Close()) }

// Load implements chat.Store.
func (s *Store) Load(ctx context.Context, id chat.ID) ([]llms.MessageContent, error) {
	if err := chat.Check(ctx, id); err != nil {
		return nil, err
	}
	// One statement reads a consistent chat: a row with a NULL message for a chat without
	// messages, no row for no chat.
	rows, err := s.db.QueryContext(ctx, `SELECT m.message FROM chats c LEFT JOIN messages m ON m.chat_id = c.id
		WHERE c.tenant = ? AND c.user = ? AND c.chat = ? ORDER BY m.seq`, id.Tenant, id.User, id.Chat)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: loading chat %s: %w", id, err)
	}
	defer rows.Close()
	var msgs []llms.MessageContent
	found := false
	for rows.Next() {
		found = true
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("sqlitestore: loading chat %s: %w", id, err)
		}
		if data == nil {
			continue
		}
		m, err := chat.UnmarshalMessages(data)
		if err != nil {
			return nil, fmt.Errorf("sqlitestore: loading chat %s, message %d: %w", id, len(msgs), err)
		}
		msgs = append(msgs, m...)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlitestore: loading chat %s: %w", id, err)
	}
	if !found {
		return nil, chat.NotFound(id)
	}
	return msgs, nil
}

// touch is the start of an upsert of a chat's row that marks it changed now: ?1 to ?3 are the
// ID, ?4 the time. A chat's time is later than every other of its tenant, so that List's order
// is the order of changes even when the clock repeats a reading or steps back.
const touch = `INSERT INTO chats (tenant, user, chat, updated, length, state)
	VALUES (?1, ?2, ?3, max(?4, (SELECT ifnull(max(updated), 0) + 1 FROM chats WHERE tenant = ?1)), ?5, ?6)
	ON CONFLICT (tenant, user, chat) DO UPDATE SET updated = excluded.updated, `

// Append implements chat.Store. The messages are written in one transaction: all of them,
// after every message of the Appends that committed before it, or none.
func (s *Store) Append(ctx context.Context, id chat.ID, msgs []llms.MessageContent) error {
	if err := chat.Check(ctx, id); err != nil {
		return err
	}
	encoded := make([][]byte, len(msgs))
	for i := range msgs {
		data, err := chat.MarshalMessages(msgs[i : i+1])
		if err != nil {
			return fmt.Errorf("sqlitestore: appending to chat %s: message %d: %w", id, i, err)
		}
		encoded[i] = data
	}
	if err := s.write(ctx, func() error { return s.appendEncoded(ctx, id, encoded) }); err != nil {
		return fmt.Errorf("sqlitestore: appending to chat %s: %w", id, err)
	}
	return nil
}

func (s *Store) appendEncoded(ctx context.Context, id chat.ID, encoded [][]byte) error {
	tx, err := s.writes.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var chatID, first int64
	err = tx.QueryRowContext(ctx, touch+`length = length + excluded.length RETURNING id, length - ?5`,
		id.Tenant, id.User, id.Chat, time.Now().UnixNano(), len(encoded), nil).Scan(&chatID, &first)
	if err != nil {
		return err
	}
	insert, err := tx.PrepareContext(ctx, `INSERT INTO messages (chat_id, seq, message) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insert.Close()
	for i, data := range encoded {
		if _, err := insert.ExecContext(ctx, chatID, first+int64(i), data); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// List implements chat.Store.
func (s *Store) List(ctx context.Context, tenant string) ([]chat.Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT user, chat, length, updated FROM chats
		WHERE tenant = ? ORDER BY updated DESC`, tenant)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: listing the chats of tenant %q: %w", tenant, err)
	}
	defer rows.Close()
	var infos []chat.Info
	for rows.Next() {
		info := chat.Info{ID: chat.ID{Tenant: tenant}}
		var updated int64
		if err := rows.Scan(&info.ID.User, &info.ID.Chat, &info.Messages, &updated); err != nil {
			return nil, fmt.Errorf("sqlitestore: listing the chats of tenant %q: %w", tenant, err)
		}
		info.Updated = time.Unix(0, updated)
		infos = append(infos, info)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlitestore: listing the chats of tenant %q: %w", tenant, err)
	}
	return infos, nil
}

// Delete implements chat.Store.
func (s *Store) Delete(ctx context.Context, id chat.ID) error {
	if err := chat.Check(ctx, id); err != nil {
		return err
	}
	err := s.write(ctx, func() error { return s.deleteChat(ctx, id) })
	if err != nil && !errors.Is(err, chat.ErrNotFound) {
		return fmt.Errorf("sqlitestore: deleting chat %s: %w", id, err)
	}
	return err
}

func (s *Store) deleteChat(ctx context.Context, id chat.ID) error {
	tx, err := s.writes.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var chatID int64
	err = tx.QueryRowContext(ctx, `DELETE FROM chats WHERE tenant = ? AND user = ? AND chat = ? RETURNING id`,
		id.Tenant, id.User, id.Chat).Scan(&chatID)
	if errors.Is(err, sql.ErrNoRows) {
		return chat.NotFound(id)
	}
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE chat_id = ?`, chatID); err != nil {
		return err
	}
	return tx.Commit()
}

// State implements chat.Store.
func (s *Store) State(ctx context.Context, id chat.ID) ([]byte, error) {
	if err := chat.Check(ctx, id); err != nil {
		return nil, err
	}
	var state []byte
	err := s.db.QueryRowContext(ctx, `SELECT state FROM chats WHERE tenant = ? AND user = ? AND chat = ?`,
		id.Tenant, id.User, id.Chat).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, chat.NotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: reading the state of chat %s: %w", id, err)
	}
	return state, nil
}

// SetState implements chat.Store.
func (s *Store) SetState(ctx context.Context, id chat.ID, state []byte) error {
	if err := chat.Check(ctx, id); err != nil {
		return err
	}
	var value any // NULL for nil
	if state != nil {
		value = state
	}
	err := s.write(ctx, func() error {
		_, err := s.writes.ExecContext(ctx, touch+`state = excluded.state`,
			id.Tenant, id.User, id.Chat, time.Now().UnixNano(), 0, value)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlitestore: keeping the state of chat %s: %w", id, err)
	}
	return nil
}

// TakeState implements chat.Store: the state is read and removed in one transaction, which
// takes the file's write lock when it begins, so that Stores of other processes wait for it.
func (s *Store) TakeState(ctx context.Context, id chat.ID) ([]byte, error) {
	if err := chat.Check(ctx, id); err != nil {
		return nil, err
	}
	var state []byte
	err := s.write(ctx, func() (err error) {
		state, err = s.takeState(ctx, id)
		return err
	})
	if errors.Is(err, chat.ErrNotFound) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: taking the state of chat %s: %w", id, err)
	}
	return state, nil
}

func (s *Store) takeState(ctx context.Context, id chat.ID) ([]byte, error) {
	tx, err := s.writes.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var state []byte
	err = tx.QueryRowContext(ctx, `SELECT state FROM chats WHERE tenant = ? AND user = ? AND chat = ?`,
		id.Tenant, id.User, id.Chat).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, chat.NotFound(id)
	}
	if err != nil || state == nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, touch+`state = NULL`, id.Tenant, id.User, id.Chat, time.Now().UnixNano(), 0, nil); err != nil {
		return nil, err
	}
	return state, tx.Commit()
}

// TakeStateIf implements chat.Store: the state is read, compared and removed in one
// transaction, which takes the file's write lock when it begins, as TakeState's does.
func (s *Store) TakeStateIf(ctx context.Context, id chat.ID, want []byte) (bool, error) {
	if err := chat.Check(ctx, id); err != nil {
		return false, err
	}
	var taken bool
	err := s.write(ctx, func() (err error) {
		taken, err = s.takeStateIf(ctx, id, want)
		return err
	})
	if errors.Is(err, chat.ErrNotFound) {
		return false, err
	}
	if err != nil {
		return false, fmt.Errorf("sqlitestore: taking the state of chat %s: %w", id, err)
	}
	return taken, nil
}

func (s *Store) takeStateIf(ctx context.Context, id chat.ID, want []byte) (bool, error) {
	tx, err := s.writes.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var state []byte
	err = tx.QueryRowContext(ctx, `SELECT state FROM chats WHERE tenant = ? AND user = ? AND chat = ?`,
		id.Tenant, id.User, id.Chat).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return false, chat.NotFound(id)
	}
	if err != nil || len(want) == 0 || !bytes.Equal(state, want) {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, touch+`state = NULL`, id.Tenant, id.User, id.Chat, time.Now().UnixNano(), 0, nil); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

var _ chat.Store = (*Store)(nil)
