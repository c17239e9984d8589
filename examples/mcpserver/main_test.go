package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/skill"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tmc/langchaingo/llms"
)

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// initialize starts c and initializes it; c is closed when the test ends.
func initialize(t *testing.T, c *client.Client) *client.Client {
	t.Helper()
	t.Cleanup(func() { _ = c.Close() })
	ctx := testContext(t)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpserver-test", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

func inProcess(t *testing.T, config string) *client.Client {
	t.Helper()
	return inProcessTo(t, config, io.Discard)
}

// inProcessTo is inProcess with the server's stderr going to stderr.
func inProcessTo(t *testing.T, config string, stderr io.Writer) *client.Client {
	t.Helper()
	return inProcessWith(t, settings{config: config}, stderr)
}

// inProcessWith is inProcessTo with the command line's settings.
func inProcessWith(t *testing.T, set settings, stderr io.Writer) *client.Client {
	t.Helper()
	s, err := newServer(set, &chatStores{}, stderr, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	return initialize(t, c)
}

func getPrompt(t *testing.T, c *client.Client, name, input string) (user, answer string) {
	t.Helper()
	var req mcp.GetPromptRequest
	req.Params.Name = name
	req.Params.Arguments = map[string]string{"input": input}
	res, err := c.GetPrompt(testContext(t), req)
	if err != nil {
		t.Fatalf("prompt %s: %v", name, err)
	}
	if len(res.Messages) != 2 || res.Messages[0].Role != mcp.RoleUser || res.Messages[1].Role != mcp.RoleAssistant {
		t.Fatalf("prompt %s: messages %+v, want user then assistant", name, res.Messages)
	}
	return res.Messages[0].Content.(mcp.TextContent).Text, res.Messages[1].Content.(mcp.TextContent).Text
}

func callTool(t *testing.T, c *client.Client, name, args string) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = json.RawMessage(args)
	res, err := c.CallTool(testContext(t), req)
	if err != nil {
		t.Fatalf("tool %s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// exercise checks, through c, what a client sees of the offline server.
func exercise(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := testContext(t)
	prompts, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range prompts.Prompts {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"concierge", "guide", "planner"}, names); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typed := map[string]bool{}
	for _, tl := range tools.Tools {
		typed[tl.Name] = tl.OutputSchema.Type == "object"
	}
	want := map[string]bool{"forecast": true, "plan_trip": true, "phrasebook": false, "ask_guide": false, "ask_concierge": false}
	if diff := cmp.Diff(want, typed); diff != "" {
		t.Errorf("tools, typed or not (-want +got):\n%s", diff)
	}

	exerciseSkillResources(t, c)

	user, answer := getPrompt(t, c, "planner", "Plan 4 days in Lisbon, please.")
	var plan Plan
	if err := json.Unmarshal([]byte(answer), &plan); err != nil {
		t.Fatalf("planner answered %q: %v", answer, err)
	}
	if user != "Plan 4 days in Lisbon, please." || plan.City != "Lisbon" || plan.Days != 4 || len(plan.Pack) == 0 {
		t.Errorf("planner: user %q, plan %+v", user, plan)
	}
	if _, answer := getPrompt(t, c, "guide", "What should I say in Paris?"); !strings.Contains(answer, "Bonjour") {
		t.Errorf("guide answered %q", answer)
	}

	res := callTool(t, c, "forecast", `{"city":"Oslo"}`)
	var f Forecast
	if err := json.Unmarshal(res.RawStructuredContent, &f); err != nil || f.City != "Oslo" || res.IsError {
		t.Errorf("forecast: structured %s (%v), isError %v", res.RawStructuredContent, err, res.IsError)
	}
	res = callTool(t, c, "plan_trip", `{"city":"Kyoto","days":2}`)
	if err := json.Unmarshal(res.RawStructuredContent, &plan); err != nil || plan.City != "Kyoto" || plan.Days != 2 {
		t.Errorf("plan_trip: structured %s (%v), text %q", res.RawStructuredContent, err, text(res))
	}
	if res := callTool(t, c, "ask_guide", `{"input":"Hello from Rome?"}`); res.IsError || !strings.Contains(text(res), "grazie") {
		t.Errorf("ask_guide: %q", text(res))
	}
	// The concierge delegates to the planner and the guide, and sums up their answers.
	if _, answer := getPrompt(t, c, "concierge", "Prepare 2 days in Lisbon."); answer != lisbonConcierge {
		t.Errorf("concierge answered %q, want %q", answer, lisbonConcierge)
	}
	if res := callTool(t, c, "ask_concierge", `{"input":"Prepare 2 days in Lisbon."}`); res.IsError || text(res) != lisbonConcierge {
		t.Errorf("ask_concierge: %q, want %q", text(res), lisbonConcierge)
	}
	if res := callTool(t, c, "forecast", `{"town":"Oslo"}`); !res.IsError || !strings.Contains(text(res), `missing required property "city"`) {
		t.Errorf("bad arguments: isError %v, %q", res.IsError, text(res))
	}
	if res := callTool(t, c, "forecast", `{"city":" "}`); !res.IsError || !strings.Contains(text(res), "the city is empty") {
		t.Errorf("tool error: isError %v, %q", res.IsError, text(res))
	}
}

// lisbonConcierge is the offline concierge's answer to "Prepare 2 days in Lisbon.": the
// planner's advice and packing list, and the guide's phrases.
const lisbonConcierge = "Your 2 days in Lisbon: Expect sunny spells, light wind, 4 to 10 °C: the weather is for walking, so see the city on foot. Pack: warm jacket, comfortable shoes, clothes for 2 days. Lisbon is best seen on foot: start early, and take the side streets. In Lisbon they speak Portuguese: Olá (hello), por favor (please), obrigado/obrigada (thank you)."

// exerciseSkillResources checks, through c, the planner's skill served as resources: the
// resources are its SKILL.md and its one file, and reading them gives the files as they are in
// skills/, byte for byte.
func exerciseSkillResources(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := testContext(t)
	list, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range list.Resources {
		got[r.URI] = r.MIMEType
	}
	files := map[string]string{
		"skill://packing-list/SKILL.md":               "skills/packing-list/SKILL.md",
		"skill://packing-list/references/clothing.md": "skills/packing-list/references/clothing.md",
	}
	want := map[string]string{}
	for uri := range files {
		want[uri] = "text/markdown"
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resources and their MIME types (-want +got):\n%s", diff)
	}
	for uri, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var req mcp.ReadResourceRequest
		req.Params.URI = uri
		res, err := c.ReadResource(ctx, req)
		if err != nil {
			t.Errorf("reading %s: %v", uri, err)
			continue
		}
		if len(res.Contents) != 1 {
			t.Errorf("reading %s: %d contents, want 1", uri, len(res.Contents))
			continue
		}
		tc, ok := res.Contents[0].(mcp.TextResourceContents)
		if !ok || tc.URI != uri || tc.MIMEType != "text/markdown" {
			t.Errorf("reading %s: %#v, want text/markdown text at that URI", uri, res.Contents[0])
			continue
		}
		if diff := cmp.Diff(string(data), tc.Text); diff != "" {
			t.Errorf("reading %s: the text is not %s (-file +read):\n%s", uri, file, diff)
		}
	}
}

// The bundled skills follow the Agent Skills specification to the letter: a problem that the
// lenient loader would only report fails here.
func TestSkillsAreValid(t *testing.T) {
	t.Parallel()
	skills, err := skill.LoadStrict(os.DirFS("skills"), ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(skills) != 1 || skills[0].Name != "packing-list" || fmt.Sprint(skills[0].Resources()) != "[references/clothing.md]" {
		t.Errorf("skills %v, want packing-list with references/clothing.md", skills)
	}
	var stderr strings.Builder
	if _, err := loadSkills(&stderr); err != nil || stderr.Len() != 0 {
		t.Errorf("loading the bundled skills: %v, stderr %q", err, stderr.String())
	}
}

// plan_trip's schema carries the limits of its days, and a call outside them is refused with
// a message that names the limit, before any model is asked.
func TestPlanTripDaysWithinLimits(t *testing.T) {
	t.Parallel()
	c := inProcess(t, "")
	tools, err := c.ListTools(testContext(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var days map[string]any
	for _, tl := range tools.Tools {
		if tl.Name == "plan_trip" {
			days, _ = tl.InputSchema.Properties["days"].(map[string]any)
		}
	}
	if days["minimum"] != 1.0 || days["maximum"] != 30.0 || days["description"] != "How many days" {
		t.Errorf("plan_trip's days = %v, want minimum 1, maximum 30 and the description alone", days)
	}
	for args, want := range map[string]string{
		`{"city":"Kyoto","days":45}`: "maximum",
		`{"city":"Kyoto","days":-2}`: "minimum",
	} {
		if res := callTool(t, c, "plan_trip", args); !res.IsError || !strings.Contains(text(res), want) {
			t.Errorf("plan_trip %s: isError %v, %q; want it refused, naming the %s", args, res.IsError, text(res), want)
		}
	}
}

func TestOffline(t *testing.T) {
	t.Parallel()
	exercise(t, inProcess(t, ""))
}

// The offline models answer any number of requests, concurrently.
func TestOfflineAnswersForever(t *testing.T) {
	t.Parallel()
	c := inProcess(t, "")
	cities := []string{"Lisbon", "Tokyo", "Reykjavik", "Lima"}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			city := cities[i%len(cities)]
			var req mcp.CallToolRequest
			req.Params.Name = "plan_trip"
			req.Params.Arguments = map[string]any{"city": city, "days": 1 + i%5}
			res, err := c.CallTool(testContext(t), req)
			if err != nil || res.IsError {
				t.Errorf("call %d: %v %s", i, err, text(res))
				return
			}
			var plan Plan
			if err := json.Unmarshal(res.RawStructuredContent, &plan); err != nil || plan.City != city || plan.Days != 1+i%5 {
				t.Errorf("call %d: %s", i, res.RawStructuredContent)
			}
		}()
	}
	wg.Wait()
}

func TestStdio(t *testing.T) {
	t.Parallel()
	stderr := stdioSession(t, settings{})
	if !strings.HasPrefix(stderr, "mcpserver: offline") {
		t.Errorf("the first line of stderr does not say the server is offline: %q", stderr)
	}
	// The progress of the runs, on stderr too: stdout is the protocol's.
	for _, line := range []string{"planner: started", "planner: running forecast", "guide: running phrasebook", "planner: done",
		"concierge: running plan_trip", "  planner: started, for concierge", "  guide: running phrasebook", "concierge: done"} {
		if !strings.Contains(stderr, "\n"+line+"\n") {
			t.Errorf("stderr has no progress line %q:\n%s", line, stderr)
		}
	}
}

// With -otel, the runs' spans go to stderr, and the protocol on stdout works as without; the
// last spans are written before run returns.
func TestStdioOtel(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "") // the spans to stderr, not to a collector
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	stderr := stdioSession(t, settings{otel: true})
	for _, name := range []string{"invoke_agent planner", "execute_tool forecast", "invoke_agent guide", "execute_tool phrasebook"} {
		if !strings.Contains(stderr, `"Name": "`+name+`"`) {
			t.Errorf("stderr has no span %q:\n%s", name, stderr)
		}
	}
}

// stdioSession serves MCP over pipes with set, exercises the server as a client, ends its stdin,
// and returns what it wrote to stderr.
func stdioSession(t *testing.T, set settings) string {
	t.Helper()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	var stderr lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), set, serverIn, serverOut, &stderr)
		serverOut.Close()
	}()
	c := initialize(t, client.NewClient(transport.NewIO(clientIn, clientOut, io.NopCloser(strings.NewReader("")))))
	exercise(t, c)
	clientOut.Close() // the end of stdin ends the server
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-testContext(t).Done():
		t.Fatal("the server did not stop at the end of its stdin")
	}
	return stderr.String()
}

// lockedBuffer keeps what the server writes to stderr, from any goroutine.
type lockedBuffer struct {
	mu    sync.Mutex
	b     strings.Builder
	wrote chan struct{} // closed and replaced at each write; nil until waitFor makes it
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

// waitFor waits until a line of the buffer holds each of parts.
func (l *lockedBuffer) waitFor(t *testing.T, parts ...string) {
	t.Helper()
	ctx := testContext(t)
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
		case <-ctx.Done():
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

func TestHTTP(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := newServer(settings{}, &chatStores{}, io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stderr strings.Builder
	done := make(chan error, 1)
	go func() { done <- serveHTTP(ctx, s, ln, nil, &stderr) }()
	url := "http://" + ln.Addr().String() + "/mcp"
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, initialize(t, c))
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "at "+url) {
		t.Errorf("stderr does not give the URL %s: %q", url, stderr.String())
	}
}

// The same server through an llm.yaml, against a fake OpenAI server: the real client, the
// factory and the wire.
func TestWithConfig(t *testing.T) {
	t.Parallel()
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if _, ok := toolResult(req); ok {
			return llmtest.Reply{Text: `{"city":"Porto","days":2,"pack":["raincoat"],"advice":"Take the tram."}`, Usage: usage.Usage{InputTokens: 50, OutputTokens: 20}}
		}
		return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("forecast", `{"city":"Porto"}`)}, Usage: usage.Usage{InputTokens: 40, OutputTokens: 10}}
	})
	srv := providertest.NewOpenAI(m)
	defer srv.Close()
	config := filepath.Join(t.TempDir(), "llm.yaml")
	doc := "providers:\n  openai:\n    api_key: test-key\n    base_url: " + srv.URL() + "/v1\nmodels:\n  fast: { provider: openai, model: gpt-test }\ndefault: fast\n"
	if err := os.WriteFile(config, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	c := inProcessTo(t, config, &stderr)
	_, answer := getPrompt(t, c, "planner", "Two days in Porto?")
	var plan Plan
	if err := json.Unmarshal([]byte(answer), &plan); err != nil || fmt.Sprint(plan.Pack) != "[raincoat]" {
		t.Errorf("planner answered %q (%v)", answer, err)
	}
	want := "mcpserver: with the models of " + config + "\n" +
		"planner: started\n" +
		"planner: asking fast\n" +
		"planner: fast answered: 50 tokens (50 so far)\n" +
		"planner: running forecast\n" +
		"planner: forecast returned\n" +
		"planner: asking fast\n" +
		"planner: fast answered: 70 tokens (120 so far)\n" +
		"planner: done\n"
	if got := stderr.String(); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}
}

func TestBadConfig(t *testing.T) {
	t.Parallel()
	err := run(context.Background(), settings{config: filepath.Join(t.TempDir(), "missing.yaml")}, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("error %v, want one naming the file", err)
	}
}

// progressOf collects the messages of the progress notifications that c receives.
type progressOf struct {
	mu       sync.Mutex
	messages []string
	more     chan struct{} // closed and replaced at each notification
}

func listenProgress(c *client.Client) *progressOf {
	p := &progressOf{more: make(chan struct{})}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != string(mcp.MethodNotificationProgress) {
			return
		}
		m, _ := n.Params.AdditionalFields["message"].(string)
		p.mu.Lock()
		defer p.mu.Unlock()
		p.messages = append(p.messages, m)
		close(p.more)
		p.more = make(chan struct{})
	})
	return p
}

// waitFor waits for a progress message.
func (p *progressOf) waitFor(t *testing.T, message string) {
	t.Helper()
	ctx := testContext(t)
	for {
		p.mu.Lock()
		found, more := slices.Contains(p.messages, message), p.more
		p.mu.Unlock()
		if found {
			return
		}
		select {
		case <-more:
		case <-ctx.Done():
			t.Fatalf("no progress message %q among %q", message, p.messages)
		}
	}
}

// A call of ask_concierge with a progress token receives the steps of the concierge's run and
// of the runs it delegates to, as they happen; cancelling it ends them all, and the server
// goes on.
func TestConciergeProgressAndCancel(t *testing.T) {
	t.Parallel()
	var stderr lockedBuffer
	c := inProcessWith(t, settings{latency: 500 * time.Millisecond}, &stderr)
	progress := listenProgress(c)
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = "ask_concierge"
		req.Params.Arguments = map[string]any{"input": "Prepare 2 days in Lisbon."}
		req.Params.Meta = &mcp.Meta{ProgressToken: "trip"}
		res, err := c.CallTool(ctx, req)
		if err == nil && res.IsError {
			err = errors.New(text(res)) // the in-process client hands back what the server answered
		}
		errc <- err
	}()
	for _, m := range []string{"concierge: started", "concierge: running plan_trip", "planner: started, for concierge", "guide: started, for concierge"} {
		progress.waitFor(t, m)
	}
	cancel() // while the planner and the guide wait for their models
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("the cancelled call returned %v", err)
	}
	for _, name := range []string{"planner", "guide", "concierge"} {
		stderr.waitFor(t, name+": failed: ", "context canceled")
	}
	if res := callTool(t, c, "forecast", `{"city":"Oslo"}`); res.IsError {
		t.Errorf("after the cancel, forecast: %s", text(res))
	}
}

// Over HTTP, a client that ends its session (DELETE) in the middle of a run ends the run and
// the runs it delegated to.
func TestHTTPSessionEndEndsItsRuns(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	s, err := newServer(settings{latency: 300 * time.Millisecond}, &chatStores{}, &stderr, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveHTTP(ctx, s, ln, nil, &stderr) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	url := "http://" + ln.Addr().String() + "/mcp"
	hc, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	// The session of the 2025-11-25 handshake: 2026-07-28 has none.
	t.Cleanup(func() { _ = hc.Close() })
	if err := hc.Start(testContext(t)); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if _, err := hc.Initialize(testContext(t), init); err != nil {
		t.Fatal(err)
	}
	progress := listenProgress(hc)
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = "ask_concierge"
		req.Params.Arguments = map[string]any{"input": "Prepare 2 days in Lisbon."}
		req.Params.Meta = &mcp.Meta{ProgressToken: "trip"}
		_, _ = hc.CallTool(testContext(t), req)
	}()
	progress.waitFor(t, "planner: started, for concierge")
	progress.waitFor(t, "guide: started, for concierge")

	del, err := http.NewRequestWithContext(testContext(t), http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	del.Header.Set(server.HeaderKeySessionID, hc.GetSessionId())
	del.Header.Set(mcp.HeaderProtocolVersion, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	resp, err := http.DefaultClient.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %s", resp.Status)
	}
	for _, name := range []string{"planner", "guide"} {
		stderr.waitFor(t, name+": failed: ", "context canceled")
	}
	stderr.waitFor(t, "concierge: failed: ", "the client ended its MCP session")
}
