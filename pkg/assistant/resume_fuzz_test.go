package assistant_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// FuzzResume resumes paused states — real ones, marshalled, and the fuzzer's mutations of
// them — in a fresh tree of assistants, with a verdict for each waiting call. Resuming never
// panics, and never runs a tool but for a call that the state holds, in the run of the
// assistant that runs it, as approved or queued, or as waiting and approved now: a tool runs
// at most as many times as the state holds such calls of it with those arguments. The fresh
// tree's models answer only in text, so every tool that runs was called by the state.
func FuzzResume(f *testing.F) {
	for i, state := range pausedStates(f) {
		f.Add(state, []byte{byte(i), byte(i + 1)})
		f.Add(state, []byte(nil)) // every waiting call approved
	}
	f.Fuzz(func(t *testing.T, state, verdicts []byte) {
		var p assistant.Paused
		if json.Unmarshal(state, &p) != nil {
			return
		}
		decisions := map[string]assistant.Decision{}
		for i, c := range p.Waiting() {
			var v byte
			if i < len(verdicts) {
				v = verdicts[i]
			}
			switch v % 4 {
			case 0:
				decisions[c.ID] = assistant.Approved()
			case 1:
				decisions[c.ID] = assistant.Denied("fuzz")
			case 2:
				decisions[c.ID] = assistant.Pending()
			} // 3: no decision
		}
		allowed := map[toolRun]int{}
		allowRuns(allowed, &p, decisions)

		store := chat.NewMemory()
		ctx := testContext(t)
		if p.Chat != nil {
			_ = store.SetState(ctx, *p.Chat, state) // where Resume takes it from
		}
		var ran toolRuns
		tree := resumers(store, &ran)
		a, ok := tree[p.Assistant]
		if !ok {
			a = tree["top"]
		}
		res, err := a.Resume(ctx, &p, decisions)
		switch {
		case err == nil && res == nil:
			t.Fatal("Resume returned neither a Result nor an error")
		case err == nil && res.Stop == assistant.StopPending && res.Paused == nil:
			t.Error("Resume paused again without a paused state")
		case err == nil && res.Stop != assistant.StopPending && res.Stop != assistant.StopAnswer:
			t.Errorf("Resume: Stop %q without an error", res.Stop)
		}
		for _, r := range ran.all() {
			if allowed[r] == 0 {
				t.Errorf("%s ran %s(%s), which the state does not hold as approved or queued (decisions %v)", r.assistant, r.tool, r.args, decisions)
				continue
			}
			allowed[r]--
		}
	})
}

// toolRun is a call of a leaf tool of the resuming tree: by which assistant, of which tool,
// with which arguments (as the tool decoded them, encoded again).
type toolRun struct{ assistant, tool, args string }

// toolRuns records the leaf tool calls of a tree, from its runs' goroutines.
type toolRuns struct {
	mu   sync.Mutex
	runs []toolRun
}

func (r *toolRuns) add(run toolRun) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs = append(r.runs, run)
}

func (r *toolRuns) all() []toolRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]toolRun(nil), r.runs...)
}

// leafArgs decodes and encodes again the arguments of the leaf tool name, as the tool gets
// them: "" when they do not decode, or the tool is not a leaf.
func leafArgs(name, args string) string {
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	var v any
	switch name {
	case "send_mail":
		v = new(mailArgs)
	case "lookup":
		v = new(cityArgs)
	default:
		return ""
	}
	if json.Unmarshal([]byte(args), v) != nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// allowRuns counts in allowed the leaf tool calls that resuming p may run: its calls and its
// delegated runs' that are approved, queued, or waiting and approved by decisions.
func allowRuns(allowed map[toolRun]int, p *assistant.Paused, decisions map[string]assistant.Decision) {
	for _, c := range p.Calls {
		switch c.State {
		case "approved", "queued":
		case "waiting":
			if decisions[c.ID].Verdict != assistant.VerdictApprove {
				continue
			}
		case "nested":
			// A nested call is given to its tool to resume the run it delegated to. A tool
			// that delegates nothing runs it as a call: the state can say as much with
			// "queued", and a tool of the user's that wraps an AsTool tool is one that
			// delegates, which the assistant cannot tell before it runs.
			if c.Nested != nil {
				allowRuns(allowed, c.Nested, decisions)
			}
		default:
			continue
		}
		if args := leafArgs(c.Tool, c.Arguments); args != "" {
			allowed[toolRun{p.Assistant, c.Tool, args}]++
		}
	}
}

// resumers is the tree of assistants that resumes the paused states of pausedStates — top
// delegates to middle, suba and subb, middle to mailer — with models that only answer in
// text, and leaf tools that record their calls in ran.
func resumers(store chat.Store, ran *toolRuns) map[string]*assistant.Assistant[string] {
	text := llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply { return llmtest.Text("ok") }).NoRecord()
	leaf := func(owner string) (send, lookup tool.Tool) {
		send = tool.Func("send_mail", "Sends a mail.", func(_ context.Context, in mailArgs) (string, error) {
			b, _ := json.Marshal(in)
			ran.add(toolRun{owner, "send_mail", string(b)})
			return "sent", nil
		})
		lookup = tool.Func("lookup", "Looks a city up.", func(_ context.Context, in cityArgs) (string, error) {
			b, _ := json.Marshal(in)
			ran.add(toolRun{owner, "lookup", string(b)})
			return "big", nil
		})
		return send, lookup
	}
	approval := assistant.WithApproval(fixed(assistant.Pending()), "send_mail")
	agent := func(name string, tools ...tool.Tool) *assistant.Assistant[string] {
		return assistant.New[string](name, assistant.WithModel(text), assistant.WithTools(tools...), approval, assistant.WithStore(store))
	}
	send, lookup := leaf("mailer")
	mailer := agent("mailer", send, lookup)
	middle := agent("middle", assistant.AsTool[string](mailer))
	sendA, _ := leaf("suba")
	sendB, _ := leaf("subb")
	suba, subb := agent("suba", sendA), agent("subb", sendB)
	_, topLookup := leaf("top")
	top := agent("top", assistant.AsTool[string](middle), assistant.AsTool[string](suba), assistant.AsTool[string](subb), topLookup)
	return map[string]*assistant.Assistant[string]{"top": top, "middle": middle, "mailer": mailer, "suba": suba, "subb": subb}
}

// pausedStates returns paused states of real runs, marshalled: a turn with a waiting call and
// a queued one; with an approved or a denied one beside the waiting one; kept with a chat; a
// tree paused two levels down beside a call that ran; two sibling delegated runs paused; and
// the tree paused two levels down with its delegated call made a call of a leaf tool.
func pausedStates(tb testing.TB) [][]byte {
	tb.Helper()
	ctx := context.Background()
	var sent atomic.Int64
	pending := assistant.WithApproval(fixed(assistant.Pending()), "send_mail")
	lookupToo := func(d assistant.Decision) assistant.Option {
		return assistant.WithApproval(assistant.ApproverFunc(func(_ context.Context, c assistant.ToolCall) (assistant.Decision, error) {
			if c.Tool == "lookup" {
				return d, nil
			}
			return assistant.Pending(), nil
		}), "send_mail", "lookup")
	}
	// top calls what its script says, then answers.
	top := func(calls []llms.ToolCall, tools ...tool.Tool) *assistant.Assistant[string] {
		return assistant.New[string]("top", assistant.WithTools(tools...),
			assistant.WithModel(llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
				if req.Messages[len(req.Messages)-1].Role == llms.ChatMessageTypeTool {
					return llmtest.Text("top done")
				}
				return llmtest.Calls(calls...)
			})))
	}
	middle := assistant.New[string]("middle", assistant.WithTools(assistant.AsTool[string](mailer(&sent, pending))),
		assistant.WithModel(llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
			if req.Messages[len(req.Messages)-1].Role == llms.ChatMessageTypeTool {
				return llmtest.Text("middle done")
			}
			return llmtest.Calls(llmtest.Call("mailer", `{"input":"mail ana"}`))
		})))
	lookup := tool.Func("lookup", "Looks a city up.", func(context.Context, cityArgs) (string, error) { return "big", nil })
	inChat := chat.WithID(ctx, chat.ID{Tenant: "t", User: "u", Chat: "c"})
	runs := []struct {
		ctx context.Context
		a   *assistant.Assistant[string]
	}{
		{ctx, mailer(&sent, pending)},
		{ctx, mailer(&sent, lookupToo(assistant.Approved()))},
		{ctx, mailer(&sent, lookupToo(assistant.Denied("not now")))},
		{inChat, mailer(&sent, pending, assistant.WithStore(chat.NewMemory()))},
		{ctx, top([]llms.ToolCall{llmtest.Call("middle", `{"input":"do it"}`), llmtest.Call("lookup", `{"city":"Oslo"}`)},
			assistant.AsTool[string](middle), lookup)},
		{ctx, top([]llms.ToolCall{llmtest.Call("suba", `{"input":"x"}`), llmtest.Call("subb", `{"input":"y"}`)},
			assistant.AsTool[string](sub("suba", "id_a", &sent, pending)), assistant.AsTool[string](sub("subb", "id_b", &sent, pending)))},
	}
	var states [][]byte
	for _, r := range runs {
		res, err := r.a.Run(r.ctx, assistant.Input{Prompt: "mail ana"})
		if err != nil {
			tb.Fatalf("%s: %v", r.a.Name(), err)
		}
		if res.Stop != assistant.StopPending {
			tb.Fatalf("%s: Stop %q, want a paused run", r.a.Name(), res.Stop)
		}
		b, err := json.Marshal(res.Paused)
		if err != nil {
			tb.Fatal(err)
		}
		states = append(states, b)
	}
	// A hostile state: the delegated call, paused, made a call of a tool that delegates
	// nothing.
	var p assistant.Paused
	if err := json.Unmarshal(states[4], &p); err != nil {
		tb.Fatal(err)
	}
	p.Calls[0].Tool, p.Calls[0].Arguments = "lookup", `{"city":"Bergen"}`
	b, err := json.Marshal(&p)
	if err != nil {
		tb.Fatal(err)
	}
	states = append(states, b)
	if n := sent.Load(); n != 0 {
		tb.Fatalf("%d mails sent while pausing", n)
	}
	return states
}
