package providertest_test

import (
	"context"
	"fmt"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/googleai"
	"github.com/tmc/langchaingo/llms/openai"
	"google.golang.org/api/option"
)

func ExampleNewOpenAI() {
	// langchaingo's real OpenAI client, talking to a fake API on 127.0.0.1.
	m := llmtest.NewScripted(llmtest.Text("Hello from the fake."), llmtest.Text("Hello again."))
	s := providertest.NewOpenAI(m)
	defer s.Close()
	llm, err := openai.New(openai.WithBaseURL(s.URL()+"/v1"), openai.WithToken("test-key"),
		openai.WithModel("gpt-test"), openai.WithHTTPClient(s.Client()))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	answer, err := llm.Call(ctx, "Hi")
	fmt.Println(answer, err)

	// The next request is refused, as when the provider is busy.
	s.Fault(providertest.Fault{Status: 429, RetryAfter: "1", Message: "Rate limit reached."})
	_, err = llm.Call(ctx, "Hi")
	fmt.Println(err)

	answer, err = llm.Call(ctx, "Hi")
	fmt.Println(answer, err)
	fmt.Println(s.Attempts(), "HTTP requests,", len(m.Requests()), "reached the model")
	// Output:
	// Hello from the fake. <nil>
	// API returned unexpected status code: 429: Rate limit reached.
	// Hello again. <nil>
	// 3 HTTP requests, 2 reached the model
}

func ExampleNewGemini() {
	// langchaingo's real googleai client, talking to a fake Gemini API on 127.0.0.1.
	m := llmtest.NewScripted(llmtest.Text("Hello from the fake."), llmtest.Text("Hello again."))
	s := providertest.NewGemini(m, providertest.WithAPIKey("test-key"))
	defer s.Close()
	ctx := context.Background()
	llm, err := googleai.New(ctx, googleai.WithRest(), googleai.WithAPIKey("test-key"), googleai.WithDefaultModel("gemini-test"),
		func(o *googleai.Options) { o.ClientOptions = append(o.ClientOptions, option.WithEndpoint(s.URL())) })
	if err != nil {
		panic(err)
	}
	defer llm.Close()

	answer, err := llm.Call(ctx, "Hi")
	fmt.Println(answer, err)

	// The fake refuses what the API refuses: here a tool without arguments, since the client
	// drops its empty properties.
	now := llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: "now",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{}}}}
	_, err = llm.Call(ctx, "What time is it?", llms.WithTools([]llms.Tool{now}))
	fmt.Println(err)

	answer, err = llm.Call(ctx, "Hi")
	fmt.Println(answer, err)
	fmt.Println(s.Attempts(), "HTTP requests,", len(m.Requests()), "reached the model")
	// Output:
	// Hello from the fake. <nil>
	// googleapi: Error 400: * GenerateContentRequest.tools[0].function_declarations[0].parameters.properties: should be non-empty for OBJECT type
	// Hello again. <nil>
	// 3 HTTP requests, 2 reached the model
}
