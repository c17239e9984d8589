package assistant

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cadrehq/cadre/internal/answer"
	"github.com/cadrehq/cadre/internal/prompt"
	"github.com/cadrehq/cadre/internal/toolbox"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// plan is everything a run needs that does not depend on the run's data, prepared once per
// assistant (and once per run that has options of its own): the resolved configuration, and
// what is made of it.
type plan[O any] struct {
	name string
	cfg  config // with the defaults in place of unset fields

	instructions *prompt.Instructions
	system       [4]llms.MessageContent // by OutputMode, when the instructions have no actions
	systemOnce   [4]sync.Once

	chain   []model.Model     // fixed by WithModel; nil with a resolver
	reqOpts []llms.CallOption // for the chain's one model (WithModel) in its mode; nil with a resolver

	tools      *toolTable
	own        []tool.Tool      // the tools given with WithTools, then the fixed sets' (tools holds them)
	sets       []ToolSet        // the tool sets read by each run
	prompters  []tool.Prompter  // the tool sets that write a part of the system prompt
	examples   *answer.Examples // nil without WithExamples
	roster     string           // the delegates, for the system prompt; "" for none
	out        *answer.Shape
	validators []func(context.Context, O) error
	partial    func(context.Context, O) error // WithPartialOutput's; nil for none
	handler    callback.Handler

	setPlan atomic.Pointer[setPlan[O]] // with tool sets: the plan of their tools last read
}

// newPlan prepares a plan from cfg. base, when given, is the assistant's own plan: what only
// depends on O is taken from it, and so are the tools when no tool was added. The tools that
// known boxes hold are not compiled again.
func newPlan[O any](name string, cfg config, base *plan[O], known ...*toolbox.Box) (*plan[O], error) {
	if cfg.mode < OutputAuto || cfg.mode > OutputNative {
		return nil, fmt.Errorf("output mode %d is not one of OutputAuto, OutputTool, OutputPrompted, OutputNative", cfg.mode)
	}
	for _, d := range []struct {
		v   *int
		def int
	}{
		{&cfg.maxDepth, defaultMaxDepth}, {&cfg.maxParallel, defaultMaxParallel}, {&cfg.maxResultBytes, defaultMaxResultBytes},
	} {
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	p := &plan[O]{name: name, cfg: cfg, handler: callback.Multi(cfg.handlers...)}
	var err error
	if base != nil {
		p.instructions, p.out = base.instructions, base.out
	} else {
		if p.instructions, err = prompt.Parse(name, cfg.instructions); err != nil {
			return nil, fmt.Errorf("instructions of %q: %w", name, err)
		}
		if p.out, err = answer.For[O](); err != nil {
			return nil, err
		}
	}
	if p.own, err = p.takeSets(cfg.tools); err != nil {
		return nil, err
	}
	if base != nil && len(p.own) == len(base.own) {
		p.tools = base.tools
	} else if p.tools, err = newToolTable(p.own, len(cfg.tools), !p.out.Text, known...); err != nil {
		return nil, err
	}
	if base != nil && len(cfg.examples) == len(base.cfg.examples) {
		p.examples = base.examples
	} else if p.examples, err = newExamples[O](cfg.examples, p.out); err != nil {
		return nil, err
	}
	p.roster = p.newRoster()
	for _, v := range cfg.validators {
		f, ok := v.(func(context.Context, O) error)
		if !ok {
			var o O
			return nil, fmt.Errorf("WithValidator: the validator takes %s, but assistant %q answers %T", funcArg(v), name, o)
		}
		p.validators = append(p.validators, f)
	}
	if cfg.partial != nil {
		f, ok := cfg.partial.(func(context.Context, O) error)
		if !ok {
			var o O
			return nil, fmt.Errorf("WithPartialOutput: the function takes %s, but assistant %q answers %T", funcArg(cfg.partial), name, o)
		}
		p.partial = f
	}
	if cfg.llm != nil {
		p.chain = []model.Model{model.Describe("", cfg.llm)}
		mode, err := p.modeFor(p.chain[0])
		if err != nil {
			return nil, err
		}
		if p.reqOpts, err = p.requestOptions(p.chain[0], mode); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func funcArg(v any) string {
	s := fmt.Sprintf("%T", v)
	s = strings.TrimPrefix(s, "func(context.Context, ")
	return strings.TrimSuffix(s, ") error")
}

// modeFor decides how the output is asked of m, the first model of a run's chain: as formFor
// says, once m is known to suit the assistant.
func (p *plan[O]) modeFor(m model.Model) (OutputMode, error) {
	if m.NoTools {
		if names := p.tools.Names(); names != "" {
			return 0, fmt.Errorf("assistant %q: model %q cannot take tools, and the assistant has %s: use a model with tool support", p.name, m.Name, names)
		}
		if p.cfg.mode == OutputTool && !p.out.Text {
			return 0, fmt.Errorf("assistant %q: model %q cannot take tools, so OutputTool cannot work: use OutputAuto or OutputPrompted", p.name, m.Name)
		}
	}
	return p.formFor(m), nil
}

// formFor decides how the output is asked of m: the assistant's mode, where it is
// OutputTool or OutputPrompted; for OutputAuto and OutputNative, the form m takes best as far
// as its Output tells (see OutputAuto and OutputNative).
func (p *plan[O]) formFor(m model.Model) OutputMode {
	if p.out.Text {
		return OutputPrompted // no output tool; nothing is prompted either
	}
	switch mode := p.cfg.mode; {
	case mode == OutputTool || mode == OutputPrompted:
		return mode
	case m.Output == model.PromptedOutput || m.NoTools && m.Output != model.NativeOutput && mode == OutputAuto:
		return OutputPrompted
	case m.Output == model.NativeOutput || mode == OutputNative && m.Output != model.ToolOutput:
		return OutputNative
	}
	return p.toolForm(m)
}

// toolForm is how the output is asked of m with a tool: OutputTool, or OutputPrompted when m
// cannot take tools.
func (p *plan[O]) toolForm(m model.Model) OutputMode {
	if m.NoTools {
		return OutputPrompted
	}
	return OutputTool
}

// requestOptions are the call options of every request to m: the assistant's call options,
// then its tools (with final_result in tool mode).
func (p *plan[O]) requestOptions(m model.Model, mode OutputMode) ([]llms.CallOption, error) {
	opts := make([]llms.CallOption, 0, len(p.cfg.callOptions)+1)
	opts = append(opts, p.cfg.callOptions...)
	defs, err := p.tools.AppendDefinitions(make([]llms.Tool, 0, len(p.tools.Tools())+1), m)
	if err != nil {
		return nil, err
	}
	if mode == OutputTool {
		def, err := p.out.Definition(m)
		if err != nil {
			return nil, err
		}
		defs = append(defs, def)
	}
	if len(defs) > 0 {
		opts = append(opts, llms.WithTools(defs))
	}
	return opts, nil
}

// systemMessage returns the run's system message, with extra (what its tool sets write) after
// the instructions; it has no parts when the system prompt is empty. Instructions without
// template actions and without extra give the same message to every run: it is built once per
// mode and shared (messages are never modified).
func (p *plan[O]) systemMessage(vars map[string]any, mode OutputMode, extra string) (llms.MessageContent, error) {
	if p.instructions.Static() && extra == "" {
		p.systemOnce[mode].Do(func() {
			if text, _ := p.systemPrompt(nil, mode, ""); text != "" {
				p.system[mode] = prompt.Message(text)
			}
		})
		return p.system[mode], nil
	}
	text, err := p.systemPrompt(vars, mode, extra)
	if err != nil || text == "" {
		return llms.MessageContent{}, err
	}
	return prompt.Message(text), nil
}

// systemPrompt writes the run's system prompt: the instructions rendered with the vars, then
// the roster, extra, and the output's instructions in prompted mode.
func (p *plan[O]) systemPrompt(vars map[string]any, mode OutputMode, extra string) (string, error) {
	output := ""
	if mode == OutputPrompted {
		output = p.out.Prompt // "" for a text answer
	}
	text, err := p.instructions.Write(p.cfg.vars, vars, p.roster, extra, output)
	if err != nil {
		return "", fmt.Errorf("assistant %q: rendering its instructions: %w (give every var the template uses in WithVars or Input.Vars)", p.name, err)
	}
	return text, nil
}

// toolTable is an assistant's tools, with the innermost link of every tool-call chain.
type toolTable struct {
	*toolbox.Box
	run ToolCallNext // call, made once
}

// newToolTable makes the table of tools — the first given of them given with WithTools, the
// others by tool sets — taking the compiled schemas of tools that a known box has.
func newToolTable(tools []tool.Tool, given int, reserveFinal bool, known ...*toolbox.Box) (*toolTable, error) {
	reserved := ""
	if reserveFinal {
		reserved = answer.Tool
	}
	box, err := toolbox.New(tools, given, reserved, known...)
	if err != nil {
		return nil, err
	}
	t := &toolTable{Box: box}
	t.run = t.call
	return t, nil
}

// call calls the tool of c: the innermost link of every tool-call chain.
func (t *toolTable) call(ctx context.Context, c ToolCall) (string, error) {
	return t.Call(ctx, c.Tool, c.Arguments)
}

// delegates reports whether the tool named name runs an assistant (AsTool made it).
func (t *toolTable) delegates(name string) bool {
	tl, _ := t.Lookup(name)
	_, d := tl.(delegate)
	return d
}
