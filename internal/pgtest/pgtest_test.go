package pgtest_test

import (
	"net"
	"net/url"
	"os"
	"testing"

	"github.com/cadrehq/cadre/internal/pgtest"
)

func TestStartAndStop(t *testing.T) {
	t.Parallel()
	if os.Getenv(pgtest.EnvSkip) == "1" {
		t.Skip(pgtest.EnvSkip + "=1: the tests with PostgreSQL are skipped")
	}
	srv, err := pgtest.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	u, err := url.Parse(srv.URL)
	if err != nil || u.Scheme != "postgres" || u.User.Username() != "cadre" || u.Path != "/cadre" {
		t.Fatalf("URL = %q, %v; want postgres://cadre@HOST:PORT/cadre...", srv.URL, err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatalf("the server does not listen at %s: %v", u.Host, err)
	}
	conn.Close()

	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
	if conn, err := net.Dial("tcp", u.Host); err == nil {
		conn.Close()
		t.Errorf("something still listens at %s after Stop", u.Host)
	}
}

func TestSharedIsTheEnvironmentsServer(t *testing.T) {
	t.Setenv(pgtest.EnvURL, "postgres://somewhere/else")
	got, stop, err := pgtest.Shared(t.Context())
	stop()
	if err != nil || got != "postgres://somewhere/else" {
		t.Errorf("Shared with %s set = %q, %v; want its URL", pgtest.EnvURL, got, err)
	}
}
