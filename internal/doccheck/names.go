package doccheck

import (
	"path"
	"strings"
)

// ImportPath returns the import path of the package that documentation calls name, such as
// "assistant" or "json", and whether there is one. It knows cadre's packages, the packages of
// its dependencies that the documentation uses, and the standard library's usual ones.
func ImportPath(name string) (string, bool) {
	p, ok := packages()[name]
	return p, ok
}

func packages() map[string]string {
	const cadre = "github.com/cadrehq/cadre/pkg/"
	return map[string]string{
		"agui":           cadre + "agui",
		"assistant":      cadre + "assistant",
		"callback":       cadre + "callback",
		"chat":           cadre + "chat",
		"console":        cadre + "console",
		"callbacktest":   cadre + "callback/callbacktest",
		"chattest":       cadre + "chat/chattest",
		"durable":        cadre + "durable",
		"eval":           cadre + "eval",
		"evaltest":       cadre + "eval/evaltest",
		"redisstore":     cadre + "chat/redisstore",
		"sqlitestore":    cadre + "chat/sqlitestore",
		"postgresstore":  cadre + "chat/postgresstore",
		"llmfactory":     cadre + "llmfactory",
		"googleai":       cadre + "llmfactory/googleai",
		"bedrock":        cadre + "llmfactory/bedrock",
		"llmtest":        cadre + "llmtest",
		"mcpauth":        cadre + "mcpauth",
		"mcpbridge":      cadre + "mcpbridge",
		"middlewaretest": cadre + "assistant/middlewaretest",
		"model":          cadre + "model",
		"otelcadre":      cadre + "otelcadre",
		"providertest":   cadre + "providertest",
		"ratelimit":      cadre + "ratelimit",
		"ratelimittest":  cadre + "ratelimit/ratelimittest",
		"redislimit":     cadre + "ratelimit/redislimit",
		"schema":         cadre + "schema",
		"skill":          cadre + "skill",
		"tool":           cadre + "tool",
		"usage":          cadre + "usage",

		"llms":      "github.com/tmc/langchaingo/llms",
		"openai":    "github.com/tmc/langchaingo/llms/openai",
		"anthropic": "github.com/tmc/langchaingo/llms/anthropic",
		"ollama":    "github.com/tmc/langchaingo/llms/ollama",
		"server":    "github.com/mark3labs/mcp-go/server",
		"client":    "github.com/mark3labs/mcp-go/client",
		"mcp":       "github.com/mark3labs/mcp-go/mcp",
		"redis":     "github.com/redis/go-redis/v9",
		"pgxpool":   "github.com/jackc/pgx/v5/pgxpool",
		"cmp":       "github.com/google/go-cmp/cmp",
		"goleak":    "go.uber.org/goleak",
		"dbos":      "github.com/dbos-inc/dbos-transact-golang/dbos",

		"otel":          "go.opentelemetry.io/otel",
		"trace":         "go.opentelemetry.io/otel/trace",
		"metric":        "go.opentelemetry.io/otel/metric",
		"otlptracehttp": "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp",
		"stdouttrace":   "go.opentelemetry.io/otel/exporters/stdout/stdouttrace",

		"bytes":    "bytes",
		"embed":    "embed",
		"fs":       "io/fs",
		"context":  "context",
		"errors":   "errors",
		"filepath": "path/filepath",
		"flag":     "flag",
		"fmt":      "fmt",
		"http":     "net/http",
		"httptest": "net/http/httptest",
		"io":       "io",
		"json":     "encoding/json",
		"log":      "log",
		"os":       "os",
		"signal":   "os/signal",
		"slices":   "slices",
		"slog":     "log/slog",
		"atomic":   "sync/atomic",
		"strconv":  "strconv",
		"strings":  "strings",
		"sync":     "sync",
		"testing":  "testing",
		"time":     "time",
	}
}

// packageName returns the name of the package at import path p, as an import without a name
// declares it.
func packageName(p string) string {
	for name, q := range packages() {
		if q == p {
			return name
		}
	}
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		base = path.Base(path.Dir(p)) // a major version suffix: .../go-redis/v9
	}
	return strings.TrimPrefix(base, "go-")
}

// Preamble returns the names that a block of statements may use without declaring them, as
// the documentation uses them: each name with its declaration. A block gets the declarations
// of the names it uses that its document does not declare at package level.
func Preamble() map[string]string {
	return map[string]string{
		"ctx":         "ctx := context.Background()",
		"err":         "var err error",
		"llm":         "var llm llms.Model // any langchaingo model",
		"factory":     "var factory *llmfactory.Factory // llmfactory.Load(\"llm.yaml\")",
		"f":           "var f *llmfactory.Factory",
		"store":       "var store chat.Store",
		"guide":       "var guide *assistant.Assistant[string]",
		"mailer":      "var mailer *assistant.Assistant[string]",
		"forecast":    "var forecast tool.Tool",
		"skills":      "var skills []*skill.Skill // skill.Load(os.DirFS(\"skills\"), \".\")",
		"findContact": "var findContact tool.Tool",
		"sendEmail":   "var sendEmail tool.Tool",
		"s":           "s := server.NewMCPServer(\"travel\", \"1.0.0\")",
		"req":         "var req mcp.CallToolRequest",
		"state":       "var state []byte // a paused run's state, as JSON",
		"callID":      "var callID string",
		"keep":        "var keep func(ctx context.Context, state []byte) error",
		"lookUpToken": "var lookUpToken func(token string) (account struct{ Tenant, User string }, ok bool)",
	}
}
