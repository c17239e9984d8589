// Package pgtest gives tests a PostgreSQL server: the one make test starts and names in
// CADRE_POSTGRES_URL, or one of their own, which scripts/with-postgres starts the same way, so
// that `go test` of a package works without make when PostgreSQL is installed.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// EnvURL names the environment variable that holds the URL of the server to test with, as
// scripts/with-postgres sets it.
const EnvURL = "CADRE_POSTGRES_URL"

// EnvSkip names the environment variable that, set to 1, says to skip the tests with
// PostgreSQL rather than fail them.
const EnvSkip = "CADRE_NO_POSTGRES"

// Server is a PostgreSQL server that Start started, with its data in a temporary directory.
type Server struct {
	URL string // postgres://cadre@127.0.0.1:PORT/cadre?sslmode=disable: the superuser cadre

	stderr *syncBuffer
	stop   func() error // ends the command with-postgres runs, and so the server, and waits
}

// Start runs scripts/with-postgres, found in the module's directory above the working
// directory (a package's, under go test), and returns once its server accepts connections.
// The server runs until Stop, or until this process ends, however it ends: with-postgres runs
// a command that waits for the end of its input, which this process holds.
func Start(ctx context.Context) (*Server, error) {
	script, err := findScript()
	if err != nil {
		return nil, err
	}
	// The command prints the URL, then reads its input to the end.
	cmd := exec.Command(script, "sh", "-c", `printf '%s\n' "$`+EnvURL+`" && exec cat >/dev/null`)
	cmd.Env = append(os.Environ(), EnvURL+"=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	url := make(chan string, 1)
	srv := &Server{stderr: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = &firstLine{line: url}, srv.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pgtest: running %s: %w", script, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	srv.stop = sync.OnceValue(func() error {
		stdin.Close()
		return <-exited
	})

	select {
	case srv.URL = <-url:
		return srv, nil
	case err = <-exited:
		exited <- err // for stop
		srv.stop()
	case <-ctx.Done():
		err = errors.Join(ctx.Err(), srv.stop())
	}
	return nil, fmt.Errorf("pgtest: %s did not start a server (%w): %s", script, err, strings.TrimSpace(srv.stderr.String()))
}

// Stop stops the server, removes its data and waits for both. It may be called more than once.
func (s *Server) Stop() error {
	if err := s.stop(); err != nil {
		return fmt.Errorf("pgtest: stopping the server: %w: %s", err, strings.TrimSpace(s.stderr.String()))
	}
	return nil
}

// Shared returns the URL of the server to test with: CADRE_POSTGRES_URL's when it is set, or
// that of a server Start started, which stop stops (stop does nothing for CADRE_POSTGRES_URL's).
// A TestMain calls it, so that the package's tests share one server: starting one takes a
// second or two. The error says what to install or to run.
func Shared(ctx context.Context) (url string, stop func(), err error) {
	if url := os.Getenv(EnvURL); url != "" {
		return url, func() {}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	srv, err := Start(ctx)
	if err != nil {
		return "", func() {}, fmt.Errorf("%s is not set, and no server of the tests' own started: "+
			"run make test, or install PostgreSQL (apt-get install postgresql), or set %[1]s to a server's URL "+
			"(%s=1 skips the tests with PostgreSQL): %w", EnvURL, EnvSkip, err)
	}
	return srv.URL, func() {
		if err := srv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}, nil
}

// findScript returns the path of scripts/with-postgres in the nearest directory above the
// working directory that holds one.
func findScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		script := filepath.Join(dir, "scripts", "with-postgres")
		if _, err := os.Stat(script); err == nil {
			return script, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("pgtest: no scripts/with-postgres above the working directory: run the tests in cadre's module")
		}
		dir = parent
	}
}

// firstLine sends the first line written to it, without its newline, and drops the rest.
type firstLine struct {
	line chan<- string // buffered
	buf  []byte
	sent bool
}

// Write is called by exec's copying goroutine only.
func (w *firstLine) Write(p []byte) (int, error) {
	if !w.sent {
		w.buf = append(w.buf, p...)
		if i := bytes.IndexByte(w.buf, '\n'); i >= 0 {
			w.line <- string(w.buf[:i])
			w.sent = true
		}
	}
	return len(p), nil
}

// syncBuffer is a bytes.Buffer that exec's copying goroutine writes while Start reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
