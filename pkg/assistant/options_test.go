package assistant_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
)

// unschemable is an output type that has no JSON Schema.
type unschemable struct {
	C chan int `json:"c"`
}

// TestNewPanicsOnProgrammerErrors: New panics, naming what is wrong, on mistakes it can see.
func TestNewPanicsOnProgrammerErrors(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	tests := []struct {
		name string
		new  func()
		want string // in the panic's text
	}{
		{
			name: "duplicate tool name",
			new: func() {
				assistant.New[string]("a", assistant.WithTools(countingTool("lookup", &n)), assistant.WithTools(countingTool("lookup", &n)))
			},
			want: `"lookup"`,
		},
		{
			name: "invalid tool name",
			new: func() {
				assistant.New[string]("a", assistant.WithTools(rawTool{name: "look up", schema: `{"type":"object"}`}))
			},
			want: `"look up"`,
		},
		{
			name: "empty tool name",
			new:  func() { assistant.New[string]("a", assistant.WithTools(rawTool{schema: `{"type":"object"}`})) },
			want: "empty",
		},
		{
			name: "tool schema not an object",
			new: func() {
				assistant.New[string]("a", assistant.WithTools(rawTool{name: "str", schema: `{"type":"string"}`}))
			},
			want: `"str"`,
		},
		{
			name: "template syntax error",
			new:  func() { assistant.New[string]("a", assistant.WithInstructions("Hello {{.name")) },
			want: "instructions",
		},
		{
			name: "validator of another type",
			new: func() {
				assistant.New[city]("a", assistant.WithValidator(func(context.Context, string) error { return nil }))
			},
			want: "WithValidator",
		},
		{
			name: "a tool named final_result on a typed assistant",
			new: func() {
				assistant.New[city]("a", assistant.WithTools(countingTool("final_result", &n)))
			},
			want: "final_result",
		},
		{
			name: "an output type without a JSON Schema",
			new:  func() { assistant.New[unschemable]("a") },
			want: "chan",
		},
		{
			name: "empty assistant name",
			new:  func() { assistant.New[string]("") },
			want: "name",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msg, panicked := panicText(tt.new)
			if !panicked {
				t.Fatal("New did not panic")
			}
			if !strings.Contains(msg, tt.want) {
				t.Errorf("panic %q does not mention %q", msg, tt.want)
			}
		})
	}
}

// TestNewAcceptsFinalResultToolOnAProseAssistant: a prose assistant has no final_result tool of
// its own, so a tool of that name is the user's to use.
func TestNewAcceptsFinalResultToolOnAProseAssistant(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	if msg, panicked := panicText(func() {
		assistant.New[string]("a", assistant.WithTools(countingTool("final_result", &n)))
	}); panicked {
		t.Fatalf("New panicked: %s", msg)
	}
}

// TestRunOptionsThatCannotChangePerRun: instructions and description are fixed by New; giving
// them for one run is an error that says so, before any request.
func TestRunOptionsThatCannotChangePerRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		option assistant.Option
		want   string
	}{
		{assistant.WithInstructions("Be someone else."), "WithInstructions"},
		{assistant.WithDescription("Something else."), "WithDescription"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text("hello"))
			a := assistant.New[string]("fixed", assistant.WithModel(m), assistant.WithInstructions("Be yourself."), assistant.WithDescription("Itself."))

			res, err := a.Run(testContext(t), assistant.Input{Prompt: "hi", Options: []assistant.Option{tt.option}})

			if err == nil {
				t.Fatal("Run succeeded; want an error")
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), `"fixed"`) {
				t.Errorf("error %q does not name %s and the assistant", err, tt.want)
			}
			if res != nil || len(m.Requests()) != 0 {
				t.Errorf("Run returned %v and sent %d requests; want no Result and no request", res, len(m.Requests()))
			}
			if a.Description() != "Itself." {
				t.Errorf("Description() = %q after the run; want it unchanged", a.Description())
			}
		})
	}
}

// TestRunOptionWithToolsIsForThatRunOnly: a tool given for one run is offered and called in
// that run, and neither offered nor callable in the next.
func TestRunOptionWithToolsIsForThatRunOnly(t *testing.T) {
	t.Parallel()
	var baseRuns, extraRuns atomic.Int64
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("extra", `{}`)), llmtest.Text("done with extra"),
		llmtest.Calls(llmtest.Call("extra", `{}`)), llmtest.Text("done without"),
	)
	a := assistant.New[string]("tooled", assistant.WithModel(m), assistant.WithTools(countingTool("base", &baseRuns)))
	ctx := testContext(t)

	if _, err := a.Run(ctx, assistant.Input{Prompt: "use extra", Options: []assistant.Option{assistant.WithTools(countingTool("extra", &extraRuns))}}); err != nil {
		t.Fatalf("run with the extra tool: %v", err)
	}
	res, err := a.Run(ctx, assistant.Input{Prompt: "use extra again"})
	if err != nil {
		t.Fatalf("run without it: %v", err)
	}

	reqs := m.Requests()
	if len(reqs) != 4 {
		t.Fatalf("the model got %d requests; want 4", len(reqs))
	}
	if diff := cmp.Diff([]string{"base", "extra"}, toolNames(reqs[0])); diff != "" {
		t.Errorf("tools offered in the run with the option (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"base"}, toolNames(reqs[2])); diff != "" {
		t.Errorf("tools offered in the next run (-want +got):\n%s", diff)
	}
	if got := extraRuns.Load(); got != 1 {
		t.Errorf("the extra tool ran %d times; want once, in its run", got)
	}
	results := toolResultsIn(res.Messages)
	if len(results) != 1 || !strings.Contains(results[0].Content, `no tool named "extra"`) {
		t.Errorf("the next run's call of extra got %+v; want the unknown tool error", results)
	}
}

// TestRunOptionWithVars: vars given for one run override the assistant's, Input.Vars override
// both, and the next run sees the assistant's again.
func TestRunOptionWithVars(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("one"), llmtest.Text("two"))
	a := assistant.New[string]("vars", assistant.WithModel(m),
		assistant.WithInstructions("a={{.a}} b={{.b}} c={{.c}}"),
		assistant.WithVars(map[string]any{"a": "A", "b": "B", "c": "C"}))
	ctx := testContext(t)

	if _, err := a.Run(ctx, assistant.Input{
		Prompt:  "with vars",
		Vars:    map[string]any{"c": "input"},
		Options: []assistant.Option{assistant.WithVars(map[string]any{"b": "option", "c": "option"})},
	}); err != nil {
		t.Fatalf("run with vars: %v", err)
	}
	if _, err := a.Run(ctx, assistant.Input{Prompt: "without"}); err != nil {
		t.Fatalf("run without: %v", err)
	}

	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests; want 2", len(reqs))
	}
	if got, want := systemOf(reqs[0]), "a=A b=option c=input"; got != want {
		t.Errorf("system prompt with run vars = %q; want %q", got, want)
	}
	if got, want := systemOf(reqs[1]), "a=A b=B c=C"; got != want {
		t.Errorf("system prompt of the next run = %q; want %q", got, want)
	}
}

// TestRunOptionWithLimits: limits given for one run bound that run, also under a ledger the
// caller made; a field the run's limits leave zero keeps the assistant's bound.
func TestRunOptionWithLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		ledger    bool // run under a ledger with the default limits
		assistant *usage.Limits
		run       *usage.Limits
		wantMax   int
	}{
		{name: "per run", run: &usage.Limits{MaxRequests: 2}, wantMax: 2},
		{name: "per run over the assistant's", assistant: &usage.Limits{MaxRequests: 4}, run: &usage.Limits{MaxRequests: 2}, wantMax: 2},
		{name: "assistant's without a run's", assistant: &usage.Limits{MaxRequests: 4}, wantMax: 4},
		// A run's limits that leave MaxRequests zero must not set the assistant's aside for the
		// default of 50.
		{name: "assistant's beside a run's on another field", assistant: &usage.Limits{MaxRequests: 3}, run: &usage.Limits{MaxToolCalls: 100}, wantMax: 3},
		{name: "assistant's beside a run's on another field, under a ledger", ledger: true, assistant: &usage.Limits{MaxRequests: 3}, run: &usage.Limits{MaxToolCalls: 100}, wantMax: 3},
		{name: "per run under a ledger", ledger: true, run: &usage.Limits{MaxRequests: 2}, wantMax: 2},
		{name: "assistant's under a ledger", ledger: true, assistant: &usage.Limits{MaxRequests: 3}, wantMax: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var runs atomic.Int64
			m := endlessModel("lookup", 1)
			opts := []assistant.Option{assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &runs))}
			if tt.assistant != nil {
				opts = append(opts, assistant.WithLimits(*tt.assistant))
			}
			a := assistant.New[string]("limited", opts...)
			in := assistant.Input{Prompt: "go"}
			if tt.run != nil {
				in.Options = []assistant.Option{assistant.WithLimits(*tt.run)}
			}
			ctx := testContext(t)
			if tt.ledger {
				ctx = usage.WithLedger(ctx, usage.NewLedger(usage.Limits{}))
			}

			_, err := a.Run(ctx, in)

			var lerr *usage.LimitError
			if !errors.As(err, &lerr) || lerr.Limit != usage.LimitRequests || lerr.Max != tt.wantMax {
				t.Fatalf("Run error = %v; want a request LimitError with Max %d", err, tt.wantMax)
			}
			if got := len(m.Requests()); got != tt.wantMax {
				t.Errorf("the model got %d requests; want %d", got, tt.wantMax)
			}
		})
	}
}

// TestRunOptionMistakesAreErrorsNotPanics: what New panics on is an error from Run when it
// comes in a run's options: a run's data must never crash the program.
func TestRunOptionMistakesAreErrorsNotPanics(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	tests := []struct {
		name   string
		option assistant.Option
		want   string
	}{
		{"duplicate tool name", assistant.WithTools(countingTool("lookup", &n)), `"lookup"`},
		{"invalid tool name", assistant.WithTools(rawTool{name: "look up", schema: `{"type":"object"}`}), `"look up"`},
		{"tool named final_result", assistant.WithTools(countingTool("final_result", &n)), "final_result"},
		{"validator of another type", assistant.WithValidator(func(context.Context, int) error { return nil }), "WithValidator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text(`{"name":"Paris","population":1}`))
			a := assistant.New[city]("careful", assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &n)))
			var (
				res *assistant.Result[city]
				err error
			)
			if msg, panicked := panicText(func() {
				res, err = a.Run(testContext(t), assistant.Input{Prompt: "hi", Options: []assistant.Option{tt.option}})
			}); panicked {
				t.Fatalf("Run panicked: %s", msg)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Run error = %v; want one mentioning %s", err, tt.want)
			}
			if res != nil || len(m.Requests()) != 0 {
				t.Errorf("Run returned %v and sent %d requests; want no Result and no request", res, len(m.Requests()))
			}
		})
	}
}
