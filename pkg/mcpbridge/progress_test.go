package mcpbridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tmc/langchaingo/llms"
)

type question struct {
	Topic string `json:"topic"`
}

// team returns a supervisor that delegates to a researcher, who calls search: each model
// calls its tool once (delegate's arguments from the user's turn) and then answers with
// the tool's result.
func team(delegate func(assistant.Runner[string]) assistant.Runner[string]) *assistant.Assistant[string] {
	search := tool.Func("search", "Searches the web.", func(_ context.Context, in question) (string, error) {
		return "found: " + in.Topic, nil
	})
	callsThen := func(name, args string) llms.Model {
		return llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
			if res, ok := toolResult(req); ok {
				return llmtest.Text(res)
			}
			return llmtest.Calls(llmtest.Call(name, args))
		}).NoRecord()
	}
	researcher := assistant.New[string]("researcher", assistant.WithModel(callsThen("search", `{"topic":"tides"}`)),
		assistant.WithDescription("Researches a topic."), assistant.WithTools(search))
	return assistant.New[string]("supervisor", assistant.WithModel(callsThen("researcher", `{"topic":"tides"}`)),
		assistant.WithDescription("Answers with the help of a researcher."),
		assistant.WithTools(assistant.AsTool[question](delegate(researcher))))
}

func asIs(r assistant.Runner[string]) assistant.Runner[string] { return r }

// notes keeps the progress notifications a client receives.
type notes struct {
	mu   sync.Mutex
	got  []mcp.JSONRPCNotification
	more chan struct{} // closed and replaced at each notification
}

func listen(c *client.Client) *notes {
	n := &notes{more: make(chan struct{})}
	c.OnNotification(func(nt mcp.JSONRPCNotification) {
		if nt.Method != string(mcp.MethodNotificationProgress) {
			return
		}
		n.mu.Lock()
		defer n.mu.Unlock()
		n.got = append(n.got, nt)
		close(n.more)
		n.more = make(chan struct{})
	})
	return n
}

// progressNote is one notification's params.
type progressNote struct {
	token    string
	progress float64
	message  string
}

// of returns the notifications received for token so far.
func (n *notes) of(token any) []progressNote {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []progressNote
	for _, nt := range n.got {
		// As the client would read them off the wire: an in-process client gets the values
		// the server sent.
		var f struct {
			Token    any     `json:"progressToken"`
			Progress float64 `json:"progress"`
			Message  string  `json:"message"`
		}
		b, _ := json.Marshal(nt.Params.AdditionalFields)
		_ = json.Unmarshal(b, &f)
		if fmt.Sprint(f.Token) == fmt.Sprint(token) {
			out = append(out, progressNote{fmt.Sprint(f.Token), f.Progress, f.Message})
		}
	}
	return out
}

// all returns every progress notification received, whatever its token.
func (n *notes) all() []progressNote {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []progressNote
	for _, nt := range n.got {
		f := nt.Params.AdditionalFields
		m, _ := f["message"].(string)
		out = append(out, progressNote{token: fmt.Sprint(f["progressToken"]), message: m})
	}
	return out
}

// wait returns the notifications of token once there are at least count of them.
func (n *notes) wait(t *testing.T, token any, count int) []progressNote {
	t.Helper()
	ctx := testContext(t)
	for {
		n.mu.Lock()
		more := n.more
		n.mu.Unlock()
		if got := n.of(token); len(got) >= count {
			return got
		}
		select {
		case <-more:
		case <-ctx.Done():
			t.Fatalf("%d progress notifications of %v, want at least %d: %+v", len(n.of(token)), token, count, n.all())
		}
	}
}

func callWithToken(t *testing.T, c client.MCPClient, name, args string, token any) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = json.RawMessage(args)
	if token != nil {
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
	}
	res, err := c.CallTool(testContext(t), req)
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("calling %s: %s", name, textOf(res))
	}
	return res
}

// checkSteps checks that the progress counts up from 1, and that messages holds each of want.
func checkSteps(t *testing.T, got []progressNote, want ...string) {
	t.Helper()
	var messages []string
	for i, n := range got {
		if i == 0 && n.progress != 1 || i > 0 && n.progress <= got[i-1].progress {
			t.Errorf("notification %d: progress %v after %v, want it to count up from 1", i, n.progress, got[max(i-1, 0)].progress)
		}
		messages = append(messages, n.message)
	}
	for _, w := range want {
		if !slices.Contains(messages, w) {
			t.Errorf("no progress message %q among %q", w, messages)
		}
	}
}

// A client that gives a progress token to a call of an assistant served with Reporting
// receives a notification per step, of the served run and of the run it delegates to.
func TestToolReportsProgress(t *testing.T) {
	t.Parallel()
	s := newServer()
	if err := mcpbridge.AddTool(s, assistant.AsTool[question](mcpbridge.Reporting[string](team(asIs)), assistant.ToolName("ask"))); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	n := listen(c)
	if res := callWithToken(t, c, "ask", `{"topic":"tides"}`, "p-1"); textOf(res) != "found: tides" {
		t.Errorf("the answer %q", textOf(res))
	}
	// The runs' first ten steps, all sent at once; the rest may be beyond the rate.
	got := n.wait(t, "p-1", 10)
	if got[0].message != "supervisor: started" {
		t.Errorf("the first message %q, want the supervisor's start", got[0].message)
	}
	checkSteps(t, got, "supervisor: running researcher", "researcher: started, for supervisor", "researcher: running search", "researcher: search returned")
}

// Wrapping the delegated assistant too changes nothing: its steps are reported once.
func TestReportingDelegatesReportOnce(t *testing.T) {
	t.Parallel()
	s := newServer()
	reported := func(r assistant.Runner[string]) assistant.Runner[string] { return mcpbridge.Reporting(r) }
	if err := mcpbridge.AddTool(s, assistant.AsTool[question](mcpbridge.Reporting[string](team(reported)), assistant.ToolName("ask"))); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	n := listen(c)
	callWithToken(t, c, "ask", `{"topic":"tides"}`, 7)
	got := n.wait(t, 7, 10)
	checkSteps(t, got)
	count := 0
	for _, g := range got {
		if g.message == "researcher: started, for supervisor" {
			count++
		}
	}
	if count != 1 || got[0].token != "7" {
		t.Errorf("the researcher's start reported %d times, token %q; want once, 7: %+v", count, got[0].token, got)
	}
}

// A get of a prompt with a progress token reports the run's steps and its delegated runs',
// without any wrapping.
func TestPromptReportsProgress(t *testing.T) {
	t.Parallel()
	s := newServer()
	if err := mcpbridge.AddPrompt(s, team(asIs)); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	n := listen(c)
	var req mcp.GetPromptRequest
	req.Params.Name = "supervisor"
	req.Params.Arguments = map[string]string{"input": "Tides?"}
	req.Params.Meta = &mcp.Meta{ProgressToken: "get-1"}
	if _, err := c.GetPrompt(testContext(t), req); err != nil {
		t.Fatal(err)
	}
	checkSteps(t, n.wait(t, "get-1", 10), "supervisor: started", "researcher: started, for supervisor", "researcher: running search")
}

// Without a progress token, a call and a get send no notification.
func TestNoProgressWithoutToken(t *testing.T) {
	t.Parallel()
	s := newServer()
	if err := mcpbridge.AddTool(s, assistant.AsTool[question](mcpbridge.Reporting[string](team(asIs)), assistant.ToolName("ask"))); err != nil {
		t.Fatal(err)
	}
	if err := mcpbridge.AddPrompt(s, team(asIs)); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	n := listen(c)
	callWithToken(t, c, "ask", `{"topic":"tides"}`, nil)
	if _, err := getPrompt(t, c, "supervisor", map[string]string{"input": "Tides?"}); err != nil {
		t.Fatal(err)
	}
	// The notifications of one session arrive in the order they were sent: once the call with
	// a token has been reported, any notification of the calls before it would have arrived.
	callWithToken(t, c, "ask", `{"topic":"tides"}`, "last")
	n.wait(t, "last", 1)
	for _, g := range n.all() {
		if g.token != "last" {
			t.Errorf("a notification without a token asking for it: %+v", g)
		}
	}
}

// A run of many quick steps sends its first ten at once, then at most ten a second; the
// progress still counts every step.
func TestProgressIsRateLimited(t *testing.T) {
	t.Parallel()
	const calls = 40
	echo := tool.Func("echo", "Says it back.", func(_ context.Context, in question) (string, error) { return in.Topic, nil })
	model := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if _, ok := toolResult(req); ok {
			return llmtest.Text("done")
		}
		var cs []llms.ToolCall
		for range calls {
			cs = append(cs, llmtest.Call("echo", `{"topic":"x"}`))
		}
		return llmtest.Calls(cs...)
	}).NoRecord()
	busy := assistant.New[string]("busy", assistant.WithModel(model), assistant.WithTools(echo), assistant.WithMaxParallelTools(calls))
	s := newServer()
	if err := mcpbridge.AddTool(s, assistant.AsTool[string](mcpbridge.Reporting[string](busy))); err != nil {
		t.Fatal(err)
	}
	if err := mcpbridge.AddTool(s, echo); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	n := listen(c)
	start := time.Now()
	callWithToken(t, c, "busy", `{"input":"go"}`, "busy")
	elapsed := time.Since(start)
	// A tool of no run sends nothing, even with a token; the busy call's notifications were
	// queued before the next call's, so once that one is seen, all of them are.
	callWithToken(t, c, "busy", `{"input":"go"}`, "after")
	n.wait(t, "after", 1)
	got := n.of("busy")
	steps := 2*calls + 6 // started, asking, answered, a start and an end per call, asking, answered, done
	if most := 10 + int(elapsed/(100*time.Millisecond)) + 1; len(got) > most {
		t.Errorf("%d notifications in %v, want at most %d", len(got), elapsed, most)
	}
	checkSteps(t, got)
	if last := got[len(got)-1].progress; last > float64(steps) || len(got) < 10 {
		t.Errorf("%d notifications, the last at step %v of %d", len(got), last, steps)
	}
}

// Outside a served call, a Reporting runner runs as the runner does; it resumes what its
// runner can resume, and says so when it cannot.
func TestReportingOutsideAServedCall(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	r := mcpbridge.Reporting[string](replier())
	res, err := r.Run(ctx, assistant.Input{Prompt: "hi"})
	if err != nil || res.Output != "You said: hi" {
		t.Fatalf("Run: %v, %v", res, err)
	}
	resp, err := r.Call(ctx, assistant.Input{Prompt: "ho"})
	if err != nil || resp.Text != "You said: ho" {
		t.Fatalf("Call: %v, %v", resp, err)
	}
	if _, ok := r.(assistant.Resumer[string]); !ok {
		t.Fatal("a Reporting runner is not a Resumer")
	}
	_, err = mcpbridge.Reporting[string](flow{}).(assistant.Resumer[string]).Resume(ctx, &assistant.Paused{}, nil)
	if err == nil || !strings.Contains(err.Error(), "not an assistant.Resumer") {
		t.Errorf("resuming a runner that cannot: %v", err)
	}
}

// flow is a hand-written Runner that cannot resume.
type flow struct{}

func (flow) Name() string        { return "flow" }
func (flow) Description() string { return "A flow." }
func (flow) Call(context.Context, assistant.Input) (*assistant.Response, error) {
	return &assistant.Response{Text: "flowed"}, nil
}
func (flow) Run(context.Context, assistant.Input) (*assistant.Result[string], error) {
	return &assistant.Result[string]{Output: "flowed"}, nil
}

// Over stdio, a run's notifications are written before its response: mcp-go writes them from
// a goroutine of their own, and a quick run's response would overtake them. Not parallel:
// mcp-go's stdio server has one session per process.
func TestProgressBeforeTheResponse(t *testing.T) {
	s := newServer()
	if err := mcpbridge.AddTool(s, assistant.AsTool[question](mcpbridge.Reporting[string](team(asIs)), assistant.ToolName("ask"))); err != nil {
		t.Fatal(err)
	}
	if err := mcpbridge.AddPrompt(s, team(asIs)); err != nil {
		t.Fatal(err)
	}
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	go func() {
		_ = server.NewStdioServer(s).Listen(context.Background(), serverIn, serverOut)
		serverOut.Close()
	}()
	send := func(lines ...string) {
		go func() {
			for _, line := range lines {
				_, _ = io.WriteString(clientOut, line+"\n")
			}
		}()
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	// Once initialized, the two requests at once; read until both have answered, then end the
	// server's stdin and read what is left. (mcp-go's stdio session is one for the process:
	// a notification that an earlier test's server left queued may come out here too.)
	answered := map[float64]bool{}
	before, after := map[float64]int{}, map[float64]int{}
	sc := bufio.NewScanner(clientIn)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var msg struct {
			ID     *float64 `json:"id"`
			Method string   `json:"method"`
			Params struct {
				Token any `json:"progressToken"`
			} `json:"params"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("the server wrote %q: %v", sc.Text(), err)
		}
		token, ours := msg.Params.Token.(float64)
		switch {
		case msg.Method == string(mcp.MethodNotificationProgress) && !ours:
		case msg.Method == string(mcp.MethodNotificationProgress) && answered[token]:
			after[token]++
		case msg.Method == string(mcp.MethodNotificationProgress):
			before[token]++
		case msg.ID != nil && *msg.ID == 0:
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"topic":"tides"},"_meta":{"progressToken":1}}}`,
				`{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"supervisor","arguments":{"input":"Tides?"},"_meta":{"progressToken":2}}}`)
		case msg.ID != nil:
			answered[*msg.ID] = true
			if len(answered) == 2 {
				clientOut.Close()
			}
		}
	}
	for _, token := range []float64{1, 2} {
		if !answered[token] || before[token] < 10 || after[token] > 0 {
			t.Errorf("request %v: answered %v, %d notifications before the response, %d after; want 10 or more before, none after", token, answered[token], before[token], after[token])
		}
	}
}

// A step beyond the rate is not sent, but it counts: the notification of a later step says
// how many steps there were. In a bubble, where time passes only when every goroutine waits,
// the run's quick steps go out as the first ten and the rest are held back; then its model
// takes a second, and its last steps go out with their true count.
func TestProgressCountsTheStepsItDoesNotSend(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const calls = 20
		echo := tool.Func("echo", "Says it back.", func(_ context.Context, in question) (string, error) { return in.Topic, nil })
		model := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
			if _, ok := toolResult(req); ok {
				return llmtest.Reply{Text: "done", Latency: time.Second}
			}
			var cs []llms.ToolCall
			for range calls {
				cs = append(cs, llmtest.Call("echo", `{"topic":"x"}`))
			}
			return llmtest.Calls(cs...)
		}).NoRecord()
		var lines lockedLines // every step of the run, as the notifications' messages say them
		busy := assistant.New[string]("busy", assistant.WithModel(model), assistant.WithTools(echo),
			assistant.WithMaxParallelTools(calls), assistant.WithCallback(callback.NewProgress(&lines)))
		s := newServer()
		if err := mcpbridge.AddTool(s, assistant.AsTool[string](mcpbridge.Reporting[string](busy))); err != nil {
			t.Fatal(err)
		}
		c, err := client.NewInProcessClient(s)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Initialize(t.Context(), mcp.InitializeRequest{}); err != nil {
			t.Fatal(err)
		}
		n := listen(c)
		var req mcp.CallToolRequest
		req.Params.Name = "busy"
		req.Params.Arguments = map[string]any{"input": "go"}
		req.Params.Meta = &mcp.Meta{ProgressToken: "busy"}
		start := time.Now()
		if res, err := c.CallTool(t.Context(), req); err != nil || res.IsError {
			t.Fatalf("the call: %v %+v", err, res)
		}
		// The response waits for the notifications to leave the queue, a tick or two, not for
		// the bound on that wait (250ms): the bubble's clock moved by the model's second.
		if took := time.Since(start); took > time.Second+50*time.Millisecond {
			t.Errorf("the call took %v of the bubble's time, want the model's second and a few ticks", took)
		}
		synctest.Wait() // the client has received every notification queued

		steps := lines.all()
		got := n.of("busy")
		if len(got) < 12 || len(got) >= len(steps) {
			t.Fatalf("%d notifications of %d steps, want some steps held back and some sent after them: %+v", len(got), len(steps), got)
		}
		checkSteps(t, got)
		for i, note := range got[:10] {
			if note.progress != float64(i+1) {
				t.Errorf("notification %d: progress %v, want %d: the first ten steps go out at once", i, note.progress, i+1)
			}
		}
		// The model's answer and the end of the run, a second later: each sent, and counted
		// after every step held back. The parallel calls' steps before them may reach two
		// handlers in different orders; these two come one after the other.
		for i, note := range got[len(got)-2:] {
			step := len(steps) - 2 + i
			if note.progress != float64(step+1) || note.message != steps[step] {
				t.Errorf("notification %d: %v %q, want step %d of %d, %q", len(got)-2+i, note.progress, note.message, step+1, len(steps), steps[step])
			}
		}
	})
}

// lockedLines keeps the lines written to it, trimmed, for concurrent writers.
type lockedLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *lockedLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, strings.TrimSpace(string(p)))
	return len(p), nil
}

func (l *lockedLines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}
