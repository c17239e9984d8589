// Command console serves cadre's console (docs/console.md) on 127.0.0.1: a page in the browser
// where a person chats with a program's assistants, watches each run's tree grow — every run,
// model request and tool call with its duration, tokens and cost —, approves or denies the
// calls that wait for a person, answers the questions the assistants ask, reopens chats, and
// reads an eval report.
//
// Its assistants plan trips. The supervisor "planner" asks the person where they go when their
// message does not say — with ask_user, a client tool the console offers, which the person
// answers in the page —, then asks two specialists at once, each an assistant wrapped with
// assistant.AsTool with a tool of its own: "weather" (forecast), whose first model is busy at
// the start of each run, so that its run falls back to the next, and "hotels" (find_hotels,
// and book_hotel, which waits for a person's approval). Each of the three can be chatted with
// in the console. Chats are kept in memory; at start the program evaluates the weather
// specialist over a small dataset and writes the report where the console lists it.
//
// It runs offline, with function models playing the models' parts, so it needs no key; they
// take a moment to answer and stream their text in pieces, so that the tree visibly grows:
//
//	go run ./examples/console    # then open the address it prints
//
// -addr serves on another address than a free loopback port, and -fast makes the models
// answer at once:
//
//	go run ./examples/console -addr 127.0.0.1:8080 -fast
//
// With -config it uses the models llm.yaml gives the assistants "planner", "weather" and
// "hotels" (or the default one), priced by their price keys; the eval report is still the
// offline one:
//
//	cp llm.yaml.example llm.yaml   # and set the keys it names
//	go run ./examples/console -config llm.yaml
//
// With -otel it traces the planner's runs with OpenTelemetry (docs/observability.md): the
// spans go to stderr as indented JSON when the program ends, or over OTLP/HTTP to the
// collector that OTEL_EXPORTER_OTLP_ENDPOINT names:
//
//	go run ./examples/console -otel
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
	"time"

	"github.com/cadrehq/cadre/examples/internal/exampleotel"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/console"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/model"
)

// latency is how long an offline model takes to answer, unless -fast.
const latency = 500 * time.Millisecond

// settings are the program's flags.
type settings struct {
	addr   string    // where to serve
	config string    // an llm.yaml, or "" for the offline models
	fast   bool      // the offline models answer at once
	traces io.Writer // where the spans go; nil: no tracing
}

func main() {
	var s settings
	flag.StringVar(&s.addr, "addr", "127.0.0.1:0", "the address to serve on (default: a free loopback port)")
	flag.StringVar(&s.config, "config", "", "an llm.yaml to take the models from (default: offline, with function models)")
	flag.BoolVar(&s.fast, "fast", false, "the offline models answer at once, without pausing to think")
	otel := flag.Bool("otel", false, exampleotel.Usage)
	flag.Parse()
	if *otel {
		s.traces = os.Stderr
	}
	// Ctrl-C stops serving, and cancels the runs in progress.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Stdout, os.Stderr, s)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "console:", err)
		os.Exit(1)
	}
}

// run serves the console on s.addr until ctx is done, printing its address to w; the progress
// of the planner's runs goes to progress.
func run(ctx context.Context, w, progress io.Writer, s settings) (err error) {
	models, priced, from, err := modelsFrom(s)
	if err != nil {
		return err
	}
	if c, ok := models.(io.Closer); ok {
		defer func() { err = errors.Join(err, c.Close()) }()
	}
	fmt.Fprintln(w, "console:", from)
	tracing, err := exampleotel.Start(ctx, "console", s.traces)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, tracing.Shutdown(ctx)) }()

	reports, err := os.MkdirTemp("", "cadre-console-reports-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(reports)
	report, err := writeReport(ctx, reports)
	if err != nil {
		return fmt.Errorf("the eval report: %w", err)
	}
	fmt.Fprintln(w, "console: an eval report of the weather specialist:", report)

	// The planner's progress and tracing reach the specialists' runs it delegates to.
	t := newTeam(models, assistant.WithCallback(callback.NewProgress(progress)), tracing.Option())
	c := console.New(
		console.WithAssistant(t.planner),
		console.WithAssistant(t.weather),
		console.WithAssistant(t.hotels),
		console.WithClientTools(askUser),
		console.WithStore(chat.NewMemory()),
		console.WithPrices(priced),
		console.WithReports(os.DirFS(reports)),
	)
	// On loopback, the console serves no other Host and answers no page of another origin;
	// beyond it, it needs console.WithAuth: docs/console.md#security.
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	// The requests' contexts, and so the runs', end with ctx: Ctrl-C cancels the runs in progress.
	srv := &http.Server{Handler: c, BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	fmt.Fprintf(w, "console: http://%s/\n", ln.Addr())
	fmt.Fprintln(w, "console: open it in a browser; Ctrl-C stops it")
	<-ctx.Done()
	// Shutdown waits for the requests in progress, which end with their runs.
	shut := srv.Shutdown(context.WithoutCancel(ctx))
	if e := <-served; !errors.Is(e, http.ErrServerClosed) {
		shut = errors.Join(shut, e)
	}
	return shut
}

// modelsFrom returns the assistants' models and their prices: from the llm.yaml config, or
// offline ones when s.config is empty. It says which in its third result.
func modelsFrom(s settings) (model.Resolver, map[string]model.Price, string, error) {
	if s.config == "" {
		l := latency
		if s.fast {
			l = 0
		}
		return offlineModels(l), prices, "offline, with function models playing the models' parts (no API key needed)", nil
	}
	f, err := llmfactory.Load(s.config)
	if err != nil {
		return nil, nil, "", err
	}
	return f, f.Prices(), "with the models of " + s.config, nil
}
