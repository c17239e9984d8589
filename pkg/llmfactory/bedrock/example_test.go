package bedrock_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmfactory/bedrock"
)

func Example() {
	// A stand-in for Bedrock on 127.0.0.1, and AWS credentials for it in the environment, so
	// that the example runs offline. A program leaves the credentials to its AWS environment
	// and base_url unset.
	bedrockAPI := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"type":"message","role":"assistant","content":[{"type":"text","text":"Oslo"}],`+
			`"stop_reason":"end_turn","usage":{"input_tokens":21,"output_tokens":2}}`)
	}))
	defer bedrockAPI.Close()
	defer setenv(awsEnv(os.DevNull, os.DevNull, false))()

	doc := `
providers:
  aws:
    type: bedrock
    region: us-east-1
    base_url: ` + bedrockAPI.URL + `
models:
  sonnet: { provider: aws, model: us.anthropic.claude-3-5-sonnet-20241022-v2:0 }
default: sonnet
`
	f, err := llmfactory.Parse([]byte(doc), llmfactory.WithProviderType("bedrock", bedrock.Type()))
	if err != nil {
		panic(err)
	}
	defer f.Close()

	a := assistant.New[string]("geo", assistant.WithModels(f))
	res, err := a.Run(context.Background(), assistant.Input{Prompt: "Capital of Norway? One word."})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Output, res.Usage.Total.InputTokens, res.Usage.Total.OutputTokens)
	// Output: Oslo 21 2
}

// setenv sets env, and returns a function that puts the environment back as it was.
func setenv(env map[string]string) (restore func()) {
	old := map[string]*string{}
	for k, v := range env {
		if was, ok := os.LookupEnv(k); ok {
			old[k] = &was
		} else {
			old[k] = nil
		}
		os.Setenv(k, v)
	}
	return func() {
		for k, v := range old {
			if v == nil {
				os.Unsetenv(k)
			} else {
				os.Setenv(k, *v)
			}
		}
	}
}
