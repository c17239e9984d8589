package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"

	"github.com/cadrehq/cadre/pkg/eval"
)

// reportName is the file name of the eval report the console lists.
const reportName = "weather.html"

// writeReport evaluates the offline weather specialist over a small dataset, at once (no
// latency), and writes the HTML report into dir, where the console finds it. It returns the
// report's path.
func writeReport(ctx context.Context, dir string) (string, error) {
	weather := newTeam(offlineModels(0)).weather
	trip := func(city, expect string) eval.Case[Trip, string] {
		return eval.Case[Trip, string]{Name: city, Input: Trip{City: city},
			Evaluators: []eval.Evaluator[string]{eval.Contains[string](expect)}}
	}
	d := &eval.Dataset[Trip, string]{
		Name:  "weather forecasts",
		Cases: []eval.Case[Trip, string]{trip("Lisbon", "sunny"), trip("Reykjavik", "warm coat"), trip("Kyoto", "umbrella")},
		Evaluators: []eval.Evaluator[string]{
			eval.Trajectory[string](eval.InOrder, eval.Call{Tool: "forecast"}),
			eval.MaxCost[string](0.001),
		},
	}
	report, err := eval.Evaluate(ctx, d, weather, eval.WithRepeat(2), eval.WithPrices(prices))
	if err != nil {
		return "", err
	}
	var page bytes.Buffer
	if err := eval.WriteHTML(&page, report); err != nil {
		return "", err
	}
	path := filepath.Join(dir, reportName)
	return path, os.WriteFile(path, page.Bytes(), 0o644)
}
