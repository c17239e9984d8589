package sqlitestore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/chat/chattest"
	"github.com/cadrehq/cadre/pkg/chat/sqlitestore"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

func open(t *testing.T, path string) *sqlitestore.Store {
	t.Helper()
	s, err := sqlitestore.Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	chattest.Run(t, func(t *testing.T) chat.Store {
		return open(t, filepath.Join(t.TempDir(), "chats.db"))
	})
}

func TestHistorySurvivesReopening(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "odd ?name#%.db")
	id := chat.ID{Tenant: "acme", User: "alice", Chat: "c1"}
	msgs := []llms.MessageContent{
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: "remember me"}}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.BinaryContent{MIMEType: "x/y", Data: []byte{0, 1}}}},
	}
	s, err := sqlitestore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(t.Context(), id, msgs); err != nil {
		t.Fatal(err)
	}
	if err := s.SetState(t.Context(), id, []byte("paused")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not at the path given, as written: %v", err)
	}

	s = open(t, path)
	got, err := s.Load(t.Context(), id)
	if err != nil {
		t.Fatalf("Load after reopening: %v", err)
	}
	if diff := cmp.Diff(msgs, got); diff != "" {
		t.Errorf("history after reopening (-before +after):\n%s", diff)
	}
	if st, err := s.State(t.Context(), id); err != nil || string(st) != "paused" {
		t.Errorf("State after reopening = %q, %v; want %q", st, err, "paused")
	}
	if infos, err := s.List(t.Context(), id.Tenant); err != nil || len(infos) != 1 || infos[0].Messages != 2 {
		t.Errorf("List after reopening = %+v, %v; want the chat with 2 messages", infos, err)
	}
}

func TestClosedStoreAnswersErrors(t *testing.T) {
	t.Parallel()
	s, err := sqlitestore.Open(filepath.Join(t.TempDir(), "chats.db"))
	if err != nil {
		t.Fatal(err)
	}
	id := chat.ID{Chat: "c"}
	hi := []llms.MessageContent{{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: "hi"}}}}
	if err := s.Append(t.Context(), id, hi); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	chattest.CheckUnavailable(t, s, id)
}

func TestOpenRefusesWhatIsNotADatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte("these are not chats, and they are long enough to look like a file header"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := sqlitestore.Open(path); err == nil {
		s.Close()
		t.Error("Open of a file that is not a database: no error")
	}
	if s, err := sqlitestore.Open(t.TempDir()); err == nil {
		s.Close()
		t.Error("Open of a directory: no error")
	}
}

// TestTwoStoresShareAFile appends from two Stores on one file at once, as two processes would:
// the busy timeout makes writers wait their turn, and nothing is lost or interleaved.
func TestTwoStoresShareAFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "shared.db")
	stores := []*sqlitestore.Store{open(t, path), open(t, path)}
	id := chat.ID{Chat: "shared"}
	const appends = 20
	var wg sync.WaitGroup
	errs := make([]error, 2*appends)
	for i := range errs {
		wg.Go(func() {
			pair := []llms.MessageContent{
				{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: fmt.Sprint(i)}}},
				{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{Text: fmt.Sprint(i)}}},
			}
			errs[i] = stores[i%2].Append(t.Context(), id, pair)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent Appends from two Stores: %v", err)
	}
	got, err := stores[0].Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2*len(errs) {
		t.Fatalf("Load = %d messages, want %d", len(got), 2*len(errs))
	}
	for i := 0; i < len(got); i += 2 {
		if got[i].Parts[0] != got[i+1].Parts[0] || got[i].Role != llms.ChatMessageTypeHuman {
			t.Fatalf("messages %d and %d are %v and %v: not one Append's pair", i, i+1, got[i], got[i+1])
		}
	}
}

// An append gets in while another process frees the file's write lock for a moment, as a
// Store of another process does between two writes when it writes without pause. SQLite's
// busy handler alone looks at the lock 228 ms after it was found taken, then every 100 ms: it
// misses a lock freed in between, for as long as the other process keeps it that way. Under
// make soak an append waited 8 s, and one that waits 10 s fails with "database is locked".
func TestAnAppendTakesTheLockWhenItIsFreedForAMoment(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "shared.db")
	s := open(t, path)
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	lock := func(sql string) {
		if _, err := conn.ExecContext(context.Background(), sql); err != nil {
			t.Error(err)
		}
	}

	lock("BEGIN IMMEDIATE")
	began := time.Now()
	appended := make(chan error, 1)
	go func() {
		appended <- s.Append(t.Context(), chat.ID{Chat: "c"}, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hello")})
	}()
	// Free the lock from 265 ms to 285 ms, between two looks of SQLite's busy handler, then
	// take it again for 3 s.
	time.Sleep(time.Until(began.Add(265 * time.Millisecond)))
	lock("COMMIT")
	time.Sleep(time.Until(began.Add(285 * time.Millisecond)))
	lock("BEGIN IMMEDIATE")
	var appendErr error
	select {
	case appendErr = <-appended:
	case <-time.After(3 * time.Second):
		lock("COMMIT")
		t.Fatalf("the append is still waiting: it missed the 20 ms the lock was free (%v)", <-appended)
	}
	lock("COMMIT")
	if appendErr != nil {
		t.Fatal(appendErr)
	}
	if waited := time.Since(began); waited > time.Second {
		t.Errorf("the append took %v, want it done while the lock was free", waited.Round(time.Millisecond))
	}
}

func TestOpenRefusesANewerLayout(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "chats.db")
	db, err := sql.Open("sqlite", path) // the driver sqlitestore registers
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if s, err := sqlitestore.Open(path); err == nil || !strings.Contains(err.Error(), "newer") {
		if err == nil {
			s.Close()
		}
		t.Errorf("Open of a file of a newer layout: %v; want an error that says so", err)
	}
}

func TestLinearizable(t *testing.T) {
	t.Parallel()
	chattest.CheckLinearizable(t, "sqlitestore", func(t *testing.T) chat.Store {
		return open(t, filepath.Join(t.TempDir(), "chats.db"))
	})
}

// TestLinearizableAcrossProcesses checks two processes with a Store each on one file.
func TestLinearizableAcrossProcesses(t *testing.T) {
	t.Parallel()
	chattest.CheckLinearizableAcrossProcesses(t, "sqlitestore",
		func(t *testing.T) string { return filepath.Join(t.TempDir(), "chats.db") },
		func(t *testing.T, path string) chat.Store { return open(t, path) })
}
