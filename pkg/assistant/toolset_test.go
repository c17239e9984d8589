package assistant_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/google/go-cmp/cmp"
)

// toolList is a tool set that a test changes between runs.
type toolList struct {
	mu    sync.Mutex
	tools []tool.Tool
	err   error
	reads atomic.Int64
}

func (l *toolList) Tools(context.Context) ([]tool.Tool, error) {
	l.reads.Add(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tools, l.err
}

func (l *toolList) set(tools ...tool.Tool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tools = tools
}

// schemaCounter is a tool that counts how often its schema is read: what an assistant
// prepares of a tool (its compiled schema, its definition for the model) reads it.
type schemaCounter struct {
	name  string
	reads atomic.Int64
}

func (c *schemaCounter) Name() string        { return c.name }
func (c *schemaCounter) Description() string { return "Counts." }
func (c *schemaCounter) Schema() json.RawMessage {
	c.reads.Add(1)
	return json.RawMessage(`{"type":"object"}`)
}
func (c *schemaCounter) Call(context.Context, json.RawMessage) (string, error) {
	return c.name + " ran", nil
}

// callingModel returns a model that calls the tool named by the user's turn once, then
// answers with the tool's result; it records the tools each request offered.
func callingModel(offered *[][]string, mu *sync.Mutex) *llmtest.FuncModel {
	return llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		mu.Lock()
		*offered = append(*offered, toolNames(req))
		mu.Unlock()
		if results := toolResultsIn(req.Messages); len(results) > 0 {
			return llmtest.Text(results[len(results)-1].Content)
		}
		return llmtest.Calls(llmtest.Call(textOf(req.Messages[len(req.Messages)-1]), `{}`))
	})
}

// A run has the tools the set has when it starts; the next run sees the set's new tools, and
// a call of a tool the set no longer has is answered as a call of a tool that does not exist.
func TestToolSetReadAtEachRun(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var offered [][]string
	var n atomic.Int64
	set := &toolList{}
	set.set(countingTool("old", &n))
	a := assistant.New[string]("reader", assistant.WithModel(callingModel(&offered, &mu)),
		assistant.WithTools(countingTool("fixed", &n)), assistant.WithToolSet(set))

	res, err := a.Run(testContext(t), assistant.Input{Prompt: "old"})
	if err != nil || res.Output != "found" {
		t.Fatalf("run 1: %v, output %q", err, res.Output)
	}
	set.set(countingTool("new", &n))
	res, err = a.Run(testContext(t), assistant.Input{Prompt: "new"})
	if err != nil || res.Output != "found" {
		t.Fatalf("run 2: %v, output %q", err, res.Output)
	}
	res, err = a.Run(testContext(t), assistant.Input{Prompt: "old"})
	want := `error: there is no tool named "old"; the available tools are: fixed, new`
	if err != nil || res.Output != want {
		t.Fatalf("run 3: %v, output %q, want %q", err, res.Output, want)
	}
	wantOffered := [][]string{{"fixed", "old"}, {"fixed", "old"}, {"fixed", "new"}, {"fixed", "new"}, {"fixed", "new"}, {"fixed", "new"}}
	if diff := cmp.Diff(wantOffered, offered); diff != "" {
		t.Errorf("tools offered by each request (-want +got):\n%s", diff)
	}
	if got := set.reads.Load(); got != 3 {
		t.Errorf("the set was read %d times, want once a run (3)", got)
	}
	if got := n.Load(); got != 2 {
		t.Errorf("%d calls ran, want 2", got)
	}
}

// What the assistant prepares of the set's tools is kept while the set returns the same tools,
// and made again when they change.
func TestToolSetToolsPreparedOnce(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var offered [][]string
	first, second := &schemaCounter{name: "first"}, &schemaCounter{name: "second"}
	set := &toolList{}
	set.set(first)
	a := assistant.New[string]("counter", assistant.WithModel(callingModel(&offered, &mu)), assistant.WithToolSet(set))
	for i := range 5 {
		if res, err := a.Run(testContext(t), assistant.Input{Prompt: "first"}); err != nil || res.Output != "first ran" {
			t.Fatalf("run %d: %v, %v", i, err, res)
		}
	}
	prepared := first.reads.Load()
	if prepared == 0 {
		t.Fatal("the set's tool was never prepared")
	}
	for range 5 {
		if _, err := a.Run(testContext(t), assistant.Input{Prompt: "first"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := first.reads.Load(); got != prepared {
		t.Errorf("the schema was read %d times after 5 more runs with the same tools, want %d: it was prepared again", got, prepared)
	}
	set.set(first, second)
	if res, err := a.Run(testContext(t), assistant.Input{Prompt: "second"}); err != nil || res.Output != "second ran" {
		t.Fatalf("after the change: %v, %v", err, res)
	}
	if second.reads.Load() == 0 {
		t.Error("the new tool was not prepared")
	}
}

// An error of the set, or tools that break the rules of WithTools, fail the run before any
// request, naming the assistant.
func TestToolSetRefused(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	tests := []struct {
		name  string
		tools []tool.Tool
		err   error
		want  string
	}{
		{"set error", nil, errors.New("the server is down"), `assistant "refused": reading its tool set 1: the server is down`},
		{"duplicate", []tool.Tool{countingTool("fixed", &n)}, nil, `assistant "refused": the tools of its tool set: two tools are named "fixed"`},
		{"invalid name", []tool.Tool{rawTool{name: "a b", schema: `{"type":"object"}`}}, nil, `assistant "refused": the tools of its tool set:`},
		{"not an object", []tool.Tool{rawTool{name: "s", schema: `{"type":"string"}`}}, nil, `tool "s": its schema must describe an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var requests atomic.Int64
			m := llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
				requests.Add(1)
				return llmtest.Text("hi")
			})
			set := &toolList{tools: tt.tools, err: tt.err}
			a := assistant.New[string]("refused", assistant.WithModel(m), assistant.WithTools(countingTool("fixed", &n)), assistant.WithToolSet(set))
			res, err := a.Run(testContext(t), assistant.Input{Prompt: "hi"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			if res != nil || requests.Load() != 0 {
				t.Errorf("result %v after %d requests, want none", res, requests.Load())
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("error %v does not wrap the set's", err)
			}
		})
	}
}

// WithApproval names a set's tools like any other; a paused call of a tool that the set no
// longer has when the run resumes is answered as a call of a tool that does not exist.
func TestToolSetApproval(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var offered [][]string
	var sent atomic.Int64
	set := &toolList{}
	set.set(countingTool("send", &sent))
	a := assistant.New[string]("approver", assistant.WithModel(callingModel(&offered, &mu)), assistant.WithToolSet(set),
		assistant.WithApproval(fixed(assistant.Pending()), "send"))

	res, err := a.Run(testContext(t), assistant.Input{Prompt: "send"})
	if err != nil || res.Stop != assistant.StopPending || sent.Load() != 0 {
		t.Fatalf("run: %v, stop %q, %d sent; want a pause before the call", err, res.Stop, sent.Load())
	}
	final, err := a.Resume(testContext(t), res.Paused, map[string]assistant.Decision{res.Paused.Waiting()[0].ID: assistant.Approved()})
	if err != nil || final.Output != "found" || sent.Load() != 1 {
		t.Fatalf("resume: %v, output %q, %d sent", err, final.Output, sent.Load())
	}

	res, err = a.Run(testContext(t), assistant.Input{Prompt: "send"})
	if err != nil || res.Stop != assistant.StopPending {
		t.Fatalf("second run: %v, stop %q", err, res.Stop)
	}
	set.set(countingTool("other", &sent))
	final, err = a.Resume(testContext(t), res.Paused, map[string]assistant.Decision{res.Paused.Waiting()[0].ID: assistant.Approved()})
	want := `error: there is no tool named "send"; the available tools are: other`
	if err != nil || final.Output != want || sent.Load() != 1 {
		t.Fatalf("resume without the tool: %v, output %q, %d sent; want %q", err, final.Output, sent.Load(), want)
	}
}

// A set given for one run adds its tools to that run only.
func TestToolSetForOneRun(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var offered [][]string
	var n atomic.Int64
	set := &toolList{}
	set.set(countingTool("extra", &n))
	a := assistant.New[string]("once", assistant.WithModel(callingModel(&offered, &mu)), assistant.WithTools(countingTool("fixed", &n)))
	for range 2 {
		if res, err := a.Run(testContext(t), assistant.Input{Prompt: "extra", Options: []assistant.Option{assistant.WithToolSet(set)}}); err != nil || res.Output != "found" {
			t.Fatalf("run with the set: %v, %v", err, res)
		}
	}
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "extra"})
	if err != nil || !strings.HasPrefix(res.Output, `error: there is no tool named "extra"`) {
		t.Fatalf("run without the set: %v, output %q", err, res.Output)
	}
	if got := offered[len(offered)-1]; !cmp.Equal(got, []string{"fixed"}) {
		t.Errorf("a run without the set was offered %v", got)
	}
}

// Runs read the set while it changes, concurrently (run with -race).
func TestToolSetConcurrentRuns(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	tools := []tool.Tool{countingTool("a", &n), countingTool("b", &n)}
	set := &toolList{}
	set.set(tools[0])
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if results := toolResultsIn(req.Messages); len(results) > 0 {
			return llmtest.Text("done")
		}
		return llmtest.Calls(llmtest.Call(toolNames(req)[0], `{}`))
	}).NoRecord()
	a := assistant.New[string]("busy", assistant.WithModel(m), assistant.WithToolSet(set))
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%4 == 0 {
				set.set(tools[i/4%2])
			}
			if _, err := a.Run(testContext(t), assistant.Input{Prompt: "go"}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := n.Load(); got != 40 {
		t.Errorf("%d calls ran, want 40", got)
	}
}
