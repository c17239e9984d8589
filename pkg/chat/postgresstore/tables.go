package postgresstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// layout is the version of the tables below, kept in the comment of the chats table: tables of
// a later layout are refused rather than misread.
const layout = 1

// layoutComment starts the comment of the chats table; the layout's number follows it.
const layoutComment = "cadre chat store, layout "

// createTables makes the tables, in the schema of %[1]s and %[2]s (the chats and messages
// tables' names, quoted and qualified as the Store uses them). The chat's ID is kept as bytes:
// an ID may hold any byte but NUL, and text columns refuse what is not valid UTF-8.
const createTables = `
CREATE TABLE %[1]s (
	id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	tenant  bytea NOT NULL,
	user_id bytea NOT NULL,
	chat    bytea NOT NULL,
	state   bytea,                -- NULL when the chat has none
	updated timestamptz NOT NULL, -- the server's clock; later for each change of the tenant's
	length  integer NOT NULL,     -- how many messages the chat holds
	UNIQUE (tenant, user_id, chat)
);
CREATE INDEX ON %[1]s (tenant, updated, id); -- List's order, and the tenant's last change
CREATE TABLE %[2]s (
	chat_id bigint NOT NULL REFERENCES %[1]s (id) ON DELETE CASCADE,
	seq     integer NOT NULL,     -- the message's position in the chat, from 0
	message bytea NOT NULL,       -- chat.MarshalMessages of the one message
	PRIMARY KEY (chat_id, seq)
);
COMMENT ON TABLE %[1]s IS '` + layoutComment + `%[3]d';`

// prepareLock is the key of the advisory lock that Stores hold while they look for their
// tables and make them, so that processes starting together do not make them twice (two
// CREATE TABLE IF NOT EXISTS at once can both fail). Its bytes spell "cadre-cs".
const prepareLock int64 = 0x63616472652d6373

// prepare makes the Store's tables when they are missing, in one transaction, and refuses
// tables of a later layout or that are not a chat store's. A role that may not create tables
// can use tables made beforehand: they are made only when missing.
func (s *Store) prepare(ctx context.Context) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, prepareLock); err != nil {
		return err
	}
	var exists bool
	var comment string
	err = tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL, coalesce(obj_description(to_regclass($1), 'pg_class'), '')`,
		s.chats).Scan(&exists, &comment)
	if err != nil {
		return err
	}
	if exists {
		return checkLayout(s.chats, comment)
	}
	if s.schema != "" {
		if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{s.schema}.Sanitize()); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, fmt.Sprintf(createTables, s.chats, s.messages, layout)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// checkLayout says whether the comment of the existing table chats is that of a chat store
// this package reads.
func checkLayout(chats, comment string) error {
	n, err := strconv.Atoi(strings.TrimPrefix(comment, layoutComment))
	if !strings.HasPrefix(comment, layoutComment) || err != nil {
		return fmt.Errorf("the table %s exists but is not a cadre chat store (its comment is %q): give WithSchema another schema",
			chats, comment)
	}
	if n > layout {
		return fmt.Errorf("the chats in %s are of layout %d, newer than this program's %d: use a newer cadre", chats, n, layout)
	}
	return nil
}
