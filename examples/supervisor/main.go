// Command supervisor shows delegation: a supervisor assistant hands a trip to two specialists
// at once — a researcher with a search tool and an analyst with a price lookup, each answering
// with a Go struct — and writes a typed report from their answers. It prints the report, then
// what each assistant and each model cost; progress goes to stderr as it happens.
//
// It runs offline, with scripted models that play a plausible conversation, so it needs no
// key:
//
//	go run ./examples/supervisor
//
// With -config it uses the models llm.yaml gives the assistants "supervisor", "researcher" and
// "analyst" (or the default one):
//
//	cp llm.yaml.example llm.yaml   # and set the keys it names
//	go run ./examples/supervisor -config llm.yaml
//
// With -otel it traces the runs with OpenTelemetry (docs/observability.md): the spans go to
// stderr as indented JSON when the program ends, or over OTLP/HTTP to the collector that
// OTEL_EXPORTER_OTLP_ENDPOINT names:
//
//	go run ./examples/supervisor -otel
//	OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 go run ./examples/supervisor -otel
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/cadrehq/cadre/examples/internal/exampleotel"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/cadrehq/cadre/pkg/usage"
)

func main() {
	config := flag.String("config", "", "an llm.yaml to take the models from (default: offline, with scripted models)")
	otel := flag.Bool("otel", false, exampleotel.Usage)
	flag.Parse()
	var traces io.Writer // nil: no tracing
	if *otel {
		traces = os.Stderr
	}
	// Ctrl-C cancels the supervisor's run, and with it every run it delegated to.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Stdout, os.Stderr, *config, traces)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "supervisor:", err)
		os.Exit(1)
	}
}

// run plans the trip, prints the report and its usage to w, and the progress of the runs to
// progress. With traces not nil it traces the runs, and their spans go to traces (or to the
// collector the environment names) before it returns.
func run(ctx context.Context, w, progress io.Writer, config string, traces io.Writer) (err error) {
	models, from, err := modelsFrom(config)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "supervisor:", from)
	tracing, err := exampleotel.Start(ctx, "supervisor", traces)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, tracing.Shutdown(ctx)) }()

	researcher := assistant.New[Findings]("researcher",
		assistant.WithDescription("Researches a destination: the weather and what to see, from a web search."),
		assistant.WithInstructions("You research {{.destination}} for travellers going in {{.month}}. "+
			"Search first, and keep only what the search results say."),
		assistant.WithTools(tool.Func("search", "Searches the web; returns snippets of the best pages.", search)),
		assistant.WithModels(models),
		// Four requests at most; the last one, without tools, answers from what was found.
		assistant.WithLimits(usage.Limits{MaxRequests: 4}),
		assistant.WithFinalAnswerOnLimit(),
	)
	analyst := assistant.New[Costs]("analyst",
		assistant.WithDescription("Works out what a trip costs, from current prices, and what could make it cost more."),
		assistant.WithInstructions("You work out what {{.nights}} nights in {{.destination}} cost for {{.travellers}} travellers. "+
			"Look the prices up, never guess them, and list the risks to the budget."),
		assistant.WithModels(models),
		assistant.WithValidator(checkCosts),
		assistant.WithTools(tool.Func("price_lookup", "Current flight, hotel and daily prices for a city, in euros.", priceLookup)),
	)
	supervisor := assistant.New[Report]("supervisor",
		assistant.WithModels(models),
		assistant.WithInstructions("You plan trips. Ask the researcher about the destination and the analyst about the costs, "+
			"both in the same turn (they work in parallel), then write the report from their answers. Give prices in euros."),
		// The model calling a specialist writes its typed request; the answer comes back as JSON.
		assistant.WithTools(assistant.AsTool[ResearchRequest](researcher), assistant.AsTool[CostRequest](analyst)),
		assistant.WithCallback(callback.NewProgress(progress)), // receives the specialists' events too
		tracing.Option(), // traces the specialists' runs too
	)

	res, err := supervisor.Run(ctx, assistant.Input{Prompt: "Plan 4 nights in Lisbon in May for two of us. Our budget is 1,500 euros."})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s\n\n%s\n\n", res.Output.Title, res.Output.Summary)
	for _, p := range res.Output.KeyPoints {
		fmt.Fprintf(w, "  - %s\n", p)
	}
	fmt.Fprintln(w)
	return printUsage(w, res.Usage) // the whole tree: the supervisor's run and both delegations
}

// checkCosts rejects figures that cannot be right; the analyst's model is then asked once to
// correct its answer, quoting the error.
func checkCosts(_ context.Context, c Costs) error {
	if c.TotalEUR <= 0 || c.PerPersonEUR <= 0 || c.PerPersonEUR > c.TotalEUR {
		return fmt.Errorf("total_eur %d and per_person_eur %d cannot both be right: both are positive, and no one's share is more than the total", c.TotalEUR, c.PerPersonEUR)
	}
	return nil
}
