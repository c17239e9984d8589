package llmtest_test

import (
	"context"
	"fmt"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
)

func ExampleNewSynthetic() {
	type place struct {
		City string `json:"city"`
	}
	type forecast struct {
		City  string `json:"city"`
		TempC int    `json:"temp_c" jsonschema:"minimum=-30,maximum=40"`
		Sky   string `json:"sky" jsonschema:"enum=clear,enum=cloudy,enum=rain"`
	}
	weather := tool.Func("weather", "Says the weather in a city.", func(_ context.Context, in place) (string, error) {
		fmt.Printf("the tool was called with %+v\n", in)
		return "light rain", nil
	})

	// No script: the model calls the tool once, then answers through final_result, with
	// arguments that match each schema.
	m := llmtest.NewSynthetic(llmtest.WithSeed(3))
	forecaster := assistant.New[forecast]("forecaster", assistant.WithModel(m), assistant.WithTools(weather))
	res, err := forecaster.Run(context.Background(), assistant.Input{Prompt: "Weather in Oslo?"})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("%+v after %d requests\n", res.Output, len(m.Requests()))

	// A prose assistant gets the text of WithText.
	writer := assistant.New[string]("writer", assistant.WithModel(llmtest.NewSynthetic(llmtest.WithText("Done."))))
	out, err := writer.Run(context.Background(), assistant.Input{Prompt: "Write something."})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(out.Output)
	// Output:
	// the tool was called with {City:hotel}
	// {City:alpha TempC:31 Sky:clear} after 2 requests
	// Done.
}
