package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Order is how Trajectory matches the calls of a run against the calls it expects.
type Order int

const (
	// Exactly: the run made exactly the expected calls, in order, and no other.
	Exactly Order = iota
	// InOrder: the run made the expected calls in order, other calls between them allowed.
	InOrder
	// Unordered: the run made each expected call, in any order, other calls allowed; two
	// expected calls need two calls.
	Unordered
)

// String names the order as a report says it: "exactly", "in order", "in any order".
func (o Order) String() string {
	switch o {
	case Exactly:
		return "exactly"
	case InOrder:
		return "in order"
	}
	return "in any order"
}

// Call is a tool call a trajectory expects: its tool, and, when Arguments is not nil, the
// members its arguments must have, each equal to the expected one (as JSON values); members
// not named may be anything. Assistant, when set, is the assistant that must make it; unset,
// any assistant of the run's tree.
type Call struct {
	Assistant string
	Tool      string
	Arguments map[string]any
}

// Trajectory asserts that the run's tree made the expected calls, matched as order says. The
// calls are read from the run itself (Observation.Calls), in the order their turns were
// made, each turn's in the model's order. The reason names the first expected call not
// matched, or the extra call of an Exactly trajectory.
func Trajectory[O any](order Order, calls ...Call) Evaluator[O] {
	name := "trajectory " + order.String()
	return Func(name, func(_ context.Context, o *Observation[O]) (Grade, error) {
		if reason, ok := matchTrajectory(order, calls, o.Calls); !ok {
			return Failed(reason), nil
		}
		return Passed(fmt.Sprintf("the %d expected calls, %s", len(calls), order)), nil
	})
}

// matchTrajectory matches got against want; the reason says why it does not.
func matchTrajectory(order Order, want []Call, got []ToolCall) (string, bool) {
	switch order {
	case Exactly:
		for i, w := range want {
			if i >= len(got) {
				return fmt.Sprintf("call %d: want %s, the run made only %d calls", i+1, w, len(got)), false
			}
			if !w.matches(got[i]) {
				return fmt.Sprintf("call %d: want %s, got %s", i+1, w, describe(got[i])), false
			}
		}
		if len(got) > len(want) {
			return fmt.Sprintf("call %d: %s, beyond the %d expected", len(want)+1, describe(got[len(want)]), len(want)), false
		}
	case InOrder:
		j := 0
		for i, w := range want {
			for j < len(got) && !w.matches(got[j]) {
				j++
			}
			if j == len(got) {
				return fmt.Sprintf("expected call %d, %s, not made after the ones before it (calls: %s)", i+1, w, list(got)), false
			}
			j++
		}
	default:
		used := make([]bool, len(got))
		for i, w := range want {
			found := false
			for j, g := range got {
				if !used[j] && w.matches(g) {
					used[j], found = true, true
					break
				}
			}
			if !found {
				return fmt.Sprintf("expected call %d, %s, not made (calls: %s)", i+1, w, list(got)), false
			}
		}
	}
	return "", true
}

func (w Call) matches(g ToolCall) bool {
	if w.Tool != g.Tool || w.Assistant != "" && w.Assistant != g.Assistant {
		return false
	}
	if w.Arguments == nil {
		return true
	}
	var args map[string]json.RawMessage
	if json.Unmarshal([]byte(g.Arguments), &args) != nil {
		return false
	}
	for k, v := range w.Arguments {
		want, err := json.Marshal(v)
		if err != nil || !sameJSON(want, args[k]) {
			return false
		}
	}
	return true
}

// sameJSON reports whether a and b are the same JSON value, whatever their spacing and the
// order of their members.
func sameJSON(a, b []byte) bool {
	if b == nil {
		return false
	}
	va, erra := asJSON(a)
	vb, errb := asJSON(b)
	return erra == nil && errb == nil && fmt.Sprint(va) == fmt.Sprint(vb)
}

func asJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	return v, dec.Decode(&v)
}

// String is the call as a reason names it: the tool, its arguments' JSON, the assistant.
func (w Call) String() string {
	s := w.Tool
	if w.Arguments != nil {
		b, _ := json.Marshal(w.Arguments)
		s += string(b)
	}
	if w.Assistant != "" {
		s += " by " + w.Assistant
	}
	return s
}

func describe(c ToolCall) string { return c.Tool + c.Arguments + " by " + c.Assistant }

func list(calls []ToolCall) string {
	if len(calls) == 0 {
		return "none"
	}
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Tool
	}
	return strings.Join(names, ", ")
}
