package chattest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tmc/langchaingo/llms"
)

// Run runs the behaviour suite on the stores open returns, as subtests of t.
//
// Each subtest calls open once, with its own *testing.T, for a fresh, empty store, and most
// run in parallel: open must be safe for concurrent use, stores it returns must not see each
// other's chats (give each its own file, key prefix, ...), and open should release what it
// opened through t.Cleanup. A subtest that fails names the promise of chat.Store it checks.
func Run(t *testing.T, open func(t *testing.T) chat.Store) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, s chat.Store)
	}{
		{"AppendsAddInOrder", appendsAddInOrder},
		{"MessagesAreTheCallers", messagesAreTheCallers},
		{"UnknownChatIsNotFound", unknownChatIsNotFound},
		{"ConcurrentAppendsStayContiguous", concurrentAppendsStayContiguous},
		{"OtherTenantsAndUsersAreApart", otherTenantsAndUsersAreApart},
		{"ListMostRecentlyChangedFirst", listMostRecentlyChangedFirst},
		{"DeleteRemovesMessagesAndState", deleteRemovesMessagesAndState},
		{"StateBesideMessages", stateBesideMessages},
		{"StateTakenOnce", stateTakenOnce},
		{"StateTakenOnlyWhenEqual", stateTakenOnlyWhenEqual},
		{"EqualStateTakenOnce", equalStateTakenOnce},
		{"OddIDsKeptApart", oddIDsKeptApart},
		{"InvalidIDsAreErrors", invalidIDsAreErrors},
		{"CancelledContextIsAnError", cancelledContextIsAnError},
		{"WindowOfLoadedHistory", windowOfLoadedHistory},
	}
	t.Run("RoundTrip", func(t *testing.T) {
		t.Parallel()
		roundTrips(t, open)
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, open(t))
		})
	}
}

// roundTrips checks that every part type, and every role, comes back as it was appended.
func roundTrips(t *testing.T, open func(t *testing.T) chat.Store) {
	every := make([]byte, 0, 258)
	for b := range 256 {
		every = append(every, byte(b))
	}
	every = append(every, 0, 0) // a trailing NUL or two must not be cut
	tests := []struct {
		name string
		msgs []llms.MessageContent
	}{
		{"text", []llms.MessageContent{text(llms.ChatMessageTypeHuman, "hello")}},
		{"empty text", []llms.MessageContent{text(llms.ChatMessageTypeAI, "")}},
		{"text with NUL, newlines, quotes and unicode", []llms.MessageContent{
			text(llms.ChatMessageTypeHuman, "a\x00b\n\t\"c\" \\ ünïcødé ✓ 🙂 </script>"),
		}},
		{"tool call with arguments that are not JSON", []llms.MessageContent{{
			Role: llms.ChatMessageTypeAI,
			Parts: []llms.ContentPart{llms.ToolCall{ID: "call_1", Type: "function",
				FunctionCall: &llms.FunctionCall{Name: "search", Arguments: `{"q": "unterminated`}}},
		}}},
		{"tool result", []llms.MessageContent{{
			Role:  llms.ChatMessageTypeTool,
			Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "call_1", Name: "search", Content: `{"hits": []}`}},
		}}},
		{"image URL with detail", []llms.MessageContent{{
			Role:  llms.ChatMessageTypeHuman,
			Parts: []llms.ContentPart{llms.ImageURLContent{URL: "https://example.com/cat.png", Detail: "high"}},
		}}},
		{"binary with every byte value", []llms.MessageContent{{
			Role:  llms.ChatMessageTypeHuman,
			Parts: []llms.ContentPart{llms.BinaryContent{MIMEType: "application/octet-stream", Data: every}},
		}}},
		{"several parts in one message", []llms.MessageContent{{
			Role: llms.ChatMessageTypeHuman,
			Parts: []llms.ContentPart{
				llms.TextContent{Text: "what is in these?"},
				llms.ImageURLContent{URL: "data:image/png;base64,iVBORw0KGgo="},
				llms.BinaryContent{MIMEType: "application/pdf", Data: []byte("%PDF-1.7\x00\x01")},
				llms.TextContent{Text: "thanks"},
			},
		}, {
			Role: llms.ChatMessageTypeAI,
			Parts: []llms.ContentPart{
				llms.TextContent{Text: "looking"},
				llms.ToolCall{ID: "a", Type: "function", FunctionCall: &llms.FunctionCall{Name: "ocr", Arguments: `{"page":1}`}},
				llms.ToolCall{ID: "b", Type: "function", FunctionCall: &llms.FunctionCall{Name: "ocr", Arguments: `{"page":2}`}},
			},
		}}},
		{"every role", []llms.MessageContent{
			text(llms.ChatMessageTypeSystem, "system"),
			text(llms.ChatMessageTypeHuman, "human"),
			text(llms.ChatMessageTypeAI, "ai"),
			text(llms.ChatMessageTypeTool, "tool"),
			text(llms.ChatMessageTypeGeneric, "generic"),
			text(llms.ChatMessageTypeFunction, "function"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, id := open(t), chat.ID{Tenant: "t", User: "u", Chat: "round trip"}
			mustAppend(t, s, id, tt.msgs...)
			if diff := cmp.Diff(tt.msgs, mustLoad(t, s, id)); diff != "" {
				t.Errorf("Load after Append (-appended +loaded):\n%s", diff)
			}
		})
	}
}

func appendsAddInOrder(t *testing.T, s chat.Store) {
	id := chat.ID{Tenant: "t", User: "u", Chat: "c"}
	if err := s.Append(t.Context(), id, nil); err != nil {
		t.Fatalf("Append of no messages: %v", err)
	}
	if got := mustLoad(t, s, id); len(got) != 0 {
		t.Fatalf("Append of no messages created a chat of %d messages, want an empty one", len(got))
	}
	var want []llms.MessageContent
	for i := range 5 {
		batch := []llms.MessageContent{
			text(llms.ChatMessageTypeHuman, fmt.Sprintf("question %d", i)),
			text(llms.ChatMessageTypeAI, fmt.Sprintf("answer %d", i)),
		}
		mustAppend(t, s, id, batch...)
		want = append(want, batch...)
	}
	if diff := cmp.Diff(want, mustLoad(t, s, id)); diff != "" {
		t.Errorf("Load after five Appends (-appended +loaded):\n%s", diff)
	}
}

// messagesAreTheCallers checks that the messages given to Append and those Load returns are
// the caller's: overwriting them, appending to them or changing a part of them (a tool call's
// arguments, binary data) never changes the chat.
func messagesAreTheCallers(t *testing.T, s chat.Store) {
	history := func() []llms.MessageContent { // a new one each call, to change at will
		return []llms.MessageContent{
			text(llms.ChatMessageTypeHuman, "what is in this?"),
			{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
				llms.TextContent{Text: "looking"},
				llms.ToolCall{ID: "a", Type: "function", FunctionCall: &llms.FunctionCall{Name: "ocr", Arguments: `{"page":1}`}},
			}},
			{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "a", Name: "ocr", Content: "a cat"}}},
			{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.BinaryContent{MIMEType: "image/png", Data: []byte("\x89PNG")}}},
		}
	}
	// Each check in a chat of its own, made in two Appends, so that a store keeping one slice
	// a chat has room to grow in place. store returns what it appended, for the caller to change.
	store := func(chatID string) (chat.ID, []llms.MessageContent) {
		id, msgs := chat.ID{Tenant: "t", User: "u", Chat: chatID}, history()
		mustAppend(t, s, id, msgs[:3]...)
		mustAppend(t, s, id, msgs[3:]...)
		return id, msgs
	}

	id, appended := store("appended")
	change(appended)
	if diff := cmp.Diff(history(), mustLoad(t, s, id)); diff != "" {
		t.Errorf("the chat after the caller changed the messages it appended (-want +got):\n%s", diff)
	}

	id, _ = store("loaded")
	change(mustLoad(t, s, id))
	if diff := cmp.Diff(history(), mustLoad(t, s, id)); diff != "" {
		t.Errorf("the chat after the caller changed the messages it loaded (-want +got):\n%s", diff)
	}

	id, _ = store("grown")
	loaded := mustLoad(t, s, id)
	next := text(llms.ChatMessageTypeAI, "a cat")
	mustAppend(t, s, id, next)
	_ = append(loaded, text(llms.ChatMessageTypeHuman, "appended by the caller"))
	if diff := cmp.Diff(append(history(), next), mustLoad(t, s, id)); diff != "" {
		t.Errorf("the chat after the caller appended to a history it loaded before an Append (-want +got):\n%s", diff)
	}
}

// change changes msgs, made by messagesAreTheCallers, everywhere a store could share memory
// with them: a message, a part, a tool call's function call, binary data.
func change(msgs []llms.MessageContent) {
	msgs[0] = text(llms.ChatMessageTypeHuman, "overwritten")
	msgs[1].Parts[0] = llms.TextContent{Text: "part overwritten"}
	if call, ok := msgs[1].Parts[1].(llms.ToolCall); ok && call.FunctionCall != nil {
		call.FunctionCall.Arguments = `{"page":2}`
	}
	msgs[2].Parts = append(msgs[2].Parts[:0], llms.TextContent{Text: "parts replaced"})
	if bin, ok := msgs[3].Parts[0].(llms.BinaryContent); ok && len(bin.Data) > 0 {
		bin.Data[0] = 'X'
	}
}

func unknownChatIsNotFound(t *testing.T, s chat.Store) {
	id := chat.ID{Tenant: "t", User: "u", Chat: "never written"}
	if msgs, err := s.Load(t.Context(), id); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("Load of a chat never written = %d messages, %v; want an error wrapping ErrNotFound", len(msgs), err)
	}
	if _, err := s.State(t.Context(), id); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("State of a chat never written: %v; want an error wrapping ErrNotFound", err)
	}
	if _, err := s.TakeState(t.Context(), id); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("TakeState of a chat never written: %v; want an error wrapping ErrNotFound", err)
	}
	if taken, err := s.TakeStateIf(t.Context(), id, []byte("s")); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("TakeStateIf of a chat never written = %v, %v; want an error wrapping ErrNotFound", taken, err)
	}
	if err := s.Delete(t.Context(), id); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("Delete of a chat never written: %v; want an error wrapping ErrNotFound", err)
	}
	if infos, err := s.List(t.Context(), "t"); err != nil || len(infos) != 0 {
		t.Errorf("List of a tenant without chats = %v, %v; want none and no error", infos, err)
	}
}

// concurrentAppendsStayContiguous appends from 100 goroutines at once to one chat, each call
// 3 to 7 messages tagged "call/index/count", and checks every call's messages stand together,
// in order, once.
func concurrentAppendsStayContiguous(t *testing.T, s chat.Store) {
	const calls = 100
	id := chat.ID{Tenant: "t", User: "u", Chat: "busy"}
	errs := make([]error, calls)
	total := 0
	var wg sync.WaitGroup
	for c := range calls {
		n := 3 + c%5
		total += n
		wg.Go(func() {
			msgs := make([]llms.MessageContent, n)
			for k := range msgs {
				msgs[k] = text(llms.ChatMessageTypeHuman, fmt.Sprintf("%d/%d/%d", c, k, n))
			}
			errs[c] = s.Append(t.Context(), id, msgs)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent Appends: %v", err)
	}
	got := mustLoad(t, s, id)
	seen := map[int]bool{}
	for i := 0; i < len(got); {
		c, k, n := callTag(t, got[i])
		if k != 0 || seen[c] {
			t.Fatalf("message %d is message %d of call %d: a call's messages are interleaved or repeated", i, k, c)
		}
		seen[c] = true
		for j := 1; j < n; j++ {
			if i+j >= len(got) {
				t.Fatalf("call %d has %d of its %d messages", c, j, n)
			}
			if c2, k2, _ := callTag(t, got[i+j]); c2 != c || k2 != j {
				t.Fatalf("message %d is message %d of call %d, want message %d of call %d: calls interleaved", i+j, k2, c2, j, c)
			}
		}
		i += n
	}
	if len(seen) != calls || len(got) != total {
		t.Errorf("Load after %d Appends of %d messages = %d calls, %d messages", calls, total, len(seen), len(got))
	}
	if infos, err := s.List(t.Context(), id.Tenant); err != nil || len(infos) != 1 || infos[0].Messages != total {
		t.Errorf("List = %+v, %v; want the one chat, with %d messages", infos, err, total)
	}
}

func callTag(t *testing.T, m llms.MessageContent) (call, index, count int) {
	t.Helper()
	var s string
	if len(m.Parts) == 1 {
		if part, ok := m.Parts[0].(llms.TextContent); ok {
			s = part.Text
		}
	}
	if _, err := fmt.Sscanf(s, "%d/%d/%d", &call, &index, &count); err != nil {
		t.Fatalf("a loaded message is not one appended: %+v", m)
	}
	return call, index, count
}

func otherTenantsAndUsersAreApart(t *testing.T, s chat.Store) {
	ctx := t.Context()
	mine := chat.ID{Tenant: "acme", User: "alice", Chat: "c1"}
	msg := text(llms.ChatMessageTypeHuman, "private")
	mustAppend(t, s, mine, msg)
	if err := s.SetState(ctx, mine, []byte("paused")); err != nil {
		t.Fatal(err)
	}
	others := []chat.ID{
		{Tenant: "globex", User: "alice", Chat: "c1"},
		{Tenant: "acme", User: "bob", Chat: "c1"},
		{Tenant: "", User: "alice", Chat: "c1"},
		{Tenant: "acme", User: "", Chat: "c1"},
		{Tenant: "", User: "", Chat: "c1"},
	}
	for _, other := range others {
		if _, err := s.Load(ctx, other); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("Load(%v) of another's chat: %v; want ErrNotFound", other, err)
		}
		if _, err := s.State(ctx, other); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("State(%v) of another's chat: %v; want ErrNotFound", other, err)
		}
		if _, err := s.TakeState(ctx, other); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("TakeState(%v) of another's chat: %v; want ErrNotFound", other, err)
		}
		if taken, err := s.TakeStateIf(ctx, other, []byte("paused")); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("TakeStateIf(%v) of another's chat = %v, %v; want ErrNotFound", other, taken, err)
		}
		if err := s.Delete(ctx, other); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("Delete(%v) of another's chat: %v; want ErrNotFound", other, err)
		}
	}
	for _, tenant := range []string{"globex", "", "Acme"} {
		if infos, err := s.List(ctx, tenant); err != nil || len(infos) != 0 {
			t.Errorf("List(%q) = %+v, %v; want none of tenant acme's chats", tenant, infos, err)
		}
	}
	if diff := cmp.Diff([]llms.MessageContent{msg}, mustLoad(t, s, mine)); diff != "" {
		t.Errorf("the chat after others' calls on its Chat (-want +got):\n%s", diff)
	}
	if st, err := s.State(ctx, mine); err != nil || string(st) != "paused" {
		t.Errorf("State after others' calls on its Chat = %q, %v; want %q", st, err, "paused")
	}
}

func listMostRecentlyChangedFirst(t *testing.T, s chat.Store) {
	ctx := t.Context()
	a := chat.ID{Tenant: "acme", User: "alice", Chat: "a"}
	b := chat.ID{Tenant: "acme", User: "bob", Chat: "b"}
	c := chat.ID{Tenant: "acme", User: "alice", Chat: "c"}
	other := chat.ID{Tenant: "globex", User: "alice", Chat: "a"}
	for _, id := range []chat.ID{a, b, c, other, a} {
		mustAppend(t, s, id, text(llms.ChatMessageTypeHuman, "hi"))
	}
	if err := s.SetState(ctx, b, []byte("x")); err != nil {
		t.Fatal(err)
	}
	infos, err := s.List(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.Info{{ID: b, Messages: 1}, {ID: a, Messages: 2}, {ID: c, Messages: 1}}
	if diff := cmp.Diff(want, infos, cmpopts.IgnoreFields(chat.Info{}, "Updated")); diff != "" {
		t.Errorf("List after changes to a, b, c, a, b (-want +got):\n%s", diff)
	}
	for i, info := range infos {
		if info.Updated.IsZero() || i > 0 && info.Updated.After(infos[i-1].Updated) {
			t.Errorf("List()[%d].Updated = %v, after %v: not most recently changed first", i, info.Updated, infos[i-1].Updated)
		}
	}
}

func deleteRemovesMessagesAndState(t *testing.T, s chat.Store) {
	ctx := t.Context()
	id := chat.ID{Tenant: "t", User: "u", Chat: "doomed"}
	neighbour := chat.ID{Tenant: "t", User: "u", Chat: "kept"}
	mustAppend(t, s, id, text(llms.ChatMessageTypeHuman, "old"))
	mustAppend(t, s, neighbour, text(llms.ChatMessageTypeHuman, "kept"))
	if err := s.SetState(ctx, id, []byte("old state")); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, id); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Load(ctx, id); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("Load after Delete: %v; want ErrNotFound", err)
	}
	if _, err := s.State(ctx, id); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("State after Delete: %v; want ErrNotFound", err)
	}
	if err := s.Delete(ctx, id); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("a second Delete: %v; want ErrNotFound", err)
	}
	infos, err := s.List(ctx, id.Tenant)
	if err != nil || len(infos) != 1 || infos[0].ID != neighbour {
		t.Errorf("List after Delete = %+v, %v; want only %v", infos, err, neighbour)
	}
	fresh := text(llms.ChatMessageTypeHuman, "new")
	mustAppend(t, s, id, fresh)
	if diff := cmp.Diff([]llms.MessageContent{fresh}, mustLoad(t, s, id)); diff != "" {
		t.Errorf("a chat appended to after Delete (-want +got):\n%s", diff)
	}
	if st, err := s.State(ctx, id); err != nil || st != nil {
		t.Errorf("State of a chat appended to after Delete = %q, %v; want nil", st, err)
	}
	if got := mustLoad(t, s, neighbour); len(got) != 1 {
		t.Errorf("the neighbour of a deleted chat holds %d messages, want 1", len(got))
	}
}

func stateBesideMessages(t *testing.T, s chat.Store) {
	ctx := t.Context()
	id := chat.ID{Tenant: "t", User: "u", Chat: "stateful"}
	first := []byte("\x00paused run\xff")
	if err := s.SetState(ctx, id, first); err != nil {
		t.Fatalf("SetState of a new chat: %v", err)
	}
	if got := mustLoad(t, s, id); len(got) != 0 {
		t.Errorf("a chat created by SetState holds %d messages, want none", len(got))
	}
	if infos, err := s.List(ctx, id.Tenant); err != nil || len(infos) != 1 || infos[0].ID != id || infos[0].Messages != 0 {
		t.Errorf("List after SetState created a chat = %+v, %v", infos, err)
	}
	checkState := func(when string, want []byte) {
		t.Helper()
		got, err := s.State(ctx, id)
		if err != nil {
			t.Fatalf("State %s: %v", when, err)
		}
		if !bytes.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("State %s = %d bytes %.40q, want %d bytes %.40q", when, len(got), got, len(want), want)
		}
	}
	checkState("after SetState", first)
	msg := text(llms.ChatMessageTypeHuman, "hi")
	mustAppend(t, s, id, msg)
	checkState("after Append", first)
	big := []byte(strings.Repeat("0123456789abcdef", 1<<16)) // 1 MiB
	if err := s.SetState(ctx, id, big); err != nil {
		t.Fatal(err)
	}
	checkState("after SetState of 1 MiB", big)
	if err := s.SetState(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	checkState("after SetState(nil)", nil)
	if diff := cmp.Diff([]llms.MessageContent{msg}, mustLoad(t, s, id)); diff != "" {
		t.Errorf("messages after SetState(nil) (-want +got):\n%s", diff)
	}
}

// oddIDsKeptApart writes one message to each of many IDs that a careless key scheme would
// merge, then checks each ID loads only its own and List gives the IDs back as written.
func oddIDsKeptApart(t *testing.T, s chat.Store) {
	long := func(c byte) string { return strings.Repeat(string(c), 256) }
	ids := []chat.ID{
		{Tenant: "a:b", User: "c", Chat: "d"},
		{Tenant: "a", User: "b:c", Chat: "d"},
		{Tenant: "a", User: "b", Chat: "c:d"},
		{Tenant: "a:b:c", User: "", Chat: "d"},
		{Tenant: "", User: "a:b:c", Chat: "d"},
		{Tenant: "", User: "", Chat: "a:b:c:d"},
		{Tenant: "a/b", User: "c", Chat: "d"},
		{Tenant: "a", User: "b/c", Chat: "d"},
		{Tenant: "a", User: "b", Chat: "c/d"},
		{Tenant: "*", User: "*", Chat: "*"},
		{Tenant: "a", User: "b", Chat: "*"},
		{Tenant: "a", User: "b", Chat: "?"},
		{Tenant: "a", User: "b", Chat: "[cd]"},
		{Tenant: "a", User: "b", Chat: "c"},
		{Tenant: "A", User: "b", Chat: "c"},
		{Tenant: "a", User: "b", Chat: "c "},
		{Tenant: "a", User: "b", Chat: " c"},
		{Tenant: "a", User: "b", Chat: "c  d"},
		{Tenant: "a", User: "b", Chat: "c+d"},
		{Tenant: "a", User: "b", Chat: "c%20d"},
		{Tenant: "a", User: "b", Chat: "c%2520d"},
		{Tenant: "{a}", User: "b", Chat: "c"},
		{Tenant: "%7Ba%7D", User: "b", Chat: "c"},
		{Tenant: "a", User: "{b}", Chat: "}c{"},
		{Tenant: "a", User: "b", Chat: "c\n"},
		{Tenant: "a", User: "b", Chat: "c'; DROP TABLE chats; --"},
		{Tenant: "日本", User: "ユーザー", Chat: "会話 🙂"},
		{Tenant: "a", User: "b", Chat: "\xff\xfe invalid UTF-8"},
		{Tenant: long('t'), User: long('u'), Chat: long('c')},
		{Tenant: long('t'), User: long('u'), Chat: long('c')[1:] + "d"},
		{Tenant: long('t')[1:], User: "t" + long('u')[1:], Chat: long('c')},
	}
	for i, id := range ids {
		mustAppend(t, s, id, text(llms.ChatMessageTypeHuman, fmt.Sprint(i)))
	}
	byTenant := map[string][]chat.ID{}
	for i, id := range ids {
		want := []llms.MessageContent{text(llms.ChatMessageTypeHuman, fmt.Sprint(i))}
		if diff := cmp.Diff(want, mustLoad(t, s, id)); diff != "" {
			t.Errorf("Load(%q) (-want +got):\n%s", id, diff)
		}
		byTenant[id.Tenant] = append(byTenant[id.Tenant], id)
	}
	byID := cmpopts.SortSlices(func(a, b chat.ID) bool {
		return a.Tenant < b.Tenant || a.Tenant == b.Tenant && (a.User < b.User || a.User == b.User && a.Chat < b.Chat)
	})
	for tenant, want := range byTenant {
		infos, err := s.List(t.Context(), tenant)
		if err != nil {
			t.Fatalf("List(%q): %v", tenant, err)
		}
		var got []chat.ID
		for _, info := range infos {
			got = append(got, info.ID)
		}
		if diff := cmp.Diff(want, got, byID); diff != "" {
			t.Errorf("List(%q) IDs (-want +got):\n%s", tenant, diff)
		}
	}
}

func invalidIDsAreErrors(t *testing.T, s chat.Store) {
	ctx := t.Context()
	bad := []chat.ID{
		{},
		{Tenant: "t", User: "u"},
		{Tenant: "t", User: "u", Chat: "a\x00b"},
		{Tenant: "\x00", Chat: "c"},
		{User: "u\x00", Chat: "c"},
		{Chat: strings.Repeat("c", 257)},
		{Tenant: strings.Repeat("t", 257), Chat: "c"},
	}
	for _, id := range bad {
		errs := everyMethod(ctx, s, id)
		delete(errs, "List") // List takes a tenant, and any tenant is one
		for method, err := range errs {
			if err == nil || errors.Is(err, chat.ErrNotFound) {
				t.Errorf("%s with invalid ID %q: %v; want an error that says what is wrong with it", method, id, err)
			}
		}
	}
}

func cancelledContextIsAnError(t *testing.T, s chat.Store) {
	id := chat.ID{Tenant: "t", User: "u", Chat: "c"}
	msg := text(llms.ChatMessageTypeHuman, "before")
	mustAppend(t, s, id, msg)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for method, err := range everyMethod(ctx, s, id) {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s under a cancelled context: %v; want an error wrapping context.Canceled", method, err)
		}
	}
	if diff := cmp.Diff([]llms.MessageContent{msg}, mustLoad(t, s, id)); diff != "" {
		t.Errorf("the chat after calls under a cancelled context (-want +got):\n%s", diff)
	}
	if st, err := s.State(t.Context(), id); err != nil || st != nil {
		t.Errorf("State after SetState under a cancelled context = %q, %v; want nil", st, err)
	}
}

// everyMethod calls every method of s under ctx, on id (List on id.Tenant), and returns each
// one's error by the method's name. Append appends one message, SetState sets a state.
func everyMethod(ctx context.Context, s chat.Store, id chat.ID) map[string]error {
	errs := map[string]error{
		"Append":   s.Append(ctx, id, []llms.MessageContent{text(llms.ChatMessageTypeHuman, "after")}),
		"SetState": s.SetState(ctx, id, []byte("s")),
		"Delete":   s.Delete(ctx, id),
	}
	_, errs["Load"] = s.Load(ctx, id)
	_, errs["State"] = s.State(ctx, id)
	_, errs["TakeState"] = s.TakeState(ctx, id)
	_, errs["TakeStateIf"] = s.TakeStateIf(ctx, id, []byte("s"))
	_, errs["List"] = s.List(ctx, id.Tenant)
	return errs
}

// stateTakenOnce checks that TakeState hands a state to exactly one of many callers at the
// same instant, and leaves the chat's messages alone.
func stateTakenOnce(t *testing.T, s chat.Store) {
	ctx := t.Context()
	id := chat.ID{Tenant: "t", User: "u", Chat: "paused"}
	msg := text(llms.ChatMessageTypeHuman, "kept")
	mustAppend(t, s, id, msg)
	if st, err := s.TakeState(ctx, id); err != nil || st != nil {
		t.Errorf("TakeState of a chat without state = %q, %v; want nil and no error", st, err)
	}
	for round := range 20 {
		state := []byte(fmt.Sprintf("paused %d", round))
		if err := s.SetState(ctx, id, state); err != nil {
			t.Fatal(err)
		}
		const takers = 8
		got := make([][]byte, takers)
		errs := make([]error, takers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range takers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				got[i], errs[i] = s.TakeState(ctx, id)
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for i := range takers {
			switch {
			case errs[i] != nil:
				t.Errorf("round %d: TakeState: %v", round, errs[i])
			case bytes.Equal(got[i], state):
				won++
			case got[i] != nil:
				t.Errorf("round %d: TakeState = %q, want %q or nil", round, got[i], state)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d of %d simultaneous TakeStates got the state, want exactly 1", round, won, takers)
		}
		if st, err := s.State(ctx, id); err != nil || st != nil {
			t.Fatalf("round %d: State after TakeState = %q, %v; want nil", round, st, err)
		}
	}
	if diff := cmp.Diff([]llms.MessageContent{msg}, mustLoad(t, s, id)); diff != "" {
		t.Errorf("the chat's messages after TakeStates (-want +got):\n%s", diff)
	}
}

// stateTakenOnlyWhenEqual checks that TakeStateIf removes the chat's state only when it is
// want, byte for byte, and leaves any other state, and the chat's messages, as they were.
func stateTakenOnlyWhenEqual(t *testing.T, s chat.Store) {
	ctx := t.Context()
	id := chat.ID{Tenant: "t", User: "u", Chat: "paused"}
	msg := text(llms.ChatMessageTypeHuman, "kept")
	mustAppend(t, s, id, msg)
	for _, want := range [][]byte{[]byte("paused"), {}, nil} {
		if taken, err := s.TakeStateIf(ctx, id, want); err != nil || taken {
			t.Errorf("TakeStateIf(%q) of a chat without state = %v, %v; want false and no error", want, taken, err)
		}
	}
	big := []byte(strings.Repeat("0123456789abcdef", 1<<16)) // 1 MiB
	for _, state := range [][]byte{[]byte("\x00paused run 1\xff"), big} {
		if err := s.SetState(ctx, id, state); err != nil {
			t.Fatal(err)
		}
		changed := bytes.Clone(state)
		changed[len(changed)-1]++
		others := [][]byte{
			nil,
			{},
			state[:len(state)-1],                   // a prefix
			append(bytes.Clone(state), 0),          // longer by a NUL
			changed,                                // one byte different
			[]byte(strings.ToUpper(string(state))), // another case
		}
		for _, other := range others {
			if bytes.Equal(other, state) {
				continue
			}
			if taken, err := s.TakeStateIf(ctx, id, other); err != nil || taken {
				t.Errorf("TakeStateIf of %d bytes %.40q for a state of %d bytes %.40q = %v, %v; want false and no error",
					len(other), other, len(state), state, taken, err)
			}
			if got, err := s.State(ctx, id); err != nil || !bytes.Equal(got, state) {
				t.Fatalf("State after a TakeStateIf of another state = %d bytes %.40q, %v; want it left as it was", len(got), got, err)
			}
		}
		if taken, err := s.TakeStateIf(ctx, id, bytes.Clone(state)); err != nil || !taken {
			t.Fatalf("TakeStateIf of the chat's state (%d bytes) = %v, %v; want true", len(state), taken, err)
		}
		if got, err := s.State(ctx, id); err != nil || got != nil {
			t.Errorf("State after TakeStateIf took it = %.40q, %v; want nil", got, err)
		}
		if taken, err := s.TakeStateIf(ctx, id, state); err != nil || taken {
			t.Errorf("a second TakeStateIf of the same state = %v, %v; want false: it was taken", taken, err)
		}
	}
	if diff := cmp.Diff([]llms.MessageContent{msg}, mustLoad(t, s, id)); diff != "" {
		t.Errorf("the chat's messages after TakeStateIfs (-want +got):\n%s", diff)
	}
}

// equalStateTakenOnce checks that of many TakeStateIfs of one chat at the same instant, those
// with the chat's state exactly one takes it, and those with another state take nothing.
func equalStateTakenOnce(t *testing.T, s chat.Store) {
	ctx := t.Context()
	id := chat.ID{Tenant: "t", User: "u", Chat: "paused"}
	for round := range 20 {
		state := []byte(fmt.Sprintf("paused %d", round))
		stale := []byte(fmt.Sprintf("paused %d", round+100))
		if err := s.SetState(ctx, id, state); err != nil {
			t.Fatal(err)
		}
		const takers = 8 // the even ones with the chat's state, the odd ones with a stale one
		taken := make([]bool, takers)
		errs := make([]error, takers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range takers {
			want := state
			if i%2 == 1 {
				want = stale
			}
			wg.Go(func() {
				<-start
				taken[i], errs[i] = s.TakeStateIf(ctx, id, want)
			})
		}
		close(start)
		wg.Wait()
		won := 0
		for i := range takers {
			switch {
			case errs[i] != nil:
				t.Errorf("round %d: TakeStateIf: %v", round, errs[i])
			case taken[i] && i%2 == 1:
				t.Errorf("round %d: a TakeStateIf of another state than the chat's took it", round)
			case taken[i]:
				won++
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d of %d simultaneous TakeStateIfs of the chat's state took it, want exactly 1", round, won, takers/2)
		}
		if st, err := s.State(ctx, id); err != nil || st != nil {
			t.Fatalf("round %d: State after TakeStateIf = %q, %v; want nil", round, st, err)
		}
	}
}

func text(role llms.ChatMessageType, s string) llms.MessageContent {
	return llms.MessageContent{Role: role, Parts: []llms.ContentPart{llms.TextContent{Text: s}}}
}

func mustAppend(t *testing.T, s chat.Store, id chat.ID, msgs ...llms.MessageContent) {
	t.Helper()
	if err := s.Append(t.Context(), id, msgs); err != nil {
		t.Fatalf("Append(%q): %v", id, err)
	}
}

func mustLoad(t *testing.T, s chat.Store, id chat.ID) []llms.MessageContent {
	t.Helper()
	msgs, err := s.Load(t.Context(), id)
	if err != nil {
		t.Fatalf("Load(%q): %v", id, err)
	}
	return msgs
}
