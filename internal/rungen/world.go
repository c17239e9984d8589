package rungen

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/skill"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
)

// City is the assistants' output: both fields are required by its schema.
type City struct {
	Name       string `json:"name"`
	Population int    `json:"population"`
}

// Args are the arguments of a delegation, and the prompt of every run (see Scenario.Prompt).
type Args struct {
	City string `json:"city"`
}

// query are the arguments of the World's tools: q is the ID of the call, which the model puts
// there too.
type query struct {
	Q string `json:"q"`
}

// World plays one scenario: its models, its tools, and what they saw (Seen). It is safe for
// concurrent use.
type World struct {
	s      Scenario
	opts   options
	skills []*skill.Skill
	// The model chains of the supervisor, the specialist and the one below it.
	top, spec, sub []model.Model
	closers        []func() // the fake provider APIs

	mu     sync.Mutex
	cancel context.CancelFunc // cancels the run at the scenario's CancelAt
	seen   Seen
}

// Seen is what a World's models and tools saw since the World was made or last began a run.
type Seen struct {
	Requests  int                     // model requests, every attempt
	Replies   int                     // replies returned
	In, Out   int                     // the tokens the replies reported
	Runs      map[string]int          // tool executions, by the call's q (its ID as the model made it)
	Convs     [][]llms.MessageContent // every request's conversation
	Asks      []Ask                   // every request, as its model took it: of Convs
	CalledAny bool                    // a model was sent a request
}

// Ask is one request as a model took it.
type Ask struct {
	Model string // the model, of its chain: "top/first", "spec/second", ...
	Run   string // the run the request is of, and the model's turn in it (see place)
	Turn  int
	// Schema: the request carried an output schema (model.OutputSchemaOf), in its context or,
	// behind a fake API, in the API's own field.
	Schema        bool
	SchemaRefused bool // the model refused the schema (Turn.SchemaRefused)
	Replied       bool // the model replied; false for a failure, a cancellation, a refusal of the schema
	Refusal       bool // the reply was a refusal (TurnRefusal)
}

// Option configures New.
type Option func(*options)

type options struct {
	approver func(assistant.Approver) assistant.Approver
	note     func(ctx context.Context, what string)
}

// WithApprover makes the assistants ask wrap(a) for approvals, a being the World's approver,
// which leaves every call of the tool send to a person (assistant.Pending).
func WithApprover(wrap func(a assistant.Approver) assistant.Approver) Option {
	return func(o *options) { o.approver = wrap }
}

// WithNote gives the World a function it calls with the context of each model request it
// answers and of each tool call it runs, and what it was (the model and the run's turn, the
// tool and the call): a durable test tells by the context which step of which workflow ran it.
// A model behind a fake API over HTTP has the server's context.
func WithNote(note func(ctx context.Context, what string)) Option {
	return func(o *options) { o.note = note }
}

// New makes the World of s, with the fake provider APIs it needs, which Close closes.
func New(s Scenario, opts ...Option) (*World, error) {
	w := &World{s: s, seen: Seen{Runs: map[string]int{}}}
	for _, o := range opts {
		o(&w.opts)
	}
	for _, name := range Skills {
		sk, problems := skill.Parse(name+"/SKILL.md", name, []byte("---\nname: "+name+"\ndescription: How to handle "+name+". Use it for "+name+".\n---\n"+strings.ToUpper(name)+": follow the steps of "+name+".\n"))
		if len(problems) > 0 {
			return nil, fmt.Errorf("rungen: the skill %s: %v", name, problems)
		}
		w.skills = append(w.skills, sk)
	}
	var err error
	if w.top, err = w.chain("top", func(run string) []Turn { return s.Top[runIndex(s, run)] }, s.Wire, "specialist", s.Native); err != nil {
		w.Close()
		return nil, err
	}
	// In process, a chain is made without an error.
	if s.Specialist != nil {
		w.spec, _ = w.chain("spec", func(string) []Turn { return s.Specialist }, "", "sub", [2]bool{s.SpecNative, s.SpecNative})
	}
	if s.Sub != nil {
		w.sub, _ = w.chain("sub", func(string) []Turn { return s.Sub }, "", "", [2]bool{})
	}
	return w, nil
}

// runIndex is the index of the supervisor's run named run in s.Top: run1 is the first.
func runIndex(s Scenario, run string) int {
	var i int
	if _, err := fmt.Sscanf(run, "run%d", &i); err != nil || i < 1 || i > len(s.Top) {
		return 0
	}
	return i - 1
}

// Close closes the World's fake provider APIs.
func (w *World) Close() {
	for _, c := range w.closers {
		c()
	}
	w.closers = nil
}

// Begin starts counting anew, for a run whose context cancel cancels (nil: none): the
// scenario's CancelAt counts this run's requests.
func (w *World) Begin(cancel context.CancelFunc) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cancel = cancel
	w.seen = Seen{Runs: map[string]int{}}
}

// Seen returns what the models and tools saw since the World was made or last began a run.
func (w *World) Seen() Seen {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.seen
	s.Runs = maps.Clone(s.Runs)
	s.Convs = slices.Clone(s.Convs)
	s.Asks = slices.Clone(s.Asks)
	return s
}

func (w *World) note(ctx context.Context, what string) {
	if w.opts.note != nil {
		w.opts.note(ctx, what)
	}
}

// ran counts an execution of the call q.
func (w *World) ran(ctx context.Context, tool, q string) {
	w.note(ctx, tool+" "+q)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen.Runs[q]++
}

// chain returns a two-model chain over script: the first fails as the turns say, the second
// takes over; native tells which of them take the output schema natively. Behind a fake
// provider API for the wire scenarios, alone: langchaingo's client as it is, or, native, a
// model of llmfactory, whose transport writes the schema in the API's own field.
func (w *World) chain(name string, script func(run string) []Turn, wire, delegate string, native [2]bool) ([]model.Model, error) {
	first := llm{w: w, name: name + "/first", script: script, first: true, delegate: delegate}
	second := llm{w: w, name: name + "/second", script: script, delegate: delegate}
	var srv *providertest.Server
	switch wire {
	case "":
		chain := []model.Model{model.Describe("first", first), model.Describe("second", second)}
		for i := range chain {
			if native[i] {
				chain[i].Output = model.NativeOutput
			}
		}
		return chain, nil
	case "openai":
		srv = providertest.NewOpenAI(first)
	case "anthropic":
		srv = providertest.NewAnthropic(first)
	default:
		return nil, fmt.Errorf("rungen: no fake API %q", wire)
	}
	w.closers = append(w.closers, srv.Close)
	if native[0] {
		return w.factoryModel(srv, wire)
	}
	var client llms.Model
	var err error
	if wire == "openai" {
		client, err = openai.New(openai.WithBaseURL(srv.URL()+"/v1"), openai.WithToken("test-key"), openai.WithModel("gpt-test"), openai.WithHTTPClient(srv.Client()))
	} else {
		client, err = anthropic.New(anthropic.WithBaseURL(srv.URL()+"/v1"), anthropic.WithToken("test-key"), anthropic.WithModel("claude-test"), anthropic.WithHTTPClient(srv.Client()))
	}
	if err != nil {
		return nil, err
	}
	return []model.Model{model.Describe("wire", client)}, nil
}

// factoryModel is the model of llm.yaml's type wire (openai or anthropic) at the fake API
// srv, native: an Anthropic model id the fake knows to take a schema, and no retry — a
// model's failure comes back as a 500, which the transport would otherwise send again.
func (w *World) factoryModel(srv *providertest.Server, wire string) ([]model.Model, error) {
	id := "gpt-test"
	if wire == "anthropic" {
		id = "claude-sonnet-4-5"
	}
	doc := "providers:\n  fake: { type: " + wire + ", api_key: test-key, base_url: '${URL}/v1' }\n" +
		"models:\n  wire: { provider: fake, model: " + id + ", output: native }\n" +
		"retry: { max_attempts: 1 }\n"
	f, err := llmfactory.Parse([]byte(doc), llmfactory.WithHTTPClient(srv.Client()),
		llmfactory.WithEnv(func(k string) (string, bool) { return srv.URL(), k == "URL" }))
	if err != nil {
		return nil, fmt.Errorf("rungen: %w", err)
	}
	w.closers = append(w.closers, func() { f.Close() })
	m, err := f.Model(context.Background(), "wire")
	if err != nil {
		return nil, fmt.Errorf("rungen: %w", err)
	}
	return []model.Model{m}, nil
}

// Supervisor makes the scenario's supervisor, with opts: a fresh value each time, as another
// process would. Its tools are lookup, which answers; fails, which fails; panics; send, which
// waits for a person's approval; the skills' activate_skill; and the specialist, when the
// scenario has one, which has the same tools and the assistant below it in turn.
func (w *World) Supervisor(opts ...assistant.Option) *assistant.Assistant[City] {
	var approver assistant.Approver = assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) {
		return assistant.Pending(), nil
	})
	if w.opts.approver != nil {
		approver = w.opts.approver(approver)
	}
	tools := []tool.Tool{
		tool.Func("lookup", "Looks something up.", func(ctx context.Context, in query) (string, error) {
			w.ran(ctx, "lookup", in.Q)
			return "found " + in.Q, nil
		}),
		tool.Func("fails", "Fails.", func(ctx context.Context, in query) (string, error) {
			w.ran(ctx, "fails", in.Q)
			return "", errors.New("the service is down")
		}),
		tool.Func("panics", "Panics.", func(ctx context.Context, in query) (string, error) {
			w.ran(ctx, "panics", in.Q)
			panic("a bug in the tool")
		}),
		tool.Func("send", "Sends; a person approves.", func(ctx context.Context, in query) (string, error) {
			w.ran(ctx, "send", in.Q)
			return "sent " + in.Q, nil
		}),
	}
	common := []assistant.Option{assistant.WithApproval(approver, "send"), assistant.WithTools(tools...), assistant.WithSkills(w.skills...)}
	top := slices.Concat(common, []assistant.Option{assistant.WithModels(model.Fixed(w.top...)), assistant.WithLimits(w.s.Limits)})
	if w.s.FinalOnLimit {
		top = append(top, assistant.WithFinalAnswerOnLimit())
	}
	if w.spec != nil {
		spec := slices.Concat(common, []assistant.Option{assistant.WithModels(model.Fixed(w.spec...))})
		if w.sub != nil {
			below := assistant.New[City]("sub", slices.Concat(common, []assistant.Option{assistant.WithModels(model.Fixed(w.sub...))})...)
			spec = append(spec, assistant.WithTools(assistant.AsTool[Args](below)))
		}
		specialist := assistant.New[City]("specialist", spec...)
		top = append(top, assistant.WithTools(assistant.AsTool[Args](specialist)))
	}
	return assistant.New[City]("supervisor", append(top, opts...)...)
}
