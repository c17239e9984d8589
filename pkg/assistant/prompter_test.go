package assistant_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// notes is a fixed tool set that writes in the system prompt how many notes the chat took
// before (its history) and whether the run's messages hold one, and whose tool takes a note.
type notes struct {
	mu       sync.Mutex
	seen     [][2]int // per Prompt: the lengths of history and msgs
	err      error
	fixedErr error
}

func (n *notes) Tools(context.Context) ([]tool.Tool, error) { return n.FixedTools() }

func (n *notes) FixedTools() ([]tool.Tool, error) {
	if n.fixedErr != nil {
		return nil, n.fixedErr
	}
	return []tool.Tool{rawTool{name: "take_note", schema: `{"type":"object"}`}}, nil
}

func (n *notes) Prompt(_ context.Context, history, msgs []llms.MessageContent) (string, error) {
	n.mu.Lock()
	n.seen = append(n.seen, [2]int{len(history), len(msgs)})
	n.mu.Unlock()
	return "NOTES: " + strings.Repeat("n", len(toolResultsIn(history))) + "|" + strings.Repeat("m", len(toolResultsIn(msgs))), n.err
}

// TestAToolSetWritesInTheSystemPrompt: a Prompter's text is a paragraph of each run's system
// prompt, after the instructions and before the output instructions, made from the chat's
// whole history and from the messages the run sends (the history window's, in its shape, and
// the user's turn); the run's messages keep no trace of it in the chat.
func TestAToolSetWritesInTheSystemPrompt(t *testing.T) {
	t.Parallel()
	for _, shape := range []assistant.HistoryShape{assistant.HistoryFull, assistant.HistoryTextOnly} {
		set := &notes{}
		m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("take_note", `{}`)), llmtest.Text(`{"name":"Oslo","population":700000}`)).Cycle()
		a := assistant.New[city]("notary", assistant.WithInstructions("You take notes."), assistant.WithModel(m),
			assistant.WithOutputMode(assistant.OutputPrompted), assistant.WithToolSet(set),
			assistant.WithStore(chat.NewMemory()), assistant.WithHistoryShape(shape))
		ctx := chat.WithID(testContext(t), chat.ID{Chat: "c"})
		for range 2 {
			if _, err := a.Run(ctx, assistant.Input{Prompt: "Oslo?"}); err != nil {
				t.Fatal(err)
			}
		}
		reqs := m.Requests()
		wantSecond := "NOTES: n|m" // the note of the first run, in its history and in the window
		if shape == assistant.HistoryTextOnly {
			wantSecond = "NOTES: n|" // the window leaves tool results out
		}
		for i, want := range []string{"NOTES: |", wantSecond} {
			system := systemOf(reqs[2*i])
			head, rest, ok := strings.Cut(system, "\n\n"+want+"\n\n")
			if !ok || head != "You take notes." || !strings.HasPrefix(rest, "Answer with only a JSON value") {
				t.Errorf("shape %d, run %d: system prompt\n%s\nwant the instructions, then %q, then the output instructions", shape, i+1, system, want)
			}
		}
		if got := set.seen; len(got) != 2 || got[0] != [2]int{0, 1} || got[1][0] != 4 {
			t.Errorf("shape %d: Prompt saw history and messages of lengths %v; want none and the user's turn, then the 4 messages of the first run", shape, got)
		}
	}
}

// TestAToolSetsErrors: a fixed set's error makes New panic, as a bad tool does; a Prompter's
// error fails the run before any request.
func TestAToolSetsErrors(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("ok"))
	if msg, panicked := panicText(func() {
		assistant.New[string]("a", assistant.WithModel(m), assistant.WithToolSet(&notes{fixedErr: errors.New("the notebook is missing")}))
	}); !panicked || !strings.Contains(msg, "the notebook is missing") {
		t.Errorf("a fixed set's error: panic %q; want New to panic with it", msg)
	}
	a := assistant.New[string]("a", assistant.WithModel(m), assistant.WithToolSet(&notes{err: errors.New("no pen")}))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "go"})
	if err == nil || !strings.Contains(err.Error(), "no pen") || res != nil || len(m.Requests()) != 0 {
		t.Errorf("Run = %v, %v after %d requests; want the Prompter's error, no Result and no request", res, err, len(m.Requests()))
	}
}

// TestAToolCallKnowsItsCall: the context of a tool call, and of its tool-call middleware,
// holds the call: its ID, and the run's messages up to the model's turn that made it.
func TestAToolCallKnowsItsCall(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	got := map[string]tool.Call{}
	seen := func(ctx context.Context, who string) {
		c, ok := tool.CallOf(ctx)
		if !ok {
			c.ID = "none"
		}
		mu.Lock()
		got[who+":"+c.ID] = c
		mu.Unlock()
	}
	look := tool.Func("look", "Looks.", func(ctx context.Context, in cityArgs) (string, error) {
		seen(ctx, "tool")
		return "seen " + in.City, nil
	})
	mw := assistant.Middleware{ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
		seen(ctx, "middleware")
		return next(ctx, call)
	}}
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("look", `{"city":"Oslo"}`), llmtest.Call("look", `{"city":"Bergen"}`)), llmtest.Text("done"))
	a := assistant.New[string]("looker", assistant.WithModel(m), assistant.WithTools(look), assistant.WithMiddleware(mw),
		assistant.WithInstructions("You look."))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Look."})
	if err != nil {
		t.Fatal(err)
	}
	calls := toolCallsIn(res.Messages)
	if len(got) != 4 {
		t.Fatalf("the calls saw %v; want each call seen by the middleware and the tool", got)
	}
	for _, c := range calls {
		for _, who := range []string{"tool", "middleware"} {
			call, ok := got[who+":"+c.ID]
			if !ok {
				t.Errorf("the %s of call %s did not find it in its context", who, c.ID)
				continue
			}
			msgs := call.Messages
			if len(msgs) != 3 || msgs[0].Role != llms.ChatMessageTypeSystem || textOf(msgs[1]) != "Look." ||
				!slices.EqualFunc(toolCallsIn(msgs[2:]), calls, func(a, b llms.ToolCall) bool { return a.ID == b.ID }) {
				t.Errorf("the %s of call %s saw messages %+v; want the system prompt, the user's turn and the model's turn of both calls", who, c.ID, msgs)
			}
		}
	}
	if _, ok := tool.CallOf(context.Background()); ok || tool.Messages(testContext(t)) != nil {
		t.Error("a context that is no tool call's holds a call")
	}
}

// TestAToolSetsToolIsTakenByNew: a fixed set's tools are the assistant's from New: offered to
// the model and checked there, a clash with the assistant's own tools refused.
func TestAToolSetsToolIsTakenByNew(t *testing.T) {
	t.Parallel()
	if msg, panicked := panicText(func() {
		assistant.New[string]("a", assistant.WithModel(llmtest.NewScripted()), assistant.WithToolSet(&notes{}),
			assistant.WithTools(rawTool{name: "take_note", schema: `{"type":"object"}`}))
	}); !panicked || !strings.Contains(msg, `"take_note" is taken`) {
		t.Errorf("a tool named like a fixed set's: panic %q; want one saying the name is taken", msg)
	}
	m := llmtest.NewScripted(llmtest.Text("ok"))
	a := assistant.New[string]("a", assistant.WithModels(model.Fixed(model.Describe("m", m))), assistant.WithToolSet(&notes{}))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "go"}); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(m.Requests()[0]); !slices.Equal(got, []string{"take_note"}) {
		t.Errorf("tools offered %q; want the set's", got)
	}
}
