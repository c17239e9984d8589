package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/tmc/langchaingo/llms"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Store is a chat.Store in a SQLite file. It is safe for concurrent use by any number of
// goroutines, and several Stores (in one process or several) may open the same file. Close
// it when done; a closed Store answers every call with an error.
type Store struct {
	db *sql.DB
	// writer is a token that each write of the Store holds. SQLite lets one writer in at a
	// time anyway; queueing here is fair and quick, where SQLite's busy timeout polls, with
	// sleeps of up to 100 ms, and lets a writer lose for seconds. Writers of other Stores and
	// processes still meet at SQLite's lock.
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
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: opening %s: %w", path, err)
	}
	if err := prepare(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlitestore: preparing %s: %w", path, err)
	}
	return &Store{db: db, writer: make(chan struct{}, 1)}, nil
}

// dsn is path as a SQLite URI, with what every connection needs: WAL, so that readers do not
// wait for a writer; a busy timeout, so that writers wait for each other instead of failing;
// and transactions that take the write lock when they begin, so that two never deadlock
// upgrading a read lock.
func dsn(path string) string {
	escaped := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + escaped + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate"
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

// write runs fn holding the Store's writer token, or returns ctx's error while it waits.
func (s *Store) write(ctx context.Context, fn func() error) error {
	select {
	case s.writer <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.writer }()
	return fn()
}

// Close closes the database. Calls after Close return errors. It is safe to call once the
// Store's other calls have returned.
func (s *Store) Close() error { return s.db.Close() }

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
	tx, err := s.db.BeginTx(ctx, nil)
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
	tx, err := s.db.BeginTx(ctx, nil)
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
		_, err := s.db.ExecContext(ctx, touch+`state = excluded.state`,
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
	tx, err := s.db.BeginTx(ctx, nil)
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

var _ chat.Store = (*Store)(nil)
