package assistant_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// TestARefusalIsTypedAndQuoted: a model that refuses apart from its text, as OpenAI's API
// does (message.refusal, with no content), ends the run with a *ModelStopError wrapping
// ErrRefusal that quotes it, after that one request.
func TestARefusalIsTypedAndQuoted(t *testing.T) {
	t.Parallel()
	for _, mode := range []assistant.OutputMode{assistant.OutputTool, assistant.OutputNative, assistant.OutputPrompted} {
		m := llmtest.NewScripted(llmtest.Reply{Refusal: "I can't help with that request."})
		a := assistant.New[city]("stopper", assistant.WithModel(m), assistant.WithOutputMode(mode))

		_, err := a.Run(testContext(t), assistant.Input{Prompt: "Paris?"})

		var serr *assistant.ModelStopError
		if !errors.As(err, &serr) || !errors.Is(err, assistant.ErrRefusal) {
			t.Fatalf("mode %d: Run error = %v; want a *ModelStopError wrapping ErrRefusal", mode, err)
		}
		if serr.Refusal != "I can't help with that request." || !strings.Contains(err.Error(), `"I can't help with that request."`) {
			t.Errorf("mode %d: error %q, Refusal %q: want the refusal quoted", mode, err, serr.Refusal)
		}
		if got := len(m.Requests()); got != 1 {
			t.Errorf("mode %d: the model got %d requests; want 1", mode, got)
		}
	}
}

// TestRunModelStopIsATypedError: a model that stops at its token limit or refuses ends the run
// with a *ModelStopError wrapping ErrTokenLimit or ErrRefusal, after that one request: the
// answer is not parsed (though it would parse) and no correction is asked for.
func TestRunModelStopIsATypedError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason  string
		want    error
		notWant error
	}{
		{"length", assistant.ErrTokenLimit, assistant.ErrRefusal},     // openai
		{"max_tokens", assistant.ErrTokenLimit, assistant.ErrRefusal}, // anthropic
		{"content_filter", assistant.ErrRefusal, assistant.ErrTokenLimit},
		{"refusal", assistant.ErrRefusal, assistant.ErrTokenLimit},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Reply{Text: `{"name":"Paris","population":2102650}`, StopReason: tt.reason})
			a := assistant.New[city]("stopper", assistant.WithModel(m))

			res, err := a.Run(testContext(t), assistant.Input{Prompt: "Paris?"})

			if !errors.Is(err, tt.want) {
				t.Fatalf("Run error = %v; want errors.Is %v", err, tt.want)
			}
			if errors.Is(err, tt.notWant) {
				t.Errorf("Run error %v also matches %v", err, tt.notWant)
			}
			var serr *assistant.ModelStopError
			if !errors.As(err, &serr) {
				t.Fatalf("Run error = %T; want a *assistant.ModelStopError", err)
			}
			want := assistant.ModelStopError{Assistant: "stopper", Model: "scripted", Reason: tt.reason, Err: tt.want}
			if tt.want == assistant.ErrRefusal { // the refused turn's text is what the model said
				want.Refusal = `{"name":"Paris","population":2102650}`
			}
			if diff := cmp.Diff(want, *serr, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("ModelStopError (-want +got):\n%s", diff)
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("error %q does not give the provider's reason %q", err, tt.reason)
			}
			if got := len(m.Requests()); got != 1 {
				t.Errorf("the model got %d requests; want 1: a stop is not a parse retry", got)
			}
			if res == nil || res.Stop != assistant.StopError || res.Output != (city{}) {
				t.Errorf("Result = %+v; want the partial Result, Stop %q and no Output", res, assistant.StopError)
			}
		})
	}
}

// TestRunModelStopWithToolCallsRunsNone: the calls of a turn cut at the token limit are not
// run, and each is answered so that the conversation stays valid.
func TestRunModelStopWithToolCallsRunsNone(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	m := llmtest.NewScripted(llmtest.Reply{
		ToolCalls:  []llms.ToolCall{llmtest.Call("lookup", `{"q":"a"}`), llmtest.Call("lookup", `{"q":`)},
		StopReason: "length",
	})
	a := assistant.New[string]("stopper", assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &runs)))

	res, err := a.Run(testContext(t), assistant.Input{Prompt: "look"})

	if !errors.Is(err, assistant.ErrTokenLimit) {
		t.Fatalf("Run error = %v; want ErrTokenLimit", err)
	}
	if runs.Load() != 0 {
		t.Errorf("the tool ran %d times; want none: the turn was cut", runs.Load())
	}
	if res == nil {
		t.Fatal("no partial Result")
	}
	if err := replayError(res.Messages); err != nil {
		t.Errorf("Messages are not a valid conversation: %v", err)
	}
	wantNotRun(t, lastToolResults(res.Messages))
	if got := res.Usage.Total.ToolCalls; got != 2 {
		t.Errorf("Usage.Total.ToolCalls = %d; want the 2 calls the model made, though none ran", got)
	}
}

// TestRunModelStopCountsEveryCallButFinalResult: in a turn cut short in tool mode, the calls
// count as tool calls but final_result.
func TestRunModelStopCountsEveryCallButFinalResult(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	m := llmtest.NewScripted(llmtest.Reply{
		ToolCalls:  []llms.ToolCall{llmtest.Call("lookup", `{"q":"a"}`), llmtest.Call("lookup", `{"q":"b"}`), llmtest.Call("final_result", `{"name":"Oslo"`)},
		StopReason: "length",
	})
	a := assistant.New[city]("stopper", assistant.WithModel(m), assistant.WithTools(countingTool("lookup", &runs)))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "look"})
	if !errors.Is(err, assistant.ErrTokenLimit) || res == nil {
		t.Fatalf("Run error = %v; want ErrTokenLimit, with the Result", err)
	}
	if got := res.Usage.Total.ToolCalls; got != 2 {
		t.Errorf("Usage.Total.ToolCalls = %d; want 2: final_result is not a tool call", got)
	}
}

// TestRunCancelledWhileTheModelThinks: cancelling the context while a request is under way
// (the model takes an hour to answer) ends the run promptly with context.Canceled.
func TestRunCancelledWhileTheModelThinks(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 1)
	m := llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
		arrived <- struct{}{}
		return llmtest.Reply{Text: "too late", Latency: time.Hour}
	})
	a := assistant.New[string]("slow", assistant.WithModel(m))
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()

	wait := runAsync(t, func() (*assistant.Result[string], error) {
		return a.Run(ctx, assistant.Input{Prompt: "think hard"})
	})
	<-arrived
	cancel()
	res, err := wait()

	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v; want context.Canceled", err)
	}
	if res != nil && res.Stop != assistant.StopError {
		t.Errorf("Stop = %q; want %q", res.Stop, assistant.StopError)
	}
	if got := len(m.Requests()); got != 1 {
		t.Errorf("the model got %d requests; want 1", got)
	}
}

// TestRunCancelledByTheModel: a model that cancels the run's context while it answers (and
// would take an hour) ends the run promptly with context.Canceled.
func TestRunCancelledByTheModel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	m := llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
		cancel()
		return llmtest.Reply{Text: "too late", Latency: time.Hour}
	})
	a := assistant.New[string]("slow", assistant.WithModel(m))

	wait := runAsync(t, func() (*assistant.Result[string], error) {
		return a.Run(ctx, assistant.Input{Prompt: "think hard"})
	})
	_, err := wait()

	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v; want context.Canceled", err)
	}
	if !strings.Contains(err.Error(), `"slow"`) {
		t.Errorf("error %q does not name the assistant", err)
	}
}

// TestRunCancelledWhileToolsRun: cancelling the context while a turn's tools block on it ends
// the run promptly with context.Canceled, after every tool returned, and no further request is
// sent. The tool calls are still answered in Messages.
func TestRunCancelledWhileToolsRun(t *testing.T) {
	t.Parallel()
	const calls = 3
	started := make(chan struct{}, calls)
	blocking := tool.Func("wait", "Waits for its context.", func(ctx context.Context, _ lookupArgs) (string, error) {
		started <- struct{}{}
		<-ctx.Done()
		return "", ctx.Err()
	})
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("wait", `{}`), llmtest.Call("wait", `{}`), llmtest.Call("wait", `{}`)),
		llmtest.Text("never asked for"),
	)
	a := assistant.New[string]("waiter", assistant.WithModel(m), assistant.WithTools(blocking))
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()

	wait := runAsync(t, func() (*assistant.Result[string], error) {
		return a.Run(ctx, assistant.Input{Prompt: "wait"})
	})
	for range calls {
		<-started
	}
	cancel()
	res, err := wait()

	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v; want context.Canceled", err)
	}
	if got := len(m.Requests()); got != 1 {
		t.Errorf("the model got %d requests; want 1: no request after the cancellation", got)
	}
	if res == nil {
		t.Fatal("no partial Result after the first request")
	}
	if err := replayError(res.Messages); err != nil {
		t.Errorf("Messages are not a valid conversation: %v", err)
	}
	if got := len(lastToolResults(res.Messages)); got != calls {
		t.Errorf("%d tool results in Messages; want %d", got, calls)
	}
}

// TestRunCancelledFromInsideATool: a tool that cancels the run's context and returns normally
// still ends the run: the turn's calls not yet started are not run (but answered), no further
// request is sent, and the error is context.Canceled.
func TestRunCancelledFromInsideATool(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	var runs atomic.Int64
	stop := tool.Func("stop", "Stops the run.", func(context.Context, lookupArgs) (string, error) {
		runs.Add(1)
		cancel()
		return "stopped", nil
	})
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("stop", `{}`), llmtest.Call("stop", `{}`), llmtest.Call("stop", `{}`)),
		llmtest.Text("never asked for"),
	)
	// One call at a time, so that the first call cancels before the others start.
	a := assistant.New[string]("stopper", assistant.WithModel(m), assistant.WithTools(stop), assistant.WithMaxParallelTools(1))

	res, err := a.Run(ctx, assistant.Input{Prompt: "stop"})

	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v; want context.Canceled", err)
	}
	if got := len(m.Requests()); got != 1 {
		t.Errorf("the model got %d requests; want 1", got)
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("the tool ran %d times; want once: the calls after the cancellation must not start", got)
	}
	if res == nil {
		t.Fatal("no partial Result")
	}
	results := lastToolResults(res.Messages)
	if len(results) != 3 || results[0] != "stopped" {
		t.Fatalf("tool results %q; want \"stopped\" and two calls not run", results)
	}
	for _, r := range results[1:] {
		if !strings.Contains(r, "not run") || !strings.Contains(r, "canceled") {
			t.Errorf("a call after the cancellation is answered %q; want it not run, for the cancellation", r)
		}
	}
}

// TestRunPartialResultAfterTheFirstRequest: an error after a request was paid for comes with
// the Result so far: its Messages, its Usage, the model's name and Stop = StopError.
func TestRunPartialResultAfterTheFirstRequest(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	first := usage.Usage{InputTokens: 120, OutputTokens: 30}
	m := llmtest.NewScripted(
		llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("lookup", `{"q":"x"}`)}, Usage: first},
		llmtest.Fail(errBoom),
	)
	a := assistant.New[city]("partial", assistant.WithModel(m), assistant.WithInstructions("Be brief."),
		assistant.WithTools(countingTool("lookup", &runs)))

	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Paris?"})

	if !errors.Is(err, errBoom) {
		t.Fatalf("Run error = %v; want it to wrap the model's error", err)
	}
	if res == nil {
		t.Fatal("no Result with an error after the first request: what was paid for is lost")
	}
	if res.Stop != assistant.StopError {
		t.Errorf("Stop = %q; want %q", res.Stop, assistant.StopError)
	}
	if res.Model != "scripted" {
		t.Errorf("Model = %q; want %q", res.Model, "scripted")
	}
	wantRoles := []llms.ChatMessageType{llms.ChatMessageTypeHuman, llms.ChatMessageTypeAI, llms.ChatMessageTypeTool}
	if diff := cmp.Diff(wantRoles, roles(res.Messages)); diff != "" {
		t.Errorf("roles of Messages (-want +got):\n%s", diff)
	}
	wantUsage := first
	wantUsage.Requests, wantUsage.ToolCalls = 1, 1
	if diff := cmp.Diff(wantUsage, res.Usage.Total); diff != "" {
		t.Errorf("Usage.Total (-want +got):\n%s", diff)
	}
}

// TestRunNoResultForAnErrorBeforeAnyRequest: an error before any model request is made comes
// alone, with no request sent.
func TestRunNoResultForAnErrorBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		in   assistant.Input
		opts []assistant.Option
	}{
		{name: "missing template var", in: assistant.Input{Prompt: "hi"}, opts: []assistant.Option{assistant.WithInstructions("Hello {{.who}}")}},
		{name: "empty prompt", in: assistant.Input{}},
		{name: "per-run WithInstructions", in: assistant.Input{Prompt: "hi", Options: []assistant.Option{assistant.WithInstructions("x")}}},
		{name: "context already cancelled", ctx: cancelled, in: assistant.Input{Prompt: "hi"}},
		{name: "ledger already spent", ctx: spentLedger(t), in: assistant.Input{Prompt: "hi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text("hello"))
			a := assistant.New[string]("early", append([]assistant.Option{assistant.WithModel(m)}, tt.opts...)...)
			ctx := tt.ctx
			if ctx == nil {
				ctx = testContext(t)
			}

			res, err := a.Run(ctx, tt.in)

			if err == nil {
				t.Fatal("Run succeeded; want an error")
			}
			if res != nil {
				t.Errorf("Run returned a Result %+v with an error before any request; want nil", res)
			}
			if got := len(m.Requests()); got != 0 {
				t.Errorf("the model got %d requests; want none", got)
			}
		})
	}
	t.Run("no model", func(t *testing.T) {
		t.Parallel()
		res, err := assistant.New[string]("modelless").Run(testContext(t), assistant.Input{Prompt: "hi"})
		if !errors.Is(err, assistant.ErrNoModel) || res != nil {
			t.Errorf("Run = %v, %v; want nil and ErrNoModel", res, err)
		}
	})
}

// spentLedger returns a context carrying a ledger whose only request is already used.
func spentLedger(t *testing.T) context.Context {
	t.Helper()
	l := usage.NewLedger(usage.Limits{MaxRequests: 1})
	if err := l.Open(nil, "earlier", nil).ReserveRequest(); err != nil {
		t.Fatalf("reserving the ledger's request: %v", err)
	}
	return usage.WithLedger(context.Background(), l)
}

// TestRunMessagesReplayAsHistory feeds the Messages of runs that ended in every way a run can
// end back as Input.History, to a model that rejects any request in which a tool call is not
// answered before the next turn, as provider APIs do: every one must be accepted. Messages
// never hold the system message and start with the user's turn.
func TestRunMessagesReplayAsHistory(t *testing.T) {
	t.Parallel()
	call := llmtest.Call
	lookup := func(q string) llms.ToolCall { return call("lookup", `{"q":"`+q+`"}`) }
	final := call("final_result", `{"name":"Paris","population":2102650}`)
	badFinal := call("final_result", `{"name":"Paris"}`)
	tests := []struct {
		name    string
		replies []llmtest.Reply
		limits  *usage.Limits
		wantErr bool
	}{
		{
			name: "tools, then final_result with another call skipped",
			replies: []llmtest.Reply{
				llmtest.Calls(lookup("a"), lookup("b")),
				llmtest.Calls(final, lookup("c")),
			},
		},
		{
			name: "a tool error, an unknown tool and invalid arguments, then a text answer",
			replies: []llmtest.Reply{
				llmtest.Calls(call("fail", `{}`), call("nosuch", `{}`), call("lookup", `not json`)),
				llmtest.Text(`{"name":"Paris","population":2102650}`),
			},
		},
		{
			name:    "stopped at the tool call limit",
			replies: []llmtest.Reply{llmtest.Calls(lookup("a"), lookup("b"))},
			limits:  &usage.Limits{MaxToolCalls: 3},
			wantErr: true,
		},
		{
			name:    "stopped at the request limit",
			replies: []llmtest.Reply{llmtest.Calls(lookup("a"))},
			limits:  &usage.Limits{MaxRequests: 2},
			wantErr: true,
		},
		{
			name:    "failed output in tool mode",
			replies: []llmtest.Reply{llmtest.Calls(badFinal, lookup("a")), llmtest.Calls(lookup("b"), badFinal)},
			wantErr: true,
		},
		{
			name:    "failed output as text",
			replies: []llmtest.Reply{llmtest.Text("Paris, I think"), llmtest.Text("Still Paris")},
			wantErr: true,
		},
		{
			name:    "calls cut at the token limit",
			replies: []llmtest.Reply{{ToolCalls: []llms.ToolCall{lookup("a"), lookup("b")}, StopReason: "max_tokens"}},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var runs atomic.Int64
			failing := tool.Func("fail", "Always fails.", func(context.Context, lookupArgs) (string, error) {
				return "", errors.New("no luck")
			})
			m := llmtest.NewScripted(tt.replies...).Cycle()
			opts := []assistant.Option{
				assistant.WithModel(m), assistant.WithInstructions("You know cities."),
				assistant.WithTools(countingTool("lookup", &runs), failing),
			}
			if tt.limits != nil {
				opts = append(opts, assistant.WithLimits(*tt.limits))
			}
			first := assistant.New[city]("first", opts...)
			res, err := first.Run(testContext(t), assistant.Input{Prompt: "Which city?"})
			if (err != nil) != tt.wantErr {
				t.Fatalf("first run error = %v; want an error: %v", err, tt.wantErr)
			}
			if res == nil {
				t.Fatalf("first run returned no Result (error %v)", err)
			}
			checkOwnMessages(t, res.Messages, "Which city?")

			replay := strictModel("Yes.")
			second := assistant.New[string]("second", assistant.WithModel(replay), assistant.WithInstructions("Go on."),
				assistant.WithTools(countingTool("lookup", &runs), failing))
			res2, err := second.Run(testContext(t), assistant.Input{Prompt: "Sure?", History: res.Messages})
			if err != nil {
				t.Fatalf("replaying the first run's Messages: %v\nMessages: %+v", err, res.Messages)
			}
			if res2.Output != "Yes." {
				t.Errorf("replay Output = %q; want %q", res2.Output, "Yes.")
			}
			checkOwnMessages(t, res2.Messages, "Sure?")
			if len(res2.Messages) != 2 {
				t.Errorf("the replay's Messages have %d messages; want its own 2 (the history is not this run's)", len(res2.Messages))
			}
		})
	}
}

// checkOwnMessages checks that msgs start with the user's prompt and hold no system message.
func checkOwnMessages(t *testing.T, msgs []llms.MessageContent, prompt string) {
	t.Helper()
	if len(msgs) == 0 {
		t.Fatal("Messages is empty")
	}
	if msgs[0].Role != llms.ChatMessageTypeHuman || textOf(msgs[0]) != prompt {
		t.Errorf("Messages[0] = %s %q; want the user's turn %q", msgs[0].Role, textOf(msgs[0]), prompt)
	}
	for i, m := range msgs {
		if m.Role == llms.ChatMessageTypeSystem {
			t.Errorf("Messages[%d] is the system message; Messages never hold it", i)
		}
	}
}

// TestRunManyConcurrentRuns runs one assistant with a tool 100 times at once, half of them
// with options of their own: each run gets its own system prompt, the answer to its own prompt
// through its own tool call, and its own usage.
func TestRunManyConcurrentRuns(t *testing.T) {
	t.Parallel()
	type doubled struct {
		Prompt string `json:"prompt"`
		Value  int    `json:"value"`
	}
	double := tool.Func("double", "Doubles n.", func(_ context.Context, in struct {
		N int `json:"n"`
	}) (int, error) {
		return 2 * in.N, nil
	})
	// The model asks for the number in the prompt to be doubled, then answers with the tool's
	// result through final_result.
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		var prompt, result, system string
		for _, msg := range req.Messages {
			switch msg.Role {
			case llms.ChatMessageTypeSystem:
				system = textOf(msg)
			case llms.ChatMessageTypeHuman:
				prompt = textOf(msg)
			case llms.ChatMessageTypeTool:
				result = msg.Parts[0].(llms.ToolCallResponse).Content
			}
		}
		n, err := strconv.Atoi(strings.TrimPrefix(prompt, "double "))
		if err != nil {
			return llmtest.Fail(fmt.Errorf("unexpected prompt %q", prompt))
		}
		if want := fmt.Sprintf("Number %d.", n); system != want {
			return llmtest.Fail(fmt.Errorf("run %d got the system prompt %q; want %q", n, system, want))
		}
		if result == "" {
			return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("double", fmt.Sprintf(`{"n":%d}`, n))}, Usage: usage.Usage{InputTokens: n}}
		}
		return llmtest.Reply{
			ToolCalls: []llms.ToolCall{llmtest.Call("final_result", fmt.Sprintf(`{"prompt":%q,"value":%s}`, prompt, result))},
			Usage:     usage.Usage{OutputTokens: n},
		}
	}).NoRecord()
	a := assistant.New[doubled]("doubler", assistant.WithModel(m), assistant.WithTools(double),
		assistant.WithInstructions("Number {{.n}}."), assistant.WithVars(map[string]any{"n": "none"}))

	const runs = 100
	results := make([]*assistant.Result[doubled], runs)
	errs := make([]error, runs)
	ctx := testContext(t)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			in := assistant.Input{Prompt: fmt.Sprintf("double %d", i)}
			// Half the runs prepare a plan of their own, from per-run options.
			if i%2 == 0 {
				in.Vars = map[string]any{"n": i}
			} else {
				in.Options = []assistant.Option{assistant.WithVars(map[string]any{"n": i}), assistant.WithMaxParallelTools(2)}
			}
			results[i], errs[i] = a.Run(ctx, in)
		})
	}
	wg.Wait()

	for i := range runs {
		if errs[i] != nil {
			t.Errorf("run %d: %v", i, errs[i])
			continue
		}
		want := doubled{Prompt: fmt.Sprintf("double %d", i), Value: 2 * i}
		if results[i].Output != want {
			t.Errorf("run %d: Output = %+v; want %+v", i, results[i].Output, want)
		}
		wantUsage := usage.Usage{Requests: 2, ToolCalls: 1, InputTokens: i, OutputTokens: i}
		if diff := cmp.Diff(wantUsage, results[i].Usage.Total); diff != "" {
			t.Errorf("run %d: Usage.Total (-want +got):\n%s", i, diff)
		}
	}
}
