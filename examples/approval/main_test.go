package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/providertest"
)

// The person's answers decide what the model is told, and so its final answer.
func TestApprovalOffline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		input string
		want  []string
		not   []string
	}{
		{
			name:  "approved",
			input: "y\n",
			want: []string{
				"final answer: Done: I mailed Ana at ana@example.com that the quarterly report is ready for her review (message msg-2041).",
				"usage: 3 requests, 2 tool calls,",
			},
			not: []string{"Reason"},
		},
		{
			name:  "denied with a reason",
			input: "n\nnot today\n",
			want: []string{
				`final answer: I did not send the mail to Ana: send_email answered "denied: a person did not allow this call: not today".`,
				"Reason, for the model (optional): ",
			},
			not: []string{"msg-2041"},
		},
		{
			name:  "no answer denies",
			input: "",
			want:  []string{`final answer: I did not send the mail to Ana: send_email answered "denied: a person did not allow this call".`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, progress bytes.Buffer
			if err := run(context.Background(), &out, &progress, strings.NewReader(tt.input), "", nil); err != nil {
				t.Fatal(err)
			}
			// The run, then its resumption: one handler counts their tokens together.
			for _, line := range []string{
				"mailer: started\nmailer: asking func\nmailer: func answered: 256 tokens (256 so far)\nmailer: running find_contact\n",
				"mailer: func answered: 348 tokens (604 so far)\nmailer: done\nmailer: started\n",
			} {
				if !strings.Contains(progress.String(), line) {
					t.Errorf("progress lacks %q:\n%s", line, progress.String())
				}
			}
			got := out.String()
			want := append([]string{
				"approval: offline, with a function model playing the model's part (no API key needed)\n",
				"mailer: I found Ana's address (ana@example.com). I'll send her a short note.\n",
				"(the run is paused: its state is ",
				"mailer wants to call send_email (call call_2) with:\n",
				// the arguments, pretty-printed
				`      "to": "ana@example.com",` + "\n",
				`      "subject": "Quarterly report ready for review",` + "\n",
				"Allow? [y/N] ",
			}, tt.want...)
			if !strings.HasPrefix(got, want[0]) {
				t.Errorf("the first line does not say the run is offline:\n%s", got)
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("output has %q:\n%s", n, got)
				}
			}
		})
	}
}

// The same program through an llm.yaml, against a fake OpenAI server: the real client, the
// factory, and the text streamed over the wire in pieces, without the tool calls' JSON.
func TestApprovalWithConfig(t *testing.T) {
	t.Parallel()
	srv := providertest.NewOpenAI(offlineModel())
	defer srv.Close()
	config := filepath.Join(t.TempDir(), "llm.yaml")
	doc := "providers:\n  openai:\n    api_key: test-key\n    base_url: " + srv.URL() + "/v1\nmodels:\n  fast: { provider: openai, model: gpt-test }\ndefault: fast\n"
	if err := os.WriteFile(config, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, progress bytes.Buffer
	if err := run(context.Background(), &out, &progress, strings.NewReader("y\n"), config, nil); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"mailer: asking fast\n", "mailer: running find_contact\n", "mailer: running send_email\n", "(999 so far)\nmailer: done\n"} {
		if !strings.Contains(progress.String(), line) {
			t.Errorf("progress lacks %q:\n%s", line, progress.String())
		}
	}
	got := out.String()
	for _, w := range []string{
		"approval: with the models of " + config + "\n",
		"mailer: I found Ana's address (ana@example.com). I'll send her a short note.\n",
		`      "to": "ana@example.com",` + "\n",
		"Allow? [y/N] mailer: Done: I mailed Ana at ana@example.com that the quarterly report is ready for her review (message msg-2041).\n",
		"final answer: Done: I mailed Ana",
		"usage: 3 requests, 2 tool calls, 898 input + 101 output tokens\n",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, `"function"`) {
		t.Errorf("the tool calls' JSON was streamed as text:\n%s", got)
	}
}

// With -otel, the paused run and the resumed one are two spans, with their events, in the
// traces writer.
func TestApprovalOtel(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "") // the spans to the writer, not to a collector
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	var out, progress, traces bytes.Buffer
	if err := run(context.Background(), &out, &progress, strings.NewReader("y\n"), "", &traces); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"invoke_agent mailer", "cadre.run.paused", "cadre.run.resumed", "execute_tool send_email"} {
		if !strings.Contains(traces.String(), `"Name": "`+name+`"`) {
			t.Errorf("no span or event %q in the traces:\n%s", name, traces.String())
		}
	}
	if n := strings.Count(traces.String(), `"Name": "invoke_agent mailer"`); n != 2 {
		t.Errorf("%d spans of the mailer's runs, want the paused one and the resumed one", n)
	}
}

// In a terminal, stdout and stderr share the screen: a progress line never starts in the
// middle of the model's streamed text.
func TestApprovalProgressSharesTheTerminal(t *testing.T) {
	t.Parallel()
	var screen bytes.Buffer
	if err := run(context.Background(), &screen, &screen, strings.NewReader("y\n"), "", nil); err != nil {
		t.Fatal(err)
	}
	want := "mailer: I found Ana's address (ana@example.com). I'll send her a short note.\n" +
		"mailer: func answered: 348 tokens (604 so far)\n"
	if !strings.Contains(screen.String(), want) {
		t.Errorf("the screen lacks %q:\n%s", want, screen.String())
	}
}
