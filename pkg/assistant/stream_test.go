package assistant_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/callback/callbacktest"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

func TestStreamNamesTheRunsOfATree(t *testing.T) {
	t.Parallel()
	spec := assistant.New[string]("spec", assistant.WithModel(llmtest.NewScripted(llmtest.Text("a fact"))))
	sup := assistant.New[string]("sup", assistant.WithTools(assistant.AsTool[string](spec)),
		assistant.WithModel(llmtest.NewScripted(
			llmtest.Reply{Text: "Asking.", ToolCalls: llmtest.Calls(llmtest.Call("spec", `{"input":"q"}`)).ToolCalls},
			llmtest.Text("The answer."))))
	var mu sync.Mutex
	var chunks []assistant.Chunk
	rec := callbacktest.NewRecorder()
	_, err := sup.Run(testContext(t), assistant.Input{Prompt: "go", Options: []assistant.Option{
		assistant.WithCallback(rec),
		assistant.WithStream(func(_ context.Context, c assistant.Chunk) error {
			mu.Lock()
			defer mu.Unlock()
			chunks = append(chunks, c)
			return nil
		}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]string{}
	for _, e := range rec.Of(callback.RunStart) {
		runs[e.Assistant] = e.RunID
	}
	want := []assistant.Chunk{
		{RunID: runs["sup"], Assistant: "sup", Model: "scripted", Text: "Asking."},
		{RunID: runs["spec"], ParentRunID: runs["sup"], Assistant: "spec", Model: "scripted", Text: "a fact"},
		{RunID: runs["sup"], Assistant: "sup", Model: "scripted", Text: "The answer."},
	}
	if len(chunks) != len(want) {
		t.Fatalf("chunks = %+v, want %+v", chunks, want)
	}
	for i := range want {
		if chunks[i] != want[i] {
			t.Errorf("chunk %d = %+v, want %+v", i, chunks[i], want[i])
		}
	}
}

// streamingModel streams its answer, and reports a failure of the stream function as a
// provider's unreadable answer, as a client behind the llm.yaml factory does.
type streamingModel struct{}

func (streamingModel) GenerateContent(ctx context.Context, _ []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.StreamingFunc != nil {
		if err := o.StreamingFunc(ctx, []byte("The ans")); err != nil {
			return nil, &model.ProviderError{Provider: "p", Model: "m", Status: 200, Message: "its answer could not be read: " + err.Error()}
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "The answer.", StopReason: "stop"}}}, nil
}

func (m streamingModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

func TestAStreamFunctionsErrorEndsTheRunWithoutFallingBack(t *testing.T) {
	t.Parallel()
	errStop := errors.New("the reader went away")
	second := llmtest.NewScripted(llmtest.Text("Another answer."))
	a := assistant.New[string]("a", assistant.WithModels(model.Fixed(model.Describe("first", streamingModel{}), model.Describe("second", second))),
		assistant.WithStream(func(context.Context, assistant.Chunk) error { return errStop }))
	_, err := a.Run(testContext(t), assistant.Input{Prompt: "go"})
	if !errors.Is(err, errStop) {
		t.Errorf("err = %v; want the stream function's error", err)
	}
	if n := len(second.Requests()); n != 0 {
		t.Errorf("the next model of the chain got %d requests; a stream function's error is not the model's and ends the run", n)
	}
}

// chunkedModel streams its answer in pieces (an empty one too, as clients sometimes send), after
// the tool-call deltas an OpenAI-shaped client streams as JSON, then answers with the text
// joined; fail makes it fail after streaming, as a connection cut mid-answer does.
type chunkedModel struct {
	pieces []string
	calls  bool // stream a tool-call delta first
	fail   error
}

func (c chunkedModel) GenerateContent(ctx context.Context, _ []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.StreamingFunc != nil {
		if c.calls {
			if err := o.StreamingFunc(ctx, []byte(`[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{}"}}]`)); err != nil {
				return nil, err
			}
		}
		for _, p := range c.pieces {
			if err := o.StreamingFunc(ctx, []byte(p)); err != nil {
				return nil, err
			}
		}
	}
	if c.fail != nil {
		return nil, c.fail
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: strings.Join(c.pieces, ""), StopReason: "stop"}}}, nil
}

func (c chunkedModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, c, prompt, opts...)
}

// TestStreamPassesTheModelsPiecesOn: the stream function gets each piece the model streams,
// as it comes — not the empty ones, and not the tool-call deltas of an OpenAI-shaped client.
func TestStreamPassesTheModelsPiecesOn(t *testing.T) {
	t.Parallel()
	m := model.Model{Name: "m", LLM: chunkedModel{pieces: []string{"The ", "", "answer."}, calls: true}, Shape: model.ShapeOpenAI}
	var got []string
	a := assistant.New[string]("a", assistant.WithModels(model.Fixed(m)),
		assistant.WithStream(func(_ context.Context, c assistant.Chunk) error {
			got = append(got, c.Text)
			return nil
		}))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"The ", "answer."}; !slices.Equal(got, want) || res.Output != "The answer." {
		t.Errorf("chunks %q, Output %q; want %q streamed as they came, and the answer", got, res.Output, want)
	}
}

// TestAStreamedRunFallsBack: a model that fails with an error the next one could fix hands over
// to it when the run streams too.
func TestAStreamedRunFallsBack(t *testing.T) {
	t.Parallel()
	overloaded := &model.ProviderError{Provider: "p", Model: "first", Status: 503, Message: "overloaded"}
	a := assistant.New[string]("a", assistant.WithModels(model.Fixed(
		model.Describe("first", chunkedModel{fail: overloaded}),
		model.Describe("second", chunkedModel{pieces: []string{"Hello."}}))),
		assistant.WithStream(func(context.Context, assistant.Chunk) error { return nil }))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "go"})
	if err != nil {
		t.Fatalf("err = %v; want the second model's answer", err)
	}
	if res.Model != "second" || res.Output != "Hello." {
		t.Errorf("Model %q, Output %q; want the second model's answer", res.Model, res.Output)
	}
}
