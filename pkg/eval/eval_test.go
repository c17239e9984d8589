package eval_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/eval"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

type city struct {
	Name       string   `json:"name"`
	Population int      `json:"population"`
	Tags       []string `json:"tags,omitempty"`
}

type lookupArgs struct {
	City string `json:"city"`
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// geo is an assistant whose model looks the city of the prompt up, then answers what answer
// says for it.
func geo(answer func(prompt string) string, usagePer usage.Usage) *assistant.Assistant[city] {
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		prompt := ""
		for _, msg := range req.Messages {
			if msg.Role == llms.ChatMessageTypeHuman {
				prompt = msg.Parts[0].(llms.TextContent).Text
			}
		}
		last := req.Messages[len(req.Messages)-1]
		if last.Role != llms.ChatMessageTypeTool {
			return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("lookup", `{"city":"`+prompt+`"}`)}, Usage: usagePer}
		}
		return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("final_result", answer(prompt))}, Usage: usagePer}
	})
	lookup := tool.Func("lookup", "Looks a city up.", func(_ context.Context, in lookupArgs) (string, error) { return "a city", nil })
	return assistant.New[city]("geo", assistant.WithModel(m), assistant.WithTools(lookup))
}

// TestEvaluateGradesEveryRun: every case runs WithRepeat times; each run is graded by the
// dataset's evaluators and the case's; the report adds them up, with the trajectory read from
// the run and the pass rate's interval.
func TestEvaluateGradesEveryRun(t *testing.T) {
	t.Parallel()
	a := geo(func(p string) string {
		if p == "Oslo" {
			return `{"name":"Oslo","population":709000}`
		}
		return `{"name":"` + p + `","population":1}`
	}, usage.Usage{InputTokens: 10, OutputTokens: 2})
	d := &eval.Dataset[string, city]{
		Name: "cities",
		Cases: []eval.Case[string, city]{
			{Name: "oslo", Input: "Oslo", Expected: &city{Name: "Oslo", Population: 709000}},
			{Name: "lima", Input: "Lima", Expected: &city{Name: "Lima", Population: 10_000_000},
				Evaluators: []eval.Evaluator[city]{eval.Contains[city]("Lima")}},
		},
		Evaluators: []eval.Evaluator[city]{
			eval.Equals[city](),
			eval.Trajectory[city](eval.Exactly, eval.Call{Tool: "lookup"}),
		},
	}
	rep, err := eval.Evaluate(testContext(t), d, a, eval.WithRepeat(3), eval.WithConcurrency(2),
		eval.WithPrices(map[string]model.Price{"func": {Input: 1, Output: 2}}))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Version != eval.ReportVersion || rep.Dataset != "cities" || rep.Subject != "geo" || rep.Repeat != 3 {
		t.Errorf("report head %+v", rep)
	}
	oslo, lima := rep.Cases[0], rep.Cases[1]
	if oslo.N != 3 || oslo.Passes != 3 || oslo.PassRate != 1 || lima.N != 3 || lima.Passes != 0 {
		t.Fatalf("oslo %d/%d, lima %d/%d", oslo.Passes, oslo.N, lima.Passes, lima.N)
	}
	if oslo.Interval[1] != 1 || oslo.Interval[0] <= 0.3 || oslo.Interval[0] >= 0.5 {
		t.Errorf("oslo's interval %v: want Wilson's for 3/3 (0.4385 to 1)", oslo.Interval)
	}
	if oslo.PassAtK["1"] != 1 || oslo.PassAtK["3"] != 1 || lima.PassAtK["3"] != 0 {
		t.Errorf("pass@k: oslo %v, lima %v", oslo.PassAtK, lima.PassAtK)
	}
	run := lima.Runs[0]
	if len(run.Grades) != 3 {
		t.Fatalf("lima's grades %+v: want the dataset's two and its own", run.Grades)
	}
	for _, g := range run.Grades {
		switch g.Evaluator {
		case "equals":
			if g.Pass || !strings.Contains(g.Reason, "population: want 10000000, got 1") {
				t.Errorf("equals: %+v", g)
			}
		case "trajectory exactly", `contains "Lima"`:
			if !g.Pass {
				t.Errorf("%s: %+v", g.Evaluator, g)
			}
		default:
			t.Errorf("a grade of %q", g.Evaluator)
		}
	}
	if len(run.Calls) != 1 || run.Calls[0].Tool != "lookup" || run.Calls[0].Arguments != `{"city":"Lima"}` || run.Calls[0].Result != "a city" {
		t.Errorf("calls %+v", run.Calls)
	}
	if len(run.Messages) == 0 || run.Text == "" || string(run.Output) != `{"name":"Lima","population":1}` {
		t.Errorf("run %+v", run)
	}
	s := rep.Summary
	if s.Runs != 6 || s.Passes != 3 || s.PassRate != 0.5 || s.Usage.Requests != 12 || s.Usage.InputTokens != 120 {
		t.Errorf("summary %+v", s)
	}
	if !s.CostKnown || s.Cost != 12*(10*1+2*2)/1e6 {
		t.Errorf("cost %v (known %v)", s.Cost, s.CostKnown)
	}
	if e := s.Evaluators["equals"]; e.Runs != 6 || e.Passes != 3 || e.Score != 0.5 {
		t.Errorf("equals over the eval: %+v", e)
	}
}

// TestAFailedRunIsAResult: a run that fails is graded failed, with its error, and the other
// cases run; an evaluator that panics fails its grade, not the eval.
func TestAFailedRunIsAResult(t *testing.T) {
	t.Parallel()
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if strings.Contains(req.Messages[len(req.Messages)-1].Parts[0].(llms.TextContent).Text, "bad") {
			return llmtest.Fail(&model.ProviderError{Status: 400, Message: "refused"})
		}
		return llmtest.Calls(llmtest.Call("final_result", `{"name":"x","population":1}`))
	})
	a := assistant.New[city]("geo", assistant.WithModel(m))
	panics := eval.Func("panics", func(context.Context, *eval.Observation[city]) (eval.Grade, error) { panic("boom") })
	d := &eval.Dataset[string, city]{Name: "d", Cases: []eval.Case[string, city]{
		{Name: "bad", Input: "bad"}, {Name: "good", Input: "good"},
	}, Evaluators: []eval.Evaluator[city]{eval.Equals[city](), panics}}
	rep, err := eval.Evaluate(testContext(t), d, a)
	if err != nil {
		t.Fatal(err)
	}
	bad, good := rep.Cases[0].Runs[0], rep.Cases[1].Runs[0]
	if bad.Pass || !strings.Contains(bad.Error, "refused") || !strings.Contains(bad.Grades[0].Reason, "the run failed") {
		t.Errorf("bad run %+v", bad)
	}
	if good.Error != "" || good.Grades[0].Pass != true || good.Grades[1].Pass || !strings.Contains(good.Grades[1].Reason, "panic: boom") {
		t.Errorf("good run %+v", good)
	}
}

// TestTheBudgetStopsTheEval: the budget holds across every case; once spent, no run starts,
// and Evaluate says so with the report so far. Unset fields are no limit: an eval of more runs
// than the ledger's default of 50 requests runs them all.
func TestTheBudgetStopsTheEval(t *testing.T) {
	t.Parallel()
	var requests atomic.Int64
	m := llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
		requests.Add(1)
		return llmtest.Calls(llmtest.Call("final_result", `{"name":"x","population":1}`))
	})
	a := assistant.New[city]("geo", assistant.WithModel(m))
	cases := make([]eval.Case[string, city], 10)
	for i := range cases {
		cases[i] = eval.Case[string, city]{Name: string(rune('a' + i)), Input: "x"}
	}
	d := &eval.Dataset[string, city]{Name: "d", Cases: cases}
	rep, err := eval.Evaluate(testContext(t), d, a, eval.WithConcurrency(1), eval.WithBudget(usage.Limits{MaxRequests: 4}))
	var le *usage.LimitError
	if !errors.As(err, &le) || le.Limit != usage.LimitRequests {
		t.Fatalf("Evaluate error = %v; want the budget's LimitError", err)
	}
	if requests.Load() != 4 || rep.Summary.Runs > 5 || rep.Stopped == "" {
		t.Errorf("%d requests, %d runs, stopped %q: want the budget's 4 and a stop", requests.Load(), rep.Summary.Runs, rep.Stopped)
	}
	if last := rep.Cases[9].Runs[0]; last.Ran {
		t.Errorf("the last case ran after the budget was spent: %+v", last)
	}

	requests.Store(0)
	many := make([]eval.Case[string, city], 60)
	for i := range many {
		many[i] = eval.Case[string, city]{Name: "c" + string(rune('A'+i)), Input: "x"}
	}
	rep, err = eval.Evaluate(testContext(t), &eval.Dataset[string, city]{Name: "many", Cases: many}, a,
		eval.WithBudget(usage.Limits{MaxToolCalls: 1000}))
	if err != nil || rep.Summary.Runs != 60 || requests.Load() != 60 {
		t.Errorf("%v, %d runs, %d requests: want all 60", err, rep.Summary.Runs, requests.Load())
	}
}

// TestACancelledEvalReportsWhatRan: cancelling the context ends the eval with its error and
// the report so far.
func TestACancelledEvalReportsWhatRan(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(testContext(t))
	m := llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
		cancel()
		return llmtest.Calls(llmtest.Call("final_result", `{"name":"x","population":1}`))
	})
	a := assistant.New[city]("geo", assistant.WithModel(m))
	d := &eval.Dataset[string, city]{Name: "d", Cases: []eval.Case[string, city]{{Name: "a", Input: "x"}, {Name: "b", Input: "y"}, {Name: "c", Input: "z"}}}
	rep, err := eval.Evaluate(ctx, d, a, eval.WithConcurrency(1))
	if !errors.Is(err, context.Canceled) || rep == nil || rep.Stopped == "" {
		t.Fatalf("%v, %+v", err, rep)
	}
	if rep.Cases[2].Runs[0].Ran {
		t.Error("a case ran after the cancellation")
	}
}

// TestADatasetThatCannotRun: no case, a nameless case, two of one name, two evaluators of one
// name are errors before any run.
func TestADatasetThatCannotRun(t *testing.T) {
	t.Parallel()
	a := geo(func(string) string { return `{}` }, usage.Usage{})
	for _, d := range []*eval.Dataset[string, city]{
		{Name: "empty"},
		{Name: "nameless", Cases: []eval.Case[string, city]{{Input: "x"}}},
		{Name: "twice", Cases: []eval.Case[string, city]{{Name: "a"}, {Name: "a"}}},
		{Name: "evaluators", Cases: []eval.Case[string, city]{{Name: "a", Evaluators: []eval.Evaluator[city]{eval.Equals[city]()}}},
			Evaluators: []eval.Evaluator[city]{eval.Equals[city]()}},
	} {
		if rep, err := eval.Evaluate(testContext(t), d, a); err == nil || rep != nil {
			t.Errorf("%s: %v, %v", d.Name, rep, err)
		}
	}
}

// TestEqualsTolerancesAndOrder: numbers within a path's tolerance, lists in any order where
// asked, and the reason naming the first difference.
func TestEqualsTolerancesAndOrder(t *testing.T) {
	t.Parallel()
	type point struct {
		X, Y float64
	}
	type shape struct {
		Name   string   `json:"name"`
		Points []point  `json:"points"`
		Tags   []string `json:"tags"`
	}
	want := shape{Name: "tri", Points: []point{{0, 0}, {1, 0}, {0, 1}}, Tags: []string{"a", "b"}}
	for _, tc := range []struct {
		name string
		got  shape
		opts []eval.EqualOption
		pass bool
		why  string
	}{
		{"equal", want, nil, true, ""},
		{"off by a little", shape{Name: "tri", Points: []point{{0, 0}, {1.001, 0}, {0, 1}}, Tags: []string{"a", "b"}}, nil, false, "points.1.X: want 1, got 1.001"},
		{"within the tolerance", shape{Name: "tri", Points: []point{{0, 0}, {1.001, 0}, {0, 1}}, Tags: []string{"a", "b"}},
			[]eval.EqualOption{eval.Tolerance("points.*.X", 0.01)}, true, ""},
		{"tolerance elsewhere", shape{Name: "tri", Points: []point{{0, 0}, {1, 0.5}, {0, 1}}, Tags: []string{"a", "b"}},
			[]eval.EqualOption{eval.Tolerance("points.*.X", 0.01)}, false, "points.1.Y"},
		{"reordered", shape{Name: "tri", Points: want.Points, Tags: []string{"b", "a"}}, nil, false, "tags.0: want \"a\", got \"b\""},
		{"any order", shape{Name: "tri", Points: want.Points, Tags: []string{"b", "a"}}, []eval.EqualOption{eval.AnyOrder("tags")}, true, ""},
		{"any order, missing", shape{Name: "tri", Points: want.Points, Tags: []string{"b", "c"}}, []eval.EqualOption{eval.AnyOrder()}, false, "no item equal to \"a\""},
		{"fewer", shape{Name: "tri", Points: want.Points[:2], Tags: want.Tags}, nil, false, "points: want 3 items, got 2"},
	} {
		o := &eval.Observation[shape]{Output: tc.got, Expected: &want}
		g, err := eval.Equals[shape](tc.opts...).Evaluate(context.Background(), o)
		if err != nil || g.Pass != tc.pass || !strings.Contains(g.Reason, tc.why) {
			t.Errorf("%s: %+v, %v; want pass %v, reason with %q", tc.name, g, err, tc.pass, tc.why)
		}
	}
	g, _ := eval.Equals[shape]().Evaluate(context.Background(), &eval.Observation[shape]{})
	if !g.Pass {
		t.Errorf("no expected output: %+v", g)
	}
}

// TestTrajectoryModes: the three orders, arguments as a subset, the assistant that made a
// call.
func TestTrajectoryModes(t *testing.T) {
	t.Parallel()
	calls := []eval.ToolCall{
		{Assistant: "sup", Tool: "search", Arguments: `{"q":"oslo","n":3}`},
		{Assistant: "sup", Tool: "weather", Arguments: `{"city":"Oslo"}`},
		{Assistant: "spec", Tool: "search", Arguments: `{"q":"lima"}`},
	}
	search := eval.Call{Tool: "search"}
	weather := eval.Call{Tool: "weather", Arguments: map[string]any{"city": "Oslo"}}
	for _, tc := range []struct {
		order eval.Order
		want  []eval.Call
		pass  bool
	}{
		{eval.Exactly, []eval.Call{search, weather, search}, true},
		{eval.Exactly, []eval.Call{search, weather}, false}, // one call more
		{eval.Exactly, []eval.Call{weather, search, search}, false},
		{eval.InOrder, []eval.Call{search, search}, true},
		{eval.InOrder, []eval.Call{weather, {Tool: "search", Arguments: map[string]any{"q": "lima"}}}, true},
		{eval.InOrder, []eval.Call{{Tool: "search", Arguments: map[string]any{"q": "lima"}}, weather}, false},
		{eval.Unordered, []eval.Call{weather, {Tool: "search", Assistant: "spec"}}, true},
		{eval.Unordered, []eval.Call{search, search, search}, false}, // only two searches
		{eval.Unordered, []eval.Call{{Tool: "weather", Arguments: map[string]any{"city": "Lima"}}}, false},
		{eval.Unordered, []eval.Call{{Tool: "search", Arguments: map[string]any{"n": 3, "q": "oslo"}}}, true},
	} {
		g, err := eval.Trajectory[city](tc.order, tc.want...).Evaluate(context.Background(), &eval.Observation[city]{Calls: calls})
		if err != nil || g.Pass != tc.pass {
			t.Errorf("%v %v: %+v, %v; want pass %v", tc.order, tc.want, g, err, tc.pass)
		}
	}
}

// TestJudge: the judge sees the rubric, the task, the output and the expected output; its
// verdict is the grade; its usage is reported apart from the cases'.
func TestJudge(t *testing.T) {
	t.Parallel()
	var seen atomic.Value
	jm := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		seen.Store(req.Messages[len(req.Messages)-1].Parts[0].(llms.TextContent).Text)
		return llmtest.Reply{ToolCalls: []llms.ToolCall{llmtest.Call("final_result", `{"score":0.25,"reason":"the population is wrong"}`)},
			Usage: usage.Usage{InputTokens: 100, OutputTokens: 10}}
	})
	judge := assistant.New[eval.Verdict]("judge", assistant.WithModel(jm), assistant.WithInstructions(eval.JudgeInstructions))
	a := geo(func(p string) string { return `{"name":"` + p + `","population":1}` }, usage.Usage{InputTokens: 10, OutputTokens: 2})
	d := &eval.Dataset[string, city]{Name: "d", Cases: []eval.Case[string, city]{{Name: "lima", Input: "Lima", Expected: &city{Name: "Lima", Population: 10_000_000}}},
		Evaluators: []eval.Evaluator[city]{eval.Judge[city](judge, "The population must be right.", eval.WithExpected(), eval.JudgeThreshold(0.2))}}
	rep, err := eval.Evaluate(testContext(t), d, a)
	if err != nil {
		t.Fatal(err)
	}
	g := rep.Cases[0].Runs[0].Grades[0]
	if g.Evaluator != "judge" || g.Kind != eval.Score || g.Score != 0.25 || !g.Pass || g.Reason != "the population is wrong" {
		t.Errorf("grade %+v", g)
	}
	prompt, _ := seen.Load().(string)
	for _, part := range []string{"The population must be right.", "Lima", `"population":1`, `"population":10000000`} {
		if !strings.Contains(prompt, part) {
			t.Errorf("the judge's prompt lacks %q:\n%s", part, prompt)
		}
	}
	if s := rep.Summary; s.JudgeUsage.InputTokens != 100 || s.Usage.InputTokens != 20 {
		t.Errorf("judge usage %+v, cases' %+v: want them apart", s.JudgeUsage, s.Usage)
	}
}

// TestReportNamesItsCases: each case of the report has its case's name and metadata, in the
// dataset's order, so that a report read alone tells its cases apart.
func TestReportNamesItsCases(t *testing.T) {
	t.Parallel()
	a := assistant.New[city]("geo", assistant.WithModel(llmtest.NewFunc(func(context.Context, llmtest.Request) llmtest.Reply {
		return llmtest.Calls(llmtest.Call("final_result", `{"name":"x","population":1}`))
	})))
	d := &eval.Dataset[string, city]{Name: "d", Cases: []eval.Case[string, city]{
		{Name: "first", Input: "a", Metadata: map[string]any{"level": "easy"}}, {Name: "second", Input: "b"},
	}}
	rep, err := eval.Evaluate(testContext(t), d, a)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cases[0].Name != "first" || rep.Cases[0].Metadata["level"] != "easy" || rep.Cases[1].Name != "second" {
		t.Errorf("the report's cases: %q (%v), %q", rep.Cases[0].Name, rep.Cases[0].Metadata, rep.Cases[1].Name)
	}
}

// TestTheTrajectoryHoldsDelegatedCalls: the calls of a run's tree are recorded, those of the
// assistant it delegates to included, each with the assistant that made it — in the order
// their turns were made.
func TestTheTrajectoryHoldsDelegatedCalls(t *testing.T) {
	t.Parallel()
	specialist := geo(func(p string) string { return `{"name":"` + p + `","population":1}` }, usage.Usage{})
	sup := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		if req.Messages[len(req.Messages)-1].Role != llms.ChatMessageTypeTool {
			return llmtest.Calls(llmtest.Call("geo", `{"input":"Lima"}`))
		}
		return llmtest.Calls(llmtest.Call("final_result", `{"name":"Lima","population":1}`))
	})
	supervisor := assistant.New[city]("supervisor", assistant.WithModel(sup),
		assistant.WithTools(assistant.AsTool[string](specialist)))
	d := &eval.Dataset[string, city]{Name: "d", Cases: []eval.Case[string, city]{{Name: "lima", Input: "Lima"}},
		Evaluators: []eval.Evaluator[city]{eval.Trajectory[city](eval.Exactly,
			eval.Call{Tool: "geo", Assistant: "supervisor"},
			eval.Call{Tool: "lookup", Assistant: "geo", Arguments: map[string]any{"city": "Lima"}})}}
	rep, err := eval.Evaluate(testContext(t), d, supervisor)
	if err != nil {
		t.Fatal(err)
	}
	run := rep.Cases[0].Runs[0]
	if !run.Pass || len(run.Calls) != 2 || run.Calls[1].Result != "a city" {
		t.Errorf("run %+v, calls %+v: want the supervisor's delegation, then the specialist's lookup", run.Grades, run.Calls)
	}
}
