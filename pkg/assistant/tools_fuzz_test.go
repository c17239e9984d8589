package assistant_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/schema"
	"github.com/cadrehq/cadre/pkg/tool"
)

// tripArgs are tool arguments with a field of each kind a model can get wrong.
type tripArgs struct {
	City   string         `json:"city" jsonschema:"minLength=1"`
	Days   int            `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
	Budget *float64       `json:"budget,omitempty"`
	Stops  []string       `json:"stops,omitempty" jsonschema:"maxItems=4"`
	Extras map[string]int `json:"extras,omitempty"`
	Seats  uint8          `json:"seats,omitempty"`
}

// toolArgs are arguments as models write them, right and wrong: the seeds of FuzzToolArgs.
var toolArgs = []string{
	`{"city":"Paris","days":2}`,
	`{"city":"Paris","days":3,"budget":1200.5,"stops":["Lyon","Dijon"],"extras":{"bags":2},"seats":2}`,
	``,
	`  `,
	`{}`,
	`null`,
	`city=Paris`,
	`["Paris"]`,
	`{"city":""}`,
	`{"city":5}`,
	`{"city":"Paris","days":8}`,
	`{"city":"Paris","days":2.0}`,
	`{"city":"Paris","days":1e400}`,
	`{"city":"Paris","seats":256}`,
	`{"city":"Paris","extras":{"bags":1.5}}`,
	`{"city":"Paris","City":"Lyon"}`,
	`{"city":"Paris","city":""}`,
	`{"city":"Paris","days":2,"days":9}`,
	`{"city":"Paris","hotel":"yes"}`,
	`{"city":"\ud800"}`,
	"{\"city\":\"\xff\"}",
	`{"city":"Paris"} {"city":"Lyon"}`,
}

// FuzzToolArgs has a model call a Func tool and a delegated assistant (AsTool) with the same
// arguments, as a model may write them. Arguments the tool's schema rejects reach neither:
// the model is told they are invalid. Arguments that reach one decode into tripArgs: the
// function gets what encoding/json decodes them to, the delegated run that value as JSON. The
// run never panics, and ends with the model's answer whatever the arguments.
func FuzzToolArgs(f *testing.F) {
	for _, a := range toolArgs {
		f.Add(a)
	}
	s, err := schema.For[tripArgs]()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args string) {
		var got tripArgs
		var prompt string
		reached, delegated := false, false
		plan := tool.Func("plan_trip", "Plans a trip.", func(_ context.Context, in tripArgs) (string, error) {
			got, reached = in, true
			return "planned", nil
		})
		planner := assistant.New[string]("planner", assistant.WithModel(llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
			prompt, delegated = textOf(req.Messages[len(req.Messages)-1]), true
			return llmtest.Text("planned too")
		})))
		m := llmtest.NewScripted(
			llmtest.Calls(llmtest.Call("plan_trip", args), llmtest.Call("planner", args)),
			llmtest.Text("done"),
		).NoRecord()
		a := assistant.New[string]("traveller", assistant.WithModel(m),
			assistant.WithTools(plan, assistant.AsTool[tripArgs](planner)))
		res, err := a.Run(testContext(t), assistant.Input{Prompt: "Plan my trip."})
		if err != nil || res.Output != "done" {
			t.Fatalf("Run: %v; want the model's answer whatever the arguments", err)
		}
		results := toolResultsIn(res.Messages)
		if len(results) != 2 {
			t.Fatalf("%d tool results, want 2", len(results))
		}

		sent := args // as the assistant sends them: no arguments are an empty object
		if strings.TrimSpace(sent) == "" {
			sent = "{}"
		}
		var want tripArgs
		valid := s.Validate([]byte(sent)) == nil
		decodes := json.Unmarshal([]byte(sent), &want) == nil
		for _, c := range []struct {
			name    string
			reached bool
			result  string
		}{{"plan_trip", reached, results[0].Content}, {"planner", delegated, results[1].Content}} {
			switch {
			case !valid && c.reached:
				t.Errorf("%s: reached with arguments %q, which its schema rejects", c.name, args)
			case !valid && !strings.HasPrefix(c.result, "error: invalid arguments"):
				t.Errorf("%s: arguments %q, which its schema rejects, are answered %q", c.name, args, abbrev(c.result))
			case valid && decodes && !c.reached:
				t.Errorf("%s: arguments %q are valid and decode, but did not reach it: %q", c.name, args, abbrev(c.result))
			case valid && !decodes && (c.reached || !strings.Contains(c.result, "invalid arguments")):
				t.Errorf("%s: arguments %q do not decode: reached %v, answered %q", c.name, args, c.reached, abbrev(c.result))
			}
		}
		if reached && !reflect.DeepEqual(got, want) {
			t.Errorf("plan_trip got %#v from %q, want %#v", got, args, want)
		}
		if b, _ := json.Marshal(want); delegated && prompt != string(b) {
			t.Errorf("planner's prompt is %q from %q, want %s", prompt, args, b)
		}
	})
}
