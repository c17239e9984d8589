package chattest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/anishathalye/porcupine"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/tmc/langchaingo/llms"
)

// record is one operation as a client saw it: what it called, what it got, and when it called
// and got it back on the clock every process shares (monotonicNow).
type record struct {
	Client int    `json:"client"`
	In     input  `json:"in"`
	Out    output `json:"out"`
	Call   int64  `json:"call"`
	Return int64  `json:"return"`
	Err    string `json:"err,omitempty"` // an error other than one wrapping chat.ErrNotFound
}

// operations returns the records as porcupine's operations.
func operations(recs []record) []porcupine.Operation {
	ops := make([]porcupine.Operation, len(recs))
	for i, r := range recs {
		in := r.In
		in.called, in.returned = r.Call, r.Return
		ops[i] = porcupine.Operation{ClientId: r.Client, Input: in, Call: r.Call, Output: r.Out, Return: r.Return}
	}
	return ops
}

// chatsPerHistory is how many chats the operations of a history spread over.
const chatsPerHistory = 2

// chatID returns the ID of chat c of history h.
func chatID(h, c int) chat.ID {
	return chat.ID{Tenant: "linearizable", User: "u", Chat: fmt.Sprintf("history %d chat %d", h, c)}
}

// workload is what one process does for one history: clients goroutines, each making ops
// random operations in turn on the history's chats of store.
type workload struct {
	store   chat.Store
	history int
	process int // 0 for the process that checks, 1 for another
	clients int
	ops     int // per client
	seed    uint64
}

// run runs the workload and returns every operation it made, in no particular order.
func (w workload) run(ctx context.Context) []record {
	seen := &recentStates{}
	recs := make([][]record, w.clients)
	var wg sync.WaitGroup
	for c := range w.clients {
		wg.Go(func() {
			client := w.process*w.clients + c
			rng := rand.New(rand.NewPCG(w.seed, uint64(client)))
			for i := range w.ops {
				in := w.next(rng, seen, client, i)
				recs[c] = append(recs[c], do(ctx, w.store, w.history, client, in))
				seen.note(recs[c][len(recs[c])-1])
			}
		})
	}
	wg.Wait()
	var all []record
	for _, r := range recs {
		all = append(all, r...)
	}
	return all
}

// next returns the input of operation i of client: a random method on a random chat. The
// texts and states it writes are unique in the history (they name the client and the
// operation); a TakeStateIf mostly wants a state the process saw lately, so that it can hit.
func (w workload) next(rng *rand.Rand, seen *recentStates, client, i int) input {
	in := input{Chat: rng.IntN(chatsPerHistory)}
	unique := fmt.Sprintf("%d.%d", client, i)
	switch n := rng.IntN(100); {
	case n < 22:
		in.Kind = opAppend
		count := 1 + rng.IntN(3)
		if n == 0 {
			count = 0 // creates the chat, adds nothing
		}
		for k := range count {
			in.Texts = append(in.Texts, fmt.Sprintf("m%s.%d", unique, k))
		}
	case n < 40:
		in.Kind = opLoad
	case n < 54:
		in.Kind, in.State = opSetState, "s"+unique
	case n < 57:
		in.Kind, in.Nil = opSetState, true
	case n < 69:
		in.Kind = opState
	case n < 79:
		in.Kind = opTakeState
	case n < 96:
		in.Kind = opTakeStateIf
		switch m := rng.IntN(10); {
		case m < 7:
			if st, ok := seen.pick(rng, in.Chat); ok {
				in.State = st
				break
			}
			fallthrough
		case m < 8:
			in.State = "never " + unique // a state no one sets
		case m < 9:
			in.Nil = true
		default:
			// an empty want, which matches no state
		}
	default:
		in.Kind = opDelete
	}
	return in
}

// do calls the operation in on chat in.Chat of history h, and records it.
func do(ctx context.Context, s chat.Store, h, client int, in input) record {
	id := chatID(h, in.Chat)
	r := record{Client: client, In: in}
	var err error
	var state []byte
	r.Call = monotonicNow()
	switch in.Kind {
	case opAppend:
		msgs := make([]llms.MessageContent, len(in.Texts))
		for k, text := range in.Texts {
			msgs[k] = llms.TextParts(llms.ChatMessageTypeHuman, text)
		}
		err = s.Append(ctx, id, msgs)
	case opLoad:
		var msgs []llms.MessageContent
		msgs, err = s.Load(ctx, id)
		r.Out.Texts = joinTexts(textsOf(msgs))
	case opSetState:
		err = s.SetState(ctx, id, stateBytes(in))
	case opState:
		state, err = s.State(ctx, id)
	case opTakeState:
		state, err = s.TakeState(ctx, id)
	case opTakeStateIf:
		r.Out.Taken, err = s.TakeStateIf(ctx, id, stateBytes(in))
	case opDelete:
		err = s.Delete(ctx, id)
	}
	r.Return = monotonicNow()
	r.Out.State, r.Out.HasState = string(state), state != nil
	switch {
	case errors.Is(err, chat.ErrNotFound):
		r.Out = output{NotFound: true}
	case err != nil:
		r.Err = err.Error()
	}
	return r
}

// stateBytes returns the state in carries as SetState and TakeStateIf take it.
func stateBytes(in input) []byte {
	if in.Nil {
		return nil
	}
	return []byte(in.State)
}

// textsOf returns the text of each message, or a description of a message that is not one
// text of a human, as the workload appends: one the model never matches.
func textsOf(msgs []llms.MessageContent) []string {
	texts := make([]string, len(msgs))
	for i, m := range msgs {
		if len(m.Parts) == 1 && m.Role == llms.ChatMessageTypeHuman {
			if p, ok := m.Parts[0].(llms.TextContent); ok && !strings.Contains(p.Text, " ") {
				texts[i] = p.Text
				continue
			}
		}
		texts[i] = fmt.Sprintf("(not-appended:%q)", fmt.Sprint(m))
	}
	return texts
}

// recentStates holds the states a process's clients set or read lately, by chat: the wants
// of their TakeStateIfs.
type recentStates struct {
	mu     sync.Mutex
	byChat [chatsPerHistory][]string
}

// keep is how many states a chat's list holds, the latest.
const keep = 2

// note keeps the state r set or read, if any.
func (rs *recentStates) note(r record) {
	var st string
	switch {
	case r.In.Kind == opSetState && !r.In.Nil:
		st = r.In.State
	case (r.In.Kind == opState || r.In.Kind == opTakeState) && r.Out.HasState && r.Out.State != "":
		st = r.Out.State
	default:
		return
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	list := append(rs.byChat[r.In.Chat], st)
	rs.byChat[r.In.Chat] = list[max(0, len(list)-keep):]
}

// pick returns one of the states kept for chat c, if there is one.
func (rs *recentStates) pick(rng *rand.Rand, c int) (string, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	list := rs.byChat[c]
	if len(list) == 0 {
		return "", false
	}
	return list[rng.IntN(len(list))], true
}
