package assistant_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// report is a nested output with arrays, an enum and a number.
type report struct {
	Title   string    `json:"title"`
	Level   string    `json:"level" jsonschema:"enum=low,enum=high"`
	Score   float64   `json:"score"`
	Done    bool      `json:"done,omitempty"`
	Authors []person  `json:"authors"`
	Tags    []string  `json:"tags,omitempty"`
	Meta    *metaInfo `json:"meta,omitempty"`
}

type person struct {
	Name  string   `json:"name"`
	Roles []string `json:"roles,omitempty"`
}

type metaInfo struct {
	Source string `json:"source"`
	Pages  int    `json:"pages"`
}

var reportAnswers = []string{
	`{"title":"Rain in Lyon","level":"high","score":-12.5e1,"done":true,"authors":[{"name":"Zoé","roles":["writer","editor"]},{"name":"Ann \"A\" Lee"}],"tags":["wet","cold 😀"],"meta":{"source":"met\noffice","pages":12}}`,
	`{ "title" : "x", "level" : "low", "score" : 0, "authors" : [ ], "meta" : { "source" : "", "pages" : 3 } }`,
	`{"authors":[{"name":"中文","roles":[]}],"level":"low","title":"\u00e9t\u00e9","score":1}`,
}

// streamer is a model that streams its answer piece by piece, as a streaming client does:
// text, or (calls) OpenAI's client's chunks of tool-call deltas.
type streamer struct {
	pieces []string
	calls  bool   // the pieces are final_result's arguments
	second string // in call mode, a second call that begins after the pieces ("" for none)
	answer string
}

func (s *streamer) Call(context.Context, string, ...llms.CallOption) (string, error) {
	return "", errors.New("not used")
}

func (s *streamer) GenerateContent(ctx context.Context, _ []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	send := func(b []byte) error {
		if o.StreamingFunc == nil {
			return nil
		}
		return o.StreamingFunc(ctx, b)
	}
	if !s.calls {
		for _, p := range s.pieces {
			if err := send([]byte(p)); err != nil {
				return nil, err
			}
		}
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: s.answer, StopReason: "stop"}}}, nil
	}
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type delta struct {
		ID       string `json:"id,omitempty"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	chunk := func(d delta) []byte { b, _ := json.Marshal([]delta{d}); return b }
	if err := send(chunk(delta{ID: "call_1", Type: "function", Function: fn{Name: "final_result"}})); err != nil {
		return nil, err
	}
	for _, p := range s.pieces {
		if err := send(chunk(delta{Function: fn{Arguments: p}})); err != nil {
			return nil, err
		}
	}
	calls := []llms.ToolCall{{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "final_result", Arguments: s.answer}}}
	if s.second != "" {
		if err := send(chunk(delta{ID: "call_2", Type: "function", Function: fn{Name: s.second}})); err != nil {
			return nil, err
		}
		if err := send(chunk(delta{Function: fn{Arguments: `{"q":"x"}`}})); err != nil {
			return nil, err
		}
		calls = append(calls, llms.ToolCall{ID: "call_2", Type: "function", FunctionCall: &llms.FunctionCall{Name: s.second, Arguments: `{"q":"x"}`}})
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: calls, StopReason: "tool_calls"}}}, nil
}

// runes cuts s at every character: a client streams whole characters.
func runes(s string) []string {
	var out []string
	for len(s) > 0 {
		_, n := utf8.DecodeRuneInString(s)
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// partials runs an assistant of report on m, in mode, and returns the partial outputs it
// reported and the Result.
func partials(t *testing.T, m model.Model, mode assistant.OutputMode) ([]report, *assistant.Result[report]) {
	t.Helper()
	var got []report
	a := assistant.New[report]("reporter", assistant.WithModels(model.Fixed(m)), assistant.WithOutputMode(mode),
		assistant.WithPartialOutput(0, func(_ context.Context, p report) error {
			got = append(got, p)
			return nil
		}))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "report"})
	if err != nil {
		t.Fatal(err)
	}
	return got, res
}

// TestPartialOutputGrowsTowardsTheAnswer: streamed at every character, in native form and as
// final_result's arguments on an OpenAI-shaped client, every partial output holds only what
// the answer holds — complete values equal, a string the start of its value, never a value the
// schema refuses (the enum) — each holds at least what the one before held, and the last is the
// answer.
func TestPartialOutputGrowsTowardsTheAnswer(t *testing.T) {
	t.Parallel()
	for _, answer := range reportAnswers {
		var want report
		if err := json.Unmarshal([]byte(answer), &want); err != nil {
			t.Fatal(err)
		}
		for _, calls := range []bool{false, true} {
			mode := assistant.OutputNative
			if calls {
				mode = assistant.OutputTool
			}
			m := model.Model{Name: "streamer", LLM: &streamer{pieces: runes(answer), calls: calls, answer: answer}, Shape: model.ShapeOpenAI}
			got, res := partials(t, m, mode)
			if diff := cmp.Diff(want, res.Output); diff != "" {
				t.Fatalf("calls %v: Output (-want +got):\n%s", calls, diff)
			}
			if len(got) < 5 {
				t.Fatalf("calls %v: %d partial outputs for %d characters", calls, len(got), utf8.RuneCountInString(answer))
			}
			if diff := cmp.Diff(want, got[len(got)-1]); diff != "" {
				t.Errorf("calls %v: the last partial output is not the answer (-want +got):\n%s", calls, diff)
			}
			for i, p := range got {
				if p.Level != "" && p.Level != "low" && p.Level != "high" {
					t.Errorf("calls %v: partial %d has level %q, which the schema refuses", calls, i, p.Level)
				}
				if !within(toAny(t, p), toAny(t, want)) {
					t.Errorf("calls %v: partial %d holds what the answer does not:\n%+v\nanswer %+v", calls, i, p, want)
				}
				if i > 0 && !within(toAny(t, got[i-1]), toAny(t, p)) {
					t.Errorf("calls %v: partial %d took back what partial %d showed:\n%v\n%v", calls, i, i-1, toAny(t, got[i-1]), toAny(t, p))
				}
			}
		}
	}
}

// TestPartialOutputStopsAtASecondCall: in tool form, the answer is followed while
// final_result is the turn's only call.
func TestPartialOutputStopsAtASecondCall(t *testing.T) {
	t.Parallel()
	answer := reportAnswers[0]
	m := model.Model{Name: "streamer", Shape: model.ShapeOpenAI,
		LLM: &streamer{pieces: runes(answer[:40]), calls: true, answer: answer, second: "lookup"}}
	var got []report
	a := assistant.New[report]("reporter", assistant.WithModels(model.Fixed(m)), assistant.WithOutputMode(assistant.OutputTool),
		assistant.WithPartialOutput(0, func(_ context.Context, p report) error {
			got = append(got, p)
			return nil
		}))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "report"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range got {
		if p.Title != "" && p.Title != "Rain in Lyon" && !strings.HasPrefix("Rain in Lyon", p.Title) {
			t.Errorf("partial %+v", p)
		}
	}
	if len(got) == 0 {
		t.Fatal("no partial output before the second call")
	}
}

// TestPartialOutputErrorEndsTheRun: an error from the function ends the run with it.
func TestPartialOutputErrorEndsTheRun(t *testing.T) {
	t.Parallel()
	stop := errors.New("enough")
	m := model.Model{Name: "streamer", LLM: &streamer{pieces: runes(reportAnswers[0]), answer: reportAnswers[0]}}
	a := assistant.New[report]("reporter", assistant.WithModels(model.Fixed(m)), assistant.WithOutputMode(assistant.OutputNative),
		assistant.WithPartialOutput(0, func(context.Context, report) error { return stop }))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "report"}); !errors.Is(err, stop) {
		t.Fatalf("Run error = %v; want the function's", err)
	}
}

// TestPartialOutputOfAnotherTypePanics: the function must take the assistant's O.
func TestPartialOutputOfAnotherTypePanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("New did not panic")
		}
	}()
	assistant.New[report]("reporter", assistant.WithPartialOutput(0, func(context.Context, city) error { return nil }))
}

func toAny(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// within reports whether the value a is one a value that grows into b may show: a zero value,
// the start of a string, an equal number or true, a shorter list of values within b's, an
// object whose members are within b's.
func within(a, b any) bool {
	if a == nil || reflect.ValueOf(a).IsZero() {
		return true
	}
	switch a := a.(type) {
	case string:
		s, ok := b.(string)
		return ok && strings.HasPrefix(s, a)
	case []any:
		l, ok := b.([]any)
		if !ok || len(a) > len(l) {
			return false
		}
		for i := range a {
			if !within(a[i], l[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		o, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range a {
			if !within(v, o[k]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// TestPartialOutputNeverShowsAValueTheSchemaRefuses: once a member the schema refuses is
// complete, nothing more is shown; the answer itself is then corrected as any other.
func TestPartialOutputNeverShowsAValueTheSchemaRefuses(t *testing.T) {
	t.Parallel()
	answer := `{"title":"Rain","level":"medium","score":1,"authors":[]}`
	m := model.Model{Name: "streamer", LLM: &streamer{pieces: runes(answer), answer: answer}}
	var got []report
	a := assistant.New[report]("reporter", assistant.WithModels(model.Fixed(m)), assistant.WithOutputMode(assistant.OutputNative),
		assistant.WithPartialOutput(0, func(_ context.Context, p report) error {
			got = append(got, p)
			return nil
		}))
	_, err := a.Run(testContext(t), assistant.Input{Prompt: "report"})
	var oerr *assistant.OutputError
	if !errors.As(err, &oerr) {
		t.Fatalf("Run error = %v; want an *OutputError", err)
	}
	if len(got) == 0 {
		t.Fatal("nothing shown before the level")
	}
	for _, p := range got {
		if p.Level != "" || p.Score != 0 {
			t.Errorf("shown %+v: a level the schema refuses, or what came after it", p)
		}
	}
}

// TestPartialOutputIsThrottled: with an interval, what grows within it is not shown.
func TestPartialOutputIsThrottled(t *testing.T) {
	t.Parallel()
	answer := reportAnswers[0]
	m := model.Model{Name: "streamer", LLM: &streamer{pieces: runes(answer), answer: answer}}
	n := 0
	a := assistant.New[report]("reporter", assistant.WithModels(model.Fixed(m)), assistant.WithOutputMode(assistant.OutputNative),
		assistant.WithPartialOutput(time.Hour, func(context.Context, report) error {
			n++
			return nil
		}))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "report"})
	if err != nil || res.Output.Title != "Rain in Lyon" {
		t.Fatalf("%+v, %v", res, err)
	}
	if n != 1 {
		t.Errorf("shown %d times within an hour; want once", n)
	}
}
