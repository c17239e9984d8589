package llmfactory_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
)

// The wire tests of reasoning_effort, thinking_budget and prompt_cache: what the factory's
// models send for them, checked against what langchaingo's client writes by itself.

// settingsModels are models with the settings, added to the servers' llm.yaml.
const settingsModels = `  effort:   { provider: oa, model: gpt-test, reasoning_effort: low }
  effortl:  { provider: local, model: qwen-test, reasoning_effort: high }
  think:    { provider: an, model: claude-haiku-4-5, max_tokens: 4096, thinking_budget: 2048 }
  cache:    { provider: an, model: claude-test, prompt_cache: true }
  both:     { provider: an, model: claude-haiku-4-5, max_tokens: 16000, thinking_budget: 8000, prompt_cache: true }
`

// cityTools are two tools, so that the last one can be told from the first.
var cityTools = []llms.Tool{
	{Type: "function", Function: &llms.FunctionDefinition{Name: "population", Description: "Population of a city.",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}},
	{Type: "function", Function: &llms.FunctionDefinition{Name: "area", Description: "Area of a city.",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}},
}

// cityChat is a conversation with a system prompt.
var cityChat = []llms.MessageContent{
	llms.TextParts(llms.ChatMessageTypeSystem, "You answer questions about cities."),
	llms.TextParts(llms.ChatMessageTypeHuman, "How many people live in Oslo?"),
}

// server returns the fake that a model of the servers' llm.yaml reaches.
func (s servers) server(provider string) *providertest.Server {
	switch provider {
	case "an":
		return s.anthropic
	case "local":
		return s.ollama
	}
	return s.openai
}

// bare returns langchaingo's own client of model id at the provider's server, made as the
// factory makes it but without the factory's transport.
func (s servers) bare(t *testing.T, provider, id string) llms.Model {
	t.Helper()
	var (
		llm llms.Model
		err error
	)
	url := s.server(provider).URL() + "/v1"
	switch provider {
	case "an":
		llm, err = anthropic.New(anthropic.WithToken(sentinelKey), anthropic.WithModel(id), anthropic.WithBaseURL(url))
	case "local":
		llm, err = openai.New(openai.WithToken("unused"), openai.WithModel(id), openai.WithBaseURL(url))
	default:
		llm, err = openai.New(openai.WithToken(sentinelKey), openai.WithModel(id), openai.WithBaseURL(url))
	}
	if err != nil {
		t.Fatal(err)
	}
	return llm
}

// streaming is a call option that streams the answer, dropping the chunks.
var streaming = llms.WithStreamingFunc(func(context.Context, []byte) error { return nil })

// named is a subtest's name: name, streamed or not.
func named(name string, streamed bool) string {
	if streamed {
		return name + ", streamed"
	}
	return name
}

// decode decodes a request body.
func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return m
}

func ephemeral() map[string]any { return map[string]any{"type": "ephemeral"} }

// TestSettingsOnTheWire sends the same request through a factory model with a setting and
// through langchaingo's client alone, streamed and not, and checks that the fake received
// the client's body with the setting's members written in, and nothing else changed.
func TestSettingsOnTheWire(t *testing.T) {
	t.Parallel()
	thinking := func(budget float64) map[string]any { return map[string]any{"type": "enabled", "budget_tokens": budget} }
	// cached marks the system prompt and the last tool.
	cached := func(b map[string]any) {
		b["system"] = []any{map[string]any{"type": "text", "text": "You answer questions about cities.", "cache_control": ephemeral()}}
		tools := b["tools"].([]any)
		tools[len(tools)-1].(map[string]any)["cache_control"] = ephemeral()
	}
	tests := []struct {
		name, model     string
		provider, id    string // of the model, for the bare client
		msgs            []llms.MessageContent
		opts            []llms.CallOption
		edit            func(b map[string]any) // makes the client's body the one expected
		thinkingAnswers bool
	}{{
		name: "reasoning_effort", model: "effort", provider: "oa", id: "gpt-test", msgs: cityChat,
		opts: []llms.CallOption{llms.WithTools(cityTools)},
		edit: func(b map[string]any) { b["reasoning_effort"] = "low" },
	}, {
		name: "reasoning_effort through ollama", model: "effortl", provider: "local", id: "qwen-test", msgs: cityChat,
		edit: func(b map[string]any) { b["reasoning_effort"] = "high" },
	}, {
		name: "thinking_budget", model: "think", provider: "an", id: "claude-haiku-4-5", msgs: cityChat,
		edit: func(b map[string]any) {
			b["thinking"] = thinking(2048)
			delete(b, "temperature")
		},
		thinkingAnswers: true,
	}, {
		name: "thinking_budget, with a temperature the run sets", model: "think", provider: "an", id: "claude-haiku-4-5", msgs: cityChat,
		opts: []llms.CallOption{llms.WithTemperature(0.7)},
		edit: func(b map[string]any) {
			b["thinking"] = thinking(2048)
			delete(b, "temperature")
		},
		thinkingAnswers: true,
	}, {
		name: "prompt_cache", model: "cache", provider: "an", id: "claude-test", msgs: cityChat,
		opts: []llms.CallOption{llms.WithTools(cityTools)},
		edit: cached,
	}, {
		name: "prompt_cache, with nothing to mark", model: "cache", provider: "an", id: "claude-test", msgs: cityChat[1:],
		edit: func(map[string]any) {},
	}, {
		name: "thinking_budget and prompt_cache", model: "both", provider: "an", id: "claude-haiku-4-5", msgs: cityChat,
		opts: []llms.CallOption{llms.WithTools(cityTools)},
		edit: func(b map[string]any) {
			cached(b)
			b["thinking"] = thinking(8000)
			delete(b, "temperature")
		},
		thinkingAnswers: true,
	}}
	for _, tc := range tests {
		for _, streamed := range []bool{false, true} {
			t.Run(named(tc.name, streamed), func(t *testing.T) {
				t.Parallel()
				answer := llmtest.NewScripted(llmtest.Text("About 709,000.")).Cycle()
				s := start(t, answer, answer, answer)
				f := s.parse(t, nil, "", settingsModels, "")
				m, err := f.Model(ctx(t), tc.model)
				if err != nil {
					t.Fatal(err)
				}
				opts := append(m.Options[:len(m.Options):len(m.Options)], tc.opts...)
				if streamed {
					opts = append(opts, streaming)
				}
				resp, err := m.LLM.GenerateContent(ctx(t), tc.msgs, opts...)
				if err != nil {
					t.Fatalf("the fake refused the factory's request: %v", err)
				}
				if _, err := s.bare(t, tc.provider, tc.id).GenerateContent(ctx(t), tc.msgs, opts...); err != nil {
					t.Fatalf("the fake refused the client's own request: %v", err)
				}
				bodies := s.server(tc.provider).Bodies()
				if len(bodies) != 2 {
					t.Fatalf("the fake got %d requests, want 2", len(bodies))
				}
				got, want := decode(t, bodies[0]), decode(t, bodies[1])
				tc.edit(want)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("the factory's request (-want +got):\n%s\nsent: %s", diff, bodies[0])
				}
				if streamed != (got["stream"] == true) {
					t.Errorf("stream = %v; want %v", got["stream"], streamed)
				}
				reply, err := model.Read(resp)
				if err != nil {
					t.Fatal(err)
				}
				if reply.Text != "About 709,000." {
					t.Errorf("Text = %q; want the answer, without the thinking", reply.Text)
				}
				if thought := len(resp.Choices) > 1 && resp.Choices[0].GenerationInfo["ThinkingContent"] != ""; thought != tc.thinkingAnswers {
					t.Errorf("the answer has a thinking block: %v; want %v (choices %d)", thought, tc.thinkingAnswers, len(resp.Choices))
				}
			})
		}
	}
}

// TestRequestsWithoutSettingsAreSentAsWritten checks that the requests of a model without
// the settings reach the provider byte for byte as langchaingo's client wrote them.
func TestRequestsWithoutSettingsAreSentAsWritten(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ model, provider, id string }{
		{"fast", "oa", "gpt-test"},
		{"deep", "an", "claude-test"},
		{"small", "local", "qwen-test"},
	} {
		for _, streamed := range []bool{false, true} {
			t.Run(named(tc.model, streamed), func(t *testing.T) {
				t.Parallel()
				answer := llmtest.NewScripted(llmtest.Text("ok")).Cycle()
				s := start(t, answer, answer, answer)
				m, err := s.factory(t, nil, "").Model(ctx(t), tc.model)
				if err != nil {
					t.Fatal(err)
				}
				opts := append(m.Options[:len(m.Options):len(m.Options)], llms.WithTools(cityTools))
				if streamed {
					opts = append(opts, streaming)
				}
				if _, err := m.LLM.GenerateContent(ctx(t), cityChat, opts...); err != nil {
					t.Fatal(err)
				}
				if _, err := s.bare(t, tc.provider, tc.id).GenerateContent(ctx(t), cityChat, opts...); err != nil {
					t.Fatal(err)
				}
				bodies := s.server(tc.provider).Bodies()
				if len(bodies) != 2 || string(bodies[0]) != string(bodies[1]) {
					t.Errorf("streamed %v: the factory sent\n%s\nthe client alone\n%s", streamed, bodies[0], bodies[len(bodies)-1])
				}
			})
		}
	}
}

// TestUsageOfTheSettings checks that cached tokens (read, and written for Anthropic) and
// reasoning tokens reach model.Reply.Usage through the factory's models, streamed and not.
func TestUsageOfTheSettings(t *testing.T) {
	t.Parallel()
	anthropicAnswer := &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content:          "About 709,000.",
		ReasoningContent: "Oslo's population, from the last census.",
		GenerationInfo: map[string]any{"InputTokens": 50, "OutputTokens": 120,
			"CacheReadInputTokens": 1000, "CacheCreationInputTokens": 300},
	}}}
	for _, tc := range []struct {
		name, model string
		reply       llmtest.Reply
		want        usage.Usage
	}{{
		name: "openai", model: "effort",
		reply: llmtest.Reply{Text: "About 709,000.", Usage: usage.Usage{InputTokens: 1000, OutputTokens: 300, CacheReadTokens: 800, ReasoningTokens: 200}},
		want:  usage.Usage{Requests: 1, InputTokens: 1000, OutputTokens: 300, CacheReadTokens: 800, ReasoningTokens: 200},
	}, {
		// Anthropic reports no reasoning tokens: the thinking is inside output_tokens.
		name: "anthropic", model: "both",
		reply: llmtest.Reply{Response: anthropicAnswer},
		want:  usage.Usage{Requests: 1, InputTokens: 1350, OutputTokens: 120, CacheReadTokens: 1000, CacheWriteTokens: 300},
	}} {
		for _, streamed := range []bool{false, true} {
			t.Run(named(tc.name, streamed), func(t *testing.T) {
				t.Parallel()
				answer := llmtest.NewScripted(tc.reply)
				s := start(t, answer, answer, llmtest.NewScripted())
				m, err := s.parse(t, nil, "", settingsModels, "").Model(ctx(t), tc.model)
				if err != nil {
					t.Fatal(err)
				}
				opts := m.Options[:len(m.Options):len(m.Options)]
				if streamed {
					opts = append(opts, streaming)
				}
				resp, err := m.LLM.GenerateContent(ctx(t), cityChat, opts...)
				if err != nil {
					t.Fatal(err)
				}
				reply, err := model.Read(resp)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, reply.Usage); diff != "" {
					t.Errorf("streamed %v: usage (-want +got):\n%s", streamed, diff)
				}
				if reply.Text != "About 709,000." {
					t.Errorf("Text = %q", reply.Text)
				}
			})
		}
	}
}

// TestRetrySendsTheEditedBodyAgain checks that a request retried after a 5xx is the edited
// body once more, byte for byte.
func TestRetrySendsTheEditedBodyAgain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ model, provider, member string }{
		{"effort", "oa", `"reasoning_effort":"low"`},
		{"both", "an", `"thinking":{"type":"enabled","budget_tokens":8000}`},
	} {
		t.Run(tc.model, func(t *testing.T) {
			t.Parallel()
			answer := llmtest.NewScripted(llmtest.Text("ok"))
			s := start(t, answer, answer, llmtest.NewScripted())
			s.server(tc.provider).Fault(providertest.Fault{Status: 500, Message: "overloaded"})
			m, err := s.parse(t, nil, "", settingsModels, "").Model(ctx(t), tc.model)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.LLM.GenerateContent(ctx(t), cityChat, append(m.Options, llms.WithTools(cityTools))...); err != nil {
				t.Fatal(err)
			}
			bodies := s.server(tc.provider).Bodies()
			if len(bodies) != 2 || string(bodies[0]) != string(bodies[1]) || !strings.Contains(string(bodies[1]), tc.member) {
				t.Errorf("the fake got %d bodies; want the edited one twice, with %s:\n%s", len(bodies), tc.member, bodies)
			}
		})
	}
}

// An assistant's run with tools on a model with thinking and caching: each request carries
// the settings, and the fake takes the tool results back.
func TestAssistantRunWithThinkingAndCaching(t *testing.T) {
	t.Parallel()
	an := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("lookup", `{"city":"Oslo"}`)),
		llmtest.Text(`{"city":"Oslo","total":4000}`),
	)
	s := start(t, llmtest.NewScripted(), an, llmtest.NewScripted())
	f := s.parse(t, nil, "", settingsModels, "assistants:\n  counter: both\n")
	a := assistant.New[answer]("counter", assistant.WithModels(f), assistant.WithTools(lookup()),
		assistant.WithStream(func(context.Context, assistant.Chunk) error { return nil }))
	res, err := a.Run(ctx(t), assistant.Input{Prompt: "Population of Oslo?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != (answer{City: "Oslo", Total: 4000}) {
		t.Errorf("Output = %+v", res.Output)
	}
	for i, body := range s.anthropic.Bodies() {
		b := decode(t, body)
		tools, _ := b["tools"].([]any)
		if b["thinking"] == nil || len(tools) == 0 || tools[len(tools)-1].(map[string]any)["cache_control"] == nil {
			t.Errorf("request %d lacks thinking or the tools' breakpoint: %s", i, body)
		}
	}
}
