package googleai

import (
	"context"
	"net/http"

	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/googleai"
	"google.golang.org/api/option"
)

// Type returns the googleai provider type. Its client speaks REST through the factory's
// HTTP client (so it gets cadre's retries, timeouts and error reports) and sends the key in
// the x-goog-api-key header, never in a URL.
func Type() llmfactory.ProviderType {
	f := model.Facts("googleai")
	return llmfactory.ProviderType{New: newClient, Shape: f.Shape, NoTools: f.DropsTools, NeedsKey: true, Provider: "googleai"}
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

func (k *keyHeader) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("x-goog-api-key", k.key.Reveal())
	return k.base.RoundTrip(req)
}
