// Command eval evaluates an assistant over two models: a small dataset of trip-research tasks
// (the supervisor example's researcher: a search tool, an answer as a Go struct), each case
// run three times on each model, graded by a tool trajectory, a check of the answer, an LLM
// judge and a cost ceiling. It prints the matrix — score, pass rate with its interval,
// latency, tokens and cost per model —, writes the HTML report, and compares the stronger
// model's report with the baseline kept beside this file, as a CI step would.
//
// It runs offline, with scripted models playing a cheap model that skips its research, a
// careful one that does it, and the judge, so it needs no key:
//
//	go run ./examples/eval
//
// With -config it evaluates models of llm.yaml (-models names them; the judge is the
// assistant "judge"'s model, or the default one), priced by their `price` keys:
//
//	go run ./examples/eval -config llm.yaml -models fast,deep
package main

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/eval"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/tool"
)

// Trip is a task: where and when.
type Trip struct {
	Destination string `json:"destination"`
	Month       string `json:"month"`
}

// Findings is the researcher's answer.
type Findings struct {
	Destination string   `json:"destination"`
	Weather     string   `json:"weather" jsonschema_description:"The weather to expect that month, in a few words"`
	Highlights  []string `json:"highlights" jsonschema_description:"What to see, most worth it first"`
}

// SearchIn and SearchResult are the search tool's arguments and result.
type SearchIn struct {
	Query string `json:"query"`
}

type SearchResult struct {
	Snippets []string `json:"snippets"`
}

// weather is what the search tool knows.
var weather = map[string]string{
	"Lisbon":    "warm and sunny",
	"Kyoto":     "mild, cherry blossoms",
	"Reykjavik": "cold and dark",
	"Marrakesh": "very hot",
}

func search(_ context.Context, in SearchIn) (SearchResult, error) {
	for city, w := range weather {
		if strings.Contains(in.Query, city) {
			return SearchResult{Snippets: []string{city + ": " + w + "."}}, nil
		}
	}
	return SearchResult{}, nil
}

// dataset is the tasks, with what a good answer holds.
func dataset(judge assistant.Runner[eval.Verdict]) *eval.Dataset[Trip, Findings] {
	trip := func(city, month string) eval.Case[Trip, Findings] {
		return eval.Case[Trip, Findings]{Name: strings.ToLower(city), Input: Trip{Destination: city, Month: month},
			Expected: &Findings{Destination: city, Weather: weather[city]}}
	}
	return &eval.Dataset[Trip, Findings]{
		Name:  "trip research",
		Cases: []eval.Case[Trip, Findings]{trip("Lisbon", "May"), trip("Kyoto", "April"), trip("Reykjavik", "January"), trip("Marrakesh", "August")},
		Evaluators: []eval.Evaluator[Findings]{
			eval.Trajectory[Findings](eval.InOrder, eval.Call{Tool: "search"}),
			eval.Func("weather", func(_ context.Context, o *eval.Observation[Findings]) (eval.Grade, error) {
				if o.Output.Weather != o.Expected.Weather {
					return eval.Failed(fmt.Sprintf("weather %q; the search says %q", o.Output.Weather, o.Expected.Weather)), nil
				}
				return eval.Passed("the weather the search gives"), nil
			}),
			eval.Judge[Findings](judge, "The highlights must suit the month and its weather.", eval.WithExpected()),
			eval.MaxCost[Findings](0.01),
		},
	}
}

func main() {
	config := flag.String("config", "", "an llm.yaml to take the models from (default: offline, with scripted models)")
	models := flag.String("models", "", "with -config: the models of llm.yaml to evaluate, comma-separated")
	html := flag.String("html", filepath.Join(os.TempDir(), "cadre-eval-report.html"), "where to write the HTML report")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *config, *models, *html); err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

//go:embed baseline.json
var baseline []byte

// run evaluates the researcher on each model, prints the matrix and the comparison with the
// baseline to w, and writes the HTML report to html.
func run(ctx context.Context, w io.Writer, config, names, html string) error {
	reports, err := evaluate(ctx, w, config, names)
	if err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := eval.WriteMatrixText(w, reports); err != nil {
		return err
	}

	var page bytes.Buffer
	if err := eval.WriteHTML(&page, reports...); err != nil {
		return err
	}
	if err := os.WriteFile(html, page.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nthe HTML report:", html)

	before, err := eval.ReadReport(bytes.NewReader(baseline))
	if err != nil {
		return fmt.Errorf("the baseline: %w", err)
	}
	after := reports[len(reports)-1]
	fmt.Fprintf(w, "\n%s against the baseline (%s):\n", after.Variant, before.Variant)
	cmp := eval.Compare(before, after)
	if err := cmp.WriteText(w); err != nil {
		return err
	}
	if n := len(cmp.Regressions()); n > 0 {
		return fmt.Errorf("%d regressions against the baseline", n)
	}
	return nil
}

// evaluate runs the dataset over the models, offline or of config, one report per model.
func evaluate(ctx context.Context, w io.Writer, config, names string) ([]*eval.Report, error) {
	researcher := assistant.New[Findings]("researcher",
		assistant.WithInstructions("You research trips. Search before you answer: the weather of the month, and the highlights that suit it."),
		assistant.WithTools(tool.Func("search", "Searches travel guides.", search)))
	var variants []eval.Variant
	var prices map[string]model.Price
	var judge *assistant.Assistant[eval.Verdict]
	if config == "" {
		fmt.Fprintln(w, "eval: offline, with scripted models (no API key needed)")
		fast, deep, judgeModel := offlineModels()
		variants = []eval.Variant{
			{Name: "fast", Options: []assistant.Option{assistant.WithModels(model.Fixed(fast))}},
			{Name: "deep", Options: []assistant.Option{assistant.WithModels(model.Fixed(deep))}},
		}
		prices = map[string]model.Price{
			"fast": {Input: 0.15, CacheRead: 0.15, CacheWrite: 0.15, Output: 0.6},
			"deep": {Input: 3, CacheRead: 3, CacheWrite: 3, Output: 15},
		}
		judge = assistant.New[eval.Verdict]("judge", assistant.WithModels(model.Fixed(judgeModel)), assistant.WithInstructions(eval.JudgeInstructions))
	} else {
		f, err := llmfactory.Load(config)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if names == "" {
			return nil, errors.New("-models: name the models of llm.yaml to evaluate, e.g. -models fast,deep")
		}
		if variants, err = eval.Models(ctx, f, strings.Split(names, ",")...); err != nil {
			return nil, err
		}
		prices = f.Prices()
		judge = assistant.New[eval.Verdict]("judge", assistant.WithModels(f), assistant.WithInstructions(eval.JudgeInstructions))
		fmt.Fprintln(w, "eval: the models", names, "of", config)
	}

	return eval.Matrix(ctx, dataset(judge), researcher, variants, eval.WithRepeat(3), eval.WithPrices(prices))
}
