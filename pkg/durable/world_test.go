package durable_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/durable"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// The tests' application: a supervisor that, in one turn, asks for the weather of two cities
// and delegates a question to a researcher (assistant.AsTool), who looks something up before
// answering; the supervisor then writes a report. The supervisor's first model fails its first
// request (an overloaded provider), so that the run falls back to the second; its first reply
// carries Anthropic-style reasoning (model.Reasoning, with a signature), which the second reply
// checks came back as it went. Every model and tool decides from what it is sent alone, so that
// a replay asks them the same things and they answer the same.

type city struct {
	City string `json:"city"`
}

type question struct {
	Topic string `json:"topic"`
}

type query struct {
	Q string `json:"q"`
}

// executions records what ran, by the key of the step it ran in (workflow/step, see
// Engine.IdempotencyKey), or "-" outside a durable run. In a child process of a crash test, it
// appends each execution to a file too, a line each, where its parent reads them (readRan).
type executions struct {
	mu   sync.Mutex
	ran  map[string][]string
	file *os.File
}

func (x *executions) note(key, what string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ran == nil {
		x.ran = map[string][]string{}
	}
	x.ran[key] = append(x.ran[key], what)
	if x.file != nil {
		// One write of one line on a file opened to append: whole, whoever else appends.
		if _, err := fmt.Fprintf(x.file, "%s\t%s\n", key, what); err != nil {
			panic(err)
		}
	}
}

// readRan reads the executions that processes appended to the file path.
func readRan(path string) (*executions, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &executions{}, nil
	}
	if err != nil {
		return nil, err
	}
	x := &executions{}
	for line := range strings.Lines(string(b)) {
		key, what, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		if !ok {
			return nil, fmt.Errorf("%s: a line that is not an execution: %q", path, line)
		}
		x.note(key, what)
	}
	return x, nil
}

// of returns what ran in the workflow id, by step number.
func (x *executions) of(id string) map[int][]string {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := map[int][]string{}
	for key, what := range x.ran {
		wf, step, ok := strings.Cut(key, "/")
		var n int
		if _, err := fmt.Sscan(step, &n); ok && wf == id && err == nil {
			out[n] = append(out[n], what...)
		}
	}
	return out
}

// world builds the application's assistants on an engine, and records what they run.
type world struct {
	eng *durable.Engine // nil: the assistants run without one
	ran executions
	// In a child process of a crash test: the weather tool, asked for the city block, writes
	// the file blocked and waits for the end of the process, or of its context; every tool call
	// takes slow.
	block, blocked string
	slow           time.Duration
	// release, once closed, lets the weather tool blocked on the city block go on: nil, it
	// waits for its context only.
	release chan struct{}
}

// note records that what ran, in the step of ctx.
func (w *world) note(ctx context.Context, what string) {
	key := "-"
	if w.eng != nil {
		if k, ok := w.eng.IdempotencyKey(ctx); ok {
			key = k
		}
	}
	w.ran.note(key, what)
}

// supervisor returns the application's supervisor, with opts.
func (w *world) supervisor(opts ...assistant.Option) *assistant.Assistant[string] {
	weather := tool.Func("weather", "The weather in a city.", func(ctx context.Context, in city) (string, error) {
		w.note(ctx, "weather "+in.City)
		if in.City == w.block {
			if err := os.WriteFile(w.blocked, nil, 0o600); err != nil {
				return "", err
			}
			select {
			case <-ctx.Done(): // or the process is killed first
				return "", ctx.Err()
			case <-w.release:
			}
		}
		time.Sleep(w.slow)
		return in.City + ": sunny", nil
	})
	lookup := tool.Func("lookup", "Looks a topic up.", func(ctx context.Context, in query) (string, error) {
		w.note(ctx, "lookup "+in.Q)
		return "found " + in.Q, nil
	})
	researcher := assistant.New[string]("researcher",
		assistant.WithDescription("Answers questions on a topic."),
		assistant.WithInstructions("Research the topic."),
		assistant.WithModels(model.Fixed(w.model("clerk", researcherTurn, false))),
		assistant.WithTools(lookup))
	return assistant.New[string]("supervisor", append([]assistant.Option{
		assistant.WithInstructions("Write a report."),
		assistant.WithModels(model.Fixed(w.model("deep", supervisorTurn, true), w.model("fast", supervisorTurn, false))),
		assistant.WithTools(weather, assistant.AsTool[question](researcher)),
	}, opts...)...)
}

// model returns a model named name that answers with turn; overloaded, it fails every first
// request of a run.
func (w *world) model(name string, turn func([]llms.MessageContent) llmtest.Reply, overloaded bool) model.Model {
	llm := llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		n := turns(req.Messages)
		w.note(ctx, fmt.Sprintf("%s turn %d", name, n))
		if overloaded && n == 0 {
			return llmtest.Fail(&model.ProviderError{Provider: "anthropic", Model: name, Status: 529, Message: "overloaded"})
		}
		return turn(req.Messages)
	}).NoRecord()
	// ShapeKeep: the model is sent the reasoning parts, as Anthropic's models are.
	return model.Model{Name: name, Provider: "anthropic", LLM: llm, Shape: model.ShapeKeep}
}

// supervisorTurn: three calls with reasoning, then a report of their results.
func supervisorTurn(msgs []llms.MessageContent) llmtest.Reply {
	if turns(msgs) == 0 {
		return reply("", usageOf(100, 20), []model.Reasoning{{TextContent: llms.TextContent{Text: "Weather first, then fjords."}, Provider: "anthropic", Signature: "sig-plan"}},
			call("w1", "weather", `{"city":"Oslo"}`), call("r1", "researcher", `{"topic":"fjords"}`), call("w2", "weather", `{"city":"Paris"}`))
	}
	var ai llms.MessageContent
	for _, m := range msgs {
		if m.Role == llms.ChatMessageTypeAI {
			ai = m
		}
	}
	if r, ok := ai.Parts[0].(model.Reasoning); !ok || r.Signature != "sig-plan" || r.Provider != "anthropic" || r.Text == "" {
		return llmtest.Fail(fmt.Errorf("the reasoning did not come back as it went: %#v", ai.Parts[0]))
	}
	return reply("report: "+strings.Join(results(msgs), "; "), usageOf(300, 40), nil)
}

// researcherTurn: a lookup, then an answer with what it found.
func researcherTurn(msgs []llms.MessageContent) llmtest.Reply {
	if turns(msgs) == 0 {
		var q question
		if err := json.Unmarshal([]byte(prompt(msgs)), &q); err != nil {
			return llmtest.Fail(err)
		}
		return reply("", usageOf(50, 10), nil, call("l1", "lookup", fmt.Sprintf(`{"q":%q}`, q.Topic)))
	}
	return reply("fjords are deep ("+strings.Join(results(msgs), "; ")+")", usageOf(80, 15), nil)
}

// turns counts the model's turns since the user's.
func turns(msgs []llms.MessageContent) int {
	n := 0
	for _, m := range slices.Backward(msgs) {
		switch m.Role {
		case llms.ChatMessageTypeHuman:
			return n
		case llms.ChatMessageTypeAI:
			n++
		}
	}
	return n
}

// prompt is the text of the user's turn.
func prompt(msgs []llms.MessageContent) string {
	for _, m := range slices.Backward(msgs) {
		if m.Role == llms.ChatMessageTypeHuman {
			return m.Parts[0].(llms.TextContent).Text
		}
	}
	return ""
}

// results are the tool results sent, in order.
func results(msgs []llms.MessageContent) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				out = append(out, r.Content)
			}
		}
	}
	return out
}

func call(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

func usageOf(in, out int) map[string]any {
	return map[string]any{"PromptTokens": in, "CompletionTokens": out}
}

// reply is a response as a provider's client gives it, with reasoning where there is some.
func reply(text string, info map[string]any, reasoning []model.Reasoning, calls ...llms.ToolCall) llmtest.Reply {
	if reasoning != nil {
		info[model.ReasoningInfo] = reasoning
	}
	stop := "end_turn"
	if len(calls) > 0 {
		stop = "tool_use"
	}
	return llmtest.Reply{Response: &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content: text, ToolCalls: calls, StopReason: stop, GenerationInfo: info,
	}}}}
}

// The approvals' application: a cashier that refunds, behind an approval, and notes what it
// does; a desk that delegates to the cashier. The note says for which tenant it was made: the
// tenant is in the run's Meta, which the engine's restore function puts in the context.

type amount struct {
	Amount int `json:"amount"`
}

type memo struct {
	Text string `json:"text"`
}

type tenantKey struct{}

// restoreTenant is the engine's restore function of the approvals' application.
func restoreTenant(ctx context.Context, meta map[string]string) context.Context {
	return context.WithValue(ctx, tenantKey{}, meta["tenant"])
}

// approver is an approver that leaves every call to a person: it notes that it was asked.
func (w *world) approver() assistant.Approver {
	return assistant.ApproverFunc(func(ctx context.Context, call assistant.ToolCall) (assistant.Decision, error) {
		w.note(ctx, "approve "+call.ID)
		return assistant.Pending(), nil
	})
}

// cashier returns the cashier, whose refunds wait for approver.
func (w *world) cashier(approver assistant.Approver) *assistant.Assistant[string] {
	refund := tool.Func("refund", "Refunds an amount.", func(ctx context.Context, in amount) (string, error) {
		w.note(ctx, fmt.Sprintf("refund %d", in.Amount))
		return fmt.Sprintf("refunded %d", in.Amount), nil
	})
	note := tool.Func("note", "Notes something.", func(ctx context.Context, in memo) (string, error) {
		tenant, _ := ctx.Value(tenantKey{}).(string)
		w.note(ctx, "note "+in.Text)
		return "noted for " + tenant, nil
	})
	return assistant.New[string]("cashier",
		assistant.WithDescription("Refunds customers."),
		assistant.WithModels(model.Fixed(w.model("till", cashierTurn, false))),
		assistant.WithTools(refund, note),
		assistant.WithApproval(approver, "refund"))
}

// desk returns the desk, which delegates to cashier.
func (w *world) desk(cashier *assistant.Assistant[string]) *assistant.Assistant[string] {
	return assistant.New[string]("desk",
		assistant.WithModels(model.Fixed(w.model("front", deskTurn, false))),
		assistant.WithTools(assistant.AsTool[question](cashier)))
}

// cashierTurn: a refund and a note, then what they did.
func cashierTurn(msgs []llms.MessageContent) llmtest.Reply {
	if turns(msgs) == 0 {
		return reply("", usageOf(40, 8), nil, call("p1", "refund", `{"amount":30}`), call("n1", "note", `{"text":"refund asked"}`))
	}
	return reply("done: "+strings.Join(results(msgs), "; "), usageOf(60, 9), nil)
}

// deskTurn: the cashier, then what it said.
func deskTurn(msgs []llms.MessageContent) llmtest.Reply {
	if turns(msgs) == 0 {
		return reply("", usageOf(30, 5), nil, call("d1", "cashier", `{"topic":"a refund"}`))
	}
	return reply("desk: "+strings.Join(results(msgs), "; "), usageOf(70, 6), nil)
}
