package assistant_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/callback/callbacktest"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

type researchRequest struct {
	Topic string `json:"topic"`
	Depth int    `json:"depth,omitempty"`
}

type findings struct {
	Topic string   `json:"topic"`
	Facts []string `json:"facts"`
}

// specialist answers every request with findings on the topic of its prompt, after one call
// of its own tool; each of its responses costs 10 input and 2 output tokens.
func specialist(t *testing.T, name, modelName string) *assistant.Assistant[findings] {
	t.Helper()
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role != llms.ChatMessageTypeTool {
			return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("note", `{"text":"x"}`)}, Usage: usage.Usage{InputTokens: 10, OutputTokens: 2}}
		}
		var in researchRequest
		for _, msg := range req.Messages {
			if msg.Role == llms.ChatMessageTypeHuman {
				json.Unmarshal([]byte(textOf(msg)), &in)
			}
		}
		b, _ := json.Marshal(findings{Topic: in.Topic, Facts: []string{name + " on " + in.Topic}})
		return llmtest.Reply{Text: string(b), Usage: usage.Usage{InputTokens: 10, OutputTokens: 2}}
	})
	note := tool.Func("note", "Takes a note.", func(_ context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return "noted", nil
	})
	return assistant.New[findings](name,
		assistant.WithDescription("Researches a topic."),
		assistant.WithInstructions("You research {{.topic}}."),
		assistant.WithModels(model.Fixed(model.Describe(modelName, m))),
		assistant.WithTools(note))
}

// fanOut is a supervisor model that delegates n topics at once to each tool, then answers.
func fanOut(n int, tools ...string) *llmtest.FuncModel {
	return llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == llms.ChatMessageTypeTool {
			return llmtest.Reply{Text: "summary", Usage: usage.Usage{InputTokens: 100, OutputTokens: 20}}
		}
		var calls []llms.ToolCall
		for i := range n {
			for _, tl := range tools {
				calls = append(calls, llmtest.Call(tl, fmt.Sprintf(`{"topic":"t%d"}`, i)))
			}
		}
		return llmtest.Reply{ToolCalls: calls, Usage: usage.Usage{InputTokens: 50, OutputTokens: 5}}
	})
}

func TestDelegationUsageAddsUp(t *testing.T) {
	t.Parallel()
	// The historian's tool takes its default name, the assistant's; the scientist's is renamed.
	sup := assistant.New[string]("supervisor",
		assistant.WithModels(model.Fixed(model.Describe("big", fanOut(3, "historian", "science")))),
		assistant.WithTools(
			assistant.AsTool[researchRequest](specialist(t, "historian", "small")),
			assistant.AsTool[researchRequest](specialist(t, "scientist", "small"), assistant.ToolName("science")),
		))
	res, err := sup.Run(testContext(t), assistant.Input{Prompt: "Research."})
	if err != nil {
		t.Fatal(err)
	}
	// 2 supervisor requests; 6 delegations of 2 requests and 1 tool call each.
	spec := usage.Usage{Requests: 6, ToolCalls: 3, InputTokens: 60, OutputTokens: 12}
	want := usage.Report{
		Total: usage.Usage{Requests: 14, ToolCalls: 12, InputTokens: 270, OutputTokens: 49},
		ByAgent: map[string]usage.Usage{
			"supervisor": {Requests: 2, ToolCalls: 6, InputTokens: 150, OutputTokens: 25},
			"historian":  spec,
			"scientist":  spec,
		},
		ByModel: map[string]usage.Usage{
			"big":   {Requests: 2, ToolCalls: 6, InputTokens: 150, OutputTokens: 25},
			"small": {Requests: 12, ToolCalls: 6, InputTokens: 120, OutputTokens: 24},
		},
	}
	if diff := cmp.Diff(want, res.Usage); diff != "" {
		t.Errorf("Usage (-want +got):\n%s", diff)
	}
	// Each delegation's answer went back as JSON of findings.
	for _, r := range toolResultsIn(res.Messages) {
		var f findings
		if err := json.Unmarshal([]byte(r.Content), &f); err != nil || len(f.Facts) != 1 {
			t.Errorf("tool result %q is not the specialist's findings", r.Content)
		}
	}
}

func TestParallelDelegationsNeverOvershootLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		limits usage.Limits
		limit  string
		check  func(usage.Usage) bool
	}{
		{"MaxRequests", usage.Limits{MaxRequests: 5}, usage.LimitRequests, func(u usage.Usage) bool { return u.Requests <= 5 }},
		{"MaxToolCalls", usage.Limits{MaxToolCalls: 12}, usage.LimitToolCalls, func(u usage.Usage) bool { return u.ToolCalls <= 12 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sup := assistant.New[string]("supervisor",
				assistant.WithModel(fanOut(8, "historian")),
				assistant.WithLimits(tc.limits),
				assistant.WithTools(assistant.AsTool[researchRequest](specialist(t, "historian", "small"))))
			ledger := usage.NewLedger(tc.limits)
			_, err := sup.Run(usage.WithLedger(testContext(t), ledger), assistant.Input{Prompt: "Research."})
			var le *usage.LimitError
			if !errors.As(err, &le) || le.Limit != tc.limit {
				t.Fatalf("err = %v, want a *usage.LimitError on %s", err, tc.limit)
			}
			if got := ledger.Report().Total; !tc.check(got) {
				t.Errorf("the tree used %+v, over the limits %+v", got, tc.limits)
			}
		})
	}
}

func TestFinalAnswerOnLimit(t *testing.T) {
	t.Parallel()
	// A model that would call tools forever, and answers when told its budget is spent.
	// It answers in a final_result call, or in text.
	model := func(inText bool) *llmtest.FuncModel {
		return llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
			last := req.Messages[len(req.Messages)-1]
			if last.Role == llms.ChatMessageTypeHuman && strings.Contains(textOf(last), "budget") {
				if len(req.Options.Tools) == 0 {
					return llmtest.Fail(errors.New("no tool defined in a conversation with tool calls: providers reject that"))
				}
				if inText {
					return llmtest.Text(`{"name":"Oslo","population":700000}`)
				}
				return llmtest.Calls(llmtest.Call("final_result", `{"name":"Oslo","population":700000}`))
			}
			return llmtest.Calls(llmtest.Call("lookup", `{"city":"Oslo"}`))
		})
	}
	lookup := tool.Func("lookup", "Looks a city up.", func(_ context.Context, in cityArgs) (string, error) { return "big", nil })
	for _, tc := range []struct {
		name     string
		limits   usage.Limits
		requests int
		inText   bool
	}{
		{"requests", usage.Limits{MaxRequests: 3}, 3, false},
		{"requests, answered in text", usage.Limits{MaxRequests: 3}, 3, true},
		{"tool calls", usage.Limits{MaxToolCalls: 2}, 4, false}, // 2 rounds of tools, one refused, the last
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := assistant.New[city]("geo", assistant.WithModel(model(tc.inText)), assistant.WithTools(lookup),
				assistant.WithLimits(tc.limits), assistant.WithFinalAnswerOnLimit())
			res, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Stop != assistant.StopLimitAnswer || res.Output.Name != "Oslo" {
				t.Errorf("Stop = %q, Output = %+v; want a parsed answer at the limit", res.Stop, res.Output)
			}
			if got := res.Usage.Total.Requests; got != tc.requests {
				t.Errorf("requests = %d, want %d", got, tc.requests)
			}
			if tc.limits.MaxToolCalls > 0 && res.Usage.Total.ToolCalls > tc.limits.MaxToolCalls {
				t.Errorf("tool calls = %d, over the limit", res.Usage.Total.ToolCalls)
			}
			last := res.Messages[len(res.Messages)-3] // the budget message, the answer, its result
			if tc.inText {
				last = res.Messages[len(res.Messages)-2] // the budget message, the answer
			}
			if last.Role != llms.ChatMessageTypeHuman || !strings.Contains(textOf(last), "budget") {
				t.Errorf("the last request did not tell the model its budget is spent: %q", textOf(last))
			}
			if err := replayError(res.Messages); err != nil {
				t.Errorf("Messages cannot be sent back: %v", err)
			}
		})
	}
}

func TestFailingSpecialistGoesBackToTheModel(t *testing.T) {
	t.Parallel()
	broken := assistant.New[findings]("historian", assistant.WithModel(llmtest.NewScripted(llmtest.Fail(errors.New("model unavailable")))))
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("historian", `{"topic":"Rome"}`)),
		llmtest.Text("I could not ask the historian."),
	)
	sup := assistant.New[string]("supervisor", assistant.WithModel(m), assistant.WithTools(assistant.AsTool[researchRequest](broken)))
	res, err := sup.Run(testContext(t), assistant.Input{Prompt: "Rome?"})
	if err != nil {
		t.Fatal(err)
	}
	results := toolResultsIn(res.Messages)
	if len(results) != 1 || !strings.HasPrefix(results[0].Content, "error:") || !strings.Contains(results[0].Content, "model unavailable") {
		t.Errorf("tool results = %+v, want the specialist's error", results)
	}
	if res.Output != "I could not ask the historian." {
		t.Errorf("Output = %q", res.Output)
	}
}

func TestRecursionStopsAtTheDepthLimit(t *testing.T) {
	t.Parallel()
	// An assistant that delegates to itself, forever.
	m := llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
		return llmtest.Calls(llmtest.Call("self", `{"input":"again"}`))
	})
	var self *assistant.Assistant[string]
	proxy := &lateRunner{get: func() assistant.Runner[string] { return self }}
	self = assistant.New[string]("self", assistant.WithModel(m), assistant.WithMaxDepth(3),
		assistant.WithTools(assistant.AsTool[string](proxy)))
	_, err := self.Run(testContext(t), assistant.Input{Prompt: "go"})
	if !errors.Is(err, assistant.ErrDepthLimit) {
		t.Fatalf("err = %v, want ErrDepthLimit", err)
	}
	if !strings.Contains(err.Error(), "WithMaxDepth") {
		t.Errorf("err = %v: it should say how to raise the limit", err)
	}
}

// TestMaxDepthCountsLevelsBelowTheTopRun checks what WithMaxDepth(n) promises: delegation may go
// n levels below the top run, and no further. A chain n levels deep answers; one level deeper,
// the deepest run fails before its first request and the top run returns ErrDepthLimit.
func TestMaxDepthCountsLevelsBelowTheTopRun(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 3} {
		for _, levels := range []int{n, n + 1} {
			t.Run(fmt.Sprintf("WithMaxDepth(%d)/%d deep", n, levels), func(t *testing.T) {
				t.Parallel()
				top, leaf := delegationChain(levels, assistant.WithMaxDepth(n))
				res, err := top.Run(testContext(t), assistant.Input{Prompt: "go"})
				if levels <= n {
					if err != nil {
						t.Fatalf("a chain %d deep below the top run failed under WithMaxDepth(%d): %v", levels, n, err)
					}
					if res.Output != "level 0 done" || len(leaf.Requests()) != 1 {
						t.Errorf("Output = %q, the deepest run got %d requests; want the top's answer after the deepest run answered once",
							res.Output, len(leaf.Requests()))
					}
					return
				}
				if !errors.Is(err, assistant.ErrDepthLimit) {
					t.Fatalf("a chain %d deep below the top run under WithMaxDepth(%d): err = %v, want ErrDepthLimit", levels, n, err)
				}
				if want := fmt.Sprintf("%d runs deep, the most is %d", levels, n); !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v; want it to say %q", err, want)
				}
				if got := len(leaf.Requests()); got != 0 {
					t.Errorf("the run too deep sent %d requests, want none", got)
				}
			})
		}
	}
}

// delegationChain returns the top of a chain of assistants, each delegating once to the next,
// levels runs deep below the top, and the model of the deepest. opts are the top's options.
func delegationChain(levels int, opts ...assistant.Option) (*assistant.Assistant[string], *llmtest.Scripted) {
	leaf := llmtest.NewScripted(llmtest.Text("leaf"))
	next := assistant.New[string](fmt.Sprintf("level%d", levels), assistant.WithDescription("The deepest."), assistant.WithModel(leaf))
	for i := levels - 1; i >= 0; i-- {
		m := llmtest.NewScripted(
			llmtest.Calls(llmtest.Call(next.Name(), `{"input":"deeper"}`)),
			llmtest.Text(fmt.Sprintf("level %d done", i)),
		)
		levelOpts := []assistant.Option{assistant.WithDescription("Delegates deeper."), assistant.WithModel(m),
			assistant.WithTools(assistant.AsTool[string](next))}
		if i == 0 {
			levelOpts = append(levelOpts, opts...)
		}
		next = assistant.New[string](fmt.Sprintf("level%d", i), levelOpts...)
	}
	return next, leaf
}

// lateRunner lets an assistant delegate to itself: it is made before the assistant is.
type lateRunner struct {
	get func() assistant.Runner[string]
}

func (l *lateRunner) Name() string        { return "self" }
func (l *lateRunner) Description() string { return "Delegates to itself." }
func (l *lateRunner) Call(ctx context.Context, in assistant.Input) (*assistant.Response, error) {
	return l.get().Call(ctx, in)
}
func (l *lateRunner) Run(ctx context.Context, in assistant.Input) (*assistant.Result[string], error) {
	return l.get().Run(ctx, in)
}

func TestNestedEventsCarryParentIDs(t *testing.T) {
	t.Parallel()
	rec := callbacktest.NewRecorder()
	sup := assistant.New[string]("supervisor",
		assistant.WithModel(fanOut(1, "historian")),
		assistant.WithCallback(rec),
		assistant.WithTools(assistant.AsTool[researchRequest](specialist(t, "historian", "small"))))
	if _, err := sup.Run(testContext(t), assistant.Input{Prompt: "Research."}); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{} // assistant -> run id
	parents := map[string]string{}
	for _, e := range rec.Of(callback.RunStart) {
		ids[e.Assistant], parents[e.Assistant] = e.RunID, e.ParentRunID
	}
	if ids["supervisor"] == "" || parents["supervisor"] != "" {
		t.Errorf("supervisor run %q with parent %q, want a top run", ids["supervisor"], parents["supervisor"])
	}
	if parents["historian"] != ids["supervisor"] {
		t.Errorf("historian's parent = %q, want the supervisor's run %q", parents["historian"], ids["supervisor"])
	}
	for _, e := range rec.Events() {
		if e.Assistant == "historian" && (e.RunID != ids["historian"] || e.ParentRunID != ids["supervisor"]) {
			t.Errorf("historian event %s has run %q parent %q", e.Kind, e.RunID, e.ParentRunID)
		}
	}
}

// echo is a hand-written Runner: a flow without a model.
type echo struct{}

func (echo) Name() string        { return "echo" }
func (echo) Description() string { return "Repeats the topic." }
func (e echo) Call(ctx context.Context, in assistant.Input) (*assistant.Response, error) {
	res, err := e.Run(ctx, in)
	if err != nil {
		return nil, err
	}
	return &res.Response, nil
}
func (echo) Run(_ context.Context, in assistant.Input) (*assistant.Result[findings], error) {
	topic, _ := in.Vars["topic"].(string)
	return &assistant.Result[findings]{Output: findings{Topic: topic, Facts: []string{"echo: " + in.Prompt}}}, nil
}

func TestHandWrittenRunnerAsTool(t *testing.T) {
	t.Parallel()
	tl := assistant.AsTool[researchRequest](echo{})
	typed, ok := tl.(tool.Typed)
	if !ok || !strings.Contains(string(typed.OutputSchema()), `"facts"`) {
		t.Fatalf("AsTool of a Runner[findings] is not a tool.Typed with findings' schema")
	}
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("echo", `{"topic":"tides"}`)), llmtest.Text("done"))
	res, err := assistant.New[string]("sup", assistant.WithModel(m), assistant.WithTools(tl)).Run(testContext(t), assistant.Input{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	got := toolResultsIn(res.Messages)
	want := `{"topic":"tides","facts":["echo: {\"topic\":\"tides\"}"]}`
	if len(got) != 1 || got[0].Content != want {
		t.Errorf("tool result = %+v, want %s", got, want)
	}
}

func TestAsToolVarsAndPrompt(t *testing.T) {
	t.Parallel()
	var got assistant.Input
	spy := spyRunner{in: &got}
	tl := assistant.AsTool[researchRequest](spy)
	if _, err := tl.Call(testContext(t), json.RawMessage(`{"topic":"tides"}`)); err != nil {
		t.Fatal(err)
	}
	if got.Prompt != `{"topic":"tides"}` {
		t.Errorf("Prompt = %q, want the arguments as JSON", got.Prompt)
	}
	if diff := cmp.Diff(map[string]any{"topic": "tides", "depth": nil}, got.Vars); diff != "" {
		t.Errorf("Vars (-want +got):\n%s", diff)
	}
	str := assistant.AsTool[string](spy, assistant.ToolName("ask"), assistant.ToolDescription("Ask."))
	if str.Name() != "ask" || str.Description() != "Ask." || !strings.Contains(string(str.Schema()), `"input"`) {
		t.Errorf("AsTool[string]: %q %q %s", str.Name(), str.Description(), str.Schema())
	}
	if _, err := str.Call(testContext(t), json.RawMessage(`{"input":"why?"}`)); err != nil {
		t.Fatal(err)
	}
	if got.Prompt != "why?" || got.Vars["input"] != "why?" {
		t.Errorf("Input = %+v, want the string itself as prompt and var input", got)
	}
}

type spyRunner struct{ in *assistant.Input }

func (spyRunner) Name() string        { return "spy" }
func (spyRunner) Description() string { return "Spies." }
func (s spyRunner) Call(ctx context.Context, in assistant.Input) (*assistant.Response, error) {
	res, err := s.Run(ctx, in)
	return &res.Response, err
}
func (s spyRunner) Run(_ context.Context, in assistant.Input) (*assistant.Result[string], error) {
	*s.in = in
	return &assistant.Result[string]{Output: "ok"}, nil
}

func TestCancelledToolErrorIsTheContextError(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(testContext(t))
	// A tool that notices the cancellation but reports an error of its own.
	stubborn := tool.Func("wait", "Waits.", func(ctx context.Context, _ struct{}) (string, error) {
		cancel()
		<-ctx.Done()
		return "", errors.New("backend gave up")
	})
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("wait", `{}`)), llmtest.Text("never"))
	_, err := assistant.New[string]("a", assistant.WithModel(m), assistant.WithTools(stubborn)).Run(ctx, assistant.Input{Prompt: "go"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestALimitMetInADelegatedRunCancelsItsSiblings: of two parallel delegations, one meets the
// tree's request limit while the other waits in a tool. The waiting tool's context is
// cancelled at once, with the limit as its cause, and the top run returns the limit's error,
// not a cancellation.
func TestALimitMetInADelegatedRunCancelsItsSiblings(t *testing.T) {
	t.Parallel()
	waiting := make(chan struct{})
	cause := make(chan error, 1)
	wait := tool.Func("wait", "Waits for its context.", func(ctx context.Context, _ lookupArgs) (string, error) {
		close(waiting)
		select {
		case <-ctx.Done():
			cause <- context.Cause(ctx)
			return "", ctx.Err()
		case <-time.After(5 * time.Second):
			cause <- nil
			return "waited", nil
		}
	})
	// The spender's tool lets it go on only once the waiter waits, so that the limit is met
	// while the waiter's tool runs.
	spend := tool.Func("lookup", "Looks something up.", func(ctx context.Context, _ lookupArgs) (string, error) {
		select {
		case <-waiting:
			return "found", nil
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(5 * time.Second): // bounded, so that a broken delegation fails the test soon
			return "", errors.New("the waiter never started")
		}
	})
	waiter := assistant.New[string]("waiter", assistant.WithDescription("Waits."),
		assistant.WithModel(llmtest.NewScripted(llmtest.Calls(llmtest.Call("wait", `{}`)), llmtest.Text("waited"))),
		assistant.WithTools(wait))
	spender := assistant.New[string]("spender", assistant.WithDescription("Spends."),
		assistant.WithModel(endlessModel("lookup", 1)), assistant.WithTools(spend))
	sup := assistant.New[string]("sup",
		assistant.WithModel(llmtest.NewScripted(
			llmtest.Calls(llmtest.Call("waiter", `{"input":"a"}`), llmtest.Call("spender", `{"input":"b"}`)),
			llmtest.Text("both done"))),
		assistant.WithTools(assistant.AsTool[string](waiter), assistant.AsTool[string](spender)),
		assistant.WithLimits(usage.Limits{MaxRequests: 6}))
	_, err := sup.Run(testContext(t), assistant.Input{Prompt: "go"})
	var le *usage.LimitError
	if !errors.As(err, &le) || le.Limit != usage.LimitRequests {
		t.Errorf("err = %v; want the *usage.LimitError the spender met", err)
	}
	select { // the tools have returned with the run
	case got := <-cause:
		if !errors.As(got, &le) {
			t.Errorf("the waiting tool's context ended with cause %v; want it cancelled with the limit's error", got)
		}
	default:
		t.Error("the waiting tool never ran")
	}
}

// TestALimitMetBelowAToolThatSwallowsItEndsTheTree: a hand-written tool runs an assistant and
// turns its failure into a result. The limit that run met still ends the tree: the top run
// returns the limit's error, not the cancellation its own context got from it.
func TestALimitMetBelowAToolThatSwallowsItEndsTheTree(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	spender := assistant.New[string]("spender", assistant.WithModel(endlessModel("lookup", 1)), assistant.WithTools(countingTool("lookup", &n)))
	ask := tool.Func("ask", "Asks the spender.", func(ctx context.Context, _ lookupArgs) (string, error) {
		if _, err := spender.Run(ctx, assistant.Input{Prompt: "spend"}); err != nil {
			return "the spender failed: " + err.Error(), nil
		}
		return "the spender answered", nil
	})
	top := llmtest.NewScripted(llmtest.Calls(llmtest.Call("ask", `{}`)), llmtest.Text("done"))
	sup := assistant.New[string]("sup", assistant.WithModel(top), assistant.WithTools(ask),
		assistant.WithLimits(usage.Limits{MaxRequests: 4}))
	_, err := sup.Run(testContext(t), assistant.Input{Prompt: "go"})
	var le *usage.LimitError
	if !errors.As(err, &le) || le.Limit != usage.LimitRequests {
		t.Errorf("err = %v; want the *usage.LimitError met below the tool", err)
	}
	if got := len(top.Requests()); got != 1 {
		t.Errorf("the top model got %d requests; want 1: the limit ends the tree", got)
	}
}
