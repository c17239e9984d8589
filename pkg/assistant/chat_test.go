package assistant_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

func TestChatContinuesAcrossRuns(t *testing.T) {
	t.Parallel()
	store := chat.NewMemory()
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("lookup", `{"city":"Oslo"}`)),
		llmtest.Text("Oslo has 700,000 people."),
		llmtest.Text("Yes, it is the capital."),
	)
	lookup := tool.Func("lookup", "Looks a city up.", func(_ context.Context, in cityArgs) (string, error) { return "700000", nil })
	a := assistant.New[string]("geo", assistant.WithModel(m), assistant.WithStore(store), assistant.WithTools(lookup),
		assistant.WithInstructions("You know cities."))
	id := chat.ID{Tenant: "acme", User: "ana", Chat: "c1"}
	ctx := chat.WithID(testContext(t), id)
	if _, err := a.Run(ctx, assistant.Input{Prompt: "How big is Oslo?"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(ctx, assistant.Input{Prompt: "Is it the capital?"}); err != nil {
		t.Fatal(err)
	}
	// The second request held the first exchange, tool call and result included, and one
	// system message: the system prompt is never stored.
	second := m.Requests()[2].Messages
	want := []llms.ChatMessageType{"system", "human", "ai", "tool", "ai", "human"}
	if got := roles(second); !equalRoles(got, want) {
		t.Errorf("second run's request roles = %v, want %v", got, want)
	}
	stored, err := store.Load(testContext(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if got := roles(stored); !equalRoles(got, []llms.ChatMessageType{"human", "ai", "tool", "ai", "human", "ai"}) {
		t.Errorf("stored roles = %v", got)
	}
	// Another tenant's chat of the same name is another chat.
	other := chat.WithID(testContext(t), chat.ID{Tenant: "globex", User: "ana", Chat: "c1"})
	if _, err := store.Load(other, chat.ID{Tenant: "globex", User: "ana", Chat: "c1"}); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("another tenant's chat: err = %v, want ErrNotFound", err)
	}
}

func TestFailedRunLeavesAValidHistory(t *testing.T) {
	t.Parallel()
	store := chat.NewMemory()
	id := chat.ID{Chat: "c2"}
	ctx := chat.WithID(testContext(t), id)
	// The first run fails at its tool call limit, with calls in flight.
	m := llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
		return llmtest.Calls(llmtest.Call("lookup", `{"city":"Oslo"}`), llmtest.Call("lookup", `{"city":"Rome"}`))
	})
	lookup := tool.Func("lookup", "Looks a city up.", func(_ context.Context, in cityArgs) (string, error) { return "big", nil })
	a := assistant.New[string]("geo", assistant.WithModel(m), assistant.WithStore(store), assistant.WithTools(lookup),
		assistant.WithLimits(usage.Limits{MaxToolCalls: 3}))
	if _, err := a.Run(ctx, assistant.Input{Prompt: "Sizes?"}); err == nil {
		t.Fatal("the run did not fail at its limit")
	}
	stored, err := store.Load(testContext(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) == 0 || stored[0].Role != llms.ChatMessageTypeHuman || !strings.Contains(textOf(stored[0]), "Sizes?") {
		t.Fatalf("stored = %v, want the user's turn first", roles(stored))
	}
	if err := replayError(stored); err != nil {
		t.Errorf("the failed run's history cannot be sent again: %v", err)
	}
}

func TestDelegatedRunsDoNotJoinTheChat(t *testing.T) {
	t.Parallel()
	store := chat.NewMemory()
	spec := assistant.New[string]("spec", assistant.WithModel(llmtest.NewScripted(llmtest.Text("fact"))), assistant.WithStore(store))
	sup := assistant.New[string]("sup", assistant.WithStore(store), assistant.WithTools(assistant.AsTool[string](spec)),
		assistant.WithModel(llmtest.NewScripted(llmtest.Calls(llmtest.Call("spec", `{"input":"q"}`)), llmtest.Text("done"))))
	id := chat.ID{Chat: "c3"}
	if _, err := sup.Run(chat.WithID(testContext(t), id), assistant.Input{Prompt: "go"}); err != nil {
		t.Fatal(err)
	}
	stored, _ := store.Load(testContext(t), id)
	if got := roles(stored); !equalRoles(got, []llms.ChatMessageType{"human", "ai", "tool", "ai"}) {
		t.Errorf("stored = %v, want only the supervisor's run", got)
	}
}

func equalRoles(a, b []llms.ChatMessageType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestConcurrentRunsInOneChatStayContiguous(t *testing.T) {
	t.Parallel()
	store := chat.NewMemory()
	// Each run makes a tool call and answers; every message it adds names its prompt.
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		prompt := textOf(req.Messages[len(req.Messages)-1])
		last := req.Messages[len(req.Messages)-1]
		if last.Role == llms.ChatMessageTypeTool {
			return llmtest.Text("answer to " + last.Parts[0].(llms.ToolCallResponse).Content)
		}
		return llmtest.Calls(llmtest.Call("echo", `{"city":"`+prompt+`"}`))
	})
	echo := tool.Func("echo", "Echoes.", func(_ context.Context, in cityArgs) (string, error) { return in.City, nil })
	a := assistant.New[string]("echo", assistant.WithModel(m), assistant.WithStore(store), assistant.WithTools(echo),
		assistant.WithHistoryWindow(chat.Window{MaxMessages: 1}))
	id := chat.ID{Chat: "busy"}
	ctx := chat.WithID(testContext(t), id)
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			if _, err := a.Run(ctx, assistant.Input{Prompt: fmt.Sprintf("p%d", i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	stored, err := store.Load(testContext(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 400 {
		t.Fatalf("stored %d messages, want 4 for each of 100 runs", len(stored))
	}
	for i := 0; i < len(stored); i += 4 {
		p := textOf(stored[i])
		if stored[i].Role != llms.ChatMessageTypeHuman || textOf(stored[i+3]) != "answer to "+p {
			t.Fatalf("messages %d..%d are not one run's turn: %v / %q", i, i+3, roles(stored[i:i+4]), textOf(stored[i+3]))
		}
	}
}

// unwritableStore is a chat store whose Append fails.
type unwritableStore struct {
	chat.Store
}

var errDiskFull = errors.New("disk full")

func (unwritableStore) Append(context.Context, chat.ID, []llms.MessageContent) error {
	return errDiskFull
}

// TestAChatThatCannotBeWrittenIsReported: a run whose messages cannot be saved to its chat says
// so — beside its answer when it answered, joined to its own error when it failed.
func TestAChatThatCannotBeWrittenIsReported(t *testing.T) {
	t.Parallel()
	ctx := chat.WithID(testContext(t), chat.ID{Chat: "c"})
	store := unwritableStore{chat.NewMemory()}
	t.Run("answered", func(t *testing.T) {
		t.Parallel()
		a := assistant.New[string]("a", assistant.WithModel(llmtest.NewScripted(llmtest.Text("hi"))), assistant.WithStore(store))
		res, err := a.Run(ctx, assistant.Input{Prompt: "go"})
		if !errors.Is(err, errDiskFull) || res == nil || res.Output != "hi" {
			t.Errorf("Run = %v, %v; want the answer with the store's error", res, err)
		}
	})
	t.Run("failed", func(t *testing.T) {
		t.Parallel()
		errModel := errors.New("the model is down")
		a := assistant.New[string]("a", assistant.WithModel(llmtest.NewScripted(llmtest.Fail(errModel))), assistant.WithStore(store))
		_, err := a.Run(ctx, assistant.Input{Prompt: "go"})
		if !errors.Is(err, errModel) || !errors.Is(err, errDiskFull) {
			t.Errorf("err = %v; want the run's error and the store's", err)
		}
	})
}
