// Command typedoutput asks a model for a typed answer in the provider's own structured-output
// field: the schema of the Go type Itinerary goes in OpenAI's response_format (Anthropic's
// output_config, Gemini's responseJsonSchema...), so the answer is valid JSON the first time,
// and the program shows the itinerary as it grows while the model streams it. The answer goes
// to stdout; the output as it grows, and what the assistant is doing, go to stderr.
//
// It runs offline against a fake OpenAI API on 127.0.0.1 (pkg/providertest), with a scripted
// model behind it, through the same llm.yaml factory, client and wire as a real model, so it
// needs no key:
//
//	go run ./examples/typedoutput
//
// With -config it uses the model llm.yaml gives the assistant "planner" (or the default one).
// A model whose id the provider facts know to take a schema (gpt-5, claude-sonnet-4-5,
// gemini-2.5-flash, ...) is asked natively; set `output: native` on a model to ask for it:
//
//	cp llm.yaml.example llm.yaml   # and set the key it names, e.g. OPENAI_API_KEY
//	go run ./examples/typedoutput -config llm.yaml
//
// With -otel it traces the run with OpenTelemetry (docs/observability.md): the spans go to
// stderr as indented JSON when the program ends, or over OTLP/HTTP to the collector that
// OTEL_EXPORTER_OTLP_ENDPOINT names:
//
//	go run ./examples/typedoutput -otel
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
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/usage"
)

// Itinerary is the assistant's answer.
type Itinerary struct {
	City string `json:"city"`
	Days []Day  `json:"days" jsonschema_description:"One entry per day, in order"`
}

// Day is one day of the itinerary.
type Day struct {
	Title      string   `json:"title"`
	Activities []string `json:"activities"`
}

// offlineAnswer is what the scripted model answers, as a model constrained to the schema
// writes it.
const offlineAnswer = `{"city":"Lisbon","days":[` +
	`{"title":"Alfama and the castle","activities":["tram 28 up the hill","Castelo de São Jorge","fado in the evening"]},` +
	`{"title":"Belém","activities":["the tower","pastéis de Belém","MAAT by the river"]}]}`

func main() {
	config := flag.String("config", "", "an llm.yaml to take the model from (default: offline, against a fake OpenAI API)")
	otel := flag.Bool("otel", false, exampleotel.Usage)
	flag.Parse()
	var traces io.Writer // nil: no tracing
	if *otel {
		traces = os.Stderr
	}
	if err := run(context.Background(), os.Stdout, os.Stderr, *config, traces); err != nil {
		fmt.Fprintln(os.Stderr, "typedoutput:", err)
		os.Exit(1)
	}
}

// run asks the planner for an itinerary and writes it to w, with how the output was asked for
// and what it cost; the output as it grows, and the run's progress, go to progress. With traces
// not nil it traces the run, and its spans go to traces (or to the collector the environment
// names) before it returns.
func run(ctx context.Context, w, progress io.Writer, config string, traces io.Writer) (err error) {
	var f *llmfactory.Factory
	if config == "" {
		srv := providertest.NewOpenAI(llmtest.NewScripted(llmtest.Reply{Text: offlineAnswer, Usage: usage.Usage{InputTokens: 182, OutputTokens: 71}}))
		defer srv.Close()
		f, err = llmfactory.Parse([]byte("providers:\n  local: { type: openai, api_key: offline, base_url: '" + srv.URL() + "/v1' }\n" +
			"models:\n  planner-model: { provider: local, model: gpt-5-mini, output: native }\ndefault: planner-model\n"))
		fmt.Fprintln(w, "typedoutput: offline, against a fake OpenAI API on 127.0.0.1 (no API key needed)")
	} else {
		f, err = llmfactory.Load(config)
		fmt.Fprintln(w, "typedoutput: with the models of", config)
	}
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	tracing, err := exampleotel.Start(ctx, "typedoutput", traces)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, tracing.Shutdown(ctx)) }()

	forms := map[string]string{} // how each model was asked, by name
	shown := ""                  // the itinerary as described last
	planner := assistant.New[Itinerary]("planner",
		assistant.WithModels(f),
		assistant.WithInstructions("You plan city trips. Give each day a title and three activities."),
		// Every time the answer holds more; this shows it when a day or an activity is added.
		assistant.WithPartialOutput(0, func(_ context.Context, it Itinerary) error {
			if s := describe(it); s != shown {
				fmt.Fprintln(progress, "so far:", s)
				shown = s
			}
			return nil
		}),
		assistant.WithMiddleware(assistant.Middleware{Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			forms[req.Model.Name] = form(req)
			return next(ctx, req)
		}}),
		assistant.WithCallback(callback.NewProgress(progress)),
		tracing.Option(),
	)
	res, err := planner.Run(ctx, assistant.Input{Prompt: "Two days in Lisbon, please."})
	if err != nil {
		return err
	}
	for i, d := range res.Output.Days {
		fmt.Fprintf(w, "%s, day %d: %s — %s\n", res.Output.City, i+1, d.Title, strings.Join(d.Activities, ", "))
	}
	fmt.Fprintf(w, "asked %s %s\n", res.Model, forms[res.Model])
	t := res.Usage.Total
	fmt.Fprintf(w, "usage: %d requests, %d input + %d output tokens\n", t.Requests, t.InputTokens, t.OutputTokens)
	return nil
}

// form says how a request asks for the output.
func form(req *assistant.ModelRequest) string {
	if req.Output != nil {
		return "natively: the schema " + req.Output.Name + " in the provider's structured-output field"
	}
	return "with a final_result tool or in the prompt"
}

// describe is the itinerary as far as it is written.
func describe(it Itinerary) string {
	activities := 0
	for _, d := range it.Days {
		activities += len(d.Activities)
	}
	return fmt.Sprintf("%s, %d day(s), %d activities", it.City, len(it.Days), activities)
}
