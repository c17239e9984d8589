// Command approval shows a live run: the model's text streams to the terminal as it is
// written, and a tool call that needs a person's approval pauses the run until the person
// decides.
//
// The assistant "mailer" has two tools: find_contact, which runs freely, and send_email,
// which waits for approval. When the model calls send_email the run pauses; the program
// keeps the paused run as JSON, shows the call and its arguments, asks "Allow? [y/N]" (and,
// on a no, for a reason the model is told), then resumes the run from the JSON and prints
// the final answer. What the assistant is doing (the model it waits for, the tool it runs,
// the tokens spent) goes to stderr as it happens.
//
// It runs offline, with a function model that plays the model's part, so it needs no key:
//
//	go run ./examples/approval
//
// With -config it uses the model llm.yaml gives the assistant "mailer" (or the default one):
//
//	cp llm.yaml.example llm.yaml   # and set the key it names, e.g. OPENAI_API_KEY
//	go run ./examples/approval -config llm.yaml
//
// With -otel it traces the run and its resumption with OpenTelemetry (docs/observability.md):
// the spans go to stderr as indented JSON when the program ends, or over OTLP/HTTP to the
// collector that OTEL_EXPORTER_OTLP_ENDPOINT names:
//
//	go run ./examples/approval -otel
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/cadrehq/cadre/examples/internal/exampleotel"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/llmfactory"
)

const prompt = "Tell Ana that the quarterly report is ready for her review."

func main() {
	config := flag.String("config", "", "an llm.yaml to take the model from (default: offline, with a function model)")
	otel := flag.Bool("otel", false, exampleotel.Usage)
	flag.Parse()
	var traces io.Writer // nil: no tracing
	if *otel {
		traces = os.Stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Stdout, os.Stderr, os.Stdin, *config, traces)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "approval:", err)
		os.Exit(1)
	}
}

// run asks the mailer to pass a message on, streaming its text to w, and asks the person at
// in about each call that waits for approval. The progress of the runs goes to progress. With
// traces not nil it traces the runs, and their spans go to traces (or to the collector the
// environment names) before it returns.
func run(ctx context.Context, w, progress io.Writer, in io.Reader, config string, traces io.Writer) (err error) {
	models := assistant.WithModel(offlineModel())
	if config == "" {
		fmt.Fprintln(w, "approval: offline, with a function model playing the model's part (no API key needed)")
	} else {
		f, err := llmfactory.Load(config)
		if err != nil {
			return err
		}
		models = assistant.WithModels(f)
		fmt.Fprintln(w, "approval: with the models of", config)
	}
	tracing, err := exampleotel.Start(ctx, "approval", traces)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, tracing.Shutdown(ctx)) }()
	// The run and its resumption take the same models, and are traced alike: the paused run's
	// span ends at the pause, and the resumed run has a span of its own.
	setup := assistant.Options(models, tracing.Option())
	term := &terminal{w: w, in: bufio.NewScanner(in)}
	term.progress = callback.NewProgress(term.lineEnded(progress))
	term.say("you:", prompt)

	res, err := newMailer(setup, term).Run(ctx, assistant.Input{Prompt: prompt})
	for err == nil && res.Stop == assistant.StopPending {
		res, err = decideAndResume(ctx, term, setup, res.Paused)
	}
	if err != nil {
		return err
	}
	term.say("final answer:", res.Output)
	t := res.Usage.Total
	term.say(fmt.Sprintf("usage: %d requests, %d tool calls, %d input + %d output tokens", t.Requests, t.ToolCalls, t.InputTokens, t.OutputTokens))
	return nil
}

// decideAndResume keeps the paused run as JSON, asks the person about its waiting calls, and
// resumes it from the JSON with their decisions, with a mailer built with setup.
func decideAndResume(ctx context.Context, term *terminal, setup assistant.Option, p *assistant.Paused) (*assistant.Result[string], error) {
	// The paused run is all in this JSON: its conversation, the calls of the turn it stopped
	// in, and its usage so far. A server would keep it (in a file, a database, a queue) and
	// return; the person may decide hours later, and another process — with an assistant of
	// the same name and tools — resumes from it. Here one process does both, but through the
	// JSON only.
	state, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	term.say(fmt.Sprintf("(the run is paused: its state is %d bytes of JSON)", len(state)))

	var paused assistant.Paused
	if err := json.Unmarshal(state, &paused); err != nil {
		return nil, err
	}
	decisions, err := term.decide(paused.Waiting())
	if err != nil {
		return nil, err
	}
	return newMailer(setup, term).Resume(ctx, &paused, decisions)
}

// newMailer builds the assistant. The run and its resumption each build their own, as two
// processes would: Resume needs only the same name and tools. setup gives its models (and its
// tracing).
func newMailer(setup assistant.Option, term *terminal) *assistant.Assistant[string] {
	// Every send_email call is Pending: the person decides at the pause, not inside Approve.
	// Approve runs while the run holds its conversation in memory, so asking there would tie
	// the run to this process and to a person answering at once; a pause instead leaves a
	// state that can wait as long as the person takes, and be resumed anywhere. (An Approver
	// that decides by itself — Approved for a known address, say — would return the verdict,
	// and the run would go on without pausing.)
	askLater := assistant.ApproverFunc(func(context.Context, assistant.ToolCall) (assistant.Decision, error) {
		return assistant.Pending(), nil
	})
	return assistant.New[string]("mailer",
		setup,
		assistant.WithInstructions("You are an office assistant. Find a person's address with find_contact before you mail them. "+
			"A person approves each mail before it goes: when a mail is denied, do not send it again; "+
			"say that it was not sent, and why."),
		assistant.WithTools(findContact(), sendEmail()),
		assistant.WithApproval(askLater, "send_email"),
		assistant.WithStream(term.stream),
		assistant.WithCallback(term.progress),
	)
}

// terminal is the program's side of the conversation: the model's text as it streams, the
// program's own lines, and the person's answers.
//
// The stream is called from the run's requests, and the program writes between runs: one
// at a time here (there is no delegated run streaming beside it), so no lock is needed.
// Progress lines come between them too: a tool's come from its goroutine, but while tools
// run, nothing streams.
type terminal struct {
	w        io.Writer
	in       *bufio.Scanner
	inText   bool             // the model's text was written last, and its line is not ended
	progress callback.Handler // one for the run and its resumption, so that it counts their tokens together
}

// stream writes a chunk of the model's text as it arrives, after the assistant's name when
// it starts a stretch of text.
func (t *terminal) stream(_ context.Context, c assistant.Chunk) error {
	if !t.inText {
		if _, err := fmt.Fprintf(t.w, "%s: ", c.Assistant); err != nil {
			return err
		}
		t.inText = true
	}
	_, err := io.WriteString(t.w, c.Text)
	return err
}

// say writes a line of the program's own, on a line of its own.
func (t *terminal) say(a ...any) {
	t.endText()
	fmt.Fprintln(t.w, a...)
}

// ask writes a question, without a newline, and reads the answer's line ("" at the end of
// the input).
func (t *terminal) ask(question string) (string, error) {
	t.endText()
	fmt.Fprint(t.w, question)
	if !t.in.Scan() {
		fmt.Fprintln(t.w)
		return "", t.in.Err()
	}
	return strings.TrimSpace(t.in.Text()), nil
}

// lineEnded returns w, which ends the model's line of text on t before each write: the
// progress goes to stderr, but in a terminal stderr and stdout share the screen.
func (t *terminal) lineEnded(w io.Writer) io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		t.endText()
		return w.Write(b)
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func (t *terminal) endText() {
	if t.inText {
		fmt.Fprintln(t.w)
		t.inText = false
	}
}

// decide shows each waiting call and asks whether it may run. Anything but "y" or "yes"
// denies it, with an optional reason that the model is told.
func (t *terminal) decide(waiting []assistant.ToolCall) (map[string]assistant.Decision, error) {
	if len(waiting) == 0 {
		return nil, errors.New("the run paused with no call waiting")
	}
	decisions := make(map[string]assistant.Decision, len(waiting))
	for _, c := range waiting {
		t.say(fmt.Sprintf("%s wants to call %s (call %s) with:\n%s", c.Assistant, c.Tool, c.ID, indent(c.Arguments)))
		answer, err := t.ask("Allow? [y/N] ")
		if err != nil {
			return nil, err
		}
		if a := strings.ToLower(answer); a == "y" || a == "yes" {
			decisions[c.ID] = assistant.Approved()
			continue
		}
		reason, err := t.ask("Reason, for the model (optional): ")
		if err != nil {
			return nil, err
		}
		decisions[c.ID] = assistant.Denied(reason)
	}
	return decisions, nil
}

// indent pretty-prints a call's arguments: as indented JSON, or as written when they are
// not JSON.
func indent(args string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(args), "    ", "  ") != nil {
		return "    " + args
	}
	return "    " + b.String()
}
