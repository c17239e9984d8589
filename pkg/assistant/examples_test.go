package assistant_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

var osloExample = assistant.Example[city]{Input: "The capital of Norway?", Output: city{Name: "Oslo", Population: 700000}}

// TestExamplesAreEarlierTurnsInTheOutputModesShape: in tool mode an example is answered by a
// final_result call and its acceptance; in prompted mode, and for a string output, by the
// answer's text. They come after the system prompt and before the history, and are neither
// in the Result's messages nor in the chat.
func TestExamplesAreEarlierTurnsInTheOutputModesShape(t *testing.T) {
	t.Parallel()
	const oslo = `{"name":"Oslo","population":700000}`
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, m *llmtest.Scripted, store chat.Store) (*assistant.Response, error)
		want []llms.MessageContent
	}{
		{
			name: "tool mode",
			run: func(t *testing.T, m *llmtest.Scripted, store chat.Store) (*assistant.Response, error) {
				a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithStore(store), assistant.WithOutputMode(assistant.OutputTool),
					assistant.WithExamples(osloExample))
				return a.Call(chat.WithID(testContext(t), chat.ID{Chat: "c"}), assistant.Input{Prompt: "The capital of Italy?"})
			},
			want: []llms.MessageContent{
				llms.TextParts(llms.ChatMessageTypeHuman, "The capital of Norway?"),
				{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{ID: "example_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "final_result", Arguments: oslo}}}},
				{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "example_1", Name: "final_result", Content: "accepted: this is the final answer"}}},
			},
		},
		{
			name: "prompted mode",
			run: func(t *testing.T, m *llmtest.Scripted, store chat.Store) (*assistant.Response, error) {
				a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithStore(store), assistant.WithOutputMode(assistant.OutputPrompted),
					assistant.WithExamples(osloExample))
				return a.Call(chat.WithID(testContext(t), chat.ID{Chat: "c"}), assistant.Input{Prompt: "The capital of Italy?"})
			},
			want: []llms.MessageContent{
				llms.TextParts(llms.ChatMessageTypeHuman, "The capital of Norway?"),
				llms.TextParts(llms.ChatMessageTypeAI, oslo),
			},
		},
		{
			name: "string output",
			run: func(t *testing.T, m *llmtest.Scripted, store chat.Store) (*assistant.Response, error) {
				a := assistant.New[string]("geo", assistant.WithModel(m), assistant.WithStore(store),
					assistant.WithExamples(assistant.Example[string]{Input: "The capital of Norway?", Output: "Oslo."}))
				return a.Call(chat.WithID(testContext(t), chat.ID{Chat: "c"}), assistant.Input{Prompt: "The capital of Italy?"})
			},
			want: []llms.MessageContent{
				llms.TextParts(llms.ChatMessageTypeHuman, "The capital of Norway?"),
				llms.TextParts(llms.ChatMessageTypeAI, "Oslo."),
			},
		},
		{
			name: "a wrapped output in tool mode",
			run: func(t *testing.T, m *llmtest.Scripted, store chat.Store) (*assistant.Response, error) {
				a := assistant.New[[]string]("geo", assistant.WithModel(m), assistant.WithStore(store), assistant.WithOutputMode(assistant.OutputTool),
					assistant.WithExamples(assistant.Example[[]string]{Input: "Norway's cities?", Output: []string{"Oslo", "Bergen"}}))
				return a.Call(chat.WithID(testContext(t), chat.ID{Chat: "c"}), assistant.Input{Prompt: "The capital of Italy?"})
			},
			want: []llms.MessageContent{
				llms.TextParts(llms.ChatMessageTypeHuman, "Norway's cities?"),
				{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{ID: "example_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "final_result", Arguments: `{"output":["Oslo","Bergen"]}`}}}},
				{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "example_1", Name: "final_result", Content: "accepted: this is the final answer"}}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text(`{"name":"Rome","population":2800000}`)).Cycle()
			if strings.Contains(tc.name, "string") {
				m = llmtest.NewScripted(llmtest.Text("Rome.")).Cycle()
			}
			if strings.Contains(tc.name, "wrapped") {
				m = llmtest.NewScripted(llmtest.Text(`["Rome"]`)).Cycle()
			}
			store := chat.NewMemory()
			// Twice: the second run has the first in its history, after the examples.
			for range 2 {
				if _, err := tc.run(t, m, store); err != nil {
					t.Fatal(err)
				}
			}
			res, err := tc.run(t, m, store)
			if err != nil {
				t.Fatal(err)
			}
			msgs := m.Requests()[2].Messages
			if msgs[0].Role == llms.ChatMessageTypeSystem {
				msgs = msgs[1:]
			}
			if diff := cmp.Diff(tc.want, msgs[:len(tc.want)]); diff != "" {
				t.Errorf("the request's first messages (-want +got):\n%s", diff)
			}
			if got := textOf(msgs[len(tc.want)]); got != "The capital of Italy?" {
				t.Errorf("after the examples comes %q; want the chat's history, from its first turn", got)
			}
			if got := textOf(res.Messages[0]); got != "The capital of Italy?" || len(res.Messages) != 2 {
				t.Errorf("Response.Messages = %v; want the run's own turn and answer only", roles(res.Messages))
			}
			stored, _ := store.Load(testContext(t), chat.ID{Chat: "c"})
			for _, s := range stored {
				if strings.Contains(textOf(s), "Norway") {
					t.Errorf("the chat keeps an example: %v", s)
				}
			}
		})
	}
}

// A color whose schema allows two values, for an example that breaks it.
type paint struct {
	Color string `json:"color" jsonschema:"enum=red,enum=green"`
}

// TestExamplesAreCheckedWhenTheAssistantIsMade: an example that does not match the output
// type's schema, one without input, and one of another type make New panic, saying which.
func TestExamplesAreCheckedWhenTheAssistantIsMade(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted()
	for _, tc := range []struct {
		name string
		opt  assistant.Option
		want string
	}{
		{"off the schema", assistant.WithExamples(assistant.Example[paint]{Input: "Grass?", Output: paint{Color: "green"}}, assistant.Example[paint]{Input: "Sky?", Output: paint{Color: "blue"}}), "example 2: its output does not match"},
		{"no input", assistant.WithExamples(assistant.Example[paint]{Output: paint{Color: "red"}}), "example 1 has no input"},
		{"another type", assistant.WithExamples(assistant.Example[string]{Input: "Sky?", Output: "blue"}), "example 1 (assistant.Example[string]) is not an example of the assistant's output type, assistant_test.paint"},
	} {
		msg, panicked := panicText(func() { assistant.New[paint]("painter", assistant.WithModel(m), tc.opt) })
		if !panicked || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: panic %q; want one saying %q", tc.name, msg, tc.want)
		}
	}
}

// TestExamplesOnTheWire: the conversations examples make are accepted by the fake OpenAI and
// Anthropic APIs, which refuse what the real ones refuse.
func TestExamplesOnTheWire(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("final_result", `{"name":"Rome","population":2800000}`)))
			newServer := providertest.NewOpenAI
			if provider == "anthropic" {
				newServer = providertest.NewAnthropic
			}
			srv := newServer(m)
			defer srv.Close()
			base := srv.URL() + "/v1"
			f, err := llmfactory.Parse([]byte("providers:\n  p:\n    type: " + provider + "\n    api_key: test-key\n    base_url: " + base +
				"\nmodels:\n  m: { provider: p, model: test-model }\ndefault: m\n"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			a := assistant.New[city]("geo", assistant.WithModels(f), assistant.WithOutputMode(assistant.OutputTool),
				assistant.WithExamples(osloExample, assistant.Example[city]{Input: "The capital of Peru?", Output: city{Name: "Lima", Population: 10000000}}))
			res, err := a.Run(context.Background(), assistant.Input{Prompt: "The capital of Italy?"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Output.Name != "Rome" {
				t.Errorf("Output = %+v", res.Output)
			}
			if calls := toolCallsIn(m.Requests()[0].Messages); len(calls) != 2 || !strings.Contains(calls[1].FunctionCall.Arguments, "Lima") {
				t.Errorf("the API got the example calls %+v; want both examples' final_result calls", calls)
			}
		})
	}
}

// TestExamplesForOneRun: examples given in Input.Options are sent in that run only, after the
// assistant's own.
func TestExamplesForOneRun(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text(`{"name":"Rome","population":2800000}`)).Cycle()
	a := assistant.New[city]("geo", assistant.WithModel(m), assistant.WithOutputMode(assistant.OutputPrompted), assistant.WithExamples(osloExample))
	lima := assistant.Example[city]{Input: "The capital of Peru?", Output: city{Name: "Lima", Population: 10000000}}
	for _, opts := range [][]assistant.Option{{assistant.WithExamples(lima)}, nil} {
		if _, err := a.Run(testContext(t), assistant.Input{Prompt: "The capital of Italy?", Options: opts}); err != nil {
			t.Fatal(err)
		}
	}
	var humans [2][]string
	for i, req := range m.Requests() {
		for _, msg := range req.Messages {
			if msg.Role == llms.ChatMessageTypeHuman {
				humans[i] = append(humans[i], textOf(msg))
			}
		}
	}
	want := [2][]string{
		{"The capital of Norway?", "The capital of Peru?", "The capital of Italy?"},
		{"The capital of Norway?", "The capital of Italy?"},
	}
	if diff := cmp.Diff(want, humans); diff != "" {
		t.Errorf("the users' turns of the two runs (-want +got):\n%s", diff)
	}
}
