package postgresstore_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/pgtest"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/chat/chattest"
	"github.com/cadrehq/cadre/pkg/chat/postgresstore"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/tmc/langchaingo/llms"
)

// postgres is the server of the package's tests, which TestMain finds or starts: the URL and a
// pool that the tests share (each in a schema of its own), or why there is none.
var postgres struct {
	url  string
	pool *pgxpool.Pool
	err  error
}

func TestMain(m *testing.M) {
	stop := func() {}
	if os.Getenv(pgtest.EnvSkip) != "1" {
		postgres.url, stop, postgres.err = pgtest.Shared(context.Background())
	}
	if postgres.err == nil && postgres.url != "" {
		// The processes a test runs from this binary use the same server, even one of the
		// tests' own.
		os.Setenv(pgtest.EnvURL, postgres.url)
		// A bound on the connections of all tests together, however many run in parallel.
		cfg, err := pgxpool.ParseConfig(postgres.url)
		if err == nil {
			cfg.MaxConns = 16
			postgres.pool, err = pgxpool.NewWithConfig(context.Background(), cfg)
		}
		postgres.err = err
	}
	code := m.Run()
	if postgres.pool != nil {
		postgres.pool.Close()
	}
	stop()
	os.Exit(code)
}

// sharedPool returns the pool of the tests' server. Without a server the test fails, so that a
// missing PostgreSQL is never mistaken for a passing store, unless CADRE_NO_POSTGRES=1 says to
// skip.
func sharedPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	if os.Getenv(pgtest.EnvSkip) == "1" {
		t.Skip(pgtest.EnvSkip + "=1: the tests with PostgreSQL are skipped")
	}
	if postgres.err != nil {
		t.Fatal(postgres.err)
	}
	return postgres.pool
}

// testSchema returns the name of a schema no other test uses, and drops it when t ends.
func testSchema(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	schema := "cadretest_" + strings.ToLower(rand.Text())
	t.Cleanup(func() {
		// t's context is done by the time cleanups run.
		if _, err := pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("dropping the test's schema %s: %v", schema, err)
		}
	})
	return schema
}

// open returns a Store of its own schema on the tests' pool.
func open(t *testing.T) (*postgresstore.Store, string) {
	t.Helper()
	pool := sharedPool(t)
	schema := testSchema(t, pool)
	s, err := postgresstore.New(t.Context(), pool, postgresstore.WithSchema(schema))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s, schema
}

func TestStore(t *testing.T) {
	chattest.Run(t, func(t *testing.T) chat.Store {
		s, _ := open(t)
		return s
	})
}

func hello(s string) []llms.MessageContent {
	return []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, s)}
}

func TestSchemasKeepStoresApart(t *testing.T) {
	t.Parallel()
	a, _ := open(t)
	b, _ := open(t)
	id := chat.ID{Tenant: "t", User: "u", Chat: "c"}
	if err := a.Append(t.Context(), id, hello("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Load(t.Context(), id); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("Load from another schema's store: %v; want ErrNotFound", err)
	}
	if infos, err := b.List(t.Context(), id.Tenant); err != nil || len(infos) != 0 {
		t.Errorf("List from another schema's store = %+v, %v; want none", infos, err)
	}
}

// Stores that start together on a database without their tables make them once, and all of
// them use them.
func TestStoresStartingTogetherMakeTheTablesOnce(t *testing.T) {
	t.Parallel()
	pool := sharedPool(t)
	schema := testSchema(t, pool)
	const n = 8
	stores := make([]*postgresstore.Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = postgresstore.New(t.Context(), pool, postgresstore.WithSchema(schema)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("New from %d goroutines at once: %v", n, err)
	}
	id := chat.ID{Chat: "c"}
	for i, s := range stores {
		if err := s.Append(t.Context(), id, hello(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	if msgs, err := stores[0].Load(t.Context(), id); err != nil || len(msgs) != n {
		t.Errorf("Load = %d messages, %v; want %d, one from each Store", len(msgs), err, n)
	}
}

func TestTablesNotAChatStoresAreRefused(t *testing.T) {
	t.Parallel()
	pool := sharedPool(t)
	tests := []struct {
		name, setup, want string
	}{
		{"newer layout", `COMMENT ON TABLE %s.cadre_chats IS 'cadre chat store, layout 99'`, "newer"},
		{"another table", `DROP TABLE %[1]s.cadre_messages; DROP TABLE %[1]s.cadre_chats; CREATE TABLE %[1]s.cadre_chats (id int)`,
			"not a cadre chat store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, schema := open(t)
			if _, err := pool.Exec(t.Context(), fmt.Sprintf(tt.setup, pgx.Identifier{schema}.Sanitize())); err != nil {
				t.Fatal(err)
			}
			s, err := postgresstore.New(t.Context(), pool, postgresstore.WithSchema(schema))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New on tables of %s = %v, %v; want an error saying %q", tt.name, s, err, tt.want)
			}
		})
	}
}

func TestAppendOfManyMessagesInOneCall(t *testing.T) {
	t.Parallel()
	s, _ := open(t)
	id := chat.ID{Chat: "long"}
	const n = 2500
	msgs := make([]llms.MessageContent, n)
	for i := range msgs {
		msgs[i] = llms.TextParts(llms.ChatMessageTypeHuman, fmt.Sprint(i))
	}
	if err := s.Append(t.Context(), id, msgs[:1]); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(t.Context(), id, msgs[1:]); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(msgs, got); diff != "" {
		t.Errorf("Load after appending %d messages (-appended +loaded):\n%s", n, diff)
	}
	if infos, err := s.List(t.Context(), ""); err != nil || len(infos) != 1 || infos[0].Messages != n {
		t.Errorf("List = %+v, %v; want the chat with %d messages", infos, err, n)
	}
}

func TestOpenAndClose(t *testing.T) {
	t.Parallel()
	pool := sharedPool(t)
	schema := testSchema(t, pool)
	s, err := postgresstore.Open(t.Context(), postgres.url, postgresstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	id := chat.ID{Tenant: "t", User: "u", Chat: "c"}
	if err := s.Append(t.Context(), id, hello("before")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	chattest.CheckUnavailable(t, s, id)

	s, err = postgresstore.Open(t.Context(), postgres.url, postgresstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if msgs, err := s.Load(t.Context(), id); err != nil || len(msgs) != 1 {
		t.Errorf("Load after reopening = %v, %v; want the message appended before", msgs, err)
	}
}

// A server that nothing answers at is an error from Open, which says where it looked.
func TestOpenOfAServerThatIsNotThere(t *testing.T) {
	t.Parallel()
	if os.Getenv(pgtest.EnvSkip) == "1" {
		t.Skip(pgtest.EnvSkip + "=1: the tests with PostgreSQL are skipped")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	s, err := postgresstore.Open(ctx, "postgres://cadre@127.0.0.1:1/cadre?sslmode=disable&connect_timeout=5")
	if err == nil {
		s.Close()
		t.Fatal("Open of a server that is not there: no error")
	}
	if !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("Open of a server that is not there: %v; want an error that names it", err)
	}
}

// TestServerThatGoesAwayAnswersErrors runs a server of its own, writes a chat, stops the
// server and checks every call fails rather than answer an empty history.
func TestServerThatGoesAwayAnswersErrors(t *testing.T) {
	t.Parallel()
	sharedPool(t) // skips or fails as the other tests do
	srv, err := pgtest.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	s, err := postgresstore.Open(t.Context(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id := chat.ID{Tenant: "t", User: "u", Chat: "c"}
	if err := s.Append(t.Context(), id, hello("before")); err != nil {
		t.Fatal(err)
	}
	if msgs, err := s.Load(t.Context(), id); err != nil || len(msgs) != 1 {
		t.Fatalf("Load while the server runs = %v, %v", msgs, err)
	}

	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	chattest.CheckUnavailable(t, s, id)
	if elapsed := time.Since(started); elapsed > 10*time.Second {
		t.Errorf("the calls after the server went away took %v; want them to fail at once", elapsed)
	}
}

// The server ends every connection of the Store, as a restart or a failover does: calls may
// fail while the pool finds its connections gone, then the Store answers again, with the
// history it had, without being reopened.
func TestStoreOutlivesItsConnections(t *testing.T) {
	t.Parallel()
	pool := sharedPool(t)
	schema := testSchema(t, pool)
	own := poolOf(t, func(cfg *pgxpool.Config) {
		cfg.ConnConfig.RuntimeParams["application_name"] = schema // to find its connections
	})
	s, err := postgresstore.New(t.Context(), own, postgresstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	id := chat.ID{Tenant: "t", User: "u", Chat: "c"}
	if err := s.Append(t.Context(), id, hello("before")); err != nil {
		t.Fatal(err)
	}

	var ended int
	err = pool.QueryRow(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`,
		schema).Scan(&ended)
	if err != nil || ended == 0 {
		t.Fatalf("ending the Store's connections: %d ended, %v", ended, err)
	}
	var loaded []llms.MessageContent
	for attempt := 1; ; attempt++ {
		loaded, err = s.Load(t.Context(), id)
		if err == nil {
			break
		}
		if errors.Is(err, chat.ErrNotFound) || attempt == 10 {
			t.Fatalf("Load %d after the server ended the Store's connections: %v", attempt, err)
		}
	}
	if diff := cmp.Diff(hello("before"), loaded); diff != "" {
		t.Errorf("the chat after the server ended the Store's connections (-want +got):\n%s", diff)
	}
	if err := s.Append(t.Context(), id, hello("after")); err != nil {
		t.Errorf("Append after the Store answered again: %v", err)
	}
}

// Without WithSchema, the tables go in the first schema of the connection's search_path.
func TestTablesInTheSearchPath(t *testing.T) {
	t.Parallel()
	pool := sharedPool(t)
	schema := testSchema(t, pool)
	if _, err := pool.Exec(t.Context(), "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	own := poolOf(t, func(cfg *pgxpool.Config) { cfg.ConnConfig.RuntimeParams["search_path"] = schema })
	s, err := postgresstore.New(t.Context(), own)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(t.Context(), chat.ID{Chat: "c"}, hello("hi")); err != nil {
		t.Fatal(err)
	}
	var n int
	err = pool.QueryRow(t.Context(), "SELECT count(*) FROM "+pgx.Identifier{schema, postgresstore.MessagesTable}.Sanitize()).Scan(&n)
	if err != nil || n != 1 {
		t.Errorf("the messages in schema %s: %d, %v; want the one appended", schema, n, err)
	}
}

// A role that may read and write the tables, and not create any, uses tables made beforehand.
func TestRoleThatMayNotCreateTablesUsesThem(t *testing.T) {
	t.Parallel()
	pool := sharedPool(t)
	var mayCreateRoles bool
	if err := pool.QueryRow(t.Context(), "SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user").Scan(&mayCreateRoles); err != nil {
		t.Fatal(err)
	}
	if !mayCreateRoles {
		t.Skip("the role of " + pgtest.EnvURL + " may not create roles")
	}
	_, schema := open(t) // makes the tables
	role := pgx.Identifier{schema + "_app"}.Sanitize()
	quoted := pgx.Identifier{schema}.Sanitize()
	_, err := pool.Exec(t.Context(), fmt.Sprintf(`CREATE ROLE %[1]s LOGIN;
		GRANT USAGE ON SCHEMA %[2]s TO %[1]s;
		GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %[2]s TO %[1]s`, role, quoted))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// DROP OWNED revokes the role's rights, which would keep it from being dropped.
		if _, err := pool.Exec(context.Background(), "DROP OWNED BY "+role+"; DROP ROLE "+role); err != nil {
			t.Errorf("dropping the test's role: %v", err)
		}
	})
	own := poolOf(t, func(cfg *pgxpool.Config) { cfg.ConnConfig.User = schema + "_app" })
	if _, err := own.Exec(t.Context(), "CREATE TABLE "+quoted+".t (x int)"); err == nil {
		t.Fatal("the role may create tables: the test checks nothing")
	}
	s, err := postgresstore.New(t.Context(), own, postgresstore.WithSchema(schema))
	if err != nil {
		t.Fatalf("New as a role that may not create tables, on tables made beforehand: %v", err)
	}
	id := chat.ID{Tenant: "t", User: "u", Chat: "c"}
	if err := s.Append(t.Context(), id, hello("hi")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetState(t.Context(), id, []byte("paused")); err != nil {
		t.Fatal(err)
	}
	if st, err := s.TakeState(t.Context(), id); err != nil || string(st) != "paused" {
		t.Errorf("TakeState = %q, %v", st, err)
	}
	if err := s.Delete(t.Context(), id); err != nil {
		t.Error(err)
	}
}

// poolOf returns a pool of the tests' server configured by configure, closed when t ends.
func poolOf(t *testing.T, configure func(*pgxpool.Config)) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(postgres.url)
	if err != nil {
		t.Fatal(err)
	}
	configure(cfg)
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func TestLinearizable(t *testing.T) {
	t.Parallel()
	chattest.CheckLinearizable(t, "postgresstore", func(t *testing.T) chat.Store {
		s, _ := open(t)
		return s
	})
}

// TestLinearizableAcrossProcesses checks two processes with a Store each on one schema.
func TestLinearizableAcrossProcesses(t *testing.T) {
	t.Parallel()
	chattest.CheckLinearizableAcrossProcesses(t, "postgresstore",
		func(t *testing.T) string { return testSchema(t, sharedPool(t)) },
		func(t *testing.T, schema string) chat.Store {
			s, err := postgresstore.New(t.Context(), sharedPool(t), postgresstore.WithSchema(schema))
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			return s
		})
}
