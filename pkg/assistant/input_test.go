package assistant_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
)

type ctxKey struct{}

// TestVarsFuncProvidesVarsPerRun: the vars function's values go over WithVars' and under
// Input.Vars; it sees the run's context and its input.
func TestVarsFuncProvidesVarsPerRun(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("ok"))
	var seen string
	a := assistant.New[string]("greeter", assistant.WithModel(m),
		assistant.WithInstructions("{{.a}} {{.b}} {{.c}}"),
		assistant.WithVars(map[string]any{"a": "static", "b": "static"}),
		assistant.WithVarsFunc(func(ctx context.Context, in assistant.Input) (map[string]any, error) {
			seen = ctx.Value(ctxKey{}).(string) + " " + in.Prompt
			return map[string]any{"b": "provided", "c": "provided"}, nil
		}))
	ctx := context.WithValue(testContext(t), ctxKey{}, "from the context")
	if _, err := a.Run(ctx, assistant.Input{Prompt: "hello", Vars: map[string]any{"c": "input"}}); err != nil {
		t.Fatal(err)
	}
	if got := systemOf(m.Requests()[0]); got != "static provided input" {
		t.Errorf("system prompt %q; want WithVars under the function's vars under Input.Vars", got)
	}
	if seen != "from the context hello" {
		t.Errorf("the function saw %q", seen)
	}
}

// TestVarsFuncErrorFailsTheRunBeforeAnyRequest, and a function is not called for instructions
// without template actions.
func TestVarsFuncErrorFailsTheRunBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	errProfile := errors.New("the profile service is down")
	m := llmtest.NewScripted(llmtest.Text("ok"))
	failing := func(context.Context, assistant.Input) (map[string]any, error) { return nil, errProfile }
	a := assistant.New[string]("greeter", assistant.WithModel(m), assistant.WithInstructions("Hello {{.name}}."), assistant.WithVarsFunc(failing))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "hi"})
	if !errors.Is(err, errProfile) || !strings.Contains(err.Error(), `assistant "greeter"`) || res != nil || len(m.Requests()) != 0 {
		t.Errorf("Run = %v, %v after %d requests; want the function's error, naming the assistant, before any request", res, err, len(m.Requests()))
	}
	plain := assistant.New[string]("plain", assistant.WithModel(m), assistant.WithInstructions("Hello."), assistant.WithVarsFunc(failing))
	if _, err := plain.Run(testContext(t), assistant.Input{Prompt: "hi"}); err != nil {
		t.Errorf("instructions without actions: %v; want the function not called", err)
	}
}

// TestInputParserRewritesTheUsersTurn: the rewritten turn is what the model gets, what the
// Result holds and what the chat keeps; an error or an empty turn fails the run before any
// request.
func TestInputParserRewritesTheUsersTurn(t *testing.T) {
	t.Parallel()
	store := chat.NewMemory()
	id := chat.ID{Chat: "c"}
	m := llmtest.NewScripted(llmtest.Text("ok"))
	expand := func(_ context.Context, prompt string) (string, error) {
		switch {
		case prompt == "/weather":
			return "What is the weather in Oslo today?", nil
		case strings.Contains(prompt, "password"):
			return "", errors.New("do not share passwords here")
		case prompt == "/nothing":
			return "", nil
		}
		return prompt, nil
	}
	a := assistant.New[string]("helper", assistant.WithModel(m), assistant.WithStore(store), assistant.WithInputParser(expand))
	res, err := a.Run(chat.WithID(testContext(t), id), assistant.Input{Prompt: "/weather"})
	if err != nil {
		t.Fatal(err)
	}
	const want = "What is the weather in Oslo today?"
	stored, _ := store.Load(testContext(t), id)
	if got := textOf(m.Requests()[0].Messages[0]); got != want {
		t.Errorf("the model got %q, want %q", got, want)
	}
	if got := textOf(res.Messages[0]); got != want {
		t.Errorf("Response.Messages start with %q, want %q", got, want)
	}
	if len(stored) == 0 || textOf(stored[0]) != want {
		t.Errorf("the chat keeps %v, want the rewritten turn first", stored)
	}
	for prompt, wantErr := range map[string]string{"my password is x": "do not share passwords here", "/nothing": "empty turn"} {
		res, err := a.Run(testContext(t), assistant.Input{Prompt: prompt})
		if err == nil || !strings.Contains(err.Error(), wantErr) || !strings.Contains(err.Error(), `assistant "helper"`) || res != nil {
			t.Errorf("%q: Run = %v, %v; want an error saying %q, naming the assistant", prompt, res, err, wantErr)
		}
	}
	if n := len(m.Requests()); n != 1 {
		t.Errorf("%d requests; the refused turns must send none", n)
	}
}
