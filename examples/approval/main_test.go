package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmtest"
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
			var out bytes.Buffer
			if err := run(context.Background(), &out, strings.NewReader(tt.input), ""); err != nil {
				t.Fatal(err)
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
	srv := llmtest.NewOpenAIServer(offlineModel())
	defer srv.Close()
	config := filepath.Join(t.TempDir(), "llm.yaml")
	doc := "providers:\n  openai:\n    api_key: test-key\n    base_url: " + srv.URL() + "/v1\nmodels:\n  fast: { provider: openai, model: gpt-test }\ndefault: fast\n"
	if err := os.WriteFile(config, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), &out, strings.NewReader("y\n"), config); err != nil {
		t.Fatal(err)
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
