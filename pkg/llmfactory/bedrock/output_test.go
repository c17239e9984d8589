package bedrock_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

const sonnet45 = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

var citySchema = &model.OutputSchema{
	Name:   "city_answer",
	Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"total":{"type":"integer"}},"required":["city"]}`),
}

// outputFormat is citySchema as output_config's format, its object closed.
const outputFormat = `{"type":"json_schema","schema":{"type":"object","properties":{"city":{"type":"string"},"total":{"type":"integer"}},` +
	`"required":["city"],"additionalProperties":false}}`

func cityPrompt() []llms.MessageContent {
	return []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Population of Oslo?")}
}

// The output schema goes into the InvokeModel body of an Anthropic model as Anthropic's
// output_config, before the request is signed, streamed or not; the answer in the schema
// comes back.
func TestOutputSchemaOnTheWire(t *testing.T) {
	const city = `{"city":"Oslo","total":4000}`
	for _, streamed := range []bool{false, true} {
		t.Run(map[bool]string{false: "InvokeModel", true: "InvokeModelWithResponseStream"}[streamed], func(t *testing.T) {
			fakeAWS(t, false)
			a := answer{body: `{"type":"message","role":"assistant","content":[{"type":"text","text":` + jsonString(city) + `}],` +
				`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":9}}`}
			var opts []llms.CallOption
			if streamed {
				a = answer{stream: []string{
					`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":20,"output_tokens":1}}}`,
					`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
					`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":` + jsonString(city) + `}}`,
					`{"type":"content_block_stop","index":0}`,
					`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}`,
					`{"type":"message_stop"}`,
				}}
				opts = append(opts, llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
			}
			s := newStandIn(t, false, a)
			f := factory(t, llmYAML(s.URL, "    region: "+region+"\n", sonnet45))
			m, err := f.Model(ctx(t), "sonnet")
			if err != nil {
				t.Fatal(err)
			}
			if m.Output != model.OutputUnknown {
				t.Errorf("Output = %q; want unknown: the table has no Bedrock ids, and the file says nothing", m.Output)
			}
			reply, err := m.Generate(model.WithOutputSchema(ctx(t), citySchema), cityPrompt(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			if reply.Text != city {
				t.Errorf("reply %q; want %s", reply.Text, city)
			}
			reqs := s.requests()
			if len(reqs) != 1 || reqs[0].SignatureErr != nil {
				t.Fatalf("requests %+v; want one, signed over the body with the schema", reqs)
			}
			body := reqs[0].JSON(t)
			var want any
			_ = json.Unmarshal([]byte(`{"format":`+outputFormat+`}`), &want)
			if diff := cmp.Diff(want, body["output_config"]); diff != "" {
				t.Errorf("output_config (-want +got):\n%s", diff)
			}
			if body["anthropic_version"] == nil || body["messages"] == nil {
				t.Errorf("body %v lost what the client wrote", body)
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A request without a schema has no output_config.
func TestNoOutputSchema(t *testing.T) {
	fakeAWS(t, false)
	s := newStandIn(t, false, answer{body: oslo})
	f := factory(t, llmYAML(s.URL, "    region: "+region+"\n", sonnet45))
	m, err := f.Model(ctx(t), "sonnet")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(ctx(t), cityPrompt()); err != nil {
		t.Fatal(err)
	}
	if v, ok := s.requests()[0].JSON(t)["output_config"]; ok {
		t.Errorf("output_config %v in a request without a schema", v)
	}
}

// A refusal comes back as a refusal, with its usage, even without content, where
// langchaingo's client alone would fail it.
func TestRefusal(t *testing.T) {
	fakeAWS(t, false)
	s := newStandIn(t, false, answer{body: `{"type":"message","role":"assistant","content":[],"stop_reason":"refusal","stop_sequence":null,` +
		`"usage":{"input_tokens":20,"output_tokens":3}}`})
	f := factory(t, llmYAML(s.URL, "    region: "+region+"\n", sonnet45))
	m, err := f.Model(ctx(t), "sonnet")
	if err != nil {
		t.Fatal(err)
	}
	reply, err := m.Generate(model.WithOutputSchema(ctx(t), citySchema), cityPrompt())
	if err != nil {
		t.Fatal(err)
	}
	want := model.Reply{StopReason: "refusal", Usage: usage.Usage{Requests: 1, InputTokens: 20, OutputTokens: 3}}
	if diff := cmp.Diff(want, reply); diff != "" || reply.Finish() != model.FinishRefusal {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
}

// A schema outside what Anthropic takes is refused before any request, as for the anthropic
// type; a 400 that names the schema wraps model.ErrOutputSchema.
func TestSchemaRefused(t *testing.T) {
	fakeAWS(t, false)
	s := newStandIn(t, false, answer{status: 400, body: "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"})
	f := factory(t, llmYAML(s.URL, "    region: "+region+"\n", sonnet45))
	m, err := f.Model(ctx(t), "sonnet")
	if err != nil {
		t.Fatal(err)
	}
	bounded := &model.OutputSchema{Schema: json.RawMessage(`{"type":"object","properties":{"total":{"type":"integer","maximum":9}}}`)}
	if _, err := m.Generate(model.WithOutputSchema(ctx(t), bounded), cityPrompt()); !errors.Is(err, model.ErrOutputSchema) ||
		!strings.Contains(err.Error(), `"maximum"`) {
		t.Errorf("err = %v; want model.ErrOutputSchema naming maximum", err)
	}
	if n := len(s.requests()); n != 0 {
		t.Fatalf("%d requests; want none", n)
	}
	_, err = m.Generate(model.WithOutputSchema(ctx(t), citySchema), cityPrompt())
	var pe *model.ProviderError
	if !errors.As(err, &pe) || pe.Status != 400 || !errors.Is(err, model.ErrOutputSchema) {
		t.Errorf("err = %v; want a ProviderError with the 400 that wraps model.ErrOutputSchema", err)
	}
}

// output: native is for Anthropic's models, whose bodies take a schema: for another family's,
// it is an error at first use; for Anthropic's, Model.Output is native.
func TestOutputKey(t *testing.T) {
	fakeAWS(t, false)
	doc := func(id string) string {
		return "providers:\n  aws: { type: bedrock, region: " + region + ", base_url: 'http://127.0.0.1:1' }\n" +
			"models:\n  m: { provider: aws, model: '" + id + "', output: native }\n"
	}
	m, err := factory(t, doc(sonnet45)).Model(ctx(t), "m")
	if err != nil || m.Output != model.NativeOutput {
		t.Errorf("Output %q, err %v; want native, as the file says", m.Output, err)
	}
	_, err = factory(t, doc("meta.llama3-70b-instruct-v1:0")).Model(ctx(t), "m")
	if err == nil || !strings.Contains(err.Error(), `model "m" (llm.yaml:4): output: native, and its client writes no output schema for model meta.llama3-70b-instruct-v1:0`) {
		t.Errorf("err = %v; want one naming the model, its line and the key", err)
	}
}
