package assistant_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/callback/callbacktest"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

type stepArgs struct {
	N int `json:"n"`
}

// TestToolCallsConcurrentResultsInCallOrder proves that the four calls of one turn run at the
// same time (each waits until all four have started) and that their results go back in the
// order of the calls although they finish in the reverse order.
func TestToolCallsConcurrentResultsInCallOrder(t *testing.T) {
	t.Parallel()
	const calls = 4
	// A failure must not hang the test: the barrier gives up after a while, and the call
	// then fails, which the assertions below report.
	barrierCtx, cancel := context.WithTimeout(testContext(t), 10*time.Second)
	defer cancel()
	var (
		mu       sync.Mutex
		started  int
		all      = make(chan struct{}) // closed when every call has started
		done     [calls]chan struct{}  // done[i] is closed when call i returns
		finished []int                 // the order the calls finished in
	)
	for i := range done {
		done[i] = make(chan struct{})
	}
	step := tool.Func("step", "Runs step n.", func(ctx context.Context, in stepArgs) (string, error) {
		mu.Lock()
		if started++; started == calls {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-barrierCtx.Done():
			return "", fmt.Errorf("step %d: the other calls did not start while this one ran", in.N)
		}
		if in.N+1 < calls { // finish after the next call: in reverse order
			select {
			case <-done[in.N+1]:
			case <-barrierCtx.Done():
				return "", fmt.Errorf("step %d: step %d never finished", in.N, in.N+1)
			}
		}
		mu.Lock()
		finished = append(finished, in.N)
		mu.Unlock()
		close(done[in.N])
		return fmt.Sprintf("result %d", in.N), nil
	})
	var turn []llms.ToolCall
	for i := range calls {
		turn = append(turn, llmtest.Call("step", fmt.Sprintf(`{"n":%d}`, i)))
	}
	m := llmtest.NewScripted(llmtest.Calls(turn...), llmtest.Text("all done"))
	a := assistant.New[string]("stepper", assistant.WithModel(m), assistant.WithTools(step))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Run the steps."})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if diff := cmp.Diff([]int{3, 2, 1, 0}, finished); diff != "" {
		t.Errorf("the order the calls finished in (-want +got):\n%s", diff)
	}
	madeCalls, results := toolCallsIn(res.Messages), toolResultsIn(res.Messages)
	if len(madeCalls) != calls || len(results) != calls {
		t.Fatalf("Messages hold %d calls and %d results, want %d of each", len(madeCalls), len(results), calls)
	}
	for i, r := range results {
		if want := fmt.Sprintf("result %d", i); r.Content != want || r.ToolCallID != madeCalls[i].ID {
			t.Errorf("result %d = {id %q, %q}, want {id %q, %q}: results go back in the calls' order", i, r.ToolCallID, r.Content, madeCalls[i].ID, want)
		}
	}
	// One message per result, right after the turn, in call order.
	wantRoles := []llms.ChatMessageType{llms.ChatMessageTypeHuman, llms.ChatMessageTypeAI,
		llms.ChatMessageTypeTool, llms.ChatMessageTypeTool, llms.ChatMessageTypeTool, llms.ChatMessageTypeTool,
		llms.ChatMessageTypeAI}
	if diff := cmp.Diff(wantRoles, roles(res.Messages)); diff != "" {
		t.Errorf("Messages' roles (-want +got):\n%s", diff)
	}
}

// TestToolProblemsFedBack checks that what goes wrong with a tool call goes back to the model
// as that call's result, and that the run goes on to the model's answer.
func TestToolProblemsFedBack(t *testing.T) {
	t.Parallel()
	weather := func(result string, err error) tool.Tool {
		return tool.Func("weather", "Says the weather in a city.", func(context.Context, cityArgs) (string, error) {
			return result, err
		})
	}
	weatherSchema := compactJSON(t, weather("", nil).Schema())
	long := strings.Repeat("x", 1000)
	for _, tc := range []struct {
		name        string
		tools       []tool.Tool
		opts        []assistant.Option
		call        llms.ToolCall
		prefix      string   // the result starts with it
		contains    []string // and holds each
		notContains string   // and does not hold it
		panicked    bool     // a ToolError event with Panic is emitted
	}{
		{
			name:     "tool error",
			tools:    []tool.Tool{weather("", errors.New("the weather service is down"))},
			call:     llmtest.Call("weather", `{"city":"Oslo"}`),
			prefix:   "error:",
			contains: []string{"the weather service is down"},
		},
		{
			name: "panic",
			tools: []tool.Tool{tool.Func("weather", "Says the weather.", func(context.Context, cityArgs) (string, error) {
				panic("kaboom")
			})},
			call:     llmtest.Call("weather", `{"city":"Oslo"}`),
			prefix:   "error:",
			contains: []string{"kaboom"},
			panicked: true,
		},
		{
			name:     "unknown tool",
			tools:    []tool.Tool{weather("sunny", nil), lookupTool()},
			call:     llmtest.Call("forecast", `{"city":"Oslo"}`),
			prefix:   "error:",
			contains: []string{`"forecast"`, "weather", "lookup"},
		},
		{
			name:        "oversized result",
			tools:       []tool.Tool{weather(long, nil)},
			opts:        []assistant.Option{assistant.WithMaxToolResult(100)},
			call:        llmtest.Call("weather", `{"city":"Oslo"}`),
			prefix:      long[:100],
			notContains: long[:101],
			contains:    []string{"cut", "1000"},
		},
		{
			// An error is a result too: a tool that quotes a whole response body in its error
			// must not flood the model's context.
			name:        "oversized error",
			tools:       []tool.Tool{weather("", errors.New(long))},
			opts:        []assistant.Option{assistant.WithMaxToolResult(100)},
			call:        llmtest.Call("weather", `{"city":"Oslo"}`),
			prefix:      "error: ",
			notContains: long[:101],
			contains:    []string{"cut"},
		},
		{
			name:     "arguments of the wrong type",
			tools:    []tool.Tool{weather("sunny", nil)},
			call:     llmtest.Call("weather", `{"city":5}`),
			prefix:   "error:",
			contains: []string{"city", weatherSchema},
		},
		{
			// The schema quoted back to the model is compact: its layout would cost tokens.
			name:     "arguments refused by an indented schema",
			tools:    []tool.Tool{rawTool{name: "weather", schema: "{\n  \"type\": \"object\",\n  \"properties\": {\"city\": {\"type\": \"string\"}},\n  \"required\": [\"city\"]\n}"}},
			call:     llmtest.Call("weather", `{"city":5}`),
			prefix:   "error:",
			contains: []string{`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`},
		},
		{
			name:     "missing argument",
			tools:    []tool.Tool{weather("sunny", nil)},
			call:     llmtest.Call("weather", `{}`),
			prefix:   "error:",
			contains: []string{"city", weatherSchema},
		},
		{
			name:     "arguments not JSON",
			tools:    []tool.Tool{weather("sunny", nil)},
			call:     llmtest.Call("weather", `city=Oslo`),
			prefix:   "error:",
			contains: []string{weatherSchema},
		},
		{
			name:     "tool returns ErrInvalidArgs",
			tools:    []tool.Tool{weather("", fmt.Errorf("%w: city %q is not on the map", tool.ErrInvalidArgs, "Atlantis"))},
			call:     llmtest.Call("weather", `{"city":"Atlantis"}`),
			prefix:   "error:",
			contains: []string{`city "Atlantis" is not on the map`, weatherSchema},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := callbacktest.NewRecorder()
			m := llmtest.NewScripted(llmtest.Calls(tc.call), llmtest.Text("sorry, no weather"))
			opts := append([]assistant.Option{assistant.WithModel(m), assistant.WithTools(tc.tools...), assistant.WithCallback(rec)}, tc.opts...)
			a := assistant.New[string]("forecaster", opts...)
			res, err := a.Run(testContext(t), assistant.Input{Prompt: "Weather in Oslo?"})
			if err != nil {
				t.Fatalf("Run: %v; the run must go on after a tool problem", err)
			}
			if res.Output != "sorry, no weather" {
				t.Errorf("Output = %q, want the answer after the tool result", res.Output)
			}
			reqs := m.Requests()
			if len(reqs) != 2 {
				t.Fatalf("the model got %d requests, want 2", len(reqs))
			}
			results := toolResultsIn(reqs[1].Messages)
			if len(results) != 1 {
				t.Fatalf("the second request holds %d tool results, want 1", len(results))
			}
			got := results[0].Content
			if !strings.HasPrefix(got, tc.prefix) {
				t.Errorf("result %q does not start with %q", abbrev(got), abbrev(tc.prefix))
			}
			if tc.notContains != "" && strings.Contains(got, tc.notContains) {
				t.Errorf("result %q holds %q: it was not cut", abbrev(got), abbrev(tc.notContains))
			}
			for _, want := range tc.contains {
				if !strings.Contains(got, want) {
					t.Errorf("result\n%s\ndoes not contain\n%s", abbrev(got), want)
				}
			}
			if args := toolCallsIn(res.Messages)[0].FunctionCall.Arguments; args != tc.call.FunctionCall.Arguments {
				t.Errorf("Messages hold the call's arguments as %q, want them as written, %q", args, tc.call.FunctionCall.Arguments)
			}
			if tc.panicked {
				errs := rec.Of(callback.ToolError)
				if len(errs) != 1 || !errs[0].Panic || errs[0].Tool != "weather" || errs[0].Err == nil {
					t.Errorf("ToolError events = %+v, want one for weather, with Panic and Err set", errs)
				}
			}
		})
	}
}

// TestMaxParallelToolsCapsTheCallsRunningAtOnce: under WithMaxParallelTools(2), a turn of five
// calls runs two at a time — never three.
func TestMaxParallelToolsCapsTheCallsRunningAtOnce(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	running, peak := 0, 0
	slow := tool.Func("slow", "Takes a moment.", func(ctx context.Context, _ stepArgs) (string, error) {
		mu.Lock()
		running++
		peak = max(peak, running)
		mu.Unlock()
		// Wait until another call runs too (or give up), then a moment more: a third call
		// started beside them would be seen.
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			mu.Lock()
			two := running >= 2
			mu.Unlock()
			if two {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
		return "done", nil
	})
	var turn []llms.ToolCall
	for i := range 5 {
		turn = append(turn, llmtest.Call("slow", fmt.Sprintf(`{"n":%d}`, i)))
	}
	m := llmtest.NewScripted(llmtest.Calls(turn...), llmtest.Text("all done"))
	a := assistant.New[string]("stepper", assistant.WithModel(m), assistant.WithTools(slow), assistant.WithMaxParallelTools(2))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Run the steps."}); err != nil {
		t.Fatal(err)
	}
	if peak != 2 {
		t.Errorf("at most %d calls ran at once; want 2 under WithMaxParallelTools(2)", peak)
	}
}

// TestAResultIsCutOnACharacterBoundary: a result at the size cap goes back whole; a longer one
// is cut where a character starts, even when the result is not valid UTF-8.
func TestAResultIsCutOnACharacterBoundary(t *testing.T) {
	t.Parallel()
	const limit = 100
	for _, tc := range []struct {
		name, result, want string // want: the result up to the note of the cut, or all of it
		cut                bool
	}{
		{"at the cap", strings.Repeat("x", limit), strings.Repeat("x", limit), false},
		{"a byte over the cap", strings.Repeat("x", limit+1), strings.Repeat("x", limit), true},
		{"a character across the cap", strings.Repeat("x", limit-1) + "é", strings.Repeat("x", limit-1), true},
		{"no character starts", strings.Repeat("\x80", 2*limit), "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			echo := tool.Func("echo", "Echoes.", func(context.Context, lookupArgs) (string, error) { return tc.result, nil })
			m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("echo", `{}`)), llmtest.Text("done"))
			a := assistant.New[string]("echoer", assistant.WithModel(m), assistant.WithTools(echo), assistant.WithMaxToolResult(limit))
			if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Echo."}); err != nil {
				t.Fatal(err)
			}
			got := toolResultsIn(m.Requests()[1].Messages)[0].Content
			if !tc.cut {
				if got != tc.want {
					t.Errorf("result = %q, want it whole", abbrev(got))
				}
				return
			}
			note := fmt.Sprintf("\n[result cut: it was %d bytes and the limit is %d", len(tc.result), limit)
			if head, _, ok := strings.Cut(got, note); !ok || head != tc.want {
				t.Errorf("result = %q; want %q, then the note of the cut", abbrev(got), abbrev(tc.want))
			}
		})
	}
}
