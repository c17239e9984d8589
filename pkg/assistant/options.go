package assistant

import (
	"context"
	"slices"
	"time"

	"github.com/cadrehq/cadre/internal/prompt"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// Option configures an assistant, in New, or one run, in Input.Options.
//
// Per-run options follow these rules: limits and callbacks given for a run cover that run's
// whole subtree; model, tools, vars, call options, validators and output mode apply to that
// run only; description and instructions cannot change per run (Run returns an error saying
// so).
type Option func(*config)

// config is what options set. A run with options of its own applies them to a copy of the
// assistant's config, so an option must never modify a slice or map it finds there: it appends
// to a copy (s[:len(s):len(s)]) or makes a new one.
type config struct {
	instructions    string
	instructionsSet bool
	description     string
	descriptionSet  bool

	llm      llms.Model
	resolver model.Resolver
	tools    []tool.Tool
	toolSets []ToolSet
	vars     map[string]any
	limits   *usage.Limits
	mode     OutputMode

	validators  []any // func(context.Context, O) error for the assistant's O
	callOptions []llms.CallOption
	handlers    []callback.Handler

	maxParallel    int
	maxResultBytes int
	maxDepth       int
	finalOnLimit   bool

	store  chat.Store
	window chat.Window
	stream StreamFunc

	partial      any // func(context.Context, O) error for the assistant's O
	partialEvery time.Duration

	approvals []approval // the most recent rule first

	middleware []Middleware

	varsFunc   VarsFunc
	parseInput InputParser
	examples   []any // Example[O] for the assistant's O
	noRoster   bool
	history    HistoryShape
}

// WithInstructions sets the system prompt: a text/template rendered with the vars
// (WithVars, then Input.Vars) before any request; a var the template uses that is not given
// fails the run before any request is made (missingkey=error). New panics on a syntax error.
func WithInstructions(tmpl string) Option {
	return func(c *config) { c.instructions, c.instructionsSet = tmpl, true }
}

// WithDescription says what the assistant does: it is the description of the assistant as a
// tool and as an MCP prompt.
func WithDescription(text string) Option {
	return func(c *config) { c.description, c.descriptionSet = text, true }
}

// WithModel makes the assistant use one fixed langchaingo model. langchaingo's own provider
// clients are recognised and get their provider's message shapes (see model.Describe). The
// model is named, in usage reports, events, errors, traces and durable step names, by what it
// is: its ModelName when it is a model.Namer (llmtest's models are "scripted", "func" and
// "synthetic"); for one of langchaingo's clients, which do not tell their model's id, its
// package ("openai", "anthropic", ...); for any other, its Go type. To name it yourself, and
// give its id to telemetry, use WithModels(model.Fixed(m)) with a model.Model. It replaces
// WithModels.
func WithModel(m llms.Model) Option {
	return func(c *config) { c.llm, c.resolver = m, nil }
}

// WithModels makes the assistant resolve its model chain by its name from r at the start of
// each run; *llmfactory.Factory is one. It replaces WithModel.
func WithModels(r model.Resolver) Option {
	return func(c *config) { c.resolver, c.llm = r, nil }
}

// WithTools adds tools the model may call. New panics on an invalid or duplicate name (see
// tool.ValidName), or on a schema that is not a JSON object schema. Given for one run, the
// tools are added to the assistant's for that run.
func WithTools(tools ...tool.Tool) Option {
	return func(c *config) { c.tools = append(c.tools[:len(c.tools):len(c.tools)], tools...) }
}

// WithVars sets static template values. Input.Vars override them key by key; per run,
// WithVars does the same.
func WithVars(vars map[string]any) Option {
	return func(c *config) { c.vars = prompt.Over(c.vars, vars) }
}

// WithLimits bounds the run and every run it delegates to. Where the context carries no
// usage.Ledger, a run creates one with these limits (or the defaults: 50 requests, 200 tool
// calls); where it does, these limits bound this run's subtree in addition to the ledger's.
// Given again, or for one run, it changes the limits it sets (its fields that are not zero)
// and keeps the others.
func WithLimits(l usage.Limits) Option {
	return func(c *config) {
		if c.limits == nil {
			c.limits = &l
			return
		}
		merged := *c.limits // a copy: the limits found may be the assistant's
		for _, f := range []struct{ dst, v *int }{
			{&merged.MaxRequests, &l.MaxRequests}, {&merged.MaxToolCalls, &l.MaxToolCalls},
			{&merged.MaxInputTokens, &l.MaxInputTokens}, {&merged.MaxOutputTokens, &l.MaxOutputTokens},
			{&merged.MaxTotalTokens, &l.MaxTotalTokens},
		} {
			if *f.v != 0 {
				*f.dst = *f.v
			}
		}
		c.limits = &merged
	}
}

// OutputMode is how the model is asked for an answer of the output type.
type OutputMode int

const (
	// OutputAuto asks each model of the chain in the form it takes best: OutputNative for a
	// model whose Output is model.NativeOutput (a model of the llm.yaml factory whose output
	// key, or whose id in the provider facts, says its API takes an output schema — never a
	// client given with WithModel, whose support is not known), OutputPrompted for a model that
	// cannot take tools or whose Output is model.PromptedOutput, else OutputTool.
	OutputAuto OutputMode = iota
	// OutputTool gives the model a final_result tool whose arguments are the output (in the
	// strict form where the provider supports it). A text answer that parses is accepted too.
	OutputTool
	// OutputPrompted puts the output's JSON Schema in the system prompt.
	OutputPrompted
	// OutputNative sends the output's JSON Schema in the provider's own structured-output
	// field (ModelRequest.Output, which the llm.yaml factory's clients write there: see
	// model.OutputSchema), and takes the answer from the text. A model whose Output says it
	// takes a tool (model.ToolOutput) or the prompt (model.PromptedOutput) is asked in that
	// form instead; a model that refuses the schema (model.ErrOutputSchema: a 400 naming it,
	// or a schema outside the subset its API takes) is asked again with a tool, once, and
	// with a tool for the rest of the run, and the run's events say so
	// (callback.OutputFallback). The answer is checked and corrected as in the other modes.
	OutputNative
)

// WithOutputMode chooses how the output is asked for (default OutputAuto). It does not apply
// to an assistant whose output type is a string. Each model of a fallback chain is asked in
// the form the mode gives for it; the system prompt and the examples are those of the chain's
// first model.
func WithOutputMode(m OutputMode) Option {
	return func(c *config) { c.mode = m }
}

// WithValidator adds a check of the parsed output. An error from f makes the assistant ask
// the model once to correct its answer, quoting the error; a second failure is an
// *OutputError. New panics if O is not the assistant's output type.
func WithValidator[O any](f func(context.Context, O) error) Option {
	return func(c *config) {
		if f != nil {
			c.validators = append(c.validators[:len(c.validators):len(c.validators)], f)
		}
	}
}

// WithCallOptions adds langchaingo call options (temperature, max tokens, ...) to every
// request. They override the model's defaults from llm.yaml.
func WithCallOptions(opts ...llms.CallOption) Option {
	return func(c *config) {
		c.callOptions = append(c.callOptions[:len(c.callOptions):len(c.callOptions)], opts...)
	}
}

// Options returns one Option that applies opts in order: for a package that sets several
// things at once (middleware and an event handler, say) and gives its users one Option.
func Options(opts ...Option) Option {
	opts = slices.Clone(opts)
	return func(c *config) {
		for _, o := range opts {
			if o != nil {
				o(c)
			}
		}
	}
}

// WithCallback adds a handler of run events. Given for one run, it also receives the events
// of the runs it delegates to.
func WithCallback(h callback.Handler) Option {
	return func(c *config) {
		if h != nil {
			c.handlers = append(c.handlers[:len(c.handlers):len(c.handlers)], h)
		}
	}
}

// WithMaxParallelTools bounds how many tool calls of one model turn run at once (default
// 10). Values below 1 mean 1.
func WithMaxParallelTools(n int) Option {
	return func(c *config) { c.maxParallel = max(n, 1) }
}

// WithMaxToolResult caps a tool result sent back to the model, in bytes (default 100 KB).
// A longer result is cut, and the model is told so.
func WithMaxToolResult(bytes int) Option {
	return func(c *config) { c.maxResultBytes = max(bytes, 1) }
}

// WithMaxDepth bounds how deep delegation may go below a top run of this assistant (default
// 8): a run deeper than that fails, and the top run returns an error wrapping ErrDepthLimit.
// It only matters for top runs; the top run's limit holds for its whole tree.
func WithMaxDepth(n int) Option {
	return func(c *config) { c.maxDepth = max(n, 1) }
}

// WithFinalAnswerOnLimit ends a run at its request or tool call limit with an answer instead of
// an error: when only one request remains under MaxRequests, or the model's next batch of tool
// calls would not fit under MaxToolCalls, the assistant makes its last request, telling the
// model its budget is spent and no tool will run any more, and asking for its best answer of
// the output type. The tools stay defined in that request (providers reject a conversation
// with tool calls and no tool defined), but no call of them runs.
// Response.Stop is then StopLimitAnswer. An answer that cannot be used then is an
// *OutputError: there is no request left to correct it.
func WithFinalAnswerOnLimit() Option {
	return func(c *config) { c.finalOnLimit = true }
}

const (
	defaultMaxDepth       = 8
	defaultMaxParallel    = 10
	defaultMaxResultBytes = 100 << 10
)
