package chattest

import (
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/anishathalye/porcupine"
)

// opKind names a method of chat.Store, called on one chat.
type opKind string

const (
	opAppend      opKind = "Append"
	opLoad        opKind = "Load"
	opSetState    opKind = "SetState"
	opState       opKind = "State"
	opTakeState   opKind = "TakeState"
	opTakeStateIf opKind = "TakeStateIf"
	opDelete      opKind = "Delete"
)

// input is what an operation was called with. The texts Append adds and the states SetState
// keeps are each unique in a history, so that what a read returns names the writes it saw.
type input struct {
	Chat  int      `json:"chat"` // which of the history's chats
	Kind  opKind   `json:"kind"`
	Texts []string `json:"texts,omitempty"` // Append's messages, one text each
	State string   `json:"state,omitempty"` // SetState's state, TakeStateIf's want
	Nil   bool     `json:"nil,omitempty"`   // SetState(nil), TakeStateIf(nil): State is ""

	// When the operation was called and returned, as porcupine has them but does not give the
	// model: an Append's are the bounds of the orders a Load may reveal (see pendingAppends).
	called, returned int64
}

// output is what an operation returned. It is comparable, as the model's state is.
type output struct {
	NotFound bool   `json:"notFound,omitempty"` // an error wrapping chat.ErrNotFound
	Texts    string `json:"texts,omitempty"`    // Load's messages, as joined by joinTexts
	State    string `json:"state,omitempty"`    // State's and TakeState's state
	HasState bool   `json:"hasState,omitempty"` // State and TakeState returned a state, not nil
	Taken    bool   `json:"taken,omitempty"`    // TakeStateIf's answer
}

// chatState is the model's state of one chat: whether it exists; the texts of its messages,
// those in the order a Load revealed or the Append that created the chat made (as joined by
// joinTexts), then the Appends made since, whose order no Load has revealed yet; and its
// state, if it has one. It is comparable, so that porcupine's default equality (==) is the
// model's.
type chatState struct {
	exists   bool
	texts    string
	pending  pendingAppends
	state    string
	hasState bool
}

// joinTexts joins texts as the model keeps them: each followed by a space, so that appending
// a call's texts to the chat's is concatenating the two. The texts a history appends hold no
// space.
func joinTexts(texts []string) string {
	var b strings.Builder
	for _, t := range texts {
		b.WriteString(t)
		b.WriteByte(' ')
	}
	return b.String()
}

// chatModel is the sequential specification of one chat, as chat.Store's contract states it,
// checked chat by chat: a history's operations are partitioned by the chat they are on.
//
//   - Append and SetState create the chat; Delete removes it, its messages and its state. Every
//     other call, and Delete, answers not found for a chat that does not exist.
//   - Append adds all of its messages at once, after those already there; Load returns them.
//   - SetState keeps a state, SetState(nil) removes it, State returns it. TakeState returns it
//     (or none) and removes it; TakeStateIf removes it only when it equals a non-empty want,
//     and says whether it did.
//
// Appends are kept as pendingAppends until a Load reveals their order: with them in the order
// they were linearized, porcupine's search tried every order of a chat's Appends, times every
// order of its SetStates, before the one a Load needed, and took minutes on some histories of
// 200 operations of SQLite, where each write waits its turn.
var chatModel = func() porcupine.Model {
	seed := maphash.MakeSeed()
	return porcupine.Model{
		Partition: partition,
		Init:      func() any { return chatState{} },
		Step: func(s, in, out any) (bool, any) {
			return step(s.(chatState), in.(input), out.(output))
		},
		Hash: func(s any) uint64 { return maphash.Comparable(seed, s.(chatState)) },
		DescribeOperation: func(in, out any) string {
			return describeOperation(in.(input), out.(output))
		},
		DescribeState: func(s any) string { return describeState(s.(chatState)) },
	}
}()

// partition splits a history into the operations of each chat.
func partition(history []porcupine.Operation) [][]porcupine.Operation {
	byChat := map[int][]porcupine.Operation{}
	var chats []int
	for _, op := range history {
		c := op.Input.(input).Chat
		if _, ok := byChat[c]; !ok {
			chats = append(chats, c)
		}
		byChat[c] = append(byChat[c], op)
	}
	parts := make([][]porcupine.Operation, 0, len(chats))
	for _, c := range chats {
		parts = append(parts, byChat[c])
	}
	return parts
}

// step reports whether an operation called with in can return out on a chat in state s, and
// the chat's state after it.
func step(s chatState, in input, out output) (bool, chatState) {
	switch in.Kind {
	case opAppend:
		if s.exists {
			s.pending = s.pending.with(in.called, in.returned, in.Texts)
		} else {
			// The Append that creates the chat comes first, whatever a Load reveals: calls
			// between it and the others found the chat because it had come.
			s.exists, s.texts = true, joinTexts(in.Texts)
		}
		return out == output{}, s
	case opSetState:
		s.exists, s.state, s.hasState = true, in.State, !in.Nil
		return out == output{}, s
	}
	if !s.exists {
		return out == output{NotFound: true}, s
	}
	switch in.Kind {
	case opDelete:
		return out == output{}, chatState{}
	case opLoad:
		rest, ok := strings.CutPrefix(out.Texts, s.texts)
		if !ok || out != (output{Texts: out.Texts}) || !s.pending.revealedIn(rest) {
			return false, s
		}
		s.texts, s.pending = out.Texts, ""
		return true, s
	case opState:
		return out == output{State: s.state, HasState: s.hasState}, s
	case opTakeState:
		ok := out == output{State: s.state, HasState: s.hasState}
		s.state, s.hasState = "", false
		return ok, s
	case opTakeStateIf:
		take := s.hasState && !in.Nil && in.State != "" && in.State == s.state
		if take {
			s.state, s.hasState = "", false
		}
		return out == output{Taken: take}, s
	}
	panic(fmt.Sprintf("chattest: an operation of unknown kind %q", in.Kind))
}

func describeOperation(in input, out output) string {
	var call string
	switch in.Kind {
	case opAppend:
		call = fmt.Sprintf("Append(%s)", strings.Join(in.Texts, " "))
	case opSetState, opTakeStateIf:
		call = fmt.Sprintf("%s(%s)", in.Kind, describeBytes(in.State, !in.Nil))
	default:
		call = string(in.Kind) + "()"
	}
	call = fmt.Sprintf("chat %d: %s", in.Chat, call)
	switch {
	case out.NotFound:
		return call + " → not found"
	case in.Kind == opLoad:
		return fmt.Sprintf("%s → [%s]", call, strings.TrimSpace(out.Texts))
	case in.Kind == opState || in.Kind == opTakeState:
		return call + " → " + describeBytes(out.State, out.HasState)
	case in.Kind == opTakeStateIf:
		return fmt.Sprintf("%s → %t", call, out.Taken)
	}
	return call
}

func describeState(s chatState) string {
	if !s.exists {
		return "no chat"
	}
	msgs := strings.TrimSpace(s.texts)
	if s.pending != "" {
		msgs += " then, in an order a Load reveals, " + s.pending.String()
	}
	return fmt.Sprintf("messages [%s], state %s", msgs, describeBytes(s.state, s.hasState))
}

func describeBytes(s string, ok bool) string {
	if !ok {
		return "nil"
	}
	return fmt.Sprintf("%q", s)
}
