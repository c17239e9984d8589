package assistant_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

const oslo = `{"name":"Oslo","population":709000}`

var osloCity = city{Name: "Oslo", Population: 709000}

// lookupTool is a tool the model may call; the tests of this file never call it, but its
// presence makes the model one "with tools".
func lookupTool() tool.Tool {
	return tool.Func("lookup", "Looks a city up.", func(_ context.Context, in cityArgs) (string, error) {
		return "a city called " + in.City, nil
	})
}

func TestOutputFoundInAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, answer string
	}{
		{"plain JSON", oslo},
		{"plain JSON with spaces", "\n  " + oslo + "\n"},
		{"json code fence", "```json\n" + oslo + "\n```"},
		{"code fence after prose", "Here it is:\n```json\n" + oslo + "\n```\nAnything else?"},
		{"unlabelled code fence", "```\n" + oslo + "\n```"},
		{"surrounding prose", "The answer is " + oslo + " as you asked."},
		{"prose with braces before the JSON", "Using {city} as the key: " + oslo},
		// Models cite their sources as [1]: the first JSON value in the prose is not the answer.
		{"prose with a citation before the JSON", "Oslo is the largest city [1]. " + oslo},
		// Found in time linear in the answer: decoding from each opener would read the rest
		// of the answer from each of them (internal/jsonfind counts the bytes read).
		{"after 2 MB of unclosed arrays", strings.Repeat("[", 2<<20) + " " + oslo},
		{"after 2 MB of objects cut short", strings.Repeat(`{"a":`, 2<<20/5) + " " + oslo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text(tc.answer)).WithoutTools()
			a := assistant.New[city]("finder", assistant.WithModel(m))
			res, err := a.Run(testContext(t), assistant.Input{Prompt: "Which city?"})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Output != osloCity {
				t.Errorf("Output = %+v, want %+v", res.Output, osloCity)
			}
			if res.Text != oslo {
				t.Errorf("Text = %q, want the JSON found in the answer, %q", res.Text, oslo)
			}
			if res.Stop != assistant.StopAnswer {
				t.Errorf("Stop = %q, want %q", res.Stop, assistant.StopAnswer)
			}
			if n := len(m.Requests()); n != 1 {
				t.Errorf("the model got %d requests, want 1 (no correction)", n)
			}
		})
	}
}

func TestProseAssistant(t *testing.T) {
	t.Parallel()
	const answer = "Oslo, I think. {not JSON at all"
	m := llmtest.NewScripted(llmtest.Text(answer)) // a model that takes tools
	a := assistant.New[string]("chatty", assistant.WithInstructions("Be kind."), assistant.WithModel(m))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Which city?"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Output != answer || res.Text != answer {
		t.Errorf("Output, Text = %q, %q; want the answer as written, %q", res.Output, res.Text, answer)
	}
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the model got %d requests, want 1", len(reqs))
	}
	if names := toolNames(reqs[0]); len(names) != 0 {
		t.Errorf("tools offered = %v, want none (no final_result for a prose assistant)", names)
	}
	if got := systemOf(reqs[0]); got != "Be kind." {
		t.Errorf("system prompt = %q, want the instructions alone, %q", got, "Be kind.")
	}
}

func TestToolModeFinalResult(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("final_result", oslo)))
	a := assistant.New[city]("finder", assistant.WithModel(m), assistant.WithTools(lookupTool()),
		assistant.WithOutputMode(assistant.OutputTool))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Which city?"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Output != osloCity || res.Stop != assistant.StopAnswer {
		t.Errorf("Output, Stop = %+v, %q; want %+v, %q", res.Output, res.Stop, osloCity, assistant.StopAnswer)
	}
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the model got %d requests, want 1", len(reqs))
	}
	if diff := cmp.Diff([]string{"lookup", "final_result"}, toolNames(reqs[0])); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
	wantRoles := []llms.ChatMessageType{llms.ChatMessageTypeHuman, llms.ChatMessageTypeAI, llms.ChatMessageTypeTool}
	if diff := cmp.Diff(wantRoles, roles(res.Messages)); diff != "" {
		t.Fatalf("Messages' roles (-want +got):\n%s", diff)
	}
	calls, results := toolCallsIn(res.Messages), toolResultsIn(res.Messages)
	if len(calls) != 1 || len(results) != 1 || results[0].ToolCallID != calls[0].ID {
		t.Fatalf("Messages hold calls %+v and results %+v; want the final_result call answered by its id", calls, results)
	}
	if !strings.HasPrefix(results[0].Content, "accepted") {
		t.Errorf("final_result's result = %q, want it to start with %q", results[0].Content, "accepted")
	}
}

func TestToolModeInvalidFinalResultCorrected(t *testing.T) {
	t.Parallel()
	const bad = `{"name":"Oslo"}`
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("final_result", bad)),
		llmtest.Calls(llmtest.Call("final_result", oslo)),
	)
	a := assistant.New[city]("finder", assistant.WithModel(m), assistant.WithTools(lookupTool()),
		assistant.WithOutputMode(assistant.OutputTool))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Which city?"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Output != osloCity {
		t.Errorf("Output = %+v, want %+v", res.Output, osloCity)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	results := toolResultsIn(reqs[1].Messages)
	if len(results) != 1 {
		t.Fatalf("the second request holds %d tool results, want 1 (the failed final_result's)", len(results))
	}
	got := results[0].Content
	for _, want := range []string{validationError[city](t, bad), schemaText[city](t)} {
		if !strings.Contains(got, want) {
			t.Errorf("the failed final_result's result\n%s\ndoes not contain\n%s", got, want)
		}
	}
	if !strings.HasPrefix(got, "error:") {
		t.Errorf("the failed final_result's result = %q, want it to start with %q", got, "error:")
	}
	if !slices.Contains(toolNames(reqs[1]), "final_result") {
		t.Errorf("the correction request offers %v, want final_result again", toolNames(reqs[1]))
	}
	if n := len(toolResultsIn(res.Messages)); n != 2 {
		t.Errorf("Messages hold %d tool results, want 2 (the error, then accepted)", n)
	}
}

func TestToolModeFinalResultSkipsOtherCalls(t *testing.T) {
	t.Parallel()
	ran := make(chan string, 1)
	lookup := tool.Func("lookup", "Looks a city up.", func(_ context.Context, in cityArgs) (string, error) {
		ran <- in.City
		return "found", nil
	})
	m := llmtest.NewScripted(llmtest.Calls(
		llmtest.Call("lookup", `{"city":"Bergen"}`),
		llmtest.Call("final_result", oslo),
	))
	a := assistant.New[city]("finder", assistant.WithModel(m), assistant.WithTools(lookup))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Which city?"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Output != osloCity {
		t.Errorf("Output = %+v, want %+v", res.Output, osloCity)
	}
	select {
	case c := <-ran:
		t.Errorf("lookup ran (for %q) in the turn of a valid final_result; it must be skipped", c)
	default:
	}
	results := toolResultsIn(res.Messages)
	if len(results) != 2 || !strings.HasPrefix(results[0].Content, "skipped") || !strings.HasPrefix(results[1].Content, "accepted") {
		t.Errorf("tool results = %+v, want lookup skipped then final_result accepted, in call order", results)
	}
	if n := res.Usage.Total.ToolCalls; n != 1 {
		t.Errorf("Usage.Total.ToolCalls = %d, want 1 (every call the model made except final_result)", n)
	}
}

func TestToolModeTextAnswerAccepted(t *testing.T) {
	t.Parallel()
	m := llmtest.NewScripted(llmtest.Text("Sure: " + oslo))
	a := assistant.New[city]("finder", assistant.WithModel(m), assistant.WithTools(lookupTool()),
		assistant.WithOutputMode(assistant.OutputTool))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Which city?"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Output != osloCity {
		t.Errorf("Output = %+v, want %+v", res.Output, osloCity)
	}
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the model got %d requests, want 1 (a text answer that parses needs no correction)", len(reqs))
	}
	if !slices.Contains(toolNames(reqs[0]), "final_result") {
		t.Errorf("tools offered = %v; the test needs tool mode (final_result offered)", toolNames(reqs[0]))
	}
}

func TestOutputAutoChoosesMode(t *testing.T) {
	t.Parallel()
	const instructions = "Find the city."
	for _, tc := range []struct {
		name       string
		model      *llmtest.Scripted
		wantTools  []string
		wantSchema bool // in the system prompt
	}{
		{"model with tools", llmtest.NewScripted(llmtest.Calls(llmtest.Call("final_result", oslo))), []string{"final_result"}, false},
		{"model without tools", llmtest.NewScripted(llmtest.Text(oslo)).WithoutTools(), nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := assistant.New[city]("finder", assistant.WithInstructions(instructions), assistant.WithModel(tc.model))
			res, err := a.Run(testContext(t), assistant.Input{Prompt: "Which city?"})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Output != osloCity {
				t.Errorf("Output = %+v, want %+v", res.Output, osloCity)
			}
			req := tc.model.Requests()[0]
			if diff := cmp.Diff(tc.wantTools, toolNames(req)); diff != "" {
				t.Errorf("tools offered (-want +got):\n%s", diff)
			}
			system := systemOf(req)
			if !strings.HasPrefix(system, instructions) {
				t.Errorf("system prompt = %q, want it to start with the instructions", system)
			}
			if got := strings.Contains(system, schemaDoc[city](t)); got != tc.wantSchema {
				t.Errorf("system prompt holds the output schema: %v, want %v; system prompt:\n%s", got, tc.wantSchema, system)
			}
		})
	}
}

func TestBadTextAnswerCorrectedOnce(t *testing.T) {
	t.Parallel()
	const bad = `{"name":"Oslo"}`
	m := llmtest.NewScripted(
		llmtest.Reply{Text: bad, Usage: usage.Usage{InputTokens: 100, OutputTokens: 10, CacheReadTokens: 40}},
		llmtest.Reply{Text: oslo, Usage: usage.Usage{InputTokens: 130, OutputTokens: 12, ReasoningTokens: 5}},
	).WithoutTools()
	a := assistant.New[city]("finder", assistant.WithModel(m))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Which city?"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Output != osloCity {
		t.Errorf("Output = %+v, want %+v", res.Output, osloCity)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	if len(msgs) < 2 {
		t.Fatalf("the second request has %d messages", len(msgs))
	}
	failed, correction := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if failed.Role != llms.ChatMessageTypeAI || textOf(failed) != bad {
		t.Errorf("the second request's next to last message = %+v, want the failed answer from the AI", failed)
	}
	if correction.Role != llms.ChatMessageTypeHuman {
		t.Errorf("the correction's role = %q, want %q", correction.Role, llms.ChatMessageTypeHuman)
	}
	for _, want := range []string{validationError[city](t, bad), schemaDoc[city](t)} {
		if !strings.Contains(textOf(correction), want) {
			t.Errorf("the correction\n%s\ndoes not contain the exact error and the schema:\n%s", textOf(correction), want)
		}
	}
	want := usage.Usage{Requests: 2, InputTokens: 230, OutputTokens: 22, CacheReadTokens: 40, ReasoningTokens: 5}
	if diff := cmp.Diff(want, res.Usage.Total); diff != "" {
		t.Errorf("Usage.Total (-want +got):\n%s", diff)
	}
}

func TestSecondOutputFailure(t *testing.T) {
	t.Parallel()
	const bad1, bad2 = `{"name":"Oslo"}`, `{"name":"Oslo","population":"many"}`
	for _, tc := range []struct {
		name  string
		model *llmtest.Scripted
		mode  assistant.OutputMode
	}{
		{"text answers", llmtest.NewScripted(llmtest.Text(bad1), llmtest.Text(bad2), llmtest.Text(oslo)), assistant.OutputPrompted},
		{"final_result calls", llmtest.NewScripted(
			llmtest.Calls(llmtest.Call("final_result", bad1)),
			llmtest.Calls(llmtest.Call("final_result", bad2)),
			llmtest.Calls(llmtest.Call("final_result", oslo)),
		), assistant.OutputTool},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := assistant.New[city]("finder", assistant.WithModel(tc.model), assistant.WithOutputMode(tc.mode))
			res, err := a.Run(testContext(t), assistant.Input{Prompt: "Which city?"})
			var oerr *assistant.OutputError
			if !errors.As(err, &oerr) {
				t.Fatalf("Run error = %v, want an *assistant.OutputError", err)
			}
			if oerr.Raw != bad2 || len(oerr.Attempts) != 2 || oerr.Assistant != "finder" {
				t.Errorf("OutputError = {Assistant: %q, Raw: %q, %d Attempts}, want {%q, %q, 2}", oerr.Assistant, oerr.Raw, len(oerr.Attempts), "finder", bad2)
			}
			if n := len(tc.model.Requests()); n != 2 {
				t.Errorf("the model got %d requests, want exactly 2", n)
			}
			if res == nil {
				t.Fatal("no partial Result returned with the OutputError")
			}
			if res.Stop != assistant.StopError || res.Usage.Total.Requests != 2 {
				t.Errorf("partial Result: Stop %q, %d requests; want %q, 2", res.Stop, res.Usage.Total.Requests, assistant.StopError)
			}
			if len(res.Messages) == 0 || res.Messages[0].Role != llms.ChatMessageTypeHuman {
				t.Errorf("partial Result's Messages = %+v, want the user's turn first", res.Messages)
			}
			if n := countRole(res.Messages, llms.ChatMessageTypeAI); n != 2 {
				t.Errorf("partial Result's Messages hold %d AI messages, want both failed answers", n)
			}
		})
	}
}

func TestValidatorErrorTriggersCorrection(t *testing.T) {
	t.Parallel()
	const zero = `{"name":"Oslo","population":0}`
	validator := assistant.WithValidator(func(_ context.Context, c city) error {
		if c.Population <= 0 {
			return fmt.Errorf("population of %s must be positive", c.Name)
		}
		return nil
	})
	for _, tc := range []struct {
		name       string
		model      *llmtest.Scripted
		correction func(req llmtest.Request) string // where the correction is
	}{
		{"text answer", llmtest.NewScripted(llmtest.Text(zero), llmtest.Text(oslo)).WithoutTools(),
			func(req llmtest.Request) string { return textOf(req.Messages[len(req.Messages)-1]) }},
		{"final_result", llmtest.NewScripted(
			llmtest.Calls(llmtest.Call("final_result", zero)),
			llmtest.Calls(llmtest.Call("final_result", oslo)),
		), func(req llmtest.Request) string {
			results := toolResultsIn(req.Messages)
			if len(results) == 0 {
				return ""
			}
			return results[len(results)-1].Content
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := assistant.New[city]("finder", assistant.WithModel(tc.model), validator)
			res, err := a.Run(testContext(t), assistant.Input{Prompt: "Which city?"})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Output != osloCity {
				t.Errorf("Output = %+v, want %+v", res.Output, osloCity)
			}
			reqs := tc.model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("the model got %d requests, want 2", len(reqs))
			}
			if got, want := tc.correction(reqs[1]), "population of Oslo must be positive"; !strings.Contains(got, want) {
				t.Errorf("the correction %q does not quote the validator's error %q", got, want)
			}
		})
	}
}

func countRole(msgs []llms.MessageContent, role llms.ChatMessageType) int {
	n := 0
	for _, m := range msgs {
		if m.Role == role {
			n++
		}
	}
	return n
}

func TestOfCandidatesOfOneLengthTheFirstsErrorIsQuoted(t *testing.T) {
	t.Parallel()
	errorFor := func(answer string) string {
		a := assistant.New[city]("geo", assistant.WithModel(llmtest.NewScripted(llmtest.Text(answer)).Cycle()))
		_, err := a.Run(testContext(t), assistant.Input{Prompt: "Oslo?"})
		var oe *assistant.OutputError
		if !errors.As(err, &oe) {
			t.Fatalf("%q: err = %v, want an *OutputError", answer, err)
		}
		return oe.Attempts[0].Error()
	}
	first, second := `{"name":1}`, `{"nope":1}` // the same length, unusable for different reasons
	if errorFor(first) == errorFor(second) {
		t.Fatal("the two candidates fail the same way: the test cannot tell them apart")
	}
	if got, want := errorFor("Either "+first+" or "+second+"."), errorFor(first); got != want {
		t.Errorf("quoted %q; want the first candidate's error %q, as the answer's likeliest meaning", got, want)
	}
}

func TestAFencedBlockIsTakenBeforeTheProseAroundIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, answer string
		want         []int
	}{
		{"a citation before the block", "As in [2]:\n```json\n[1, 2, 3]\n```", []int{1, 2, 3}},
		{"the second block when the first is not JSON", "Run:\n```sh\nls [4]\n```\nThen:\n```\n[5, 6]\n```\n", []int{5, 6}},
		{"a block left open", "See [7].\n```json\n[8, 9]", []int{8, 9}},
		{"a fence without a newline is prose", "```[1]```", []int{1}},
		{"a whole answer that is JSON", "[3]", []int{3}},
		{"a whole answer that wraps the one meant", "[[3, 4]]", []int{3, 4}},
		{"an object that wraps the one meant", `{"numbers": [3, 4]}`, []int{3, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := assistant.New[[]int]("nums", assistant.WithModel(llmtest.NewScripted(llmtest.Text(tc.answer))))
			res, err := a.Run(testContext(t), assistant.Input{Prompt: "Numbers?"})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Output, tc.want) {
				t.Errorf("Output = %v, want %v from %q", res.Output, tc.want, tc.answer)
			}
		})
	}
}

// TestToolModeFinalResultArgumentsWrittenAsText: a model in tool mode that writes
// final_result's arguments as its text, for an output type they wrap ({"output": O}), is
// understood at once.
func TestToolModeFinalResultArgumentsWrittenAsText(t *testing.T) {
	t.Parallel()
	for _, answer := range []string{`{"output": 42}`, "Here it is: {\"output\": 42}"} {
		m := llmtest.NewScripted(llmtest.Text(answer))
		a := assistant.New[int]("counter", assistant.WithModel(m), assistant.WithOutputMode(assistant.OutputTool))
		res, err := a.Run(testContext(t), assistant.Input{Prompt: "How many?"})
		if err != nil {
			t.Fatalf("answer %q: %v", answer, err)
		}
		if res.Output != 42 || len(m.Requests()) != 1 {
			t.Errorf("answer %q: Output = %d after %d requests; want 42 at once", answer, res.Output, len(m.Requests()))
		}
	}
}
