package sqlitestore_test

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
