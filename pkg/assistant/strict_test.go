package assistant_test

import (
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

type profile struct {
	Name     string `json:"name"`
	Nickname string `json:"nickname,omitempty"`
}

func TestStrictToolsSendAndAcceptTheStrictForm(t *testing.T) {
	t.Parallel()
	// With strict tools, optional properties are required and nullable: a model writes null.
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("final_result", `{"name":"Ada","nickname":null}`)))
	strict := model.Describe("strict", m)
	strict.StrictTools = true
	a := assistant.New[profile]("profiler", assistant.WithModels(model.Fixed(strict)))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Who?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != (profile{Name: "Ada"}) {
		t.Errorf("Output = %+v, want Ada without a nickname", res.Output)
	}
	var final *llms.FunctionDefinition
	for _, tl := range m.Requests()[0].Options.Tools {
		if tl.Function.Name == "final_result" {
			final = tl.Function
		}
	}
	if final == nil || !final.Strict {
		t.Fatalf("final_result = %+v, want it sent strict", final)
	}
}

func TestStrictFormOnlyWhenEveryObjectIsClosed(t *testing.T) {
	t.Parallel()
	// A map's strict form keeps an open additionalProperties, which strict providers refuse:
	// such an output goes out in its ordinary form.
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("final_result", `{"scores":{"a":1}}`)))
	strict := model.Describe("strict", m)
	strict.StrictTools = true
	type scores struct {
		Scores map[string]int `json:"scores"`
	}
	a := assistant.New[scores]("scorer", assistant.WithModels(model.Fixed(strict)))
	if _, err := a.Run(testContext(t), assistant.Input{Prompt: "Scores?"}); err != nil {
		t.Fatal(err)
	}
	for _, tl := range m.Requests()[0].Options.Tools {
		if tl.Function.Name == "final_result" && tl.Function.Strict {
			t.Error("final_result was sent strict with an open map in it")
		}
	}
}

func TestNewPanicsOnAnUnknownOutputMode(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("New accepted output mode 7")
		}
	}()
	assistant.New[profile]("p", assistant.WithOutputMode(assistant.OutputMode(7)))
}

func TestAnswerCheckedAgainstTheFormItWasSentIn(t *testing.T) {
	t.Parallel()
	// A map keeps final_result out of its strict form even with strict tools: an answer that
	// leaves an optional field out is valid against the form the model was sent, and is taken
	// in one request.
	type report struct {
		Scores map[string]int `json:"scores"`
		Note   string         `json:"note,omitempty"`
	}
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("final_result", `{"scores":{"a":1}}`)),
		llmtest.Calls(llmtest.Call("final_result", `{"scores":{"a":1}}`)),
	)
	strict := model.Describe("strict", m)
	strict.StrictTools = true
	a := assistant.New[report]("reporter", assistant.WithModels(model.Fixed(strict)))
	res, err := a.Run(testContext(t), assistant.Input{Prompt: "Scores?"})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Requests()); got != 1 {
		t.Errorf("%d requests, want 1: the valid answer was corrected", got)
	}
	if res.Output.Scores["a"] != 1 || res.Output.Note != "" {
		t.Errorf("Output = %+v", res.Output)
	}
}
