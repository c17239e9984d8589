package chattest

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/tmc/langchaingo/llms"
)

// The tests here check the checker: that porcupine, with the model of one chat, tells stores
// that break chat.Store's promises from stores that keep them — a check that cannot fail
// would prove nothing about the stores that pass it.

// op makes a record of history 0 by hand: client calls in at call and gets out at ret.
func op(client int, call, ret int64, in input, out output) record {
	return record{Client: client, In: in, Out: out, Call: call, Return: ret}
}

func TestModelTellsLinearizableHistories(t *testing.T) {
	t.Parallel()
	appendOf := func(texts ...string) input { return input{Kind: opAppend, Texts: texts} }
	load := input{Kind: opLoad}
	loaded := func(texts ...string) output { return output{Texts: joinTexts(texts)} }
	set := func(st string) input { return input{Kind: opSetState, State: st} }
	take := input{Kind: opTakeState}
	took := func(st string) output { return output{State: st, HasState: true} }
	takeIf := func(st string) input { return input{Kind: opTakeStateIf, State: st} }
	notFound := output{NotFound: true}
	tests := []struct {
		name string
		recs []record
		want porcupine.CheckResult
	}{
		{"a chat never written is not found", []record{
			op(0, 1, 2, load, notFound),
			op(0, 3, 4, input{Kind: opState}, notFound),
			op(0, 5, 6, take, notFound),
			op(0, 7, 8, takeIf("s"), notFound),
			op(0, 9, 10, input{Kind: opDelete}, notFound),
		}, porcupine.Ok},
		{"a chat appended to is found", []record{
			op(0, 1, 2, appendOf("a"), output{}),
			op(0, 3, 4, load, notFound),
		}, porcupine.Illegal},
		{"overlapping appends in either order", []record{
			op(0, 1, 5, appendOf("a1", "a2"), output{}),
			op(1, 2, 6, appendOf("b1", "b2"), output{}),
			op(2, 7, 8, load, loaded("b1", "b2", "a1", "a2")),
		}, porcupine.Ok},
		{"a load in the middle of an append", []record{
			op(0, 1, 5, appendOf("a1", "a2"), output{}),
			op(1, 2, 4, load, loaded("a1")),
		}, porcupine.Illegal},
		{"interleaved appends", []record{
			op(0, 1, 5, appendOf("a1", "a2"), output{}),
			op(1, 2, 6, appendOf("b1", "b2"), output{}),
			op(2, 7, 8, load, loaded("a1", "b1", "a2", "b2")),
		}, porcupine.Illegal},
		{"a load that misses an append that returned before it", []record{
			op(0, 1, 2, appendOf("a"), output{}),
			op(0, 3, 4, appendOf("b"), output{}),
			op(1, 5, 6, load, loaded("a")),
		}, porcupine.Illegal},
		{"a load that puts an append before one that returned before it was called", []record{
			op(0, 0, 1, set("s"), output{}),
			op(0, 1, 2, appendOf("a"), output{}),
			op(1, 3, 4, appendOf("b"), output{}),
			op(2, 5, 6, load, loaded("b", "a")),
		}, porcupine.Illegal},
		{"a load that reveals some appends, then another the rest", []record{
			op(0, 1, 10, appendOf("a"), output{}),
			op(1, 2, 3, appendOf("b1", "b2"), output{}),
			op(2, 4, 5, load, loaded("b1", "b2")),
			op(1, 6, 7, appendOf("c"), output{}),
			op(2, 11, 12, load, loaded("b1", "b2", "c", "a")),
		}, porcupine.Ok},
		{"the append that created the chat comes first", []record{
			op(0, 1, 10, appendOf("a"), output{}),
			op(1, 2, 3, input{Kind: opState}, output{}), // found: a had come
			op(1, 4, 5, appendOf("b"), output{}),
			op(2, 11, 12, load, loaded("b", "a")),
		}, porcupine.Illegal},
		{"the append that created the chat is any that could", []record{
			op(0, 1, 10, appendOf("a"), output{}),
			op(1, 2, 5, appendOf("b"), output{}),
			op(2, 6, 7, input{Kind: opState}, output{}),
			op(2, 11, 12, load, loaded("b", "a")),
		}, porcupine.Ok},
		{"a load that reveals an append twice", []record{
			op(0, 1, 2, appendOf("a"), output{}),
			op(2, 3, 4, load, loaded("a", "a")),
		}, porcupine.Illegal},
		{"a load concurrent with an append may miss it", []record{
			op(0, 1, 2, appendOf("a"), output{}),
			op(0, 3, 6, appendOf("b"), output{}),
			op(1, 4, 5, load, loaded("a")),
		}, porcupine.Ok},
		{"two takes at once, one gets the state", []record{
			op(0, 1, 2, set("s"), output{}),
			op(1, 3, 6, take, took("s")),
			op(2, 4, 5, take, output{}),
		}, porcupine.Ok},
		{"two takes at once, both get the state", []record{
			op(0, 1, 2, set("s"), output{}),
			op(1, 3, 6, take, took("s")),
			op(2, 4, 5, take, took("s")),
		}, porcupine.Illegal},
		{"two conditional takes at once, both take", []record{
			op(0, 1, 2, set("s"), output{}),
			op(1, 3, 6, takeIf("s"), output{Taken: true}),
			op(2, 4, 5, takeIf("s"), output{Taken: true}),
		}, porcupine.Illegal},
		{"a conditional take of another state", []record{
			op(0, 1, 2, set("s"), output{}),
			op(1, 3, 4, takeIf("t"), output{Taken: true}),
		}, porcupine.Illegal},
		{"an empty want takes nothing", []record{
			op(0, 1, 2, set("s"), output{}),
			op(1, 3, 4, takeIf(""), output{}),
			op(1, 5, 6, input{Kind: opState}, took("s")),
		}, porcupine.Ok},
		{"a state set after a take is kept", []record{
			op(0, 1, 2, set("s"), output{}),
			op(1, 3, 4, take, took("s")),
			op(0, 5, 6, set("t"), output{}),
			op(1, 7, 8, input{Kind: opState}, took("t")),
		}, porcupine.Ok},
		{"SetState(nil) removes the state", []record{
			op(0, 1, 2, set("s"), output{}),
			op(0, 3, 4, input{Kind: opSetState, Nil: true}, output{}),
			op(1, 5, 6, take, took("s")),
		}, porcupine.Illegal},
		{"delete removes messages and state", []record{
			op(0, 1, 2, appendOf("a"), output{}),
			op(0, 3, 4, set("s"), output{}),
			op(0, 5, 6, input{Kind: opDelete}, output{}),
			op(1, 7, 8, input{Kind: opState}, notFound),
			op(1, 9, 10, appendOf("b"), output{}),
			op(1, 11, 12, load, loaded("b")),
			op(1, 13, 14, take, output{}),
		}, porcupine.Ok},
		{"chats are apart", []record{
			op(0, 1, 2, appendOf("a"), output{}),
			op(1, 3, 4, input{Chat: 1, Kind: opLoad}, notFound),
		}, porcupine.Ok},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := porcupine.CheckOperationsTimeout(chatModel, operations(tt.recs), checkTimeout); got != tt.want {
				t.Errorf("check = %s, want %s", got, tt.want)
			}
		})
	}
}

// barrier lets n callers of wait go on once all n have come.
type barrier struct{ wg sync.WaitGroup }

func newBarrier(n int) *barrier {
	b := &barrier{}
	b.wg.Add(n)
	return b
}

func (b *barrier) wait() {
	b.wg.Done()
	b.wg.Wait()
}

// takeInTwoSteps is a store whose TakeState reads the state, then removes it: the two calls
// of the scenario both read it before either removes it.
type takeInTwoSteps struct {
	chat.Store
	read *barrier
}

func (s takeInTwoSteps) TakeState(ctx context.Context, id chat.ID) ([]byte, error) {
	st, err := s.State(ctx, id)
	if err != nil {
		return nil, err
	}
	s.read.wait()
	return st, s.SetState(ctx, id, nil)
}

// appendOneByOne is a store whose Append adds a call's messages one at a time: the two calls
// of the scenario both add their first before either adds its second.
type appendOneByOne struct {
	chat.Store
	first *barrier
}

func (s appendOneByOne) Append(ctx context.Context, id chat.ID, msgs []llms.MessageContent) error {
	for i, m := range msgs {
		if err := s.Store.Append(ctx, id, []llms.MessageContent{m}); err != nil {
			return err
		}
		if i == 0 {
			s.first.wait()
		}
	}
	return nil
}

// staleLoad is a store whose Load answers what the chat held at the Load before.
type staleLoad struct {
	chat.Store
	mu   sync.Mutex
	last map[chat.ID]loaded
}

type loaded struct {
	msgs []llms.MessageContent
	err  error
}

func (s *staleLoad) Load(ctx context.Context, id chat.ID) ([]llms.MessageContent, error) {
	msgs, err := s.Store.Load(ctx, id)
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, ok := s.last[id]
	s.last[id] = loaded{msgs, err}
	if ok {
		return prev.msgs, prev.err
	}
	return msgs, err
}

// takeAnyState is a store whose TakeStateIf takes whatever state the chat has.
type takeAnyState struct{ chat.Store }

func (s takeAnyState) TakeStateIf(ctx context.Context, id chat.ID, want []byte) (bool, error) {
	st, err := s.TakeState(ctx, id)
	return st != nil, err
}

// TestBrokenStoresAreCaught runs scenarios on chat.Memory and on stores broken in the ways a
// store can break its promises, and checks porcupine passes the one and fails the others.
func TestBrokenStoresAreCaught(t *testing.T) {
	t.Parallel()
	// Each scenario's calls run in steps: the calls of a step at once, a step after the last.
	type step []input
	tests := []struct {
		name   string
		broken func(chat.Store) chat.Store
		steps  []step
	}{
		{
			"TakeState that reads, then removes",
			func(s chat.Store) chat.Store { return takeInTwoSteps{s, newBarrier(2)} },
			[]step{{{Kind: opSetState, State: "paused"}}, {{Kind: opTakeState}, {Kind: opTakeState}}},
		},
		{
			"Append that adds its messages one by one",
			func(s chat.Store) chat.Store { return appendOneByOne{s, newBarrier(2)} },
			[]step{{{Kind: opAppend, Texts: []string{"a1", "a2"}}, {Kind: opAppend, Texts: []string{"b1", "b2"}}}, {{Kind: opLoad}}},
		},
		{
			"Load of a stale copy",
			func(s chat.Store) chat.Store { return &staleLoad{Store: s, last: map[chat.ID]loaded{}} },
			[]step{{{Kind: opAppend, Texts: []string{"a"}}}, {{Kind: opLoad}}, {{Kind: opAppend, Texts: []string{"b"}}}, {{Kind: opLoad}}},
		},
		{
			"TakeStateIf that takes another state",
			func(s chat.Store) chat.Store { return takeAnyState{s} },
			[]step{{{Kind: opSetState, State: "paused 2"}}, {{Kind: opTakeStateIf, State: "paused 1"}}},
		},
	}
	run := func(s chat.Store, steps []step) porcupine.CheckResult {
		var recs []record
		for _, st := range steps {
			got := make([]record, len(st))
			var wg sync.WaitGroup
			for i, in := range st {
				wg.Go(func() { got[i] = do(t.Context(), s, 0, i, in) })
			}
			wg.Wait()
			recs = append(recs, got...)
		}
		for _, r := range recs {
			if r.Err != "" {
				t.Fatalf("%s: %s", describeOperation(r.In, r.Out), r.Err)
			}
		}
		return porcupine.CheckOperationsTimeout(chatModel, operations(recs), checkTimeout)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := run(chat.NewMemory(), tt.steps); got != porcupine.Ok {
				t.Errorf("the scenario on chat.Memory: %s, want %s", got, porcupine.Ok)
			}
			if got := run(tt.broken(chat.NewMemory()), tt.steps); got != porcupine.Illegal {
				t.Errorf("the scenario on the broken store: %s, want %s", got, porcupine.Illegal)
			}
		})
	}
}

// TestRandomHistoriesCatchBrokenStores checks that the random histories CheckLinearizable
// records, not only scenarios made for the purpose, catch a broken store, and that the failure
// leaves a visualization of the history.
func TestRandomHistoriesCatchBrokenStores(t *testing.T) {
	t.Parallel()
	for name, broken := range map[string]func() chat.Store{
		"Load of a stale copy":                 func() chat.Store { return &staleLoad{Store: chat.NewMemory(), last: map[chat.ID]loaded{}} },
		"TakeStateIf that takes another state": func() chat.Store { return takeAnyState{chat.NewMemory()} },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := workload{store: broken(), clients: 8, ops: 25, seed: 1}
			ops := operations(w.run(t.Context()))
			if got := porcupine.CheckOperationsTimeout(chatModel, ops, checkTimeout); got != porcupine.Illegal {
				t.Fatalf("a history of %d operations on the broken store: %s, want %s", len(ops), got, porcupine.Illegal)
			}
			path, err := visualize(t.TempDir(), "history.html", ops)
			if err != nil {
				t.Fatal(err)
			}
			if html, err := os.ReadFile(path); err != nil || !strings.Contains(string(html), "<html") {
				t.Errorf("the visualization at %s: %d bytes, %v; want an HTML page", path, len(html), err)
			}
		})
	}
}

func TestUndecidedIsNotAPass(t *testing.T) {
	t.Parallel()
	for _, result := range []porcupine.CheckResult{porcupine.Illegal, porcupine.Unknown} {
		if verdict(result) == nil {
			t.Errorf("verdict(%s) = nil, want an error", result)
		}
	}
	if err := verdict(porcupine.Ok); err != nil {
		t.Errorf("verdict(Ok) = %v, want nil", err)
	}
}
