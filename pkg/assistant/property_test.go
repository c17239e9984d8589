package assistant_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
	"pgregory.net/rapid"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
)

// The property test of the run loop: rapid generates scenarios — what each model answers turn
// by turn, the provider it sits behind, the limits, approvals with pause → JSON → resume in a
// fresh assistant value, a cancellation at the n-th model request, a specialist the supervisor
// delegates to (in parallel, too) — and checks, whatever the ending, the promises users rely
// on: every tool call answered once, in order, in a conversation the providers accept; no call
// run twice; usage that adds up to what the models reported; limits never overshot; errors
// with their Result; no goroutine left. `make test` runs a hundred scenarios, `make
// reliability` ten thousand (-rapid.checks); a failure prints the shrunk scenario.

// What a model does in one turn.
const (
	turnAnswer    = iota // a valid text answer
	turnProse            // an answer with no usable JSON
	turnCalls            // a turn of tool calls
	turnLength           // cut at the output token limit
	turnRefusal          // a refusal
	turnKindCount        // the number of kinds
)

// What one call of a turn is.
const (
	callLookup       = iota // a tool that answers
	callBadArgs             // lookup with arguments its schema refuses
	callFails               // a tool that returns an error
	callPanics              // a tool that panics
	callUnknown             // a tool that does not exist
	callSend                // a tool that waits for a person's approval
	callFinal               // a valid final_result
	callFinalInvalid        // a final_result its schema refuses
	callDelegate            // the assistant one level down
	callKindCount
)

type propCall struct{ Kind int }

type propTurn struct {
	Kind    int
	Calls   []propCall
	Fail    int // the first model of the chain fails the request first: 0, 429, 500 or 400
	In, Out int // the tokens the reply reports
}

type propScenario struct {
	Wire         string // "", "openai" or "anthropic": the supervisor's model behind a fake API
	Top          []propTurn
	Specialist   []propTurn // nil: no specialist
	Sub          []propTurn // nil: the specialist delegates to no one
	Limits       usage.Limits
	FinalOnLimit bool
	Approvals    []bool // the decisions of each resume, cycled over the waiting calls
	CancelAt     int    // cancel the tree at this model request (1-based); 0 never
}

func genTurn(t *rapid.T, label string, delegate, wire bool) propTurn {
	kinds := callKindCount - 1
	if delegate {
		kinds = callKindCount
	}
	turn := propTurn{
		Kind: rapid.IntRange(0, turnKindCount-1).Draw(t, label+"kind"),
		In:   rapid.IntRange(0, 50).Draw(t, label+"in"),
		Out:  rapid.IntRange(0, 20).Draw(t, label+"out"),
	}
	if turn.Kind == turnCalls {
		for i := range rapid.IntRange(1, 4).Draw(t, label+"calls") {
			turn.Calls = append(turn.Calls, propCall{Kind: rapid.IntRange(0, kinds-1).Draw(t, fmt.Sprintf("%scall%d", label, i))})
		}
	}
	if !wire {
		turn.Fail = rapid.SampledFrom([]int{0, 0, 0, 429, 500, 400}).Draw(t, label+"fail")
	}
	return turn
}

func genScenario(t *rapid.T) propScenario {
	var s propScenario
	s.Wire = rapid.SampledFrom([]string{"", "", "openai", "anthropic"}).Draw(t, "wire")
	delegate := rapid.Bool().Draw(t, "delegate")
	for i := range rapid.IntRange(1, 5).Draw(t, "top turns") {
		s.Top = append(s.Top, genTurn(t, fmt.Sprintf("top%d ", i), delegate, s.Wire != ""))
	}
	if delegate {
		deeper := rapid.Bool().Draw(t, "deeper")
		for i := range rapid.IntRange(1, 3).Draw(t, "specialist turns") {
			s.Specialist = append(s.Specialist, genTurn(t, fmt.Sprintf("spec%d ", i), deeper, false))
		}
		if deeper {
			for i := range rapid.IntRange(1, 2).Draw(t, "sub turns") {
				s.Sub = append(s.Sub, genTurn(t, fmt.Sprintf("sub%d ", i), false, false))
			}
		}
	}
	s.Limits = usage.Limits{
		MaxRequests:  rapid.SampledFrom([]int{0, 2, 3, 5, 8}).Draw(t, "max requests"),
		MaxToolCalls: rapid.SampledFrom([]int{0, 1, 2, 4, 7}).Draw(t, "max tool calls"),
	}
	s.FinalOnLimit = rapid.Bool().Draw(t, "final on limit")
	s.Approvals = rapid.SliceOfN(rapid.Bool(), 1, 4).Draw(t, "approvals")
	s.CancelAt = rapid.SampledFrom([]int{0, 0, 0, 1, 2, 3, 5}).Draw(t, "cancel at")
	return s
}

// propRun is one scenario running: its models, tools and what they saw.
type propRun struct {
	s      propScenario
	cancel context.CancelFunc

	mu        sync.Mutex
	turns     map[string]int // by run (its first prompt): the turns its models answered
	requests  int            // model requests, every attempt
	replies   int            // replies returned
	in, out   int            // tokens the replies reported
	runs      map[string]int // tool executions, by call id
	convs     [][]llms.MessageContent
	calledAny bool
	closers   []func() // the fake provider APIs, closed before goroutines are counted
}

// propModel is one model of a scenario: it answers each request with the turn of the script
// its run is at. first tells the first model of a chain, which fails as the turn says.
type propModel struct {
	p        *propRun
	script   []propTurn
	first    bool
	delegate string // the tool that delegates one level down
}

func (m propModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// GenerateContent answers under the scenario's lock, where the cancellation happens too: a
// reply is counted as reported exactly when it is returned.
func (m propModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	p := m.p
	key := firstHuman(msgs)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests++
	p.calledAny = true
	p.convs = append(p.convs, slices.Clone(msgs))
	if p.s.CancelAt == p.requests {
		p.cancel() // the run's context; behind a fake API, ctx is the server's
		return nil, context.Canceled
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k := p.turns[key]
	turn := propTurn{Kind: turnAnswer, In: 1, Out: 1}
	if k < len(m.script) {
		turn = m.script[k]
	}
	if m.first && turn.Fail != 0 {
		return nil, &model.ProviderError{Provider: "test", Model: "first", Status: turn.Fail, Message: "the provider is down"}
	}
	choice := &llms.ContentChoice{StopReason: "stop", GenerationInfo: map[string]any{
		"PromptTokens": turn.In, "CompletionTokens": turn.Out, "TotalTokens": turn.In + turn.Out,
	}}
	prefix := strings.NewReplacer(`{"city":"`, "", `"}`, "").Replace(key)
	switch turn.Kind {
	case turnAnswer:
		choice.Content = `{"name":"Oslo","population":700000}`
	case turnProse:
		choice.Content = "I think it is a large city."
	case turnLength:
		choice.Content, choice.StopReason = `{"name":"Os`, "length"
	case turnRefusal:
		// With its text: langchaingo's anthropic client fails a response without content
		// ("no response"), and the tokens it reported are lost with it.
		choice.Content, choice.StopReason = "I cannot help with that.", "content_filter"
	case turnCalls:
		choice.StopReason = "tool_calls"
		for i, c := range turn.Calls {
			q := fmt.Sprintf("%s-t%d-c%d", prefix, k, i)
			name, args := "lookup", `{"q":"`+q+`"}`
			switch c.Kind {
			case callBadArgs:
				args = `{"q":5}`
			case callFails:
				name = "fails"
			case callPanics:
				name = "panics"
			case callUnknown:
				name = "nosuch"
			case callSend:
				name = "send"
			case callFinal:
				name, args = "final_result", `{"name":"Oslo","population":700000}`
			case callFinalInvalid:
				name, args = "final_result", `{"name":7}`
			case callDelegate:
				name, args = m.delegate, `{"city":"`+q+`"}`
			}
			choice.ToolCalls = append(choice.ToolCalls, llms.ToolCall{ID: q, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}})
		}
	}
	p.turns[key] = k + 1
	p.replies++
	p.in += turn.In
	p.out += turn.Out
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{choice}}, nil
}

func firstHuman(msgs []llms.MessageContent) string {
	for _, m := range msgs {
		if m.Role == llms.ChatMessageTypeHuman {
			return textOf(m)
		}
	}
	return ""
}

func (p *propRun) ran(q string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs[q]++
}

type propArgs struct {
	Q string `json:"q"`
}

// chain returns a two-model chain over script: the first fails as the turns say, the second
// takes over; behind a fake provider API for the wire scenarios.
func (p *propRun) chain(t *rapid.T, script []propTurn, wire, delegate string) []model.Model {
	first := propModel{p: p, script: script, first: true, delegate: delegate}
	second := propModel{p: p, script: script, delegate: delegate}
	switch wire {
	case "openai":
		srv := providertest.NewOpenAI(first)
		p.closers = append(p.closers, srv.Close)
		llm, err := openai.New(openai.WithBaseURL(srv.URL()+"/v1"), openai.WithToken("test-key"), openai.WithModel("gpt-test"), openai.WithHTTPClient(srv.Client()))
		if err != nil {
			t.Fatal(err)
		}
		return []model.Model{model.Describe("wire", llm)}
	case "anthropic":
		srv := providertest.NewAnthropic(first)
		p.closers = append(p.closers, srv.Close)
		llm, err := anthropic.New(anthropic.WithBaseURL(srv.URL()+"/v1"), anthropic.WithToken("test-key"), anthropic.WithModel("claude-test"), anthropic.WithHTTPClient(srv.Client()))
		if err != nil {
			t.Fatal(err)
		}
		return []model.Model{model.Describe("wire", llm)}
	}
	return []model.Model{model.Describe("first", first), model.Describe("second", second)}
}

// build makes the scenario's supervisor: a fresh value each time, as another process would.
func (p *propRun) build(t *rapid.T, top, spec, sub []model.Model) *assistant.Assistant[city] {
	pending := assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) {
		return assistant.Pending(), nil
	})
	tools := []tool.Tool{
		tool.Func("lookup", "Looks something up.", func(_ context.Context, in propArgs) (string, error) {
			p.ran(in.Q)
			return "found " + in.Q, nil
		}),
		tool.Func("fails", "Fails.", func(_ context.Context, in propArgs) (string, error) {
			p.ran(in.Q)
			return "", errors.New("the service is down")
		}),
		tool.Func("panics", "Panics.", func(_ context.Context, in propArgs) (string, error) {
			p.ran(in.Q)
			panic("a bug in the tool")
		}),
		tool.Func("send", "Sends; a person approves.", func(_ context.Context, in propArgs) (string, error) {
			p.ran(in.Q)
			return "sent " + in.Q, nil
		}),
	}
	common := []assistant.Option{assistant.WithApproval(pending, "send"), assistant.WithTools(tools...)}
	opts := append(common, assistant.WithModels(model.Fixed(top...)), assistant.WithLimits(p.s.Limits))
	if p.s.FinalOnLimit {
		opts = append(opts, assistant.WithFinalAnswerOnLimit())
	}
	if spec != nil {
		specOpts := append(common, assistant.WithModels(model.Fixed(spec...)))
		if sub != nil {
			below := assistant.New[city]("sub", append(common, assistant.WithModels(model.Fixed(sub...)))...)
			specOpts = append(specOpts, assistant.WithTools(assistant.AsTool[cityArgs](below)))
		}
		specialist := assistant.New[city]("specialist", specOpts...)
		opts = append(opts, assistant.WithTools(assistant.AsTool[cityArgs](specialist)))
	}
	return assistant.New[city]("supervisor", opts...)
}

func TestRunLoopProperties(t *testing.T) {
	base := runtime.NumGoroutine()
	rounds := 1
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		rounds = 3 // a few hundred scenarios in make test; -rapid.checks for more
	}
	for range rounds {
		if rapid.Check(t, runLoopProperty(base)); t.Failed() {
			break // one shrunk failure is enough
		}
	}
	if f := flag.Lookup("rapid.checks"); f != nil {
		t.Logf("figures: run loop properties: %d rounds of %s scenarios", rounds, f.Value.String())
	}
}

// runLoopProperty is one scenario of TestRunLoopProperties.
func runLoopProperty(base int) func(*rapid.T) {
	return func(t *rapid.T) {
		s := genScenario(t)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		p := &propRun{s: s, cancel: cancel, turns: map[string]int{}, runs: map[string]int{}}
		top := p.chain(t, s.Top, s.Wire, "specialist")
		var spec, sub []model.Model
		if s.Specialist != nil {
			spec = p.chain(t, s.Specialist, "", "sub")
		}
		if s.Sub != nil {
			sub = p.chain(t, s.Sub, "", "")
		}
		res, err := p.build(t, top, spec, sub).Run(ctx, assistant.Input{Prompt: "top"})
		p.check(t, res, err)
		decided := map[string]bool{} // approved calls, by id
		for round := 0; err == nil && res.Stop == assistant.StopPending && round < 4; round++ {
			b, merr := json.Marshal(res.Paused)
			if merr != nil {
				t.Fatalf("a paused state does not marshal: %v", merr)
			}
			var paused assistant.Paused
			if uerr := json.Unmarshal(b, &paused); uerr != nil {
				t.Fatalf("a paused state does not unmarshal: %v", uerr)
			}
			decisions := map[string]assistant.Decision{}
			for i, c := range paused.Waiting() {
				approve := s.Approvals[(round+i)%len(s.Approvals)]
				decided[c.ID] = approve
				decisions[c.ID] = assistant.Denied("no")
				if approve {
					decisions[c.ID] = assistant.Approved()
				}
			}
			res, err = p.build(t, top, spec, sub).Resume(ctx, &paused, decisions)
			p.check(t, res, err)
		}
		p.checkApproved(t, res, decided)
		for _, c := range p.closers {
			c()
		}
		p.checkGoroutines(t, base)
	}
}

// check asserts the promises that hold after any run or resume, whatever its ending.
func (p *propRun) check(t *rapid.T, res *assistant.Result[city], err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, conv := range p.convs {
		if rerr := replayError(conv); rerr != nil {
			t.Fatalf("request %d is a conversation providers reject: %v", i+1, rerr)
		}
	}
	for q, n := range p.runs {
		if n > 1 {
			t.Fatalf("call %s ran %d times", q, n)
		}
	}
	if err != nil && strings.Contains(err.Error(), "providertest") && !strings.Contains(err.Error(), "the model failed") {
		t.Fatalf("a fake provider API refused a request: %v", err)
	}
	if err != nil && p.calledAny && res == nil && !errors.Is(err, assistant.ErrNotPaused) {
		t.Fatalf("an error after a request came without its Result: %v", err)
	}
	var oerr *assistant.OutputError
	if errors.As(err, &oerr) {
		if n := len(oerr.Attempts); n != 2 && !(p.s.FinalOnLimit && n == 1) {
			t.Fatalf("an *OutputError after %d unusable answers: %v", n, err)
		}
	}
	if res == nil {
		return
	}
	u := res.Usage
	if !u.AddsUp() {
		t.Fatalf("the usage does not add up: %+v", u)
	}
	if u.Total.Requests != p.replies || u.Total.InputTokens != p.in || u.Total.OutputTokens != p.out {
		t.Fatalf("usage %+v; the models replied %d times with %d input and %d output tokens (the run's error: %v)", u.Total, p.replies, p.in, p.out, err)
	}
	if max := p.s.Limits.MaxRequests; max > 0 && u.Total.Requests > max {
		t.Fatalf("%d requests under MaxRequests %d", u.Total.Requests, max)
	}
	if max := p.s.Limits.MaxToolCalls; max > 0 && u.Total.ToolCalls > max {
		t.Fatalf("%d tool calls under MaxToolCalls %d", u.Total.ToolCalls, max)
	}
	runs := 0
	for _, n := range p.runs {
		runs += n
	}
	if max := p.s.Limits.MaxToolCalls; max > 0 && runs > max {
		t.Fatalf("%d tool executions under MaxToolCalls %d", runs, max)
	}
	if rerr := replayError(res.Messages); rerr != nil && res.Stop != assistant.StopPending {
		t.Fatalf("the Result's messages are a conversation providers reject: %v", rerr)
	}
	checkCallOrder(t, res.Messages)
}

// checkCallOrder asserts that the results of each turn of calls follow it in the calls' order.
func checkCallOrder(t *rapid.T, msgs []llms.MessageContent) {
	for i, m := range msgs {
		calls := 0
		for _, part := range m.Parts {
			c, ok := part.(llms.ToolCall)
			if !ok {
				continue
			}
			j := i + 1 + calls
			calls++
			if j >= len(msgs) {
				return // a paused turn: its results come at resume
			}
			r, ok := msgs[j].Parts[0].(llms.ToolCallResponse)
			if !ok || r.ToolCallID != c.ID {
				t.Fatalf("message %d: the result of call %s is not where the model's order puts it", j, c.ID)
			}
		}
	}
}

// checkApproved asserts that every approved call that ended its run ran exactly once, or was
// answered as not run (a limit, a cancellation).
func (p *propRun) checkApproved(t *rapid.T, res *assistant.Result[city], decided map[string]bool) {
	if res == nil || res.Stop == assistant.StopPending {
		return
	}
	results := map[string]string{}
	for _, r := range toolResultsIn(res.Messages) {
		results[r.ToolCallID] = r.Content
	}
	nonce := map[string]string{} // the q of each call: a fake API may give calls ids of its own
	for _, c := range toolCallsIn(res.Messages) {
		var a propArgs
		if json.Unmarshal([]byte(c.FunctionCall.Arguments), &a) == nil {
			nonce[c.ID] = a.Q
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, approved := range decided {
		got, ok := results[id]
		if !ok {
			continue // a delegated run's call: its messages are not the supervisor's
		}
		switch ran := p.runs[nonce[id]]; {
		case approved && ran == 1 && got == "sent "+nonce[id]:
		case approved && ran == 0 && strings.HasPrefix(got, "not run"):
		case approved && ran == 0 && strings.HasPrefix(got, "error: ") && strings.Contains(got, "context canceled"):
		case !approved && ran == 0 && strings.HasPrefix(got, "denied"):
		default:
			t.Fatalf("call %s (approved: %v) ran %d times and was answered %q", id, approved, ran, got)
		}
	}
}

// checkGoroutines asserts that the scenario left no goroutine behind.
func (p *propRun) checkGoroutines(t *rapid.T, base int) {
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left (base %d):\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCancellationWhileToolsRunStress cancels runs at random instants while their tools and
// delegated runs are running, in parallel: a race that depends on timing, outside the
// shrinking property. Whatever the instant, the Result's conversation stays one providers
// accept, its usage adds up, and no goroutine is left.
func TestCancellationWhileToolsRunStress(t *testing.T) {
	base := runtime.NumGoroutine()
	slow := tool.Func("slow", "Takes a while.", func(ctx context.Context, in propArgs) (string, error) {
		select {
		case <-time.After(time.Duration(len(in.Q)%3) * time.Millisecond):
			return "done", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	turn := func(name string, n int) llmtest.Reply {
		calls := make([]llms.ToolCall, n)
		for i := range calls {
			calls[i] = llmtest.Call(name, fmt.Sprintf(`{"q":"%s","city":"%s"}`, strings.Repeat("x", i), strings.Repeat("y", i)))
		}
		return llmtest.Reply{ToolCalls: calls, Usage: usage.Usage{InputTokens: 3, OutputTokens: 1}}
	}
	specialist := assistant.New[string]("specialist", assistant.WithTools(slow), assistant.WithModel(
		llmtest.NewScripted(turn("slow", 3), llmtest.Text("found")).Cycle().NoRecord()))
	supervisor := assistant.New[string]("supervisor", assistant.WithTools(slow, assistant.AsTool[cityArgs](specialist)),
		assistant.WithModel(llmtest.NewScripted(turn("slow", 4), turn("specialist", 3), llmtest.Text("done")).Cycle().NoRecord()))
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			time.AfterFunc(time.Duration(i%7)*time.Millisecond/2, cancel)
			res, err := supervisor.Run(ctx, assistant.Input{Prompt: "go"})
			if res == nil {
				return
			}
			if rerr := replayError(res.Messages); rerr != nil {
				t.Errorf("run %d (err %v): a conversation providers reject: %v", i, err, rerr)
			}
			if !res.Usage.AddsUp() {
				t.Errorf("run %d: usage does not add up: %+v", i, res.Usage)
			}
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("%d goroutines left, %d before", n, base)
	}
}
