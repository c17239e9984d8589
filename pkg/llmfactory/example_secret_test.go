package llmfactory_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"github.com/cadrehq/cadre/pkg/llmfactory"
)

// A Secret prints redacted wherever it goes; only Reveal gives the key.
func ExampleSecret() {
	key := llmfactory.Secret("sk-live-0123456789")

	fmt.Println(key)
	fmt.Printf("%q %x %+v\n", key, key, struct{ APIKey llmfactory.Secret }{key})

	data, _ := json.Marshal(map[string]any{"api_key": key})
	fmt.Println(string(data))

	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // keep the output stable
			}
			return a
		},
	}))
	logger.Info("client ready", "api_key", key)

	fmt.Println(len(key.Reveal()), "characters; an unset key prints as", fmt.Sprintf("%q", llmfactory.Secret("")))
	// Output:
	// [redacted]
	// "[redacted]" [redacted] {APIKey:[redacted]}
	// {"api_key":"[redacted]"}
	// level=INFO msg="client ready" api_key=[redacted]
	// 18 characters; an unset key prints as ""
}
