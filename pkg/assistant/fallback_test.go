package assistant_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/callback/callbacktest"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
)

func TestFallbackToTheNextModelOfTheChain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		err      error
		fallback bool
	}{
		{"a 5xx falls back", &model.ProviderError{Provider: "openai", Model: "deep", Status: 503, Message: "overloaded"}, true},
		{"a 429 after retries falls back", &model.ProviderError{Provider: "openai", Model: "deep", Status: 429, Message: "slow down"}, true},
		{"no answer falls back", &model.ProviderError{Provider: "openai", Model: "deep", Message: "connection refused"}, true},
		{"a 400 does not", &model.ProviderError{Provider: "openai", Model: "deep", Status: 400, Message: "bad request"}, false},
		{"a plain error does not", errors.New("configuration"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			first := llmtest.NewScripted(llmtest.Fail(tc.err))
			second := llmtest.NewScripted(llmtest.Text(`{"name":"Oslo","population":700000}`))
			rec := callbacktest.NewRecorder()
			a := assistant.New[city]("geo", assistant.WithCallback(rec), assistant.WithModels(model.Fixed(
				model.Describe("deep", first), model.Describe("fast", second))))
			res, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"})
			if !tc.fallback {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want the first model's error", err)
				}
				if n := len(second.Requests()); n != 0 {
					t.Errorf("the second model got %d requests, want none", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Model != "fast" || res.Output.Name != "Oslo" {
				t.Errorf("Model = %q, Output = %+v; want the answer of fast", res.Model, res.Output)
			}
			if got := res.Usage.Total.Requests; got != 1 {
				t.Errorf("Usage.Total.Requests = %d, want 1: one request, answered by the fallback", got)
			}
			fb := rec.Of(callback.ModelFallback)
			if len(fb) != 1 || fb[0].Model != "deep" || !errors.Is(fb[0].Err, tc.err) {
				t.Errorf("fallback events = %+v, want one naming deep and its error", fb)
			}
		})
	}
}

// TestTheLastModelsErrorNamesTheAssistantAndTheModel: when the chain's last model fails, with an
// error another model could have fixed, the run's error says which assistant and which model.
func TestTheLastModelsErrorNamesTheAssistantAndTheModel(t *testing.T) {
	t.Parallel()
	overloaded := &model.ProviderError{Provider: "openai", Model: "fast", Status: 503, Message: "overloaded"}
	a := assistant.New[city]("geo", assistant.WithModels(model.Fixed(
		model.Describe("deep", llmtest.NewScripted(llmtest.Fail(overloaded))),
		model.Describe("fast", llmtest.NewScripted(llmtest.Fail(overloaded))))))
	_, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"})
	if !errors.Is(err, overloaded) || !strings.HasPrefix(err.Error(), `assistant "geo": model "fast": `) {
		t.Errorf("err = %v; want the last model's error, naming the assistant and the model", err)
	}
}
