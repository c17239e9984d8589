package providertest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/schema"
	"github.com/google/go-cmp/cmp"
)

// The helpers of the tests of the structured-output fields, which every fake takes.

// answerSchema is an output schema in OpenAI's strict subset, which every fake takes.
const answerSchema = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"},` +
	`"tags":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}}},` +
	`"required":["city","days","tags"],"additionalProperties":false}`

// schemaWitness is a model that answers text and keeps the output schema of the last
// request's context, and its call options.
type schemaWitness struct {
	*llmtest.FuncModel
	seen atomic.Pointer[model.OutputSchema]
	req  atomic.Pointer[llmtest.Request]
}

func newSchemaWitness(text string) *schemaWitness {
	w := &schemaWitness{}
	w.FuncModel = llmtest.NewFunc(func(ctx context.Context, req llmtest.Request) llmtest.Reply {
		w.seen.Store(model.OutputSchemaOf(ctx))
		w.req.Store(&req)
		return llmtest.Text(text)
	})
	return w
}

// checkSchemaSeen checks that w's model saw want (its Schema compared as JSON) in its context,
// with JSON mode on.
func checkSchemaSeen(t *testing.T, w *schemaWitness, want model.OutputSchema) {
	t.Helper()
	got := w.seen.Load()
	if got == nil {
		t.Fatal("the model's context carries no output schema")
	}
	if got.Name != want.Name || got.Description != want.Description || got.Strict != nil {
		t.Errorf("the model got name %q, description %q, strict %s; want %q, %q, none", got.Name, got.Description, got.Strict, want.Name, want.Description)
	}
	var gotDoc, wantDoc any
	if err := json.Unmarshal(got.Schema, &gotDoc); err != nil {
		t.Fatalf("the model's schema %s: %v", got.Schema, err)
	}
	_ = json.Unmarshal(want.Schema, &wantDoc)
	if diff := cmp.Diff(wantDoc, gotDoc); diff != "" {
		t.Errorf("the model's schema (-want +got):\n%s", diff)
	}
	if !w.req.Load().Options.JSONMode {
		t.Error("the model's JSON mode is off")
	}
}

// checkMatches checks that answer matches the JSON Schema doc.
func checkMatches(t *testing.T, doc, answer string) {
	t.Helper()
	s, err := schema.Compile(json.RawMessage(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate([]byte(answer)); err != nil {
		t.Errorf("the answer %s does not match the schema: %v", answer, err)
	}
}

// rejection is a raw request that a fake refuses, and the message, param and code of its
// refusal (param and code: OpenAI's alone; "" for null).
type rejection struct {
	name, body, want string
	param, code      string
}

// badRequestKinds are the error types of each API's 400.
var badRequestKinds = map[string]string{"openai": "invalid_request_error", "anthropic": "invalid_request_error", "gemini": "INVALID_ARGUMENT"}

// checkRejections sends each raw request to a fake of p at path and checks its 400, in p's
// error JSON, and that the model saw none of them.
func checkRejections(t *testing.T, p provider, path string, cases []rejection) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.NewScripted(llmtest.Text("never"))
			s := p.newServer(m)
			defer s.Close()
			status, _, body := rawPost(t, s, path, p.validHeaders("k"), c.body)
			if status != http.StatusBadRequest {
				t.Errorf("status %d, want 400: %s", status, body)
			}
			if msg := p.decodeError(t, body); !strings.Contains(msg, c.want) {
				t.Errorf("message %q does not contain %q", msg, c.want)
			}
			var b map[string]any
			_ = json.Unmarshal(body, &b)
			if kind, want := p.errorType(b), badRequestKinds[p.name]; kind != want {
				t.Errorf("error type %q, want %q", kind, want)
			}
			if p.name == "openai" {
				var b struct{ Error struct{ Param, Code *string } }
				_ = json.Unmarshal(body, &b)
				if deref(b.Error.Param) != c.param || deref(b.Error.Code) != c.code {
					t.Errorf("param %q, code %q; want %q, %q", deref(b.Error.Param), deref(b.Error.Code), c.param, c.code)
				}
			}
			if n := len(m.Requests()); n != 0 {
				t.Errorf("the model got %d requests, want 0", n)
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// sseData returns the JSON data of the server-sent events of body, but [DONE].
func sseData(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(string(body)) {
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var e map[string]any
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		out = append(out, e)
	}
	return out
}

// refusalText is long enough for a stream to send it in several pieces.
const refusalText = "I can't help with that request, sorry."

func refusing() *llmtest.Scripted {
	return llmtest.NewScripted(llmtest.Reply{Refusal: refusalText})
}

// syntheticBehind checks that a Synthetic model behind a fake of p answers a raw request
// (at path) for answerSchema with JSON of that schema, which answerOf reads from the fake's
// answer.
func syntheticBehind(t *testing.T, p provider, path, body string, answerOf func(t *testing.T, body []byte) string) {
	t.Helper()
	s := p.newServer(llmtest.NewSynthetic())
	defer s.Close()
	status, _, resp := rawPost(t, s, path, p.validHeaders("k"), body)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, resp)
	}
	checkMatches(t, answerSchema, answerOf(t, resp))
}
