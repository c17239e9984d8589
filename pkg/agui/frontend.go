package agui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/tool"
)

// ErrUnknownInterrupt is wrapped by the error a handler answers with 400 when a request's
// resume entry names an interrupt the thread does not wait for: one answered already, of
// another thread, or never made.
var ErrUnknownInterrupt = errors.New("agui: unknown interrupt")

// ReasonApproval is the Reason of the interrupt a handler makes of a tool call waiting for a
// person's decision.
const ReasonApproval = "tool_approval"

// ApprovalSchema is the ResponseSchema of an approval interrupt: the payload of the resume
// entry that resolves it, {"approved": true} to run the call or {"approved": false, "reason":
// "..."} to refuse it, the reason told to the model.
var ApprovalSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"approved": map[string]any{"type": "boolean", "description": "true runs the tool call; false refuses it"},
		"reason":   map[string]any{"type": "string", "description": "why the call is refused, told to the model"},
	},
	"required":             []any{"approved"},
	"additionalProperties": false,
}

// frontendTool is a tool the client declared: the model may call it, and the call waits for
// the client's result (the handler's approver keeps it pending), so Call never runs.
type frontendTool struct{ t Tool }

func (f frontendTool) Name() string        { return f.t.Name }
func (f frontendTool) Description() string { return f.t.Description }
func (f frontendTool) Schema() json.RawMessage {
	if len(f.t.Parameters) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return f.t.Parameters
}
func (f frontendTool) Call(context.Context, json.RawMessage) (string, error) {
	return "", fmt.Errorf("%s is run by the client, not here", f.t.Name)
}

// frontendTools makes tools of the client's, refusing a name a model cannot call or given
// twice.
func frontendTools(ts []Tool) ([]tool.Tool, []string, error) {
	var out []tool.Tool
	var names []string
	for i, t := range ts {
		if err := tool.ValidName(t.Name); err != nil {
			return nil, nil, invalid("tools[%d]: %v", i, err)
		}
		if slices.Contains(names, t.Name) {
			return nil, nil, invalid("tools[%d]: tool %q is given twice", i, t.Name)
		}
		if len(t.Parameters) > 0 {
			var root map[string]any
			if err := json.Unmarshal(t.Parameters, &root); err != nil {
				return nil, nil, invalid("tools[%d]: tool %q: parameters is not a JSON Schema object", i, t.Name)
			}
		}
		names = append(names, t.Name)
		out = append(out, frontendTool{t})
	}
	return out, names, nil
}

// pending keeps every call it is asked about waiting: the calls of frontend tools, which the
// client answers.
var pending = assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) {
	return assistant.Pending(), nil
})

// split sorts a paused run's waiting calls: the calls of the client's tools made by the top
// run (top names its assistant), which the client answers with tool messages, and the others,
// which wait for a person and are interrupts.
func split(p *assistant.Paused, top string, frontend []string) (clientCalls, interrupts []assistant.ToolCall) {
	for _, c := range p.Waiting() {
		if c.Assistant == top && slices.Contains(frontend, c.Tool) {
			clientCalls = append(clientCalls, c)
		} else {
			interrupts = append(interrupts, c)
		}
	}
	return clientCalls, interrupts
}

// decide turns a request's resume entries and tool results into decisions on the paused run's
// waiting calls: an entry resolving an interrupt approves or refuses its call as its payload
// says, a cancelled one refuses it, and a tool message answers a client's call with its
// content. An entry naming no waiting interrupt is an error wrapping ErrUnknownInterrupt; a
// payload that is not ApprovalSchema's, one wrapping ErrInvalidInput.
func decide(p *assistant.Paused, top string, frontend []string, entries []ResumeEntry, results map[string]string) (map[string]assistant.Decision, error) {
	clientCalls, interrupts := split(p, top, frontend)
	out := map[string]assistant.Decision{}
	for i, e := range entries {
		if !slices.ContainsFunc(interrupts, func(c assistant.ToolCall) bool { return c.ID == e.InterruptID }) {
			ids := make([]string, 0, len(interrupts))
			for _, c := range interrupts {
				ids = append(ids, c.ID)
			}
			waiting := "none"
			if len(ids) > 0 {
				waiting = strings.Join(ids, ", ")
			}
			return nil, fmt.Errorf("%w: resume[%d] answers interrupt %q, which the thread does not wait for (waiting: %s)", ErrUnknownInterrupt, i, e.InterruptID, waiting)
		}
		if e.Status == ResumeCancelled {
			out[e.InterruptID] = assistant.Denied("the person cancelled the request")
			continue
		}
		var payload struct {
			Approved *bool  `json:"approved"`
			Reason   string `json:"reason"`
		}
		if len(e.Payload) > 0 {
			if err := json.Unmarshal(e.Payload, &payload); err != nil {
				return nil, invalid("resume[%d]: the payload of interrupt %q: %v", i, e.InterruptID, err)
			}
		}
		switch {
		case payload.Approved == nil:
			return nil, invalid(`resume[%d]: interrupt %q is resolved without a decision: give the payload {"approved": true} or {"approved": false, "reason": "..."}`, i, e.InterruptID)
		case *payload.Approved:
			out[e.InterruptID] = assistant.Approved()
		default:
			out[e.InterruptID] = assistant.Denied(payload.Reason)
		}
	}
	for _, c := range clientCalls {
		if r, ok := results[c.ID]; ok {
			out[c.ID] = assistant.Answered(r)
		}
	}
	return out, nil
}

// interruptsOf makes an interrupt of each call waiting for a person.
func interruptsOf(calls []assistant.ToolCall, runOf func(callID string) string) []Interrupt {
	out := make([]Interrupt, 0, len(calls))
	for _, c := range calls {
		out = append(out, Interrupt{
			SubagentRunID:  runOf(c.ID),
			ID:             c.ID,
			Reason:         ReasonApproval,
			Message:        fmt.Sprintf("%s asks to call %s", c.Assistant, c.Tool),
			ToolCallID:     c.ID,
			ResponseSchema: ApprovalSchema,
			Metadata:       map[string]any{"assistant": c.Assistant, "tool": c.Tool, "arguments": jsonOrText(c.Arguments)},
		})
	}
	return out
}

// Waiting returns what a paused run waits for, as a handler ends the run that paused: an
// interrupt for each call waiting for a person, and the ids of the calls of the client's
// tools (clientTools, by name) its top run made, which the client answers. A front end
// reopening a paused thread shows them.
func Waiting(p *assistant.Paused, clientTools []string) (interrupts []Interrupt, pendingToolCallIDs []string) {
	clientCalls, waiting := split(p, p.Assistant, clientTools)
	for _, c := range clientCalls {
		pendingToolCallIDs = append(pendingToolCallIDs, c.ID)
	}
	return interruptsOf(waiting, func(string) string { return "" }), pendingToolCallIDs
}
