package assistant_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/ratelimit"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// The errors a newcomer meets first in a run each say which assistant, what is wrong, and
// what to do.
func TestNewcomerRunErrorsSayWhatToDo(t *testing.T) {
	t.Parallel()
	unsetKey, err := llmfactory.Parse([]byte("providers:\n  openai: { api_key: '${OPENAI_API_KEY}' }\n"+
		"models:\n  fast: { provider: openai, model: gpt-5-mini }\ndefault: fast\n"),
		llmfactory.WithEnv(func(string) (string, bool) { return "", false }))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts []assistant.Option
		in   assistant.Input
		want []string // each in the message
	}{{
		name: "missing template var: names it and says where to give it",
		opts: []assistant.Option{
			assistant.WithModel(llmtest.NewScripted(llmtest.Text("never sent"))),
			assistant.WithInstructions("Write for {{.audience}}, in {{.tone}} words."),
			assistant.WithVars(map[string]any{"tone": "plain"}),
		},
		in:   assistant.Input{Prompt: "Explain DNS."},
		want: []string{`assistant "writer"`, `"audience"`, "give every var the template uses in WithVars or Input.Vars"},
	}, {
		name: "unset API key: names the variable and the provider, and says to set it",
		opts: []assistant.Option{assistant.WithModels(unsetKey)},
		in:   assistant.Input{Prompt: "Explain DNS."},
		want: []string{`assistant "writer"`, `provider "openai"`, "OPENAI_API_KEY is not set: set it"},
	}, {
		name: "no model: says how to give one",
		in:   assistant.Input{Prompt: "Explain DNS."},
		want: []string{`assistant "writer"`, "give the assistant one with WithModel or WithModels"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := assistant.New[string]("writer", tt.opts...).Run(context.Background(), tt.in)
			if err == nil {
				t.Fatal("Run succeeded, want an error")
			}
			wantSays(t, err.Error(), tt.want)
		})
	}
}

// A var given for the run (Input.Vars) is enough: the advice in the error is right.
func TestNewcomerMissingVarGivenInInput(t *testing.T) {
	t.Parallel()
	a := assistant.New[string]("writer",
		assistant.WithModel(llmtest.NewScripted(llmtest.Text("DNS turns names into addresses."))),
		assistant.WithInstructions("Write for {{.audience}}."))
	if _, err := a.Run(context.Background(), assistant.Input{Prompt: "Explain DNS.", Vars: map[string]any{"audience": "children"}}); err != nil {
		t.Fatal(err)
	}
}

// An invalid tool name panics where it is written, saying which characters a name may hold
// and suggesting one that works.
func TestNewcomerInvalidToolNameSaysWhatIsAllowed(t *testing.T) {
	t.Parallel()
	allowed := "use only ASCII letters (a-z, A-Z), digits, '_' or '-'"
	noop := func(context.Context, struct{}) (string, error) { return "", nil }
	tests := []struct {
		name string
		make func()
		want []string // each in the panic's text
	}{{
		name: "tool.Func",
		make: func() { tool.Func("get weather", "The forecast.", noop) },
		want: []string{`tool.Func: tool name "get weather" has ' ' at byte 3`, allowed, `e.g. "get_weather"`},
	}, {
		name: "tool.Func with a non-ASCII letter",
		make: func() { tool.Func("météo", "The forecast.", noop) },
		want: []string{`has 'é' at byte 1`, allowed, `e.g. "m_t_o"`},
	}, {
		name: "assistant.New with a hand-written tool",
		make: func() {
			assistant.New[string]("writer", assistant.WithTools(rawTool{name: "look.up", schema: `{"type":"object"}`}))
		},
		want: []string{`assistant.New: tool name "look.up" has '.'`, allowed, `e.g. "look_up"`},
	}, {
		name: "assistant.New with an empty tool name",
		make: func() {
			assistant.New[string]("writer", assistant.WithTools(rawTool{schema: `{"type":"object"}`}))
		},
		want: []string{"tool name is empty", "1 to 64 ASCII letters (a-z, A-Z), digits, '_' or '-'"},
	}, {
		name: "AsTool of an assistant whose name cannot name a tool",
		make: func() { assistant.AsTool[string](assistant.New[string]("trip planner")) },
		want: []string{`tool name "trip planner"`, allowed, "give the tool a valid name with ToolName"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msg, panicked := panicText(tt.make)
			if !panicked {
				t.Fatal("no panic")
			}
			wantSays(t, msg, tt.want)
		})
	}
}

// wantSays fails the test unless msg holds each of want.
func wantSays(t *testing.T, msg string, want []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%q\ndoes not say %q", msg, w)
		}
	}
}

func TestOutputErrorNumbersItsAttempts(t *testing.T) {
	t.Parallel()
	e := &assistant.OutputError{Assistant: "a", Attempts: []error{errors.New("first"), errors.New("second")}}
	if s := e.Error(); !strings.Contains(s, "could not be used: attempt 1: first; attempt 2: second") {
		t.Errorf("Error() = %q; want each attempt numbered from 1 with its error", s)
	}
}

// failingStore is a chat store whose Load and Append fail as a store of the project's words
// them — naming the chat, or (plain) not.
type failingStore struct {
	chat.Store
	plain bool
}

var errDisk = errors.New("disk full")

func (s failingStore) fail(doing string, id chat.ID) error {
	if s.plain {
		return errDisk
	}
	return fmt.Errorf("diskstore: %s chat %s: %w", doing, id, errDisk)
}

func (s failingStore) Load(_ context.Context, id chat.ID) ([]llms.MessageContent, error) {
	return nil, s.fail("loading", id)
}

func (s failingStore) Append(_ context.Context, id chat.ID, _ []llms.MessageContent) error {
	return s.fail("appending to", id)
}

// rateLimited is a request middleware that refuses every request of assistant as ratelimit's
// does, with an error that names the assistant.
func rateLimited(assistantName string) assistant.Middleware {
	return assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
		if req.Assistant != assistantName {
			return next(ctx, req)
		}
		return model.Reply{}, &ratelimit.Error{Agent: req.Assistant, Tenant: "acme", User: "ana", Scope: ratelimit.ScopeUser,
			Limit: ratelimit.LimitRequestsPerMinute, Max: 20, RetryAfter: 3 * time.Second}
	}}
}

// TestErrorsSayEachThingOnce: each layer of a run adds to an error only what the layers below
// did not say — the assistant's name once, the chat once — and the error still wraps what it
// wraps.
func TestErrorsSayEachThingOnce(t *testing.T) {
	t.Parallel()
	fast := func(replies ...llmtest.Reply) assistant.Option {
		return assistant.WithModels(model.Fixed(model.Model{Name: "fast", LLM: llmtest.NewScripted(replies...)}))
	}
	const limited = `user "ana" of tenant "acme" reached the rate limit of 20 requests per minute: retry after 3s, or raise ratelimit.Limits.User.RequestsPerMinute (Limits.MaxWait lets a request wait for room)`
	researcher := func() *assistant.Assistant[string] {
		return assistant.New[string]("researcher", assistant.WithDescription("Researches."), fast(llmtest.Text("never sent")))
	}
	id := chat.ID{Tenant: "acme", User: "ana", Chat: "c"}
	for _, tc := range []struct {
		name   string
		a      *assistant.Assistant[string]
		ctx    context.Context
		want   string
		wraps  error
		rateOK bool // the error is a *ratelimit.Error
	}{{
		name: "a model's error",
		a:    assistant.New[string]("researcher", fast(llmtest.Fail(errDisk))),
		want: `assistant "researcher": model "fast": disk full`, wraps: errDisk,
	}, {
		name: "a request middleware's error that names the assistant",
		a:    assistant.New[string]("researcher", fast(llmtest.Text("never sent")), assistant.WithMiddleware(rateLimited("researcher"))),
		want: `assistant "researcher": model "fast": ` + limited, rateOK: true,
	}, {
		name: "the same error in a delegated run, which ends the tree",
		a: assistant.New[string]("lead", fast(llmtest.Calls(llmtest.Call("researcher", `{"input":"fjords"}`)), llmtest.Text("never sent")),
			assistant.WithTools(assistant.AsTool[string](researcher())), assistant.WithMiddleware(rateLimited("researcher"))),
		want: `assistant "researcher": model "fast": ` + limited, rateOK: true,
	}, {
		name: "a chat store's error that names the chat",
		a:    assistant.New[string]("researcher", fast(llmtest.Text("never sent")), assistant.WithStore(failingStore{Store: chat.NewMemory()})),
		ctx:  chat.WithID(context.Background(), id),
		want: `assistant "researcher": diskstore: loading chat acme/ana/c: disk full`, wraps: errDisk,
	}, {
		name: "a chat store's error that does not",
		a:    assistant.New[string]("researcher", fast(llmtest.Text("never sent")), assistant.WithStore(failingStore{Store: chat.NewMemory(), plain: true})),
		ctx:  chat.WithID(context.Background(), id),
		want: `assistant "researcher": loading chat acme/ana/c: disk full`, wraps: errDisk,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			_, err := tc.a.Run(ctx, assistant.Input{Prompt: "Fjords?"})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Run: %v\nwant the error %s", err, tc.want)
			}
			if tc.wraps != nil && !errors.Is(err, tc.wraps) {
				t.Errorf("the error does not wrap %v", tc.wraps)
			}
			if rl := (*ratelimit.Error)(nil); tc.rateOK && !errors.As(err, &rl) {
				t.Errorf("the error does not wrap the *ratelimit.Error")
			}
		})
	}
}

// TestASavedChatsErrorSaysEachThingOnce: the error of an Append that fails after the answer
// names the assistant and the chat once.
func TestASavedChatsErrorSaysEachThingOnce(t *testing.T) {
	t.Parallel()
	id := chat.ID{Tenant: "acme", User: "ana", Chat: "c"}
	a := assistant.New[string]("researcher", assistant.WithModels(model.Fixed(model.Model{Name: "fast", LLM: llmtest.NewScripted(llmtest.Text("deep"))})),
		assistant.WithStore(appendFails{chat.NewMemory()}))
	res, err := a.Run(chat.WithID(context.Background(), id), assistant.Input{Prompt: "Fjords?"})
	if want := `assistant "researcher": diskstore: appending to chat acme/ana/c: disk full`; err == nil || err.Error() != want || res == nil || res.Output != "deep" {
		t.Errorf("Run = %v, %v\nwant the answer and the error %s", res, err, want)
	}
}

// appendFails is a chat store whose Append fails, naming the chat.
type appendFails struct{ chat.Store }

func (s appendFails) Append(_ context.Context, id chat.ID, _ []llms.MessageContent) error {
	return failingStore{}.fail("appending to", id)
}
