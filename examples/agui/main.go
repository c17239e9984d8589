// Command agui serves an assistant over AG-UI, the protocol web front ends (CopilotKit and
// others) drive agents with, and talks to it as a front end would (docs/ag-ui.md).
//
// The assistant "concierge" books tables: it asks the specialist "researcher" (an assistant
// wrapped with assistant.AsTool, with a tool of its own) where to eat, then calls book_table,
// which waits for a person's approval. agui.NewHandler serves it on 127.0.0.1, where a run
// streams as AG-UI events: the concierge's text, each tool call and its result, the
// researcher's run as a sub-agent, the usage of each model request, and an interrupt for the
// booking. The program, as the client, POSTs a RunAgentInput, prints each event on a line,
// approves the booking with the next request's resume entry, prints the rest, and exits.
//
// It runs offline, with function models playing the models' parts, so it needs no key:
//
//	go run ./examples/agui
//
// With -serve it does not play the client: it serves until Ctrl-C, for a front end of your
// own (docs/ag-ui.md shows one with @ag-ui/client), on a free port or the one -addr gives:
//
//	go run ./examples/agui -serve -addr 127.0.0.1:8080   # http://127.0.0.1:8080/agui
//
// With -config it uses the models llm.yaml gives the assistants "concierge" and "researcher"
// (or the default one):
//
//	cp llm.yaml.example llm.yaml   # and set the keys it names
//	go run ./examples/agui -config llm.yaml
//
// With -otel it traces the runs with OpenTelemetry (docs/observability.md): the spans go to
// stderr as indented JSON when the program ends, or over OTLP/HTTP to the collector that
// OTEL_EXPORTER_OTLP_ENDPOINT names:
//
//	go run ./examples/agui -otel
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"

	"github.com/cadrehq/cadre/examples/internal/exampleotel"
	"github.com/cadrehq/cadre/pkg/agui"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/tool"
)

const prompt = "A table for two in Porto tonight, somewhere with good fish."

func main() {
	serve := flag.Bool("serve", false, "serve until Ctrl-C, for a front end of your own, instead of playing the client once")
	addr := flag.String("addr", "127.0.0.1:0", "the address to serve on (default: a free loopback port)")
	config := flag.String("config", "", "an llm.yaml to take the models from (default: offline, with function models)")
	otel := flag.Bool("otel", false, exampleotel.Usage)
	flag.Parse()
	var traces io.Writer // nil: no tracing
	if *otel {
		traces = os.Stderr
	}
	// Ctrl-C stops serving, and cancels the runs in progress.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Stdout, os.Stderr, *config, *addr, *serve, traces)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "agui:", err)
		os.Exit(1)
	}
}

// run serves the concierge over AG-UI on addr and, unless serve is set, has one conversation
// with it as a client, printing its events to w; with serve, it serves until ctx is done. The
// progress of the runs goes to progress. With traces not nil it traces the runs, and their
// spans go to traces (or to the collector the environment names) before it returns.
func run(ctx context.Context, w, progress io.Writer, config, addr string, serve bool, traces io.Writer) (err error) {
	models, from, err := modelsFrom(config)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "agui:", from)
	tracing, err := exampleotel.Start(ctx, "agui", traces)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, tracing.Shutdown(ctx)) }()

	researcher := assistant.New[Findings]("researcher",
		assistant.WithModels(models),
		assistant.WithDescription("Finds a restaurant in a city for a wish, and says why it fits."),
		assistant.WithInstructions("You find restaurants. Look them up with find_restaurants, and pick one."),
		assistant.WithTools(tool.Func("find_restaurants", "Lists the restaurants of a city that serve a cuisine.", findRestaurants)))
	// Every booking waits for a person: the run ends with an interrupt, and the front end's
	// next request resumes it with the person's decision.
	askFirst := assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) {
		return assistant.Pending(), nil
	})
	concierge := assistant.New[string]("concierge",
		assistant.WithModels(models),
		assistant.WithInstructions("You book restaurant tables. Ask the researcher where to go, then book with book_table."),
		assistant.WithTools(assistant.AsTool[Wish](researcher), tool.Func("book_table", "Books a table. A person approves every booking.", bookTable)),
		assistant.WithApproval(askFirst, "book_table"),
		assistant.WithCallback(callback.NewProgress(progress)), // receives the researcher's events too
		tracing.Option(), // traces the researcher's runs too
	)

	mux := http.NewServeMux()
	mux.Handle("/agui", agui.NewHandler(concierge))
	// Beyond loopback, the handler serves no other Host or page origin unless told to
	// (agui.WithAllowedHosts, WithAllowedOrigins), and checks no caller: docs/ag-ui.md#security.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// The requests' contexts, and so the runs', end with ctx: Ctrl-C cancels the runs in progress.
	srv := &http.Server{Handler: mux, BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	url := "http://" + ln.Addr().String() + "/agui"

	fmt.Fprintln(w, "agui: serving the concierge at", url)
	if serve {
		fmt.Fprintln(w, "agui: POST a RunAgentInput to it from a front end; Ctrl-C stops it")
		<-ctx.Done()
	} else {
		err = newClient(url, "porto-dinner", w).converse(ctx, prompt)
	}
	// Shutdown waits for the requests in progress, which end with their runs.
	shut := srv.Shutdown(context.WithoutCancel(ctx))
	if e := <-served; !errors.Is(e, http.ErrServerClosed) {
		shut = errors.Join(shut, e)
	}
	return errors.Join(err, shut)
}
