package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/otelcadre"
	"github.com/cadrehq/cadre/pkg/providertest"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

func TestSupervisorOffline(t *testing.T) {
	var out, progress bytes.Buffer
	if err := run(context.Background(), &out, &progress, "", nil); err != nil {
		t.Fatal(err)
	}
	want := `supervisor: offline, with scripted models (no API key needed)

Lisbon in May: 4 nights for two

Four nights in Lisbon for two cost about 1,400 euros (700 each), 100 under the budget. Expect warm, mostly dry days and cool evenings; keep one day for Sintra.

  - Budget: 360 flights, 560 hotel, 480 food and transport
  - Fly midweek: a weekend flight adds 60 euros each, most of the margin
  - Ride tram 28 at opening time, before the queues
  - Sintra is a day trip, 40 minutes by train from Rossio
  - Pack a light jacket: rain on about five days in May

usage      name            requests  tool calls  input tokens  output tokens
assistant  analyst         2         1           931           158
assistant  researcher      2         1           896           169
assistant  supervisor      2         2           2099          300
model      scripted-large  2         2           2099          300
model      scripted-small  4         2           1827          327
total                      6         4           3926          627
`
	if got := out.String(); got != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
	}
	// The specialists run in parallel, so their lines interleave in any order; each must be there.
	hasLines(t, progress.String(),
		"supervisor: started",
		"supervisor: running researcher",
		"supervisor: running analyst",
		"  researcher: started, for supervisor",
		"  researcher: running search",
		"  researcher: done",
		"  analyst: started, for supervisor",
		"  analyst: running price_lookup",
		"  analyst: done",
		"supervisor: scripted-large answered: 1523 tokens (4553 so far)",
		"supervisor: done",
	)
}

// With -otel, the runs' spans go to stderr as JSON: the tree of the supervisor's run, its
// requests and its two delegations, with each request's tokens. What the program prints is
// the same as without.
func TestSupervisorOtel(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "") // the spans to the writer, not to a collector
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	var plain, progress bytes.Buffer
	if err := run(context.Background(), &plain, &progress, "", nil); err != nil {
		t.Fatal(err)
	}
	var out, traces bytes.Buffer
	progress.Reset()
	if err := run(context.Background(), &out, &progress, "", &traces); err != nil {
		t.Fatal(err)
	}
	if out.String() != plain.String() {
		t.Errorf("stdout with -otel:\n%s\nwithout:\n%s", out.String(), plain.String())
	}
	if strings.Contains(progress.String(), "SpanContext") {
		t.Error("the spans went to the progress writer")
	}

	spans := decodeSpans(t, &traces)
	counts := map[string]int{}
	for _, s := range spans {
		counts[s.Name]++
		if s.InstrumentationScope.Name != otelcadre.ScopeName {
			t.Errorf("%q: scope %q", s.Name, s.InstrumentationScope.Name)
		}
	}
	want := map[string]int{
		"invoke_agent supervisor": 1, "chat scripted-large": 2,
		"execute_tool researcher": 1, "invoke_agent researcher": 1, "execute_tool search": 1,
		"execute_tool analyst": 1, "invoke_agent analyst": 1, "execute_tool price_lookup": 1,
		"chat scripted-small": 4,
	}
	if !maps.Equal(counts, want) {
		t.Errorf("spans %v, want %v", counts, want)
	}
	byName := map[string]writtenSpan{}
	for _, s := range spans {
		byName[s.Name] = s
	}
	for child, parent := range map[string]string{
		"invoke_agent researcher": "execute_tool researcher", "execute_tool researcher": "invoke_agent supervisor",
		"execute_tool search": "invoke_agent researcher", "invoke_agent analyst": "execute_tool analyst",
	} {
		if byName[child].Parent.SpanID != byName[parent].SpanContext.SpanID {
			t.Errorf("%q is not a child of %q", child, parent)
		}
	}
	if root := byName["invoke_agent supervisor"]; root.Parent.SpanID != "0000000000000000" {
		t.Errorf("the supervisor's run has a parent, %s", root.Parent.SpanID)
	}
	// The requests' tokens add up to the usage table's total.
	var in, outTokens float64
	for _, s := range spans {
		if strings.HasPrefix(s.Name, "chat ") {
			i, _ := s.attr("gen_ai.usage.input_tokens").(float64)
			o, _ := s.attr("gen_ai.usage.output_tokens").(float64)
			in, outTokens = in+i, outTokens+o
		}
	}
	if in != 3926 || outTokens != 627 {
		t.Errorf("the chat spans count %v input and %v output tokens, want 3926 and 627", in, outTokens)
	}
}

// writtenSpan is a span as the stdout exporter writes it, in part.
type writtenSpan struct {
	Name        string
	SpanContext struct{ SpanID string }
	Parent      struct{ SpanID string }
	Attributes  []struct {
		Key   string
		Value struct{ Value any }
	}
	InstrumentationScope struct{ Name string }
}

// attr is the value of the attribute key, as JSON decodes it; nil when the span has none.
func (s writtenSpan) attr(key string) any {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value.Value
		}
	}
	return nil
}

// decodeSpans decodes the spans the stdout exporter wrote to r: one JSON object after another.
func decodeSpans(t *testing.T, r io.Reader) []writtenSpan {
	t.Helper()
	var spans []writtenSpan
	dec := json.NewDecoder(r)
	for dec.More() {
		var s writtenSpan
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("the spans are not JSON: %v", err)
		}
		spans = append(spans, s)
	}
	return spans
}

// hasLines fails the test unless each of lines is a line of progress.
func hasLines(t *testing.T, progress string, lines ...string) {
	t.Helper()
	all := strings.Split(progress, "\n")
	for _, line := range lines {
		if !slices.Contains(all, line) {
			t.Errorf("progress has no line %q:\n%s", line, progress)
		}
	}
}

// The same program through an llm.yaml, against one fake OpenAI server for all three
// assistants: the real client, the factory, the wire, and delegations running in parallel.
func TestSupervisorWithConfig(t *testing.T) {
	srv := providertest.NewOpenAI(threeAssistants())
	defer srv.Close()
	config := filepath.Join(t.TempDir(), "llm.yaml")
	doc := "providers:\n  openai:\n    api_key: test-key\n    base_url: " + srv.URL() + "/v1\n" +
		"models:\n  deep: { provider: openai, model: gpt-deep }\n  fast: { provider: openai, model: gpt-fast }\n" +
		"default: fast\nassistants:\n  supervisor: deep\n"
	if err := os.WriteFile(config, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, progress bytes.Buffer
	if err := run(context.Background(), &out, &progress, config, nil); err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, progress.String())
	}
	want := "supervisor: with the models of " + config + `

Lisbon, 3 nights

1140 euros in all, 570 each.

  - Lisbon in May: 17-24 °C, about five days of rain in the month, evenings cool by the river.
  - A weekend flight adds 60 euros each

usage      name        requests  tool calls  input tokens  output tokens
assistant  analyst     2         1           600           60
assistant  researcher  2         1           400           40
assistant  supervisor  2         2           1000          100
model      deep        2         2           1000          100
model      fast        4         2           1000          100
total                  6         4           2000          200
`
	if got := out.String(); got != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
	}
	// The models' names are llm.yaml's; the tokens are those the fake server reported.
	hasLines(t, progress.String(),
		"supervisor: asking deep",
		"  researcher: asking fast",
		"  analyst: running price_lookup",
		"supervisor: deep answered: 550 tokens (2200 so far)",
	)
}

// threeAssistants is one model for the three assistants, which it tells apart by the tools
// they offer. Each asks for its tools first, then answers from their results; the supervisor's
// answer is made of what the specialists' answers hold, so it shows that their typed results
// came back through the wire.
func threeAssistants() *llmtest.FuncModel {
	return llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		results := lastResults(req.Messages)
		switch {
		case offers(req, "researcher"):
			if results == nil {
				return toolCalls(500, llmtest.Call("researcher", `{"destination":"Lisbon","month":"May"}`),
					llmtest.Call("analyst", `{"destination":"Lisbon","nights":3,"travellers":2}`))
			}
			f, c := decode[Findings](results["researcher"]), decode[Costs](results["analyst"])
			return answer(500, Report{
				Title:     fmt.Sprintf("%s, 3 nights", f.Destination),
				Summary:   fmt.Sprintf("%d euros in all, %d each.", c.TotalEUR, c.PerPersonEUR),
				KeyPoints: []string{f.Weather, c.Risks[0]},
			})
		case offers(req, "search"):
			if results == nil {
				return toolCalls(200, llmtest.Call("search", `{"query":"Lisbon in May"}`))
			}
			s := decode[SearchResult](results["search"])
			return answer(200, Findings{Destination: "Lisbon", Weather: s.Snippets[0], Highlights: s.Snippets[1:]})
		case offers(req, "price_lookup"):
			if results == nil {
				return toolCalls(300, llmtest.Call("price_lookup", `{"destination":"Lisbon","nights":3}`))
			}
			p := decode[Prices](results["price_lookup"])
			total := 2*p.FlightEUR + 3*p.HotelNightEUR + 2*3*p.DailyEUR
			return answer(300, Costs{TotalEUR: total, PerPersonEUR: total / 2,
				Risks: []string{fmt.Sprintf("A weekend flight adds %d euros each", p.WeekendExtraEUR)}})
		}
		return llmtest.Fail(fmt.Errorf("a request from no assistant of this example: %d tools offered", len(req.Options.Tools)))
	})
}

// offers reports whether the request offers the tool name.
func offers(req llmtest.Request, name string) bool {
	return slices.ContainsFunc(req.Options.Tools, func(t llms.Tool) bool { return t.Function.Name == name })
}

// lastResults returns the results of the last turn's tool calls by tool name, or nil when the
// last message is not a tool result.
func lastResults(msgs []llms.MessageContent) map[string]string {
	var out map[string]string
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == llms.ChatMessageTypeTool; i-- {
		for _, p := range msgs[i].Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				if out == nil {
					out = make(map[string]string)
				}
				out[r.Name] = r.Content
			}
		}
	}
	return out
}

func decode[T any](s string) T {
	var v T
	json.Unmarshal([]byte(s), &v) // a zero T shows in the output, which the test compares
	return v
}

// toolCalls is a turn of calls that costs in input tokens and a tenth of that in output.
func toolCalls(in int, calls ...llms.ToolCall) llmtest.Reply {
	return llmtest.Reply{ToolCalls: calls, Usage: usage.Usage{InputTokens: in, OutputTokens: in / 10}}
}

// answer gives v through final_result, as a model offered tools does, at the same cost.
func answer(in int, v any) llmtest.Reply {
	return toolCalls(in, llmtest.Call("final_result", jsonOf(v)))
}
