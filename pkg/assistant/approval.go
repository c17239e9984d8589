package assistant

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/usage"
)

// Approver decides whether a tool call may run: a person, usually, asked through a program.
// Approve is called before any call of the model's turn runs, once for each call of a tool
// that needs approval, from the run's goroutine; runs of one assistant call it concurrently.
// An error from Approve ends the run.
type Approver interface {
	Approve(ctx context.Context, call ToolCall) (Decision, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, call ToolCall) (Decision, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, call ToolCall) (Decision, error) {
	return f(ctx, call)
}

// ToolCall is a model's call of a tool, as an Approver and a tool-call Middleware see it.
type ToolCall struct {
	RunID     string // the run that made it ("" when the run has no event handler, stream or middleware, and in Paused.Waiting)
	Assistant string
	ID        string // the model's id for the call: decisions are given by it
	Tool      string
	Arguments string // as the model wrote them
	// Delegated is set when the tool runs an assistant (one made by AsTool): its run is a run
	// of the tree, whose steps pass through the same middleware. A durable engine runs such a
	// call on its own goroutine rather than in a step of its own.
	Delegated bool
}

// Verdict is what a person decided about a tool call.
type Verdict string

const (
	VerdictApprove Verdict = "approve" // run it
	VerdictDeny    Verdict = "deny"    // do not run it: the model is told, with the reason
	VerdictPending Verdict = "pending" // not decided yet: the run pauses
	// VerdictAnswer: the call was carried out elsewhere — by a person, or by a web front end
	// whose tool it is — and Result is what it returned: the tool does not run, and the model
	// is sent Result as the call's result.
	VerdictAnswer Verdict = "answer"
)

// Decision is a verdict on a tool call, with a reason for the model when it is a denial, and
// the call's result when it was answered elsewhere.
type Decision struct {
	Verdict Verdict `json:"verdict"`
	Reason  string  `json:"reason,omitempty"`
	Result  string  `json:"result,omitempty"`
}

// Approved, Denied, Pending and Answered make Decisions.
func Approved() Decision            { return Decision{Verdict: VerdictApprove} }
func Denied(reason string) Decision { return Decision{Verdict: VerdictDeny, Reason: reason} }
func Pending() Decision             { return Decision{Verdict: VerdictPending} }

// Answered is the decision on a call carried out elsewhere: result is what the model is sent
// as the call's result, and the tool does not run. It counts as a tool call in usage, as a
// denied call does.
func Answered(result string) Decision { return Decision{Verdict: VerdictAnswer, Result: result} }

// Told returns what the model is sent as the result of a call decided by d, where the
// decision gives one: the denial with its reason, or the result of a call answered
// elsewhere; "" for a call that runs (approved) or waits (pending). A program showing the
// call's outcome to a person shows this, so that both read the same.
func (d Decision) Told() string {
	switch d.Verdict {
	case VerdictDeny:
		return denial(d.Reason)
	case VerdictAnswer:
		return d.Result
	}
	return ""
}

// valid reports whether d has one of the verdicts.
func (d Decision) valid() bool {
	switch d.Verdict {
	case VerdictApprove, VerdictDeny, VerdictPending, VerdictAnswer:
		return true
	}
	return false
}

// WithApproval makes every call of the named tools wait for a's decision before it runs (with
// no names, every tool's). When the model's turn includes such calls, a is asked about each
// before any call of the turn runs: an approved call runs with the rest of the turn; a denied
// one does not, and the model is told why and goes on; a pending one pauses the run: it ends
// with Response.Stop = StopPending and Response.Paused, a state that serializes to JSON and
// that Resume continues — in another process if need be — with the decisions.
//
// Each WithApproval adds a rule, and a call is decided by the most recent rule that names its
// tool (a rule without names names every tool): an approval given for one run
// (Input.Options) decides the calls of the tools it names and leaves the others to the
// assistant's, so that a program can add tools of its own to a run, with their approver,
// without losing the approvals the assistant was made with. A nil a adds no rule.
//
// A call that waits inside a delegated run pauses the whole tree: the top run returns the
// paused state, and resuming continues the delegated run where it stopped, then its caller.
func WithApproval(a Approver, tools ...string) Option {
	return func(c *config) {
		if a == nil {
			return
		}
		rule := approval{approver: a, tools: slices.Clone(tools)}
		c.approvals = append([]approval{rule}, c.approvals...)
	}
}

// approval is one WithApproval rule.
type approval struct {
	approver Approver
	tools    []string // none: every tool
}

// approverOf returns the approver that decides calls of tool, nil when none does.
func (p *plan[O]) approverOf(tool string) Approver {
	for _, a := range p.cfg.approvals {
		if len(a.tools) == 0 || slices.Contains(a.tools, tool) {
			return a.approver
		}
	}
	return nil
}

// Call states in a paused turn.
const (
	callWaiting  = "waiting"  // needs a decision
	callApproved = "approved" // decided: runs at resume
	callDenied   = "denied"   // decided: does not run
	callAnswered = "answered" // decided: carried out elsewhere, Result holds what it returned
	callQueued   = "queued"   // needs no decision: runs at resume
	callDone     = "done"     // ran before the pause: Result holds what it returned
	callNested   = "nested"   // a delegated run that paused: Nested holds its state
)

// PausedCall is one call of the turn a paused run stopped in.
type PausedCall struct {
	ID        string  `json:"id"`
	Tool      string  `json:"tool"`
	Arguments string  `json:"arguments"`
	State     string  `json:"state"` // waiting, approved, denied, answered, queued, done or nested
	Reason    string  `json:"reason,omitempty"`
	Result    string  `json:"result,omitempty"`
	Nested    *Paused `json:"nested,omitempty"`
}

// Paused is a run waiting for decisions on tool calls: its conversation so far, the turn's
// calls (which are decided, which wait, which ran), and its usage so far. It serializes to
// JSON (encoding/json) and back, so that a run can be resumed in another process.
type Paused struct {
	Assistant string          `json:"assistant"`
	Messages  json.RawMessage `json:"messages"` // the whole conversation, system prompt included (chat.MarshalMessages)
	First     int             `json:"first"`    // the index of the user's turn in Messages
	Calls     []PausedCall    `json:"calls"`
	Usage     usage.Report    `json:"usage"`
	Model     string          `json:"model"`
	Failures  int             `json:"failures,omitempty"` // answers that could not be used so far
	Chat      *chat.ID        `json:"chat,omitempty"`
	// SchemaRefused names the models of the chain that refused the output schema in native
	// form (OutputFallback): the resumed run asks them with a tool, as the run did.
	SchemaRefused []string `json:"schema_refused,omitempty"`
}

// Waiting returns every call that waits for a decision, in this run and in the runs it
// delegated to, with the assistant that would run it.
func (p *Paused) Waiting() []ToolCall {
	var out []ToolCall
	for _, c := range p.Calls {
		switch c.State {
		case callWaiting:
			out = append(out, ToolCall{Assistant: p.Assistant, ID: c.ID, Tool: c.Tool, Arguments: c.Arguments})
		case callNested:
			if c.Nested != nil {
				out = append(out, c.Nested.Waiting()...)
			}
		}
	}
	return out
}

// pendingError is what a delegated run that paused returns to its caller's tool call.
type pendingError struct{ paused *Paused }

func (e *pendingError) Error() string {
	return fmt.Sprintf("assistant %q is waiting for a person's decision", e.paused.Assistant)
}

// denial is what the model is told of a denied call.
func denial(reason string) string {
	if reason == "" {
		return "denied: a person did not allow this call"
	}
	return "denied: a person did not allow this call: " + reason
}

// failPause ends a run that could not pause with err, its paused turn's calls answered so
// that its messages stay a conversation providers accept.
func (r *run[O]) failPause(ctx context.Context, err error) (*Result[O], error) {
	r.turn.answerRest("not run: the run ended")
	r.appendResults(r.turn)
	return r.fail(ctx, err)
}

// pause ends the run waiting for decisions on its turn: its Result has Stop = StopPending and
// Paused. In a chat kept by a store, the paused state is kept with the chat.
func (r *run[O]) pause(ctx context.Context) (*Result[O], error) {
	msgs, err := chat.MarshalMessages(r.msgs)
	if err != nil {
		return r.failPause(ctx, fmt.Errorf("assistant %q: keeping the paused run: %w", r.p.name, err))
	}
	p := &Paused{Assistant: r.p.name, Messages: msgs, First: r.first, Calls: r.turn.paused(),
		Usage: r.state.account.Report(), Model: r.res.Model, Failures: len(r.answers.failures), SchemaRefused: r.refusedSchema()}
	if r.chat.on {
		id := r.chat.id
		p.Chat = &id
		b, err := json.Marshal(p)
		if err == nil {
			err = r.p.cfg.store.SetState(context.WithoutCancel(ctx), id, b)
		}
		if err != nil {
			return r.failPause(ctx, within(r.p.name, err, "keeping the paused run with chat "+id.String(), id.String()))
		}
		r.chat.saved = true // the messages are kept in the state until the run ends
	}
	r.res.Stop, r.res.Paused = StopPending, p
	r.res.Messages = r.msgs[r.first:len(r.msgs):len(r.msgs)]
	r.res.Usage = p.Usage
	return &r.res, nil
}
