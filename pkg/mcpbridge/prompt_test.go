package mcpbridge_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
)

// replier is an assistant whose model answers "You said: " and the user's turn.
func replier() *assistant.Assistant[string] {
	model := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		return llmtest.Text("You said: " + lastUser(req))
	}).NoRecord()
	return assistant.New[string]("replier", assistant.WithModel(model), assistant.WithDescription("Replies to what you say."))
}

func TestPromptListedWithItsArguments(t *testing.T) {
	t.Parallel()
	s := newServer()
	if err := mcpbridge.AddPrompt(s, replier()); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	res, err := c.ListPrompts(testContext(t), mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Prompts) != 1 {
		t.Fatalf("listed %d prompts, want 1", len(res.Prompts))
	}
	p := res.Prompts[0]
	if p.Name != "replier" || p.Description != "Replies to what you say." {
		t.Errorf("prompt %q, description %q", p.Name, p.Description)
	}
	type arg struct {
		Name     string
		Required bool
	}
	var args []arg
	for _, a := range p.Arguments {
		args = append(args, arg{a.Name, a.Required})
		if a.Description == "" {
			t.Errorf("argument %q has no description", a.Name)
		}
	}
	if diff := cmp.Diff([]arg{{"input", true}, {"chat_id", false}}, args); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}
}

func TestPromptRunsTheAgent(t *testing.T) {
	t.Parallel()
	s := newServer()
	if err := mcpbridge.AddPrompt(s, replier(), mcpbridge.WithName("echo.prompt"), mcpbridge.WithTitle("Echo")); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	res, err := getPrompt(t, c, "echo.prompt", map[string]string{"input": "bonjour"})
	if err != nil {
		t.Fatal(err)
	}
	type msg struct{ Role, Text string }
	var got []msg
	for _, m := range res.Messages {
		tc, ok := m.Content.(mcp.TextContent)
		if !ok {
			t.Fatalf("message content is %T, want text", m.Content)
		}
		got = append(got, msg{string(m.Role), tc.Text})
	}
	want := []msg{{"user", "bonjour"}, {"assistant", "You said: bonjour"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if res.Description != "Replies to what you say." {
		t.Errorf("description %q", res.Description)
	}
}

// flaky is an agent that fails or panics on request.
type flaky struct{}

func (flaky) Name() string        { return "flaky" }
func (flaky) Description() string { return "Fails on request." }
func (flaky) Call(_ context.Context, in assistant.Input) (*assistant.Response, error) {
	switch in.Prompt {
	case "fail":
		return nil, errors.New(`assistant "flaky": model "fast": the provider is down; try again later`)
	case "panic":
		panic("key=sk-secret")
	case "nothing":
		return nil, nil
	}
	return &assistant.Response{Text: "fine"}, nil
}

func TestPromptFailuresAreErrorsAndTheServerGoesOn(t *testing.T) {
	t.Parallel()
	var log errorLog
	s := newServer()
	if err := mcpbridge.AddPrompt(s, flaky{}, mcpbridge.WithErrorHandler(log.handle)); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	tests := []struct {
		name    string
		args    map[string]string
		want    []string
		notWant string
	}{
		{"no input", nil, []string{`the argument "input" is required`}, ""},
		{"blank input", map[string]string{"input": "  "}, []string{`the argument "input" is required`}, ""},
		{"unknown argument", map[string]string{"input": "hi", "topic": "x"}, []string{`has no argument "topic"`}, ""},
		{"run error", map[string]string{"input": "fail"}, []string{`prompt "flaky"`, "the provider is down"}, ""},
		{"no response", map[string]string{"input": "nothing"}, []string{"no response"}, ""},
		{"panic", map[string]string{"input": "panic"}, []string{`prompt "flaky" failed unexpectedly`}, "sk-secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := getPrompt(t, c, "flaky", tt.args)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if tt.notWant != "" && strings.Contains(err.Error(), tt.notWant) {
				t.Errorf("error %q gives away %q", err, tt.notWant)
			}
			if name, err := log.last(); name != "flaky" || err == nil {
				t.Errorf("error handler last told %q: %v", name, err)
			}
			// The server goes on.
			if _, err := getPrompt(t, c, "flaky", map[string]string{"input": "hi", "chat_id": ""}); err != nil {
				t.Errorf("the next get failed: %v", err)
			}
		})
	}
	// The handler got the panic with its value; the client did not.
	var p *mcpbridge.PanicError
	for _, err := range log.errs {
		if errors.As(err, &p) {
			break
		}
	}
	if p == nil || p.Name != "flaky" || p.Value != "key=sk-secret" || len(p.Stack) == 0 {
		t.Errorf("the handler got panic %+v", p)
	}
}

func TestAddPromptRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		agent assistant.Agent
		opts  []mcpbridge.Option
		want  string
	}{
		{"nil agent", nil, nil, "the agent is nil"},
		{"invalid name", flaky{}, []mcpbridge.Option{mcpbridge.WithName("my prompt")}, `prompt name "my prompt" has ' '`},
		{"empty name", flaky{}, []mcpbridge.Option{mcpbridge.WithName("")}, "1 to 128 characters"},
		{"duplicate", replier(), nil, `already has a prompt named "replier"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer()
			if err := mcpbridge.AddPrompt(s, replier()); err != nil {
				t.Fatal(err)
			}
			err := mcpbridge.AddPrompt(s, tt.agent, tt.opts...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			if n := len(s.ListPrompts()); n != 1 {
				t.Errorf("the server has %d prompts after the refusal, want 1", n)
			}
		})
	}
	if err := mcpbridge.AddPrompt(nil, replier()); err == nil {
		t.Error("a nil server was accepted")
	}
}

// A prompt name is 1 to 128 of the ASCII letters, digits, '_', '-' and '.': each range's
// ends are taken, the characters just outside them refused.
func TestPromptNames(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"azAZ09_-.", strings.Repeat("p", 128)} {
		if err := mcpbridge.AddPrompt(newServer(), replier(), mcpbridge.WithName(name)); err != nil {
			t.Errorf("AddPrompt named %q: %v", name, err)
		}
	}
	for _, name := range []string{strings.Repeat("p", 129), "a`", "a{", "a@", "a[", "a/", "a:", "é"} {
		if err := mcpbridge.AddPrompt(newServer(), replier(), mcpbridge.WithName(name)); err == nil {
			t.Errorf("AddPrompt named %q was accepted", name)
		}
	}
}

func TestPromptOfAPausingAgentIsAnError(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("noop", `{}`)))
	noop := tool.Func("noop", "Does nothing.", func(context.Context, struct{}) (string, error) { return "", nil })
	a := assistant.New[string]("careful", assistant.WithModel(m), assistant.WithTools(noop),
		assistant.WithApproval(assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) {
			return assistant.Pending(), nil
		})))
	s := newServer()
	if err := mcpbridge.AddPrompt(s, a); err != nil {
		t.Fatal(err)
	}
	_, err := getPrompt(t, connect(t, s), "careful", map[string]string{"input": "go"})
	if err == nil || !strings.Contains(err.Error(), "approval") {
		t.Errorf("err = %v, want one saying the agent paused for approval", err)
	}
}
