package callbacktest_test

import (
	"context"
	"fmt"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/callback/callbacktest"
	"github.com/cadrehq/cadre/pkg/llmtest"
)

// A test records the events of a run and reads them after it.
func Example() {
	rec := callbacktest.NewRecorder()
	a := assistant.New[string]("greeter", assistant.WithModel(llmtest.NewScripted(llmtest.Text("Hello!"))),
		assistant.WithCallback(rec))
	if _, err := a.Run(context.Background(), assistant.Input{Prompt: "Hi"}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec.Kinds())
	for _, e := range rec.Of(callback.RunEnd) {
		fmt.Printf("%s answered %q\n", e.Assistant, e.Result)
	}
	// Output:
	// [run_start model_request model_response run_end]
	// greeter answered "Hello!"
}
