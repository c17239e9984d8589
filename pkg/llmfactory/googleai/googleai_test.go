package googleai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmfactory/googleai"
	"github.com/cadrehq/cadre/pkg/model"
)

// A minimal Gemini REST endpoint: it records what it gets and answers with text and usage.
func TestGoogleAIThroughTheFactory(t *testing.T) {
	var mu sync.Mutex
	var got struct {
		path, key, query string
		body             map[string]any
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		b, _ := io.ReadAll(r.Body)
		got.path, got.key, got.query = r.URL.Path, r.Header.Get("x-goog-api-key"), r.URL.RawQuery
		json.Unmarshal(b, &got.body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"{\"city\":\"Oslo\"}"}]},"finishReason":"STOP"}],
			"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":7,"totalTokenCount":47}}`)
	}))
	defer srv.Close()

	const key = "AIza-SENTINEL-key-0123"
	doc := "providers:\n  gemini:\n    type: googleai\n    api_key: ${GOOGLE_API_KEY}\n    base_url: " + srv.URL +
		"\nmodels:\n  flash: { provider: gemini, model: gemini-test }\ndefault: flash\n"
	f, err := llmfactory.Parse([]byte(doc), llmfactory.WithProviderType("googleai", googleai.Type()),
		llmfactory.WithEnv(func(k string) (string, bool) { return key, k == "GOOGLE_API_KEY" }))
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		City string `json:"city"`
	}
	res, err := assistant.New[answer]("geo", assistant.WithModels(f)).Run(context.Background(), assistant.Input{Prompt: "Capital of Norway?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output.City != "Oslo" || res.Usage.Total.InputTokens != 40 || res.Usage.Total.OutputTokens != 7 {
		t.Errorf("Output %+v, usage %+v: want Oslo, 40 input and 7 output tokens (int32 counts)", res.Output, res.Usage.Total)
	}
	mu.Lock()
	defer mu.Unlock()
	if got.key != key {
		t.Errorf("x-goog-api-key = %q, want the key", got.key)
	}
	if strings.Contains(got.query, key) {
		t.Errorf("the key is in the URL's query %q: URLs end up in logs", got.query)
	}
	if !strings.Contains(got.path, "gemini-test") {
		t.Errorf("path = %q, want the model's", got.path)
	}
	// The final_result tool went out with its parameters as an object.
	tools, _ := got.body["tools"].([]any)
	if len(tools) == 0 {
		t.Fatalf("no tools in the request: %v", got.body)
	}
	// The client asks for more output than its own default of 2048 tokens.
	config, _ := got.body["generationConfig"].(map[string]any)
	if n, _ := config["maxOutputTokens"].(float64); int(n) != model.Facts("googleai").MaxTokens {
		t.Errorf("generationConfig %v: want maxOutputTokens %d", config, model.Facts("googleai").MaxTokens)
	}

	m, err := f.Model(context.Background(), "flash")
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "gemini-test" || m.Provider != "googleai" || m.Shape != model.ShapeSafe || len(m.Options) != 0 {
		t.Errorf("model: ID %q, provider %q, shape %v, %d default options; want gemini-test, googleai, ShapeSafe and none (the limit is the client's)",
			m.ID, m.Provider, m.Shape, len(m.Options))
	}
}
