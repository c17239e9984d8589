// Package interop tests cadre's MCP side against other implementations: the official
// TypeScript MCP SDK and the official Go SDK as clients of examples/mcpserver (its prompts, its
// tools, the progress of its runs, and with TypeScript the skill it serves as resources), over
// stdio and streamable HTTP, the Go SDK's cancelling a run too; and
// @modelcontextprotocol/server-everything as a server whose tools an assistant imports. For
// AG-UI, pkg/agui's events are validated against @ag-ui/core's own schemas (agui_test.go), and
// @ag-ui/client's HttpAgent runs against pkg/agui's handler (agui_client_test.go): streamed
// text, parallel tool calls, a delegated run, a frontend tool, approvals as interrupts and
// their resume, an error and a cancel.
//
// The Node packages come from package-lock.json, installed by `make interop-deps` into
// interop/node_modules. Without Node.js the tests that need it fail saying what to install;
// set CADRE_NO_NODE=1 to skip them instead. The Go SDK's tests need nothing more than Go.
package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tmc/langchaingo/llms"
)

// buildDir holds the server binary, built once by the first test that needs it.
var buildDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cadre-interop-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// requireNode skips the test when CADRE_NO_NODE=1 and fails it, saying what to do, when Node.js
// or the MCP npm packages are missing.
func requireNode(t *testing.T) {
	t.Helper()
	requireNodePackages(t, "@modelcontextprotocol/sdk", "@modelcontextprotocol/server-everything")
}

// requireNodePackages skips the test when CADRE_NO_NODE=1 and fails it, saying what to do, when
// Node.js or one of the npm packages pkgs is missing.
func requireNodePackages(t *testing.T, pkgs ...string) {
	t.Helper()
	if os.Getenv("CADRE_NO_NODE") == "1" {
		t.Skip("CADRE_NO_NODE=1: the interop tests with Node.js are skipped")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed: install Node.js 20 and npm (e.g. apt-get install nodejs npm), then run `make interop-deps`; or set CADRE_NO_NODE=1 to skip the interop tests")
	}
	for _, pkg := range pkgs {
		if _, err := os.Stat(filepath.Join("node_modules", pkg, "package.json")); err != nil {
			t.Fatalf("the npm package %s is not installed in interop/node_modules: run `make interop-deps` (npm ci --prefix interop); or set CADRE_NO_NODE=1 to skip the interop tests", pkg)
		}
	}
}

var (
	buildOnce sync.Once
	buildErr  error
)

// serverBinary builds examples/mcpserver once and returns the binary's path.
func serverBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(buildDir, "mcpserver")
	buildOnce.Do(func() {
		cmd := exec.Command("go", "build", "-o", bin, "./examples/mcpserver")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./examples/mcpserver: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return bin
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// step is one request of client.mjs; outcome is what it got.
type step struct {
	Op        string         `json:"op"`
	Name      string         `json:"name,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
	URI       string         `json:"uri,omitempty"`
	Progress  bool           `json:"progress,omitempty"` // ask for progress notifications
}

type outcome struct {
	Op       string          `json:"op"`
	OK       bool            `json:"ok"`
	Result   json.RawMessage `json:"result"`
	Error    string          `json:"error"`
	Progress []progressNote  `json:"progress"` // the notifications of a step with Progress
}

// progressNote is a progress notification, as the TypeScript SDK hands it to onprogress.
type progressNote struct {
	Progress float64 `json:"progress"`
	Message  string  `json:"message"`
}

// typescriptClient runs client.mjs with args and the steps, and returns an outcome per step.
// It fails the test when the SDK reported an error beside the steps, but for a progress
// notification that reached it just after its request's response: the SDK handles a
// notification in a later microtask than a response read with it, and then no longer knows its
// token (typescript-sdk issue #2580, open in 1.32), which no server can prevent.
func typescriptClient(t *testing.T, steps []step, args ...string) []outcome {
	t.Helper()
	in, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(testContext(t), "node", append([]string{"client.mjs"}, args...)...)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client.mjs %s: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var out struct {
		Server struct{ Name string } `json:"server"`
		Steps  []outcome             `json:"steps"`
		Errors []string              `json:"errors"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("client.mjs wrote %q: %v\nstderr:\n%s", stdout.String(), err, stderr.String())
	}
	if out.Server.Name != "cadre-mcpserver" || len(out.Steps) != len(steps) {
		t.Fatalf("client.mjs: server %q, %d outcomes for %d steps\nstderr:\n%s", out.Server.Name, len(out.Steps), len(steps), stderr.String())
	}
	t.Logf("client.mjs's stderr (with the server's, over stdio):\n%s", stderr.String())
	for _, e := range out.Errors {
		if strings.HasPrefix(e, "Received a progress notification for an unknown token") {
			t.Logf("the TypeScript SDK reported (typescript-sdk#2580): %s", e)
			continue
		}
		t.Errorf("the TypeScript SDK reported: %s", e)
	}
	return out.Steps
}

// session is what the TypeScript client does with examples/mcpserver; check checks it.
var session = []step{
	{Op: "listPrompts"},
	{Op: "listTools"},
	{Op: "getPrompt", Name: "planner", Arguments: map[string]any{"input": "Plan 4 days in Lisbon, please."}},
	{Op: "callTool", Name: "forecast", Arguments: map[string]any{"city": "Oslo"}},
	{Op: "callTool", Name: "plan_trip", Arguments: map[string]any{"city": "Kyoto", "days": 2}},
	{Op: "callTool", Name: "forecast", Arguments: map[string]any{"town": "Oslo"}},
	{Op: "getPrompt", Name: "guide", Arguments: map[string]any{"input": "Hello from Rome?", "chat_id": "c-42"}},
	{Op: "callTool", Name: "ask_guide", Arguments: map[string]any{"input": "What do I say in Rome?"}},
	{Op: "getPrompt", Name: "guide", Arguments: map[string]any{"input": "And in Paris?", "chat_id": "c-42"}},
	{Op: "listResources"},
	{Op: "readResource", URI: "skill://packing-list/SKILL.md"},
	{Op: "readResource", URI: "skill://packing-list/references/clothing.md"},
	{Op: "getPrompt", Name: "concierge", Arguments: map[string]any{"input": "Prepare 2 days in Lisbon."}, Progress: true},
	{Op: "callTool", Name: "ask_concierge", Arguments: map[string]any{"input": "Prepare 3 days in Kyoto."}, Progress: true},
}

// skillFiles are the files of the example's skill, by the URI it serves them at.
var skillFiles = map[string]string{
	"skill://packing-list/SKILL.md":               "../examples/mcpserver/skills/packing-list/SKILL.md",
	"skill://packing-list/references/clothing.md": "../examples/mcpserver/skills/packing-list/references/clothing.md",
}

func check(t *testing.T, out []outcome) {
	t.Helper()
	for i, o := range out {
		if !o.OK {
			t.Errorf("step %d (%s): error %q", i, o.Op, o.Error)
		}
	}

	var prompts struct {
		Prompts []struct {
			Name      string
			Arguments []struct {
				Name     string
				Required bool
			}
		}
	}
	decode(t, out[0].Result, &prompts)
	var got []string
	for _, p := range prompts.Prompts {
		got = append(got, fmt.Sprintf("%s(%s %v, %s %v)", p.Name, p.Arguments[0].Name, p.Arguments[0].Required, p.Arguments[1].Name, p.Arguments[1].Required))
	}
	if want := "concierge(input true, chat_id false) guide(input true, chat_id false) planner(input true, chat_id false)"; strings.Join(got, " ") != want {
		t.Errorf("prompts %v, want %s", got, want)
	}

	var tools struct {
		Tools []struct {
			Name         string
			InputSchema  map[string]any `json:"inputSchema"`
			OutputSchema map[string]any `json:"outputSchema"`
		}
	}
	decode(t, out[1].Result, &tools)
	typed := map[string]bool{}
	for _, tl := range tools.Tools {
		if tl.InputSchema["type"] != "object" {
			t.Errorf("tool %s: input schema %v", tl.Name, tl.InputSchema)
		}
		typed[tl.Name] = tl.OutputSchema != nil
	}
	if want := map[string]bool{"ask_concierge": false, "ask_guide": false, "forecast": true, "phrasebook": false, "plan_trip": true}; fmt.Sprint(typed) != fmt.Sprint(want) {
		t.Errorf("tools, typed or not: %v, want %v", typed, want)
	}

	var prompt struct {
		Messages []struct {
			Role    string
			Content struct{ Type, Text string }
		}
	}
	decode(t, out[2].Result, &prompt)
	if len(prompt.Messages) != 2 || prompt.Messages[0].Role != "user" || prompt.Messages[1].Role != "assistant" {
		t.Fatalf("prompt messages %+v, want user then assistant", prompt.Messages)
	}
	if prompt.Messages[0].Content.Text != "Plan 4 days in Lisbon, please." {
		t.Errorf("user message %q", prompt.Messages[0].Content.Text)
	}
	var plan struct {
		City string
		Days int
		Pack []string
	}
	decode(t, json.RawMessage(prompt.Messages[1].Content.Text), &plan)
	if plan.City != "Lisbon" || plan.Days != 4 || len(plan.Pack) == 0 {
		t.Errorf("the planner's answer %+v", plan)
	}

	type toolResult struct {
		Content           []struct{ Type, Text string }
		StructuredContent map[string]any `json:"structuredContent"`
		IsError           bool           `json:"isError"`
	}
	var fc toolResult
	decode(t, out[3].Result, &fc)
	if fc.IsError || fc.StructuredContent["city"] != "Oslo" || len(fc.Content) != 1 {
		t.Errorf("forecast: %+v", fc)
	} else {
		var text map[string]any
		decode(t, json.RawMessage(fc.Content[0].Text), &text)
		if fmt.Sprint(text) != fmt.Sprint(fc.StructuredContent) {
			t.Errorf("forecast: text %s, structured content %v", fc.Content[0].Text, fc.StructuredContent)
		}
	}
	var trip toolResult
	decode(t, out[4].Result, &trip)
	if trip.IsError || trip.StructuredContent["city"] != "Kyoto" || trip.StructuredContent["days"] != 2.0 {
		t.Errorf("plan_trip: %+v", trip)
	}
	var bad toolResult
	decode(t, out[5].Result, &bad)
	if !bad.IsError || len(bad.Content) != 1 || !strings.Contains(bad.Content[0].Text, `missing required property "city"`) {
		t.Errorf("forecast with bad arguments: %+v", bad)
	}
	// A chat_id continues a chat: the offline guide says how many earlier questions it was sent.
	for _, c := range []struct {
		step int
		want string
	}{{6, "grazie (thank you)."}, {8, "merci (thank you). (I remember 1 earlier question.)"}} {
		decode(t, out[c.step].Result, &prompt)
		if len(prompt.Messages) != 2 || !strings.HasSuffix(prompt.Messages[1].Content.Text, c.want) {
			t.Errorf("step %d, the guide in chat c-42: %+v, want an answer ending %q", c.step, prompt.Messages, c.want)
		}
	}
	var guide toolResult
	decode(t, out[7].Result, &guide)
	if guide.IsError || len(guide.Content) != 1 || !strings.Contains(guide.Content[0].Text, "grazie") {
		t.Errorf("ask_guide: %+v", guide)
	}

	// The planner's skill, served as resources: its SKILL.md and its one file, as written.
	var resources struct {
		Resources []struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType"`
		}
	}
	decode(t, out[9].Result, &resources)
	listed := map[string]string{}
	for _, r := range resources.Resources {
		listed[r.URI] = r.MIMEType
	}
	want := map[string]string{}
	for uri := range skillFiles {
		want[uri] = "text/markdown"
	}
	if fmt.Sprint(listed) != fmt.Sprint(want) {
		t.Errorf("resources %v, want %v", listed, want)
	}
	for _, i := range []int{10, 11} {
		uri := session[i].URI
		data, err := os.ReadFile(skillFiles[uri])
		if err != nil {
			t.Fatal(err)
		}
		var read struct {
			Contents []struct {
				URI      string `json:"uri"`
				MIMEType string `json:"mimeType"`
				Text     string `json:"text"`
			}
		}
		decode(t, out[i].Result, &read)
		if len(read.Contents) != 1 || read.Contents[0].URI != uri || read.Contents[0].MIMEType != "text/markdown" {
			t.Errorf("step %d, reading %s: %+v", i, uri, read.Contents)
		} else if read.Contents[0].Text != string(data) {
			t.Errorf("step %d, reading %s: the text is not %s:\n%s", i, uri, skillFiles[uri], read.Contents[0].Text)
		}
	}
}

// checkProgress checks that a step that asked for progress received notifications of the
// concierge's run and of the runs it delegated to, and that the others received none. The
// server sends them counting up; ordered says they must arrive so. Over streamable HTTP they
// need not: mcp-go hands a session's notifications to whichever of its streams takes them
// first, the request's own or the session's GET stream, which the TypeScript SDK keeps open.
func checkProgress(t *testing.T, out []outcome, ordered bool) {
	t.Helper()
	for i, o := range out {
		if !session[i].Progress {
			if len(o.Progress) > 0 {
				t.Errorf("step %d (%s): progress %+v without asking", i, o.Op, o.Progress)
			}
			continue
		}
		var messages []string
		seen := map[float64]bool{}
		for j, p := range o.Progress {
			if ordered && j > 0 && p.Progress <= o.Progress[j-1].Progress || seen[p.Progress] || p.Progress < 1 {
				t.Errorf("step %d: progress %v after %v", i, p.Progress, o.Progress[:j])
			}
			seen[p.Progress] = true
			messages = append(messages, p.Message)
		}
		t.Logf("step %d (%s %s): progress %q", i, o.Op, session[i].Name, messages)
		for _, want := range []string{"concierge: started", "planner: started, for concierge"} {
			if !slices.Contains(messages, want) {
				t.Errorf("step %d (%s %s): no progress %q among %q", i, o.Op, session[i].Name, want, messages)
			}
		}
	}
}

func decode(t *testing.T, data json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
}

func TestTypeScriptClientOverStdio(t *testing.T) {
	t.Parallel()
	requireNode(t)
	out := typescriptClient(t, session, "--stdio", serverBinary(t), "-latency", offlineLatency)
	check(t, out)
	checkProgress(t, out, true)
}

// offlineLatency is how long the offline models take to answer, in the sessions whose progress
// the clients follow: long enough for the notifications of a run to reach them while it works,
// rather than in the same read as the response.
const offlineLatency = "20ms"

var urlLine = regexp.MustCompile(`serving MCP over streamable HTTP at (http://\S+)`)

func TestTypeScriptClientOverHTTP(t *testing.T) {
	t.Parallel()
	requireNode(t)
	srv := startHTTPServer(t, "-latency", offlineLatency)
	out := typescriptClient(t, session, "--http", srv.url)
	check(t, out)
	checkProgress(t, out, false)
	srv.stop(t)
}

// httpServer is examples/mcpserver serving streamable HTTP, as a process.
type httpServer struct {
	url    string
	cmd    *exec.Cmd
	log    *lockedBuffer // its stderr
	exited chan error
}

// startHTTPServer starts examples/mcpserver on a free port with args, and returns once it says
// where it serves. It is killed when the test ends, if it is still running.
func startHTTPServer(t *testing.T, args ...string) *httpServer {
	t.Helper()
	srv := &httpServer{cmd: exec.Command(serverBinary(t), append([]string{"-http", "127.0.0.1:0"}, args...)...), log: &lockedBuffer{}, exited: make(chan error, 1)}
	stderr, err := srv.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.cmd.Process.Kill() }) // when the test fails before it stops the server
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			srv.log.WriteString(sc.Text() + "\n")
			if m := urlLine.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		srv.exited <- srv.cmd.Wait()
	}()
	select {
	case srv.url = <-urls:
	case err := <-srv.exited:
		t.Fatalf("the server exited before serving: %v\n%s", err, srv.log.String())
	case <-time.After(time.Minute):
		_ = srv.cmd.Process.Kill()
		t.Fatalf("the server did not say where it serves within a minute:\n%s", srv.log.String())
	}
	return srv
}

// stop interrupts the server, which must stop cleanly.
func (srv *httpServer) stop(t *testing.T) {
	t.Helper()
	if err := srv.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-srv.exited:
		if err != nil {
			t.Errorf("the server exited with %v:\n%s", err, srv.log.String())
		}
	case <-time.After(30 * time.Second):
		_ = srv.cmd.Process.Kill()
		t.Errorf("the server did not stop within 30s of an interrupt:\n%s", srv.log.String())
	}
}

// An assistant uses the echo tool of the reference MCP server, imported through mcpbridge.Tools,
// and the server's answer reaches the assistant's output.
func TestImportEverythingServer(t *testing.T) {
	t.Parallel()
	requireNode(t)
	ctx := testContext(t)
	c, err := client.NewStdioMCPClient("node", nil, filepath.Join("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "cadre-interop", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v\n%s", err, serverStderr(c))
	}
	tools, err := mcpbridge.Tools(ctx, c, mcpbridge.WithPrefix("everything_"))
	if err != nil {
		t.Fatalf("%v\n%s", err, serverStderr(c))
	}
	var names []string
	found := false
	for _, tl := range tools {
		names = append(names, tl.Name())
		found = found || tl.Name() == "everything_echo"
	}
	if !found {
		t.Fatalf("no everything_echo among the imported tools %v", names)
	}

	model := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if r, ok := last.Parts[0].(llms.ToolCallResponse); ok {
			return llmtest.Text("The server answered: " + r.Content)
		}
		return llmtest.Calls(llmtest.Call("everything_echo", `{"message":"hello from cadre"}`))
	})
	a := assistant.New[string]("echoer", assistant.WithModel(model), assistant.WithTools(tools...))
	res, err := a.Run(ctx, assistant.Input{Prompt: "Echo hello."})
	if err != nil {
		t.Fatal(err)
	}
	if want := "The server answered: Echo: hello from cadre"; res.Output != want {
		t.Errorf("output %q, want %q", res.Output, want)
	}

	// A server-side failure comes back as the tool's error, with the server's text.
	var echo interface {
		Call(context.Context, json.RawMessage) (string, error)
	}
	for _, tl := range tools {
		if tl.Name() == "everything_echo" {
			echo = tl
		}
	}
	_, err = echo.Call(ctx, json.RawMessage(`{"message":42}`))
	if err == nil || !strings.Contains(err.Error(), `MCP tool "echo"`) {
		t.Errorf("echo with a number: %v, want the server's error", err)
	}
	t.Logf("echo with a number: %v", err)
}

// lockedBuffer is a buffer that one goroutine writes while another may read it.
type lockedBuffer struct {
	mu    sync.Mutex
	b     strings.Builder
	wrote chan struct{} // closed and replaced at each write; nil until waitFor makes it
}

func (l *lockedBuffer) WriteString(s string) {
	_, _ = l.Write([]byte(s))
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wrote != nil {
		close(l.wrote)
		l.wrote = make(chan struct{})
	}
	return l.b.Write(p)
}

// waitFor waits, up to a minute, until a line of the buffer holds each of parts.
func (l *lockedBuffer) waitFor(t *testing.T, parts ...string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		l.mu.Lock()
		if l.wrote == nil {
			l.wrote = make(chan struct{})
		}
		text, wrote := l.b.String(), l.wrote
		l.mu.Unlock()
		for line := range strings.Lines(text) {
			if containsAll(line, parts) {
				return
			}
		}
		select {
		case <-wrote:
		case <-timeout:
			t.Fatalf("no line with %q in:\n%s", parts, text)
		}
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func serverStderr(c *client.Client) string {
	r, ok := client.GetStderr(c)
	if !ok {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(r, 1<<16))
	return string(b)
}
