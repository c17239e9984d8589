package agui_test

import (
	"testing"

	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
)

// TestHandlerCustomEvents follows a run whose first model is down and whose second answers
// badly once: the events say which model was asked, why it fell back, why it was asked again,
// and what each request cost.
func TestHandlerCustomEvents(t *testing.T) {
	down := llmtest.NewScripted(llmtest.Fail(&model.ProviderError{Provider: "openai", Status: 503, Message: "overloaded"})).Cycle()
	spare := llmtest.NewScripted(
		llmtest.Reply{Text: `{"name":"Oslo"`, Usage: usage.Usage{InputTokens: 1000, OutputTokens: 10}},
		llmtest.Reply{Text: `{"name":"Oslo","population":700000}`, Usage: usage.Usage{InputTokens: 2000, OutputTokens: 20}},
	)
	chain := model.Fixed(model.Model{Name: "fast", Provider: "openai", LLM: down}, model.Model{Name: "spare", Provider: "anthropic", LLM: spare})
	a := assistant.New[city]("geo", assistant.WithModels(chain), assistant.WithOutputMode(assistant.OutputPrompted))
	h := agui.NewHandler(a, agui.WithPrices(map[string]model.Price{"spare": {Input: 1, Output: 10}}))
	es := events(t, post(t, h, hello))

	var got []string
	var cost float64
	for _, e := range es {
		c, ok := e.(agui.Custom)
		if !ok {
			continue
		}
		v := c.Value.(map[string]any)
		if v["runId"] == "" || v["assistant"] != "geo" {
			t.Errorf("%s without its run: %v", c.Name, v)
		}
		got = append(got, c.Name+" "+v["model"].(string))
		switch c.Name {
		case agui.CustomFallback:
			if v["kind"] != "model" || v["error"] == nil {
				t.Errorf("fallback %v", v)
			}
		case agui.CustomUsage:
			if x, ok := v["cost"].(float64); ok {
				cost += x
			}
		}
	}
	want := []string{
		"cadre.request fast", "cadre.usage fast",
		"cadre.fallback spare", "cadre.request spare", "cadre.usage spare",
		"cadre.correction fast", "cadre.request fast", "cadre.usage fast",
		"cadre.fallback spare", "cadre.correction spare", "cadre.request spare", "cadre.usage spare",
	}
	if len(got) != len(want) {
		t.Fatalf("custom events:\n%q\nwant:\n%q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("custom events:\n%q\nwant:\n%q", got, want)
		}
	}
	if want := (3000*1 + 30*10) / 1e6; cost < want*0.999 || cost > want*1.001 {
		t.Errorf("cost %g; want %g", cost, want)
	}
	f := finished(t, es)
	if len(f.Usage) != 1 || f.Usage[0].Model != "spare" || f.Usage[0].Provider != "anthropic" || f.Usage[0].InputTokens != 3000 {
		t.Errorf("RUN_FINISHED usage %+v", f.Usage)
	}
}
