package llmtest_test

import (
	"context"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

type ctxKey struct{}

func TestFuncModelSeesRequest(t *testing.T) {
	t.Parallel()
	m := llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		if ctx.Value(ctxKey{}) != "v" {
			t.Error("the function did not get the request's context")
		}
		last := req.Messages[len(req.Messages)-1]
		if len(req.Options.Tools) > 0 {
			return llmtest.Calls(llmtest.Call(req.Options.Tools[0].Function.Name, "{}"))
		}
		return llmtest.Text("echo: " + last.Parts[0].(llms.TextContent).Text)
	})
	ctx := context.WithValue(context.Background(), ctxKey{}, "v")

	resp, err := m.GenerateContent(ctx, human("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Content; got != "echo: hello" {
		t.Errorf("answer = %q, want %q", got, "echo: hello")
	}

	tools := []llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "lookup"}}}
	resp, err = m.GenerateContent(ctx, human("use a tool"), llms.WithTools(tools))
	if err != nil {
		t.Fatal(err)
	}
	want := []llms.ToolCall{{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: "{}"}}}
	if diff := cmp.Diff(want, resp.Choices[0].ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if n := len(m.Requests()); n != 2 {
		t.Errorf("recorded %d requests, want 2", n)
	}
}

func TestFuncModelNoRecord(t *testing.T) {
	t.Parallel()
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		return llmtest.Text(string(req.Messages[0].Role))
	}).NoRecord()
	if got, err := m.Call(context.Background(), "hi"); err != nil || got != "human" {
		t.Errorf("Call = %q, %v; want %q (the function still sees the request)", got, err, "human")
	}
	if m.Requests() != nil {
		t.Error("Requests is not nil for a model built with NoRecord")
	}
}

func TestNewFuncNilPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("NewFunc(nil) did not panic")
		}
	}()
	llmtest.NewFunc(nil)
}
