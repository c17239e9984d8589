// Command quickstart is the smallest useful typed assistant: one tool, an answer parsed into a
// Go struct, and the usage it cost. The answer goes to stdout; what the assistant is doing (the
// model it waits for, the tool it runs, the tokens spent) goes to stderr as it happens.
//
// It runs offline, with a scripted model that plays the model's part, so it needs no key:
//
//	go run ./examples/quickstart
//
// With -config it uses the model llm.yaml gives the assistant "packer" (or the default one):
//
//	cp llm.yaml.example llm.yaml   # and set the key it names, e.g. OPENAI_API_KEY
//	go run ./examples/quickstart -config llm.yaml
//
// With -otel it traces the run with OpenTelemetry (docs/observability.md): the spans go to
// stderr as indented JSON when the program ends, or over OTLP/HTTP to the collector that
// OTEL_EXPORTER_OTLP_ENDPOINT names:
//
//	go run ./examples/quickstart -otel
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cadrehq/cadre/examples/internal/exampleotel"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// Packing is the assistant's answer: a Go type, so the model's JSON is checked against its
// schema and decoded for you.
type Packing struct {
	City  string   `json:"city" jsonschema:"description=The city of the trip"`
	Items []string `json:"items" jsonschema_description:"What to pack, most important first"`
}

// ForecastIn and Forecast are the tool's arguments and result.
type ForecastIn struct {
	City string `json:"city" jsonschema_description:"A city name, e.g. Lisbon"`
}

type Forecast struct {
	City    string  `json:"city"`
	Summary string  `json:"summary"`
	HighC   float64 `json:"high_c"`
}

func forecast(_ context.Context, in ForecastIn) (Forecast, error) {
	// A real program would call a weather service here.
	return Forecast{City: in.City, Summary: "sunny, light wind, rain in the evening", HighC: 24}, nil
}

// offlineModel plays the model: it asks for the forecast, then answers.
func offlineModel() llms.Model {
	return llmtest.NewScripted(
		llmtest.Reply{
			ToolCalls: []llms.ToolCall{llmtest.Call("forecast", `{"city":"Lisbon"}`)},
			Usage:     usage.Usage{InputTokens: 210, OutputTokens: 18},
		},
		llmtest.Reply{
			Text:  `{"city":"Lisbon","items":["sunglasses","light jacket","umbrella"]}`,
			Usage: usage.Usage{InputTokens: 262, OutputTokens: 24},
		},
	)
}

func main() {
	config := flag.String("config", "", "an llm.yaml to take the model from (default: offline, with a scripted model)")
	otel := flag.Bool("otel", false, exampleotel.Usage)
	flag.Parse()
	var traces io.Writer // nil: no tracing
	if *otel {
		traces = os.Stderr
	}
	if err := run(context.Background(), os.Stdout, os.Stderr, *config, traces); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// run asks the assistant what to pack and writes the answer and its usage to w, and the
// progress of the run to progress. With traces not nil it traces the run, and its spans go to
// traces (or to the collector the environment names) before it returns.
func run(ctx context.Context, w, progress io.Writer, config string, traces io.Writer) (err error) {
	models := assistant.WithModel(offlineModel())
	if config == "" {
		fmt.Fprintln(w, "quickstart: offline, with a scripted model (no API key needed)")
	} else {
		f, err := llmfactory.Load(config)
		if err != nil {
			return err
		}
		models = assistant.WithModels(f)
		fmt.Fprintln(w, "quickstart: with the models of", config)
	}
	tracing, err := exampleotel.Start(ctx, "quickstart", traces)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, tracing.Shutdown(ctx)) }()

	packer := assistant.New[Packing]("packer",
		models,
		assistant.WithInstructions("You help travellers pack for {{.days}} days. Check the forecast first."),
		assistant.WithVars(map[string]any{"days": 3}),
		assistant.WithTools(tool.Func("forecast", "The weather forecast of a city.", forecast)),
		assistant.WithCallback(callback.NewProgress(progress)),
		tracing.Option(),
	)

	res, err := packer.Run(ctx, assistant.Input{Prompt: "I'm going to Lisbon. What should I pack?"})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "pack for %s: %s\n", res.Output.City, strings.Join(res.Output.Items, ", "))
	t := res.Usage.Total
	fmt.Fprintf(w, "usage: %d requests, %d tool calls, %d input + %d output tokens\n", t.Requests, t.ToolCalls, t.InputTokens, t.OutputTokens)
	return nil
}
