package llmfactory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// The round trip of Anthropic's thinking blocks in a tool loop, against the fake, which, as
// the API does, refuses a loop's next request whose turn does not start with its thinking
// block, unchanged.

// thinkingLoop is a turn of two parallel calls, then the answer.
func thinkingLoop() *llmtest.Scripted {
	return llmtest.NewScripted(
		llmtest.Reply{Text: "Both, then.", ToolCalls: []llms.ToolCall{
			llmtest.Call("lookup", `{"city":"Oslo"}`), llmtest.Call("lookup", `{"city":"Rome"}`),
		}, Usage: usage.Usage{InputTokens: 120, OutputTokens: 30}},
		llmtest.Reply{Text: `{"city":"Oslo","total":4000}`, Usage: usage.Usage{InputTokens: 200, OutputTokens: 12}},
	)
}

// blocks returns the content blocks of message i of a request body.
func blocks(t *testing.T, body []byte, i int) []map[string]any {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if i >= len(req.Messages) {
		t.Fatalf("no message %d in %s", i, body)
	}
	return req.Messages[i].Content
}

func TestThinkingToolLoopOnTheWire(t *testing.T) {
	t.Parallel()
	for _, streamed := range []bool{false, true} {
		t.Run(named("a turn of two calls", streamed), func(t *testing.T) {
			t.Parallel()
			s := start(t, llmtest.NewScripted(), thinkingLoop(), llmtest.NewScripted())
			f := s.parse(t, nil, "", settingsModels, "assistants:\n  counter: think\n")
			opts := []assistant.Option{assistant.WithModels(f), assistant.WithTools(lookup())}
			if streamed {
				opts = append(opts, assistant.WithStream(func(context.Context, assistant.Chunk) error { return nil }))
			}
			res, err := assistant.New[answer]("counter", opts...).Run(ctx(t), assistant.Input{Prompt: "Population of Oslo?"})
			if err != nil {
				t.Fatal(err) // the fake refused the loop's second request
			}
			if res.Output.Total != 4000 {
				t.Errorf("Output = %+v", res.Output)
			}
			// A thinking answer's usage is counted as any answer's.
			if u := res.Usage.Total; u.InputTokens != 320 || u.OutputTokens != 42 {
				t.Errorf("usage: %d input tokens, %d output; want 320 and 42, the two answers'", u.InputTokens, u.OutputTokens)
			}
			// The answer's thinking block, as the model keeps it: sealed, from anthropic.
			turn := res.Messages[1]
			r, ok := turn.Parts[0].(model.Reasoning)
			if !ok || r.Provider != "anthropic" || r.Signature == "" || r.Text == "" {
				t.Fatalf("the turn starts with %#v, want the thinking block with its signature", turn.Parts[0])
			}
			// The second request: one assistant message, the thinking block first and as it
			// came, both calls; then one user message with both results.
			bodies := s.anthropic.Bodies()
			if len(bodies) != 2 {
				t.Fatalf("%d requests, want 2", len(bodies))
			}
			sent := blocks(t, bodies[1], 1)
			var types []string
			for _, b := range sent {
				types = append(types, b["type"].(string))
			}
			if got := strings.Join(types, " "); got != "thinking text tool_use tool_use" {
				t.Errorf("the turn went back as %q, want thinking text tool_use tool_use", got)
			}
			if sent[0]["thinking"] != r.Text || sent[0]["signature"] != r.Signature {
				t.Errorf("the thinking block went back as %v, want %q sealed %q", sent[0], r.Text, r.Signature)
			}
			if results := blocks(t, bodies[1], 2); len(results) != 2 || results[0]["type"] != "tool_result" {
				t.Errorf("the results went as %v, want one message with both", results)
			}
			if !strings.Contains(string(bodies[1]), `"thinking":{"type":"enabled","budget_tokens":2048}`) {
				t.Errorf("the second request does not think: %s", bodies[1])
			}
		})
	}
}

// A thinking answer's choice carries its thinking blocks for model.Read beside what
// langchaingo's client wrote of it: a program that calls the model itself still finds the
// client's usage and thinking keys.
func TestThinkingAnswerKeepsTheClientsInfo(t *testing.T) {
	t.Parallel()
	s := start(t, llmtest.NewScripted(), llmtest.NewScripted(llmtest.Reply{Text: "4000", Usage: usage.Usage{InputTokens: 50, OutputTokens: 9}}), llmtest.NewScripted())
	m, err := s.parse(t, nil, "", settingsModels, "").Model(ctx(t), "think")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.LLM.GenerateContent(ctx(t), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Population of Oslo?")}, m.Options...)
	if err != nil {
		t.Fatal(err)
	}
	info := resp.Choices[0].GenerationInfo
	if rs, _ := info[model.ReasoningInfo].([]model.Reasoning); len(rs) != 1 || rs[0].Signature == "" {
		t.Errorf("%s = %#v, want the answer's thinking block, sealed", model.ReasoningInfo, info[model.ReasoningInfo])
	}
	if info["InputTokens"] != 50 || info["ThinkingSignature"] == "" {
		t.Errorf("the client's info: InputTokens %v, ThinkingSignature %q; want 50 and the block's seal", info["InputTokens"], info["ThinkingSignature"])
	}
}

// A loop whose turn starts with a redacted thinking block (Anthropic encrypts a block its safety
// systems flag) continues that turn's thinking as a thinking block does: the next request
// thinks, and sends the redacted block back first, its data unchanged — without thinking, the
// API would refuse a loop turn that starts with a thinking block no more than one without.
func TestThinkingLoopWhoseTurnStartsRedacted(t *testing.T) {
	t.Parallel()
	s := start(t, llmtest.NewScripted(), llmtest.NewScripted(llmtest.Text(`{"city":"Oslo","total":4000}`)), llmtest.NewScripted())
	m, err := s.parse(t, nil, "", settingsModels, "").Model(ctx(t), "think")
	if err != nil {
		t.Fatal(err)
	}
	const data = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Population of Oslo?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			model.Reasoning{Provider: "anthropic", Redacted: data},
			llms.TextContent{Text: "Looking it up."},
			llms.ToolCall{ID: "toolu_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "population", Arguments: `{"city":"Oslo"}`}},
		}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "toolu_1", Name: "population", Content: "4000"}}},
	}
	if _, err := m.Generate(ctx(t), msgs, llms.WithTools(cityTools)); err != nil {
		t.Fatal(err) // the fake refused the request
	}
	bodies := s.anthropic.Bodies()
	if len(bodies) != 1 {
		t.Fatalf("%d requests, want 1", len(bodies))
	}
	if !strings.Contains(string(bodies[0]), `"thinking":{"type":"enabled","budget_tokens":2048}`) {
		t.Errorf("the loop's next request does not think: %s", bodies[0])
	}
	sent := blocks(t, bodies[0], 1)
	var types []string
	for _, b := range sent {
		types = append(types, b["type"].(string))
	}
	if got := strings.Join(types, " "); got != "redacted_thinking text tool_use" {
		t.Errorf("the turn went back as %q, want redacted_thinking text tool_use", got)
	}
	if sent[0]["data"] != data {
		t.Errorf("the redacted block went back as %v, want its data unchanged", sent[0])
	}
}

// Without the round trip — langchaingo's client alone, which drops thinking blocks from the
// messages it sends — the fake refuses the loop's next request, as the API does.
func TestThinkingLoopWithoutItsBlockIsRefused(t *testing.T) {
	t.Parallel()
	s := start(t, llmtest.NewScripted(), llmtest.NewScripted(llmtest.Text("ok")), llmtest.NewScripted())
	llm := s.bare(t, "an", "claude-sonnet-4-5")
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Population of Oslo?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			model.Reasoning{TextContent: llms.TextContent{Text: "look it up"}, Provider: "anthropic", Signature: "c2ln"},
			llms.ToolCall{ID: "toolu_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"city":"Oslo"}`}},
		}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "toolu_1", Name: "lookup", Content: "4000"}}},
	}
	_, err := llm.GenerateContent(ctx(t), model.ShapeSafe.Wire(msgs), llms.WithMaxTokens(4096), llms.WithTemperature(1),
		llms.WithThinking(&llms.ThinkingConfig{BudgetTokens: 2048}), llms.WithTools(cityTools))
	if err == nil || !strings.Contains(err.Error(), "must start with a thinking block") {
		t.Errorf("err = %v, want the API's refusal of a loop without its thinking block", err)
	}
}

// A run paused for an approval in its thinking turn, its state through JSON, resumes: the
// loop's next request has the thinking block from the paused state.
func TestThinkingRunResumed(t *testing.T) {
	t.Parallel()
	s := start(t, llmtest.NewScripted(), thinkingLoop(), llmtest.NewScripted())
	f := s.parse(t, nil, "", settingsModels, "assistants:\n  counter: think\n")
	pending := assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) {
		return assistant.Pending(), nil
	})
	a := assistant.New[answer]("counter", assistant.WithModels(f), assistant.WithTools(lookup()), assistant.WithApproval(pending))
	res, err := a.Run(ctx(t), assistant.Input{Prompt: "Population of Oslo?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != assistant.StopPending {
		t.Fatalf("Stop = %q, want pending", res.Stop)
	}
	data, err := json.Marshal(res.Paused)
	if err != nil {
		t.Fatal(err)
	}
	var paused assistant.Paused
	if err := json.Unmarshal(data, &paused); err != nil {
		t.Fatal(err)
	}
	decisions := map[string]assistant.Decision{}
	for _, c := range paused.Waiting() {
		decisions[c.ID] = assistant.Approved()
	}
	res, err = a.Resume(ctx(t), &paused, decisions)
	if err != nil {
		t.Fatal(err) // the fake refused the resumed request
	}
	if res.Output.Total != 4000 {
		t.Errorf("Output = %+v", res.Output)
	}
	bodies := s.anthropic.Bodies()
	if sent := blocks(t, bodies[len(bodies)-1], 1); sent[0]["type"] != "thinking" {
		t.Errorf("the resumed request's turn starts with %v, want its thinking block", sent[0])
	}
}

// A loop whose turn another provider answered (a fallback chain) has no thinking block to
// send: that request goes to the thinking model without thinking, which the API takes.
func TestThinkingAfterAFallback(t *testing.T) {
	t.Parallel()
	oa := llmtest.NewScripted(llmtest.Calls(llmtest.Call("lookup", `{"city":"Oslo"}`)))
	s := start(t, oa, llmtest.NewScripted(llmtest.Text(`{"city":"Oslo","total":4000}`)), llmtest.NewScripted())
	f := s.parse(t, nil, "", settingsModels, "assistants:\n  counter: [fast, think]\n")
	// The tool breaks the openai fake for the loop's next request: it falls back.
	breaking := tool.Func("lookup", "Population of a city.", func(_ context.Context, in lookupArgs) (int, error) {
		s.openai.Fault(providertest.Fault{Status: 500}, providertest.Fault{Status: 500}, providertest.Fault{Status: 500})
		return len(in.City) * 1000, nil
	})
	res, err := assistant.New[answer]("counter", assistant.WithModels(f), assistant.WithTools(breaking)).
		Run(ctx(t), assistant.Input{Prompt: "Population of Oslo?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != "think" || res.Output.Total != 4000 {
		t.Errorf("answered by %q with %+v, want think with the total", res.Model, res.Output)
	}
	bodies := s.anthropic.Bodies()
	if len(bodies) != 1 || strings.Contains(string(bodies[0]), `"thinking"`) {
		t.Errorf("the fallback's request = %s, want one without thinking", bodies)
	}
}

// noChoices is a client of a type of the program's own that speaks Anthropic's API, and
// answers with no choice whatever the API answers.
type noChoices struct {
	p  llmfactory.Provider
	id string
}

func (c *noChoices) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	body := `{"model":"` + c.id + `","max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.p.BaseURL+"/messages", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("x-api-key", c.p.APIKey.Reveal())
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Set("content-type", "application/json")
	resp, err := c.p.HTTPClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	return &llms.ContentResponse{}, nil
}

func (c *noChoices) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, c, prompt, opts...)
}

// A client of the program's own that thinks and answers without a choice gets its answer
// back as it gave it: the thinking blocks the transport read have no choice to go to.
func TestThinkingAnswerWithoutAChoice(t *testing.T) {
	t.Parallel()
	s := start(t, llmtest.NewScripted(), llmtest.NewScripted(llmtest.Text("4000")), llmtest.NewScripted())
	own := llmfactory.ProviderType{API: llmfactory.AnthropicAPI, New: func(p llmfactory.Provider, id string) (llms.Model, error) {
		return &noChoices{p: p, id: id}, nil
	}}
	doc := "providers:\n  mine: { type: mine, api_key: " + sentinelKey + ", base_url: '" + s.anthropic.URL() + "/v1' }\n" +
		"models:\n  think: { provider: mine, model: claude-haiku-4-5, max_tokens: 4096, thinking_budget: 2048 }\n"
	f, err := llmfactory.Parse([]byte(doc), llmfactory.WithProviderType("mine", own))
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.Model(ctx(t), "think")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.LLM.GenerateContent(ctx(t), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")}, m.Options...)
	if err != nil || len(resp.Choices) != 0 {
		t.Fatalf("GenerateContent = %v, %v; want the client's answer, without a choice", resp, err)
	}
	if !strings.Contains(string(s.anthropic.Bodies()[0]), `"thinking":{"type":"enabled","budget_tokens":2048}`) {
		t.Errorf("the request does not think: %s", s.anthropic.Bodies()[0])
	}
}
