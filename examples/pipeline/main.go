// Command pipeline chains three assistants by hand: an extractor reads a customer's email into
// a Ticket, a classifier triages the Ticket, and a summarizer writes the note for the team the
// Ticket goes to. Each step's Go output is written into the next step's prompt; all three run
// under one usage.Ledger, which bounds them together and reports what they cost together. The
// steps' results go to stdout; what each assistant is doing goes to stderr as it happens.
//
// It runs offline, with scripted models, so it needs no key:
//
//	go run ./examples/pipeline
//
// With -config it uses the models llm.yaml gives the assistants "extractor", "classifier" and
// "summarizer" (or the default one):
//
//	cp llm.yaml.example llm.yaml   # and set the keys it names
//	go run ./examples/pipeline -config llm.yaml
//
// With -otel it traces the runs with OpenTelemetry (docs/observability.md): the spans go to
// stderr as indented JSON when the program ends, or over OTLP/HTTP to the collector that
// OTEL_EXPORTER_OTLP_ENDPOINT names:
//
//	go run ./examples/pipeline -otel
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/cadrehq/cadre/examples/internal/exampleotel"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// Ticket is what the extractor reads out of an email.
type Ticket struct {
	Customer string `json:"customer"`
	OrderID  string `json:"order_id" jsonschema_description:"The order number as written, or empty"`
	Product  string `json:"product"`
	Problem  string `json:"problem" jsonschema_description:"What is wrong, in a few words"`
	Wants    string `json:"wants" jsonschema:"description=What the customer asks for"`
	Deadline string `json:"deadline" jsonschema_description:"By when they need it, or empty"`
}

// String is the ticket on one line, without the fields left empty.
func (t Ticket) String() string {
	s := t.Customer
	if t.OrderID != "" {
		s += ", order " + t.OrderID
	}
	s += ": " + t.Product + ", " + t.Problem + "; wants " + t.Wants
	if t.Deadline != "" {
		s += " by " + t.Deadline
	}
	return s
}

// Triage is the classifier's decision.
type Triage struct {
	Category string `json:"category" jsonschema:"enum=damaged,enum=late,enum=billing,enum=question"`
	Urgency  string `json:"urgency" jsonschema:"enum=low,enum=normal,enum=high"`
	Team     string `json:"team" jsonschema:"enum=returns,enum=shipping,enum=billing,enum=support"`
	Reason   string `json:"reason" jsonschema_description:"Why, in one sentence"`
}

const email = `Subject: Order 48213 arrived broken

Hello, the espresso machine from order 48213 came on Monday with a cracked water tank.
My café reopens on Friday and I need a working machine by then. Can you send a replacement?
Ana Costa`

func main() {
	log.SetFlags(0)
	log.SetPrefix("pipeline: ")
	config := flag.String("config", "", "an llm.yaml to take the models from (default: offline, with scripted models)")
	otel := flag.Bool("otel", false, exampleotel.Usage)
	flag.Parse()
	var traces io.Writer // nil: no tracing
	if *otel {
		traces = os.Stderr
	}
	if err := run(context.Background(), os.Stdout, os.Stderr, *config, traces); err != nil {
		log.Fatal(err)
	}
}

// run passes the email through the three steps, writing each step's result and the usage to
// w, and the progress of the runs to progress. With traces not nil it traces the runs, and
// their spans go to traces (or to the collector the environment names) before it returns.
func run(ctx context.Context, w, progress io.Writer, config string, traces io.Writer) (err error) {
	var f *llmfactory.Factory
	if config == "" {
		fmt.Fprintln(w, "pipeline: offline, with scripted models (no API key needed)")
	} else {
		if f, err = llmfactory.Load(config); err != nil {
			return err
		}
		fmt.Fprintln(w, "pipeline: with the models of", config)
	}
	// modelOf is the llm.yaml's model for each assistant, or else its scripted stand-in.
	modelOf := func(offline llms.Model) assistant.Option {
		if f != nil {
			return assistant.WithModels(f)
		}
		return assistant.WithModel(offline)
	}
	tracing, err := exampleotel.Start(ctx, "pipeline", traces)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, tracing.Shutdown(ctx)) }()
	// One progress handler for the three steps, so that its count of tokens is the pipeline's;
	// and tracing for each: the three runs are three traces.
	watch := assistant.Options(assistant.WithCallback(callback.NewProgress(progress)), tracing.Option())

	extractor := assistant.New[Ticket]("extractor", modelOf(scriptedExtractor()), watch,
		assistant.WithInstructions("Read the customer's email and fill in the ticket. Leave a field empty rather than guess."))
	classifier := assistant.New[Triage]("classifier", modelOf(scriptedClassifier()), watch,
		assistant.WithInstructions("Triage support tickets of a shop selling coffee machines. "+
			"Urgency is high when the customer has a deadline within a week."))
	summarizer := assistant.New[string]("summarizer", modelOf(scriptedSummarizer()), watch,
		assistant.WithInstructions("Write the hand-off note for the {{.team}} team: what happened, what to do, by when. "+
			"At most three sentences, no greeting."))

	// One ledger for the three runs: their limits hold for all of them together, and its
	// report adds them up.
	ledger := usage.NewLedger(usage.Limits{MaxRequests: 10, MaxTotalTokens: 20_000})
	ctx = usage.WithLedger(ctx, ledger)

	ticket, err := extractor.Run(ctx, assistant.Input{Prompt: email})
	if err != nil {
		return err
	}
	t := ticket.Output
	fmt.Fprintf(w, "1. extractor:  %s\n", t)

	facts := fmt.Sprintf("Customer: %s\nOrder: %s\nProduct: %s\nProblem: %s\nWants: %s\nDeadline: %s",
		t.Customer, t.OrderID, t.Product, t.Problem, t.Wants, t.Deadline)
	triage, err := classifier.Run(ctx, assistant.Input{Prompt: facts})
	if err != nil {
		return err
	}
	tr := triage.Output
	fmt.Fprintf(w, "2. classifier: %s, %s urgency, to %s: %s\n", tr.Category, tr.Urgency, tr.Team, tr.Reason)

	note, err := summarizer.Run(ctx, assistant.Input{
		Prompt: fmt.Sprintf("%s\nCategory: %s (%s urgency)\nWhy: %s", facts, tr.Category, tr.Urgency, tr.Reason),
		Vars:   map[string]any{"team": tr.Team},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "3. summarizer: %s\n", note.Output)

	// Each run's Usage is its own; the ledger's report is the pipeline's.
	fmt.Fprintln(w)
	printLedger(w, ledger.Report(), extractor.Name(), classifier.Name(), summarizer.Name())
	return nil
}

// printLedger writes a line for each step's assistant, then one for them all.
func printLedger(w io.Writer, r usage.Report, steps ...string) {
	line := func(name string, u usage.Usage) {
		fmt.Fprintf(w, "%-10s  requests %d  tokens %5d (%d in, %d out)\n", name, u.Requests, u.TotalTokens(), u.InputTokens, u.OutputTokens)
	}
	for _, name := range steps {
		line(name, r.ByAgent[name])
	}
	line("pipeline", r.Total)
}

// The scripted models answer as a model would, with what such requests cost.

func scriptedExtractor() llms.Model {
	return llmtest.NewScripted(llmtest.Reply{
		Text: `{"customer":"Ana Costa","order_id":"48213","product":"espresso machine","problem":"cracked water tank on arrival",` +
			`"wants":"a replacement","deadline":"Friday"}`,
		Usage: usage.Usage{InputTokens: 388, OutputTokens: 57},
	})
}

func scriptedClassifier() llms.Model {
	return llmtest.NewScripted(llmtest.Reply{
		Text:  `{"category":"damaged","urgency":"high","team":"returns","reason":"It arrived broken and the customer needs it working by Friday."}`,
		Usage: usage.Usage{InputTokens: 341, OutputTokens: 38},
	})
}

func scriptedSummarizer() llms.Model {
	return llmtest.NewScripted(llmtest.Reply{
		Text: "Ana Costa's espresso machine (order 48213) arrived with a cracked water tank. " +
			"Ship a replacement by express today with a prepaid return label for the broken one. " +
			"She needs it working by Friday, when her café reopens.",
		Usage: usage.Usage{InputTokens: 212, OutputTokens: 61},
	})
}
