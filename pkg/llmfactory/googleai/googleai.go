package googleai

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/googleai"
	"google.golang.org/api/option"
)

// Type returns the googleai provider type. Its client speaks REST through the factory's
// HTTP client (so it gets cadre's retries, timeouts and error reports) and sends the key in
// the x-goog-api-key header, never in a URL. It speaks llmfactory.GeminiAPI: the factory's
// transport writes a request's output schema into its generateContent requests (in
// generationConfig's responseJsonSchema), which generative-ai-go cannot.
func Type() llmfactory.ProviderType {
	f := model.Facts("googleai")
	return llmfactory.ProviderType{New: newClient, Shape: f.Shape, NoTools: f.DropsTools, NeedsKey: true, Provider: "googleai", API: llmfactory.GeminiAPI}
}

func newClient(p llmfactory.Provider, name string) (llms.Model, error) {
	hc := *p.HTTPClient
	hc.Transport = &keyHeader{base: hc.Transport, key: p.APIKey}
	// The key is also given as an option for the library's cache client, which does not use
	// the HTTP client; requests for answers go through hc, where keyHeader adds it.
	opts := []googleai.Option{googleai.WithRest(), googleai.WithHTTPClient(&hc), googleai.WithAPIKey(p.APIKey.Reveal()), googleai.WithDefaultModel(name),
		// The client's own default of 2048 output tokens, thinking included, cuts answers short.
		googleai.WithDefaultMaxTokens(model.Facts("googleai").MaxTokens)}
	if p.BaseURL != "" {
		opts = append(opts, func(o *googleai.Options) {
			o.ClientOptions = append(o.ClientOptions, option.WithEndpoint(p.BaseURL))
		})
	}
	return googleai.New(context.Background(), opts...)
}

// keyHeader adds the API key to each request. With a client of its own, Google's library
// leaves authentication to that client.
type keyHeader struct {
	base http.RoundTripper
	key  llmfactory.Secret
}

// RoundTrip adds the key, and sends the function declarations of tools that take no
// arguments without parameters (see withoutEmptyParameters).
func (k *keyHeader) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("x-goog-api-key", k.key.Reveal())
	if req.Body != nil && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(body)
		body.Close()
		if err != nil {
			return nil, err
		}
		if fixed, ok := withoutEmptyParameters(data); ok {
			req.Body = io.NopCloser(bytes.NewReader(fixed))
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(fixed)), nil }
			req.ContentLength = int64(len(fixed))
		}
	}
	return k.base.RoundTrip(req)
}

// withoutEmptyParameters removes the parameters of function declarations that are an object
// without properties, and reports whether it removed any. langchaingo's client always sends
// a tool's parameters, and drops an empty properties map on the way: the API refuses an
// OBJECT without properties, so a tool that takes no arguments would fail every request,
// where the API takes a declaration without parameters.
func withoutEmptyParameters(data []byte) ([]byte, bool) {
	if !bytes.Contains(data, []byte(`"functionDeclarations"`)) {
		return nil, false
	}
	var req map[string]json.RawMessage
	if json.Unmarshal(data, &req) != nil {
		return nil, false
	}
	var tools []map[string]json.RawMessage
	if json.Unmarshal(req["tools"], &tools) != nil {
		return nil, false
	}
	changed := false
	for _, t := range tools {
		var decls []map[string]json.RawMessage
		if json.Unmarshal(t["functionDeclarations"], &decls) != nil {
			continue
		}
		for _, d := range decls {
			var params struct {
				Type       any            `json:"type"`
				Properties map[string]any `json:"properties"`
			}
			if raw, ok := d["parameters"]; ok && json.Unmarshal(raw, &params) == nil && len(params.Properties) == 0 &&
				(params.Type == "OBJECT" || params.Type == "object" || params.Type == float64(6)) {
				delete(d, "parameters")
				changed = true
			}
		}
		if changed {
			t["functionDeclarations"], _ = json.Marshal(decls)
		}
	}
	if !changed {
		return nil, false
	}
	req["tools"], _ = json.Marshal(tools)
	out, err := json.Marshal(req)
	return out, err == nil
}
