package assistant_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// seen is what a model saw of one request: the output schema in its context, and the tools
// offered.
type seen struct {
	schema *model.OutputSchema
	tools  []string
}

// watching returns a model that notes what each request carried and answers with answer(n)
// for the n-th request (0 first).
func watching(answer func(n int, s seen) llmtest.Reply) (*llmtest.FuncModel, func() []seen) {
	var mu sync.Mutex
	var log []seen
	m := llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		s := seen{schema: model.OutputSchemaOf(ctx)}
		for _, t := range req.Options.Tools {
			s.tools = append(s.tools, t.Function.Name)
		}
		mu.Lock()
		n := len(log)
		log = append(log, s)
		mu.Unlock()
		return answer(n, s)
	})
	return m, func() []seen {
		mu.Lock()
		defer mu.Unlock()
		return append([]seen(nil), log...)
	}
}

type place struct {
	Name    string   `json:"name"`
	Country string   `json:"country,omitempty"`
	Rank    *int     `json:"rank,omitempty"`
	Tags    []string `json:"tags,omitempty"`
}

// TestNativeModeSendsTheSchemaAndTakesTheText: in native mode the request carries the
// output's schema — in ModelRequest.Output for middleware and in the context for the client —
// and no final_result tool; the answer is the text, decoded into O in one request. An answer
// written against the strict form (null for what it leaves out) is taken too.
func TestNativeModeSendsTheSchemaAndTakesTheText(t *testing.T) {
	t.Parallel()
	for _, answer := range []string{
		`{"name":"Lyon","country":"FR"}`,
		`{"name":"Lyon","country":"FR","rank":null,"tags":null}`, // the strict form's
		"  {\"name\":\"Lyon\",\"country\":\"FR\"}\n",
	} {
		m, log := watching(func(int, seen) llmtest.Reply { return llmtest.Text(answer) })
		var fromMiddleware *model.OutputSchema
		mw := assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			fromMiddleware = req.Output
			return next(ctx, req)
		}}
		a := assistant.New[place]("geo", assistant.WithModel(m), assistant.WithOutputMode(assistant.OutputNative),
			assistant.WithTools(countingTool("lookup", new(atomic.Int64))), assistant.WithMiddleware(mw))

		res, err := a.Run(testContext(t), assistant.Input{Prompt: "Lyon?"})
		if err != nil {
			t.Fatalf("%q: %v", answer, err)
		}
		if res.Output.Name != "Lyon" || res.Output.Country != "FR" || res.Output.Rank != nil {
			t.Errorf("%q: Output = %+v", answer, res.Output)
		}
		got := log()
		if len(got) != 1 || got[0].schema == nil || got[0].schema != fromMiddleware {
			t.Fatalf("%q: requests %+v, middleware saw %v: want one request with the schema in its context and in ModelRequest.Output", answer, got, fromMiddleware)
		}
		if s := got[0].schema; s.Name != "place" || !json.Valid(s.Schema) || !json.Valid(s.Strict) ||
			!strings.Contains(string(s.Schema), `"name"`) || !strings.Contains(string(s.Strict), `"additionalProperties":false`) {
			t.Errorf("%q: schema %s / strict %s", answer, s.Schema, s.Strict)
		}
		if diff := cmp.Diff([]string{"lookup"}, got[0].tools); diff != "" {
			t.Errorf("%q: tools (-want +got): %s (no final_result in native mode)", answer, diff)
		}
	}
}

// TestNativeModeWrapsAnOutputThatIsNotAnObject: every API takes an object schema, so an O
// that is not an object goes as final_result's arguments do, {"output": O}, and is unwrapped.
func TestNativeModeWrapsAnOutputThatIsNotAnObject(t *testing.T) {
	t.Parallel()
	m, log := watching(func(int, seen) llmtest.Reply { return llmtest.Text(`{"output":["a","b"]}`) })
	a := assistant.New[[]string]("list", assistant.WithModel(m), assistant.WithOutputMode(assistant.OutputNative))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "two letters"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b"}, res.Output); diff != "" {
		t.Errorf("Output (-want +got): %s", diff)
	}
	if s := log()[0].schema; s == nil || s.Name != "output" || !strings.Contains(string(s.Schema), `"output"`) {
		t.Errorf("schema %+v", s)
	}
}

// TestNativeModeCorrectsOnceWithTheExactError: an answer that does not fit (a client that
// ignored the schema) is corrected once, as a text answer is, quoting the error; the
// correcting request carries the schema too.
func TestNativeModeCorrectsOnceWithTheExactError(t *testing.T) {
	t.Parallel()
	m, log := watching(func(n int, _ seen) llmtest.Reply {
		if n == 0 {
			return llmtest.Text(`{"country":"FR"}`)
		}
		return llmtest.Text(`{"name":"Lyon"}`)
	})
	var events []callback.Event
	a := assistant.New[place]("geo", assistant.WithModel(m), assistant.WithOutputMode(assistant.OutputNative),
		assistant.WithCallback(callback.HandlerFunc(func(_ context.Context, e callback.Event) { events = append(events, e) })))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Lyon?"})
	if err != nil || res.Output.Name != "Lyon" {
		t.Fatalf("Output %+v, %v", res, err)
	}
	got := log()
	if len(got) != 2 || got[1].schema == nil {
		t.Fatalf("requests %+v: want 2, the second with the schema", got)
	}
	last := res.Messages[len(res.Messages)-2] // the correction, before the answer
	if text := last.Parts[0].(llms.TextContent).Text; !strings.Contains(text, "name") || !strings.Contains(text, "could not be used") {
		t.Errorf("correction %q does not quote the error", text)
	}
	corrections := 0
	for _, e := range events {
		if e.Kind == callback.OutputCorrection {
			corrections++
		}
	}
	if corrections != 1 {
		t.Errorf("%d OutputCorrection events; want 1", corrections)
	}
}

// schemaRefused fails a request that carries an output schema as a provider does with a 400
// naming it; any other request gets final_result's answer.
func schemaRefused(n int, s seen) llmtest.Reply {
	if s.schema != nil {
		return llmtest.Fail(&model.ProviderError{Provider: "p", Model: "m", Status: 400, Message: "Invalid schema for response_format", Err: model.ErrOutputSchema})
	}
	return llmtest.Calls(llmtest.Call("final_result", `{"name":"Lyon"}`))
}

// TestARefusedSchemaFallsBackToAToolOnce: a model that refuses the schema is asked again at
// once with final_result, and with final_result for the rest of the run: the run says so once
// in its events, and its usage counts the requests that were answered.
func TestARefusedSchemaFallsBackToAToolOnce(t *testing.T) {
	t.Parallel()
	var calls int
	m, log := watching(func(n int, s seen) llmtest.Reply {
		if s.schema == nil && calls == 0 {
			calls++
			return llmtest.Calls(llmtest.Call("lookup", `{}`))
		}
		return schemaRefused(n, s)
	})
	var mu sync.Mutex
	var kinds []callback.Kind
	a := assistant.New[place]("geo", assistant.WithModel(m), assistant.WithOutputMode(assistant.OutputNative),
		assistant.WithTools(countingTool("lookup", new(atomic.Int64))),
		assistant.WithCallback(callback.HandlerFunc(func(_ context.Context, e callback.Event) {
			mu.Lock()
			kinds = append(kinds, e.Kind)
			mu.Unlock()
		})))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Lyon?"})
	if err != nil || res.Output.Name != "Lyon" {
		t.Fatalf("Output %+v, %v", res, err)
	}
	got := log()
	if len(got) != 3 || got[0].schema == nil || got[1].schema != nil || got[2].schema != nil {
		t.Fatalf("requests %+v: want the schema refused once, then two requests with the tool", got)
	}
	if !contains(got[1].tools, "final_result") {
		t.Errorf("the request after the refusal offered %v: want final_result", got[1].tools)
	}
	n := 0
	for _, k := range kinds {
		if k == callback.OutputFallback {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d OutputFallback events; want 1 (%v)", n, kinds)
	}
	if res.Usage.Total.Requests != 2 {
		t.Errorf("Usage.Requests = %d; want the 2 answered", res.Usage.Total.Requests)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestAutoPicksNativeOnlyWhereTheModelSaysSo: OutputAuto sends the schema natively to a model
// whose Output is native, and final_result to a model whose support is not known, or that
// takes tools; in a fallback chain, each model gets its own form.
func TestAutoPicksNativeOnlyWhereTheModelSaysSo(t *testing.T) {
	t.Parallel()
	answer := func(_ int, s seen) llmtest.Reply {
		if s.schema != nil {
			return llmtest.Text(`{"name":"Lyon"}`)
		}
		return llmtest.Calls(llmtest.Call("final_result", `{"name":"Lyon"}`))
	}
	for _, tc := range []struct {
		name   string
		output model.OutputForm
		native bool
	}{
		{"native", model.NativeOutput, true},
		{"unknown", model.OutputUnknown, false},
		{"tool", model.ToolOutput, false},
	} {
		m, log := watching(answer)
		chain := model.Fixed(model.Model{Name: tc.name, LLM: m, Output: tc.output})
		a := assistant.New[place]("geo", assistant.WithModels(chain))
		if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Lyon?"}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		s := log()[0]
		if (s.schema != nil) != tc.native || contains(s.tools, "final_result") == tc.native {
			t.Errorf("%s: schema %v, tools %v; native %v", tc.name, s.schema != nil, s.tools, tc.native)
		}
	}

	// A chain whose first model fails on a 503: the second, of unknown support, gets final_result.
	first, firstLog := watching(func(int, seen) llmtest.Reply {
		return llmtest.Fail(&model.ProviderError{Status: 503, Message: "overloaded"})
	})
	second, secondLog := watching(answer)
	chain := model.Fixed(model.Model{Name: "native", LLM: first, Output: model.NativeOutput}, model.Model{Name: "other", LLM: second})
	a := assistant.New[place]("geo", assistant.WithModels(chain))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Lyon?"})
	if err != nil || res.Output.Name != "Lyon" || res.Model != "other" {
		t.Fatalf("Result %+v, %v", res, err)
	}
	if s := firstLog()[0]; s.schema == nil || contains(s.tools, "final_result") {
		t.Errorf("first model: schema %v, tools %v: want the native form", s.schema, s.tools)
	}
	if s := secondLog()[0]; s.schema != nil || !contains(s.tools, "final_result") {
		t.Errorf("second model: schema %v, tools %v: want the tool form", s.schema, s.tools)
	}

	// The other way round: the tool model fails, the native one answers in text.
	first, _ = watching(func(int, seen) llmtest.Reply { return llmtest.Fail(&model.ProviderError{Status: 503}) })
	second, secondLog = watching(answer)
	chain = model.Fixed(model.Model{Name: "tool", LLM: first}, model.Model{Name: "native", LLM: second, Output: model.NativeOutput})
	res, err = assistant.New[place]("geo", assistant.WithModels(chain)).Run(testContext(t), assistant.Input{Prompt: "Lyon?"})
	if err != nil || res.Output.Name != "Lyon" || res.Model != "native" {
		t.Fatalf("Result %+v, %v", res, err)
	}
	if s := secondLog()[0]; s.schema == nil || contains(s.tools, "final_result") {
		t.Errorf("native second model: schema %v, tools %v", s.schema, s.tools)
	}
}

// TestAWithModelClientIsNeverNativeUnderAuto: a client given with WithModel has no known
// support: OutputAuto asks it with final_result.
func TestAWithModelClientIsNeverNativeUnderAuto(t *testing.T) {
	t.Parallel()
	m, log := watching(func(int, seen) llmtest.Reply { return llmtest.Calls(llmtest.Call("final_result", `{"name":"Lyon"}`)) })
	if _, err := assistant.New[place]("geo", assistant.WithModel(m)).Run(testContext(t), assistant.Input{Prompt: "?"}); err != nil {
		t.Fatal(err)
	}
	if s := log()[0]; s.schema != nil {
		t.Error("the schema went to a client of unknown support")
	}
}

// TestNativeOutputMeetsResumeAndDelegation: a native run paused for an approval resumes in
// native form, and answers in text; a supervisor asked with a tool delegates to a specialist
// asked natively, each request in its own assistant's form, each schema its own output's.
func TestNativeOutputMeetsResumeAndDelegation(t *testing.T) {
	t.Parallel()
	answer := func(n int, s seen) llmtest.Reply {
		if n == 0 {
			return llmtest.Calls(llmtest.Call("send", `{}`))
		}
		return llmtest.Text(`{"name":"Lyon"}`)
	}
	m, log := watching(answer)
	native := model.Fixed(model.Model{Name: "native", LLM: m, Output: model.NativeOutput})
	a := assistant.New[place]("geo", assistant.WithModels(native), assistant.WithTools(countingTool("send", new(atomic.Int64))),
		assistant.WithApproval(fixed(assistant.Decision{Verdict: assistant.VerdictPending}), "send"))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Lyon?"})
	if err != nil || res.Stop != assistant.StopPending {
		t.Fatalf("%+v, %v: want a pause", res, err)
	}
	paused := throughJSON(t, res.Paused)
	final, err := a.Resume(testContext(t), paused, map[string]assistant.Decision{paused.Calls[0].ID: assistant.Approved()})
	if err != nil || final.Output.Name != "Lyon" {
		t.Fatalf("resumed: %+v, %v", final, err)
	}
	for i, s := range log() {
		if s.schema == nil || contains(s.tools, "final_result") {
			t.Errorf("request %d: schema %v, tools %v: want the native form before and after the pause", i, s.schema != nil, s.tools)
		}
	}

	spec, specLog := watching(func(int, seen) llmtest.Reply { return llmtest.Text(`{"name":"Lyon","country":"FR"}`) })
	specialist := assistant.New[place]("specialist", assistant.WithModels(model.Fixed(model.Model{Name: "native", LLM: spec, Output: model.NativeOutput})),
		assistant.WithDescription("Finds places."))
	sup, supLog := watching(func(n int, s seen) llmtest.Reply {
		if n == 0 {
			return llmtest.Calls(llmtest.Call("specialist", `{"input":"Lyon"}`))
		}
		return llmtest.Calls(llmtest.Call("final_result", `{"output":["FR"]}`))
	})
	supervisor := assistant.New[[]string]("supervisor", assistant.WithModels(model.Fixed(model.Model{Name: "plain", LLM: sup})),
		assistant.WithTools(assistant.AsTool[string](specialist)))
	out, err := supervisor.Run(testContext(t), assistant.Input{Prompt: "countries?"})
	if err != nil || len(out.Output) != 1 {
		t.Fatalf("%+v, %v", out, err)
	}
	for i, s := range supLog() {
		if s.schema != nil || !contains(s.tools, "final_result") {
			t.Errorf("supervisor request %d: schema %v, tools %v: want the tool form", i, s.schema, s.tools)
		}
	}
	if s := specLog(); len(s) != 1 || s[0].schema == nil || !strings.Contains(string(s[0].schema.Schema), `"country"`) {
		t.Errorf("specialist requests %+v: want one, with its own schema", s)
	}
}

// TestARefusedSchemaStaysRefusedAcrossAPause: a model that refused the schema before the run
// paused is asked with a tool when the run resumes, from its JSON state, in another process as
// well: the refusal is not paid for again.
func TestARefusedSchemaStaysRefusedAcrossAPause(t *testing.T) {
	t.Parallel()
	m, log := watching(func(n int, s seen) llmtest.Reply {
		switch {
		case s.schema != nil:
			return schemaRefused(n, s)
		case n == 1:
			return llmtest.Calls(llmtest.Call("send", `{}`))
		}
		return llmtest.Calls(llmtest.Call("final_result", `{"name":"Lyon"}`))
	})
	native := model.Fixed(model.Model{Name: "native", LLM: m, Output: model.NativeOutput})
	a := assistant.New[place]("geo", assistant.WithModels(native), assistant.WithTools(countingTool("send", new(atomic.Int64))),
		assistant.WithApproval(fixed(assistant.Decision{Verdict: assistant.VerdictPending}), "send"))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Lyon?"})
	if err != nil || res.Stop != assistant.StopPending {
		t.Fatalf("%+v, %v: want a pause", res, err)
	}
	paused := throughJSON(t, res.Paused)
	final, err := a.Resume(testContext(t), paused, map[string]assistant.Decision{paused.Calls[0].ID: assistant.Approved()})
	if err != nil || final.Output.Name != "Lyon" {
		t.Fatalf("resumed: %+v, %v", final, err)
	}
	got := log()
	if len(got) != 3 || got[0].schema == nil || got[1].schema != nil || got[2].schema != nil {
		t.Errorf("requests %+v: want the schema refused once, then the tool form before and after the pause", got)
	}
}
