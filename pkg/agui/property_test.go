package agui_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/rungen"
	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/chat"
	"pgregory.net/rapid"
)

// TestHandlerStreamsOfGeneratedRuns serves generated runs (tools that answer, fail and panic,
// approvals, delegation two levels down, fallbacks, limits, chats in a store) and resumes
// them as a client would, with the scenario's decisions as resume entries; every stream must
// be one HttpAgent takes, and across a thread each call gets at most one result and an
// approved call runs at most once.
func TestHandlerStreamsOfGeneratedRuns(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rungen.Draw(t, rungen.Features{Chat: true, Deep: rapid.Bool().Draw(t, "deep")})
		w, err := rungen.New(s)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		var opts []agui.Option
		if s.Chat {
			opts = append(opts, agui.WithStore(chat.NewMemory()))
		}
		srv := httptest.NewServer(agui.NewHandler(w.Supervisor(), opts...))
		defer srv.Close()
		th := &thread{started: map[string]bool{}, results: map[string]int{}}
		for i := range s.Top {
			w.Begin(nil)
			prompt, _ := json.Marshal(s.Prompt(i))
			es := th.post(t, srv.URL, fmt.Sprintf(`{"threadId":"t","runId":"r%d","messages":[{"id":"u%d","role":"user","content":%s}]}`, i, i, prompt))
			for round := 0; round < 4; round++ {
				f, ok := es[len(es)-1].(agui.RunFinished)
				if !ok || f.Outcome == nil || f.Outcome.Type != agui.OutcomeInterrupt {
					break
				}
				var waiting []assistant.ToolCall
				for _, in := range f.Outcome.Interrupts {
					waiting = append(waiting, assistant.ToolCall{ID: in.ID, Tool: in.Metadata["tool"].(string), Assistant: in.Metadata["assistant"].(string)})
				}
				var entries []string
				for id, d := range s.Decisions(round, waiting) {
					switch d.Verdict {
					case assistant.VerdictApprove:
						entries = append(entries, `{"interruptId":"`+id+`","status":"resolved","payload":{"approved":true}}`)
					case assistant.VerdictDeny:
						entries = append(entries, `{"interruptId":"`+id+`","status":"resolved","payload":{"approved":false,"reason":"no"}}`)
					case assistant.VerdictAnswer:
						entries = append(entries, `{"interruptId":"`+id+`","status":"cancelled"}`)
					}
				}
				if len(entries) == 0 {
					break
				}
				es = th.post(t, srv.URL, fmt.Sprintf(`{"threadId":"t","runId":"r%d-%d","messages":[],"resume":[%s]}`, i, round, strings.Join(entries, ",")))
			}
		}
		for q, n := range w.Seen().Runs {
			if n > 1 {
				t.Fatalf("call %s ran %d times", q, n)
			}
		}
	})
}

// thread is what a client knows of a thread across its runs.
type thread struct {
	started map[string]bool // tool calls started, in any run
	results map[string]int  // results written, by call
}

// post sends one request and checks its stream.
func (th *thread) post(t *rapid.T, url, body string) []agui.Event {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s for %s", resp.Status, body)
	}
	es, err := readEvents(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	th.check(t, es)
	return es
}

// check asserts the order rules of AG-UI on one stream, as HttpAgent enforces them, and the
// thread's: each call's result at most once, after the call.
func (th *thread) check(t *rapid.T, es []agui.Event) {
	if len(es) < 2 || es[0].Type() != agui.TypeRunStarted {
		t.Fatalf("stream %s does not start with RUN_STARTED", types(es))
	}
	texts := map[string]string{} // open text messages -> their sub-agent
	calls := map[string]int{}    // tool calls of this stream -> 1 started, 2 ended
	subs, done := map[string]bool{}, map[string]bool{}
	parents := map[string]string{} // sub-agent -> the call that delegated to it
	waits := map[string]bool{}     // calls whose sub-agent was suspended in this stream
	active := func(sub string) bool { return sub == "" || subs[sub] }
	for i, e := range es {
		fail := func(why string) { t.Fatalf("event %d %s: %s\nstream: %s", i, e.Type(), why, types(es)) }
		if i > 0 && e.Type() == agui.TypeRunStarted || i < len(es)-1 && (e.Type() == agui.TypeRunFinished || e.Type() == agui.TypeRunError) {
			fail("out of place")
		}
		switch e := e.(type) {
		case agui.TextMessageStart:
			if _, open := texts[e.MessageID]; open || !active(e.SubagentRunID) {
				fail("opened twice, or outside its sub-agent")
			}
			texts[e.MessageID] = e.SubagentRunID
		case agui.TextMessageContent:
			if sub, open := texts[e.MessageID]; !open || sub != e.SubagentRunID {
				fail("content of a message not open")
			}
		case agui.TextMessageEnd:
			if sub, open := texts[e.MessageID]; !open || sub != e.SubagentRunID {
				fail("end of a message not open")
			}
			delete(texts, e.MessageID)
		case agui.ToolCallStart:
			if calls[e.ToolCallID] != 0 || th.started[e.ToolCallID] || !active(e.SubagentRunID) {
				fail("call started twice, or outside its sub-agent")
			}
			calls[e.ToolCallID], th.started[e.ToolCallID] = 1, true
		case agui.ToolCallArgs:
			if calls[e.ToolCallID] != 1 {
				fail("arguments of a call not open")
			}
		case agui.ToolCallEnd:
			if calls[e.ToolCallID] != 1 {
				fail("end of a call not open")
			}
			calls[e.ToolCallID] = 2
		case agui.ToolCallResult:
			th.results[e.ToolCallID]++
			if !th.started[e.ToolCallID] || calls[e.ToolCallID] == 1 || th.results[e.ToolCallID] > 1 || !active(e.SubagentRunID) || waits[e.ToolCallID] {
				fail(fmt.Sprintf("result of call %s: started %v, results %d", e.ToolCallID, th.started[e.ToolCallID], th.results[e.ToolCallID]))
			}
		case agui.SubagentStarted:
			if subs[e.SubagentRunID] || done[e.SubagentRunID] || !active(e.ParentSubagentRunID) || e.ParentToolCallID == "" {
				fail("sub-agent started twice, or under none")
			}
			subs[e.SubagentRunID] = true
			parents[e.SubagentRunID] = e.ParentToolCallID
		case agui.SubagentFinished:
			if !subs[e.SubagentRunID] || e.Outcome == nil {
				fail("sub-agent not active, or without its outcome")
			}
			if e.Outcome.Type == agui.SubagentSuspended {
				waits[parents[e.SubagentRunID]] = true
			}
			delete(subs, e.SubagentRunID)
			done[e.SubagentRunID] = true
		case agui.SubagentError:
			if !subs[e.SubagentRunID] {
				fail("sub-agent not active")
			}
			delete(subs, e.SubagentRunID)
			done[e.SubagentRunID] = true
		case agui.Custom:
			if !active(e.SubagentRunID) {
				fail("outside its sub-agent")
			}
		case agui.RunFinished:
			if len(texts) > 0 || len(subs) > 0 {
				fail(fmt.Sprintf("messages %v or sub-agents %v left open", texts, subs))
			}
			for id, st := range calls {
				if st != 2 {
					fail("call " + id + " left open")
				}
			}
			if e.Outcome != nil && e.Outcome.Type == agui.OutcomeInterrupt {
				if len(e.Outcome.Interrupts) == 0 {
					fail("an interrupt outcome without interrupts")
				}
				for _, in := range e.Outcome.Interrupts {
					if !th.started[in.ID] || th.results[in.ID] > 0 {
						fail("interrupt for call " + in.ID + " the client never saw, or answered")
					}
				}
			}
		}
	}
}
