// Command durable runs a research pipeline as a durable run on PostgreSQL (package durable, on
// DBOS Transact): kill it with kill -9 while it works, start it again, and the run goes on from
// where it was — the model requests that were answered and the tool calls that completed are
// not made again, and the usage comes out as if the run had never stopped.
//
// The assistant "analyst" downloads two datasets (in parallel), analyzes them, and delegates
// the writing to the assistant "writer", which checks a claim before it writes; each tool takes
// a while (-slow), so that there is time to kill the program in the middle. What is really sent
// to a model, and what tools really run, goes to stderr as it happens: a step that a restart
// takes from the record does not show.
//
// It runs offline, with function models that play the models' part, so it needs no key; it
// needs PostgreSQL, whose URL it takes from CADRE_POSTGRES_URL or DATABASE_URL:
//
//	export DATABASE_URL=postgres://postgres:postgres@localhost:5432/postgres
//	go run ./examples/durable        # kill -9 it while it works, then start it again
//
// The run's ID is -id (default report-1): starting the program again with it takes up the same
// run, or prints its answer once it has one; another ID starts another run. With -config it uses
// the models llm.yaml gives the assistants:
//
//	go run ./examples/durable -config llm.yaml -id report-2
//
// With -otel it traces the runs with OpenTelemetry (docs/observability.md), inside the durable
// engine: a restart traces only what it does again.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/cadrehq/cadre/examples/internal/exampleotel"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/durable"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/tmc/langchaingo/llms"
)

const (
	// appName is the DBOS application: the runs of one application are recovered by its
	// processes only.
	appName = "cadre-example-durable"
	// version is pinned, so that a rebuilt program takes up the runs of the last build: DBOS's
	// default version is a hash of the executable. Change it when the steps of a run change.
	version = "example-1"

	prompt = "Write a short market report on our espresso machines from the sales figures and the customer reviews."
)

// options are the program's flags and environment.
type options struct {
	url, schema string // PostgreSQL, and the schema of DBOS's tables ("": DBOS's, "dbos")
	id          string // the run's ID
	executor    string // this process's executor ID: the next process with it takes up its runs
	config      string // an llm.yaml, or "" for the offline models
	slow        time.Duration
	traces      io.Writer // nil: no tracing
	// stop, when closed, ends run as the end of the process would: DBOS stops, and the run is
	// left where it was, for the next process. For tests.
	stop <-chan struct{}
}

// errStopped is run's error when stop was closed.
var errStopped = errors.New("stopped before the run ended")

func main() {
	log.SetFlags(0)
	log.SetPrefix("durable: ")
	var o options
	flag.StringVar(&o.id, "id", "report-1", "the run's ID: the same ID takes up the same run")
	flag.StringVar(&o.executor, "executor", "example", "this process's DBOS executor ID: the next process with the same one recovers its runs")
	flag.StringVar(&o.config, "config", "", "an llm.yaml to take the models from (default: offline, with function models)")
	flag.DurationVar(&o.slow, "slow", 2*time.Second, "how long each tool call takes")
	otel := flag.Bool("otel", false, exampleotel.Usage)
	flag.Parse()
	if *otel {
		o.traces = os.Stderr
	}
	o.url = os.Getenv("CADRE_POSTGRES_URL")
	if o.url == "" {
		o.url = os.Getenv("DATABASE_URL")
	}
	if o.url == "" {
		log.Fatal("set DATABASE_URL (or CADRE_POSTGRES_URL) to a PostgreSQL database, e.g. postgres://postgres:postgres@localhost:5432/postgres")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Stdout, os.Stderr, o)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// run runs the pipeline's durable run o.id to its end — starting it, or taking it up where a
// process left it — and writes its answer and usage to w, and what is really done to progress.
func run(ctx context.Context, w, progress io.Writer, o options) (err error) {
	var models func(offline func(results map[string]string) reply) assistant.Option
	if o.config == "" {
		fmt.Fprintln(w, "durable: offline, with function models (no API key needed)")
		models = func(offline func(map[string]string) reply) assistant.Option {
			return assistant.WithModel(scripted(offline))
		}
	} else {
		f, err := llmfactory.Load(o.config)
		if err != nil {
			return err
		}
		fmt.Fprintln(w, "durable: with the models of", o.config)
		models = func(func(map[string]string) reply) assistant.Option { return assistant.WithModels(f) }
	}
	tracing, err := exampleotel.Start(ctx, "durable", o.traces)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, tracing.Shutdown(ctx)) }()

	// DBOS logs to stdout at Info by default: here its warnings go with the progress.
	dctx, err := dbos.NewContext(ctx, dbos.Config{AppName: appName, DatabaseURL: o.url, DatabaseSchema: o.schema,
		ApplicationVersion: version, ExecutorID: o.executor,
		Logger: slog.New(slog.NewTextHandler(progress, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, dbos.Shutdown(dctx, 10*time.Second)) }()
	eng, err := durable.New(dctx)
	if err != nil {
		return err
	}
	// The engine's middleware first, outermost; the tracing and the progress inside it, where
	// they see what is done, not what a restart takes from the record. The writer's run, as a
	// run the analyst delegates to, passes through the analyst's middleware.
	watch := assistant.Options(assistant.WithMiddleware(eng.Middleware()), tracing.Option(), assistant.WithMiddleware(shown(progress)))
	writer := assistant.New[string]("writer", models(writerTurn),
		assistant.WithDescription("Writes a report from findings."),
		assistant.WithInstructions("Write a short report from the findings. Check any figure you state first."),
		assistant.WithTools(slowTool(o.slow, "check", "Checks a claim against the sources.", func(in claim) string { return "confirmed: " + in.Claim })))
	analyst := assistant.New[string]("analyst", watch, models(analystTurn),
		assistant.WithInstructions("Research with the tools, then have the writer write the report."),
		assistant.WithTools(
			slowTool(o.slow, "download", "Downloads a dataset.", func(in source) string { return in.Source + ": " + datasets[in.Source] }),
			slowTool(o.slow, "analyze", "Analyzes downloaded datasets.", func(in analysis) string { return findings }),
			assistant.AsTool[brief](writer)))
	durable.Register(eng, analyst)
	// Launch takes up the runs of this executor and version that a process left in flight.
	if err := dbos.Launch(dctx); err != nil {
		return err
	}

	switch st, err := dbos.ListWorkflows(dctx, dbos.WithFilterWorkflowIDs(o.id)); {
	case err != nil || len(st) == 0:
		fmt.Fprintf(w, "durable: run %s starts\n", o.id)
	case st[0].Status == dbos.WorkflowStatusSuccess || st[0].Status == dbos.WorkflowStatusError:
		fmt.Fprintf(w, "durable: run %s ended already: its answer, as recorded (-id starts another)\n", o.id)
	default:
		fmt.Fprintf(w, "durable: run %s exists (%s): taking it up where it is\n", o.id, st[0].Status)
	}
	// Start with the run's ID is idempotent: it starts the run once, however many times it is
	// called, and Await waits for the run wherever it runs.
	if _, err := eng.Start(ctx, "analyst", durable.Input{Prompt: prompt}, durable.WithID(o.id)); err != nil {
		return err
	}
	waiting, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-o.stop:
			cancel()
		case <-waiting.Done():
		}
	}()
	res, err := eng.Await(waiting, o.id)
	if o.stop != nil && waiting.Err() != nil && ctx.Err() == nil {
		return errStopped
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s\n\n", res.Text)
	u := res.Usage
	for _, name := range []string{"analyst", "writer"} {
		a := u.ByAgent[name]
		fmt.Fprintf(w, "%-8s requests %d  tool calls %d  tokens %d\n", name, a.Requests, a.ToolCalls, a.TotalTokens())
	}
	fmt.Fprintf(w, "%-8s requests %d  tool calls %d  tokens %d\n", "run", u.Total.Requests, u.Total.ToolCalls, u.Total.TotalTokens())
	return nil
}

// shown is a middleware that writes to progress each model request and tool call as it is done:
// inside the engine's, it sees only those a step really does.
func shown(progress io.Writer) assistant.Middleware {
	return assistant.Middleware{
		Request: func(ctx context.Context, req *assistant.ModelRequest, next assistant.RequestNext) (model.Reply, error) {
			fmt.Fprintf(progress, "  %s: asking %s (request %d)\n", req.Assistant, req.Model.Name, req.Attempt)
			return next(ctx, req)
		},
		ToolCall: func(ctx context.Context, call assistant.ToolCall, next assistant.ToolCallNext) (string, error) {
			fmt.Fprintf(progress, "  %s: running %s %s\n", call.Assistant, call.Tool, call.Arguments)
			out, err := next(ctx, call)
			fmt.Fprintf(progress, "  %s: %s done\n", call.Assistant, call.Tool)
			return out, err
		},
	}
}

type source struct {
	Source string `json:"source" jsonschema:"enum=sales,enum=reviews"`
}

type analysis struct {
	Datasets []string `json:"datasets"`
}

type claim struct {
	Claim string `json:"claim"`
}

type brief struct {
	Findings string `json:"findings"`
}

var datasets = map[string]string{
	"sales":   "12,400 machines sold this quarter, up 18%; the Barista Pro is 61% of them",
	"reviews": "4.6 stars on average over 2,310 reviews; the steam wand is praised, the water tank criticised",
}

const findings = "Sales grew 18% to 12,400 machines, led by the Barista Pro (61%); customers rate the machines 4.6 stars, " +
	"praising the steam wand and criticising the water tank."

// slowTool is a tool that takes d, or less when its run stops first.
func slowTool[I any](d time.Duration, name, description string, f func(I) string) tool.Tool {
	return tool.Func(name, description, func(ctx context.Context, in I) (string, error) {
		select {
		case <-time.After(d):
			return f(in), nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
}

// The offline models play the models' part: each decides from the conversation alone, as a
// model does, so that a restart asks them the same things and they answer the same.

// reply is an offline model's turn: text, or tool calls.
type reply struct {
	text  string
	calls []llms.ToolCall
}

// The models' turns: what to do next, from the results the run has.

func analystTurn(results map[string]string) reply {
	switch {
	case results["download"] == "":
		return reply{calls: []llms.ToolCall{call("d1", "download", `{"source":"sales"}`), call("d2", "download", `{"source":"reviews"}`)}}
	case results["analyze"] == "":
		return reply{calls: []llms.ToolCall{call("a1", "analyze", `{"datasets":["sales","reviews"]}`)}}
	case results["writer"] == "":
		return reply{calls: []llms.ToolCall{call("w1", "writer", fmt.Sprintf(`{"findings":%q}`, results["analyze"]))}}
	}
	return reply{text: "Market report, espresso machines\n\n" + results["writer"]}
}

func writerTurn(results map[string]string) reply {
	if results["check"] == "" {
		return reply{calls: []llms.ToolCall{call("c1", "check", `{"claim":"sales grew 18%"}`)}}
	}
	return reply{text: "Our espresso machines sold 12,400 units this quarter, 18% more than last (confirmed), the Barista Pro " +
		"leading with 61%. Customers give them 4.6 stars: they praise the steam wand; the water tank is the thing to improve."}
}

func call(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

// scripted is an offline model answering with turn, given the last result of each tool in the
// conversation; it counts a token for every four characters it is sent, and 20 more than a
// quarter of the text it writes.
func scripted(turn func(results map[string]string) reply) llms.Model {
	return offline(func(msgs []llms.MessageContent) (*llms.ContentResponse, error) {
		results := map[string]string{}
		in := 0
		for _, m := range msgs {
			for _, p := range m.Parts {
				if r, ok := p.(llms.ToolCallResponse); ok {
					results[r.Name] = r.Content
				}
				in += len(fmt.Sprint(p)) / 4
			}
		}
		r := turn(results)
		stop := "stop"
		if len(r.calls) > 0 {
			stop = "tool_calls"
		}
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: r.text, ToolCalls: r.calls, StopReason: stop,
			GenerationInfo: map[string]any{"PromptTokens": in, "CompletionTokens": 20 + len(r.text)/4}}}}, nil
	})
}

// offline is an llms.Model of a function.
type offline func(msgs []llms.MessageContent) (*llms.ContentResponse, error)

// ModelName names the model "offline" where the run reports it — in the progress, the usage
// and the durable run's steps — as model.Namer lets a model given to assistant.WithModel do.
func (offline) ModelName() string { return "offline" }

func (f offline) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	return f(msgs)
}

func (f offline) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	resp, err := f.GenerateContent(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, prompt)}, opts...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(resp.Choices[0].Content), nil
}
