package middlewaretest

import (
	"context"
	"errors"
	"fmt"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// A scenario is one of the kit's runs: the assistant that makes it, with the middleware given,
// and how it ends without a middleware.
type scenario struct {
	name  string
	build func(mw assistant.Middleware) *assistant.Assistant[string]
	// answer is the run's answer; "" when the run fails.
	answer string
	// failTurn: next of the run's tool turn fails (errTurn); the run is made only for a
	// middleware that wraps turns, and fails when the middleware calls next.
	failTurn bool
}

// The scenarios' models answer from a script; every tool call has an ID of its own and every
// result a text of its own, so that a result out of its place shows.
var scenarios = []scenario{
	{
		name:   "answer",
		answer: "kit: the answer",
		build: func(mw assistant.Middleware) *assistant.Assistant[string] {
			return kit("kit", &mw, scripted("kit-model", llmtest.Text("kit: the answer")))
		},
	},
	{
		name:   "tools",
		answer: "kit: the tools answered",
		build: func(mw assistant.Middleware) *assistant.Assistant[string] {
			return kit("kit", &mw, scripted("kit-model",
				llmtest.Calls(call("t1", "echo", "one"), call("t2", "echo", "two"), call("t3", "echo", "three"), call("t4", "echo", "four")),
				llmtest.Text("kit: the tools answered")), tools(echo))
		},
	},
	{
		name:   "tool error",
		answer: "kit: one tool failed",
		build: func(mw assistant.Middleware) *assistant.Assistant[string] {
			return kit("kit", &mw, scripted("kit-model",
				llmtest.Calls(call("e1", "echo", "before"), call("e2", "fail", "broken"), call("e3", "echo", "after")),
				llmtest.Text("kit: one tool failed")), tools(echo, fail))
		},
	},
	{
		name:   "delegation",
		answer: "kit: the team answered",
		build: func(mw assistant.Middleware) *assistant.Assistant[string] {
			specialist := kit("specialist", nil, scripted("kit-specialist-model",
				llmtest.Calls(call("s1", "echo", "inside")),
				llmtest.Text("kit: the specialist's answer")), tools(echo))
			delegate := llms.ToolCall{ID: "d2", Type: "function", FunctionCall: &llms.FunctionCall{Name: "specialist", Arguments: `{"input":"the question"}`}}
			return kit("kit", &mw, scripted("kit-model",
				llmtest.Calls(call("d1", "echo", "before"), delegate, call("d3", "echo", "after")),
				llmtest.Text("kit: the team answered")), tools(echo, assistant.AsTool[string](specialist)))
		},
	},
	{
		name:   "fallback",
		answer: "kit: the second model answered",
		build: func(mw assistant.Middleware) *assistant.Assistant[string] {
			return kit("kit", &mw, append(scripted("kit-down", llmtest.Fail(down("kit-down", 503))),
				scripted("kit-up", llmtest.Text("kit: the second model answered"))...))
		},
	},
	{
		name:   "correction",
		answer: "kit: the corrected answer",
		build: func(mw assistant.Middleware) *assistant.Assistant[string] {
			return kit("kit", &mw, scripted("kit-model", llmtest.Text("kit: a draft"), llmtest.Text("kit: the corrected answer")),
				assistant.WithValidator(func(_ context.Context, answer string) error {
					if answer == "kit: a draft" {
						return errors.New("middlewaretest: a draft is not an answer")
					}
					return nil
				}))
		},
	},
	{
		name: "failing model",
		build: func(mw assistant.Middleware) *assistant.Assistant[string] {
			return kit("kit", &mw, scripted("kit-down", llmtest.Fail(down("kit-down", 500))))
		},
	},
	{
		name:     "failing tool turn",
		answer:   "kit: the turn ran",
		failTurn: true,
		build: func(mw assistant.Middleware) *assistant.Assistant[string] {
			return kit("kit", &mw, scripted("kit-model",
				llmtest.Calls(call("f1", "echo", "first"), call("f2", "echo", "second")),
				llmtest.Text("kit: the turn ran")), tools(echo))
		},
	},
}

// kit returns an assistant of the kit, with mw when it is not nil.
func kit(name string, mw *assistant.Middleware, chain []model.Model, more ...assistant.Option) *assistant.Assistant[string] {
	opts := append([]assistant.Option{assistant.WithModels(model.Fixed(chain...))}, more...)
	if mw != nil {
		opts = append(opts, assistant.WithMiddleware(*mw))
	}
	return assistant.New[string](name, opts...)
}

func tools(t ...tool.Tool) assistant.Option { return assistant.WithTools(t...) }

// scripted is a model of the chain, with a script of its own: each run gets new ones.
func scripted(name string, replies ...llmtest.Reply) []model.Model {
	return []model.Model{model.Describe(name, llmtest.NewScripted(replies...))}
}

// down is a provider's failure, of a kind another model could answer.
func down(name string, status int) error {
	return &model.ProviderError{Provider: "middlewaretest", Model: name, Status: status, Message: "the kit's model is down"}
}

func call(id, tool, say string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: tool, Arguments: fmt.Sprintf(`{"say":%q}`, say)}}
}

type sayArgs struct {
	Say string `json:"say"`
}

var (
	echo = tool.Func("echo", "Says the words back.", func(_ context.Context, in sayArgs) (string, error) {
		return "echo: " + in.Say, nil
	})
	fail = tool.Func("fail", "Fails.", func(_ context.Context, in sayArgs) (string, error) {
		return "", fmt.Errorf("middlewaretest: the tool fail fails on %q", in.Say)
	})
)
