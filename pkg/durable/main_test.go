package durable_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/pgtest"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/jackc/pgx/v5"
)

// envSchema names the environment variable that holds the DBOS schema of the tests, for the
// child processes that the crash tests start: it marks a process as one.
const envSchema = "CADRE_DURABLE_SCHEMA"

// postgres is the server of the package's tests, which TestMain finds or starts, and the schema
// of DBOS's tables that the tests share, each test as an application of its own (AppName): the
// URL and schema, or why there are none.
var postgres struct {
	url, schema string
	err         error
}

func TestMain(m *testing.M) {
	switch {
	case os.Getenv(pgtest.EnvSkip) == "1":
	case os.Getenv(envSchema) != "": // a child process of a test: its parent's server and schema
		postgres.url, postgres.schema = os.Getenv(pgtest.EnvURL), os.Getenv(envSchema)
	default:
		code, err := withSchema(m)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// withSchema runs the tests with a server and a schema of DBOS's tables of their own, migrated
// once, and drops the schema after them.
func withSchema(m *testing.M) (int, error) {
	ctx := context.Background()
	url, stop, err := pgtest.Shared(ctx)
	defer stop()
	if err != nil {
		postgres.err = err
		return m.Run(), nil
	}
	postgres.url = url
	postgres.schema = "cadretest_durable_" + strings.ToLower(rand.Text()[:12])
	postgres.err = dbos.Migrate(ctx, url, dbos.WithMigrateSchema(postgres.schema), dbos.WithMigrateLogger(quiet()))
	code := m.Run()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return code, fmt.Errorf("dropping the tests' schema: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{postgres.schema}.Sanitize()+" CASCADE"); err != nil {
		return code, fmt.Errorf("dropping the tests' schema: %w", err)
	}
	return code, nil
}

// quiet is the tests' logger for DBOS, which logs to stdout at Info by default:
// CADRE_DURABLE_LOG=1 shows its warnings and errors on stderr.
func quiet() *slog.Logger {
	if os.Getenv("CADRE_DURABLE_LOG") == "1" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// serverURL returns the URL of the tests' server, its pools bounded so that the tests, with the
// other packages' run by make test at the same time, stay within the server's connections.
// Without a server the test fails, so that a missing PostgreSQL is never mistaken for a pass,
// unless CADRE_NO_POSTGRES=1 says to skip.
func serverURL(t testing.TB) string {
	t.Helper()
	if os.Getenv(pgtest.EnvSkip) == "1" {
		t.Skip(pgtest.EnvSkip + "=1: the tests with PostgreSQL are skipped")
	}
	if postgres.err != nil {
		t.Fatal(postgres.err)
	}
	sep := "?"
	if strings.Contains(postgres.url, "?") {
		sep = "&"
	}
	return postgres.url + sep + "pool_max_conns=4"
}

// appName returns a DBOS application name no other test uses: DBOS keeps applications apart in
// one schema (recovery, queues, versions).
func appName() string { return "cadretest-" + strings.ToLower(rand.Text()[:12]) }

// newDBOS returns a dbos.Context of cfg on the tests' schema, as an application of the test's
// own unless cfg names one, shut down when the test ends. It is not launched.
func newDBOS(t testing.TB, cfg dbos.Config) dbos.Context {
	t.Helper()
	cfg.DatabaseURL, cfg.DatabaseSchema, cfg.SkipMigrations = serverURL(t), postgres.schema, true
	if cfg.AppName == "" {
		cfg.AppName = appName()
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet()
	}
	switch cfg.ApplicationVersion {
	case "":
		cfg.ApplicationVersion = "test" // DBOS's default hashes the executable, for every context
	case unpinned:
		cfg.ApplicationVersion = "" // DBOS's default
	}
	dctx, err := dbos.NewContext(context.Background(), cfg)
	if err != nil {
		t.Fatalf("dbos.NewContext: %v", err)
	}
	t.Cleanup(func() {
		if err := dbos.Shutdown(dctx, 20*time.Second); err != nil {
			t.Errorf("dbos.Shutdown: %v", err)
		}
	})
	return dctx
}

// unpinned, as a version given to newDBOS, leaves the version to DBOS: a hash of the executable.
const unpinned = "unpinned"

// launch launches dctx.
func launch(t testing.TB, dctx dbos.Context) {
	t.Helper()
	if err := dbos.Launch(dctx); err != nil {
		t.Fatalf("dbos.Launch: %v", err)
	}
}

// testContext is the test's context, bounded.
func testContext(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
