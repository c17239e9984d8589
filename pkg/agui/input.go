package agui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// RunAgentInput is the request that starts a run: the body HttpAgent POSTs. ThreadID, RunID
// and Messages are required; the rest is optional. State, ForwardedProps are any JSON value,
// nil when absent (a JSON null reads as absent).
type RunAgentInput struct {
	ThreadID        string          `json:"threadId"`
	RunID           string          `json:"runId"`
	ProtocolVersion string          `json:"protocolVersion,omitempty"`
	ParentRunID     string          `json:"parentRunId,omitempty"`
	State           json.RawMessage `json:"state,omitempty"`
	Messages        []Message       `json:"messages"`
	Tools           []Tool          `json:"tools"`
	Context         []Context       `json:"context"`
	ForwardedProps  json.RawMessage `json:"forwardedProps,omitempty"`
	// Resume answers the interrupts the previous run on the thread ended with.
	Resume []ResumeEntry `json:"resume,omitempty"`
}

// MarshalJSON writes the input with empty arrays, not null, for nil Messages, Tools and
// Context.
func (in RunAgentInput) MarshalJSON() ([]byte, error) {
	type plain RunAgentInput
	p := plain(in)
	if p.Messages == nil {
		p.Messages = []Message{}
	}
	if p.Tools == nil {
		p.Tools = []Tool{}
	}
	if p.Context == nil {
		p.Context = []Context{}
	}
	return json.Marshal(p)
}

// Tool is a tool the client offers the agent: a frontend tool, run by the client. Parameters
// is its arguments' JSON Schema, nil when absent.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Metadata    map[string]any  `json:"metadata,omitempty"`
}

// Context is a named piece of ambient information given to the agent for the run.
type Context struct {
	Description string `json:"description"`
	Value       string `json:"value"`
}

// ResumeStatus is how a resume entry answers its interrupt.
type ResumeStatus string

// The statuses of a resume entry.
const (
	ResumeResolved  ResumeStatus = "resolved"
	ResumeCancelled ResumeStatus = "cancelled"
)

// ResumeEntry answers one [Interrupt], on the run that continues from it. Payload is the
// answer, shaped by the interrupt's ResponseSchema; nil when absent.
type ResumeEntry struct {
	InterruptID string          `json:"interruptId"`
	Status      ResumeStatus    `json:"status"`
	Payload     json.RawMessage `json:"payload,omitempty"`
	Metadata    map[string]any  `json:"metadata,omitempty"`
}

// ErrInvalidInput is wrapped by every error [DecodeInput] returns for a body that is not a
// valid RunAgentInput: a handler answers it with 400 Bad Request and the error's text.
var ErrInvalidInput = errors.New("agui: invalid RunAgentInput")

// DecodeInput reads one RunAgentInput from r and checks it: threadId, runId and messages are
// present (the ids not empty), every message has an id and a known role with content of the
// right shape, every tool a name, every resume entry an interrupt id and a status of resolved
// or cancelled, and nothing follows the object. Members the protocol does not define are
// ignored, as its objects are open. An error wraps [ErrInvalidInput] and names the first
// fault, such as `messages[2]: message "m3": unknown role "robot"`; an error reading r is
// returned as it is.
func DecodeInput(r io.Reader) (*RunAgentInput, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var wire struct {
		RunAgentInput
		ThreadID *string            `json:"threadId"`
		RunID    *string            `json:"runId"`
		Messages *[]json.RawMessage `json:"messages"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&wire); err != nil {
		return nil, invalid("%v", err)
	}
	if dec.More() {
		return nil, invalid("the body holds more than one JSON value")
	}
	in := wire.RunAgentInput
	switch {
	case wire.ThreadID == nil || *wire.ThreadID == "":
		return nil, invalid("threadId is missing")
	case wire.RunID == nil || *wire.RunID == "":
		return nil, invalid("runId is missing")
	case wire.Messages == nil:
		return nil, invalid("messages is missing (an empty conversation is [])")
	}
	in.ThreadID, in.RunID = *wire.ThreadID, *wire.RunID
	in.Messages = make([]Message, len(*wire.Messages))
	for i, raw := range *wire.Messages {
		if err := json.Unmarshal(raw, &in.Messages[i]); err != nil {
			return nil, invalid("messages[%d]: %v", i, err)
		}
	}
	for i, t := range in.Tools {
		if t.Name == "" {
			return nil, invalid("tools[%d]: the tool has no name", i)
		}
		in.Tools[i].Parameters = absentIfNull(t.Parameters)
	}
	for i, e := range in.Resume {
		if e.InterruptID == "" {
			return nil, invalid("resume[%d]: the entry has no interruptId", i)
		}
		if e.Status != ResumeResolved && e.Status != ResumeCancelled {
			return nil, invalid("resume[%d]: status %q is neither resolved nor cancelled", i, e.Status)
		}
		in.Resume[i].Payload = absentIfNull(e.Payload)
	}
	in.State = absentIfNull(in.State)
	in.ForwardedProps = absentIfNull(in.ForwardedProps)
	return &in, nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidInput, fmt.Sprintf(format, args...))
}

func absentIfNull(raw json.RawMessage) json.RawMessage {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	return raw
}

type inputKey struct{}

// InputFrom returns the RunAgentInput of the request a run serves, from the context of the
// run's steps — its tools, its vars function (assistant.WithVarsFunc), its middleware — so
// that they can read what the handler does not use itself: State, Context and
// ForwardedProps. It is the caller's to read, not to change.
func InputFrom(ctx context.Context) (*RunAgentInput, bool) {
	in, ok := ctx.Value(inputKey{}).(*RunAgentInput)
	return in, ok
}

func withInput(ctx context.Context, in *RunAgentInput) context.Context {
	return context.WithValue(ctx, inputKey{}, in)
}
