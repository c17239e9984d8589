package agui_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
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

// streaming is a model that writes text in the given pieces through the request's streaming
// function, then answers with all of it.
func streaming(pieces ...string) *llmtest.FuncModel {
	return llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		all := ""
		for _, p := range pieces {
			if req.Options.StreamingFunc != nil {
				if err := req.Options.StreamingFunc(ctx, []byte(p)); err != nil {
					return llmtest.Fail(err)
				}
			}
			all += p
		}
		return llmtest.Text(all)
	})
}

func TestHandlerStreamsTextAsOneMessage(t *testing.T) {
	spec := assistant.New[string]("poet", assistant.WithModel(streaming("Roses ", "are ", "red.")))
	boss := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("poet", `{"input":"a poem"}`)),
		llmtest.Text("Here it is."),
	)
	a := assistant.New[string]("editor", assistant.WithModel(boss), assistant.WithTools(assistant.AsTool[string](spec)))
	es := protocol(events(t, post(t, agui.NewHandler(a), hello)))
	want := "RUN_STARTED TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END SUBAGENT_STARTED " +
		"TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_CONTENT TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END " +
		"SUBAGENT_FINISHED TOOL_CALL_RESULT TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"
	if got := types(es); got != want {
		t.Fatalf("events: %s\nwant:   %s", got, want)
	}
	sub := es[4].(agui.SubagentStarted).SubagentRunID
	var poem string
	for _, e := range es[5:10] {
		switch e := e.(type) {
		case agui.TextMessageStart:
			if e.SubagentRunID != sub {
				t.Errorf("the poet's message is not attributed to it: %+v", e)
			}
		case agui.TextMessageContent:
			poem += e.Delta
			if e.SubagentRunID != sub {
				t.Errorf("content %+v", e)
			}
		}
	}
	if poem != "Roses are red." {
		t.Errorf("streamed %q", poem)
	}
	if r := es[11].(agui.ToolCallResult); r.Content.Text != "Roses are red." || r.SubagentRunID != "" {
		t.Errorf("the delegating call's result %+v", r)
	}
}

func TestHandlerGivesTheRunItsInput(t *testing.T) {
	type none struct{}
	var state, ambient string
	look := tool.Func("look", "Reads the page's state.", func(ctx context.Context, _ none) (string, error) {
		in, ok := agui.InputFrom(ctx)
		if !ok {
			return "", errors.New("no input")
		}
		state = string(in.State)
		return "ok", nil
	})
	vars := func(ctx context.Context, _ assistant.Input) (map[string]any, error) {
		in, _ := agui.InputFrom(ctx)
		for _, c := range in.Context {
			ambient += c.Description + "=" + c.Value
		}
		return map[string]any{"unit": in.Context[0].Value}, nil
	}
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("look", `{}`)), llmtest.Text("seen"))
	a := assistant.New[string]("reader", assistant.WithModel(m), assistant.WithTools(look), assistant.WithVarsFunc(vars), assistant.WithInstructions("Help, in {{.unit}} units."))
	finished(t, protocol(events(t, post(t, agui.NewHandler(a),
		body("t1", "r1", `"state":{"page":"cart"},"context":[{"description":"unit","value":"metric"}]`, user("u1", "hi"))))))
	if state != `{"page":"cart"}` || ambient != "unit=metric" {
		t.Errorf("the tool read state %q, the vars function context %q", state, ambient)
	}
}
