package eval

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
)

//go:embed report.html.tmpl
var pageSource string

// pageTemplate is parsed once; a parsed html/template is safe for concurrent Execute.
var pageTemplate = template.Must(template.New("page").Parse(pageSource))

// WriteHTML writes reports as one self-contained HTML page: its CSS and script are inline and it
// loads nothing (no font, image, script or style by URL), so it can be kept as a CI artifact
// and opened offline. The page has, in this order:
//
//   - a table of the reports, one row per report (#summary, tr.report-row[data-report=i]);
//   - an SVG bar chart of each case's score, one bar per case and report (svg#chart,
//     rect.bar[data-case=name][data-report=i][data-score]), each bar a link to its case;
//   - each case (details.case[data-case=name][data-failing], id "case-N" in the order the cases
//     first appear), closed, holding a row per report and each run (details.run
//     [data-case][data-report][data-run][data-pass]) whose .run-details show its error, answer,
//     output, grades with reasons, tool calls with arguments and results, usage, cost and
//     messages.
//
// Every string of a report, a model's answer included, is written as text through
// html/template, so markup in it shows as written and never runs. With several reports (a
// model matrix) i is the report's index in reports.
func WriteHTML(w io.Writer, reports ...*Report) error {
	return pageTemplate.Execute(w, newPage(reports))
}

type page struct {
	Title   string
	Reports []reportView
	Chart   chart
	Cases   []caseView
}

type reportView struct {
	Index                         int
	Label, Dataset, Started       string
	Repeat                        int
	Stopped                       string
	Passes, Runs                  int
	Rate, Interval, Score         string
	P50, P95, Tokens, Cost, Judge string
}

type chart struct {
	Width, Height int
	Groups        []barGroup
	Legend        []legendItem
}

type barGroup struct {
	Case, Anchor string
	LabelY       int
	Bars         []bar
}

type bar struct {
	Report, Series int
	Label          string
	X, Y, W, H     int
	TextX, TextY   int
	Score          string
}

type legendItem struct {
	Series, X, Y int
	Label        string
}

type caseView struct {
	ID, Name string
	Failing  bool
	Rows     []caseRow
}

type caseRow struct {
	Report                      int
	Label                       string
	Ran                         bool // the report has the case
	Passes, N                   int
	Rate, Interval, Score, Fail string
	Runs                        []runView
	value                       float64 // the score, for the chart
}

type runView struct {
	ID                                   string
	Number                               int
	Ran, Pass                            bool
	Model, Duration, Error, Text, Output string
	Grades                               []Grade
	Calls                                []callView
	Tokens, Cost                         string
	ByModel                              []string
	Messages                             []messageView
	RawMessages                          string // the messages as JSON when they do not decode
}

type callView struct {
	Assistant, Tool, Arguments, Result string
}

type messageView struct {
	Role  string
	Parts []partView
}

type partView struct {
	Type, Name, ID, Text string
}

// Chart geometry, in SVG user units.
const (
	chartLabelWidth = 220
	chartBarWidth   = 400
	chartBarHeight  = 14
	chartGap        = 12
	chartLegendRow  = 18
)

func newPage(reports []*Report) page {
	p := page{Title: "Eval"}
	if len(reports) > 0 {
		p.Title = "Eval " + reports[0].Dataset
		if len(reports) == 1 {
			p.Title += ": " + reports[0].label()
		}
	}
	for i, r := range reports {
		s := r.Summary
		p.Reports = append(p.Reports, reportView{
			Index: i, Label: r.label(), Dataset: r.Dataset, Started: r.Started.Format("2006-01-02 15:04:05 MST"),
			Repeat: r.Repeat, Stopped: r.Stopped, Passes: s.Passes, Runs: s.Runs,
			Rate: percent(s.PassRate), Interval: interval(s.Interval), Score: fmt.Sprintf("%.2f", s.Score),
			P50: fmtDuration(s.LatencyP50), P95: fmtDuration(s.LatencyP95),
			Tokens: fmt.Sprintf("%d (%d in, %d out)", s.Usage.TotalTokens(), s.Usage.InputTokens, s.Usage.OutputTokens),
			Judge:  fmt.Sprint(s.JudgeUsage.TotalTokens()), Cost: cost(s.Cost, s.CostKnown),
		})
	}
	p.Cases = caseViews(reports)
	p.Chart = newChart(p.Cases, p.Reports)
	return p
}

// caseViews are the cases of every report, each once, in the order they first appear.
func caseViews(reports []*Report) []caseView {
	var names []string
	byName := map[string][]*CaseReport{}
	for i, r := range reports {
		for j := range r.Cases {
			c := &r.Cases[j]
			if byName[c.Name] == nil {
				names = append(names, c.Name)
				byName[c.Name] = make([]*CaseReport, len(reports))
			}
			byName[c.Name][i] = c
		}
	}
	views := make([]caseView, len(names))
	for k, name := range names {
		v := caseView{ID: fmt.Sprintf("case-%d", k), Name: name}
		for i, c := range byName[name] {
			row := caseRow{Report: i, Label: reports[i].label()}
			if c != nil {
				row.Ran, row.Passes, row.N = true, c.Passes, c.N
				row.Rate, row.Interval, row.Score = percent(c.PassRate), interval(c.Interval), fmt.Sprintf("%.2f", c.Score)
				row.value, row.Fail = c.Score, strings.Join(c.failing(), ", ")
				v.Failing = v.Failing || c.Passes < c.N
				for _, run := range c.Runs {
					row.Runs = append(row.Runs, newRunView(fmt.Sprintf("run-%d-%d-%d", k, i, run.Repeat), run))
				}
			}
			v.Rows = append(v.Rows, row)
		}
		views[k] = v
	}
	return views
}

func newRunView(id string, run RunReport) runView {
	v := runView{
		ID: id, Number: run.Repeat + 1, Ran: run.Ran, Pass: run.Pass, Model: run.Model,
		Duration: fmtDuration(run.Duration), Error: run.Error, Text: run.Text, Output: pretty(run.Output),
		Grades: run.Grades,
		Tokens: fmt.Sprintf("%d requests, %d tokens (%d in, %d out), %d tool calls", run.Usage.Total.Requests,
			run.Usage.Total.TotalTokens(), run.Usage.Total.InputTokens, run.Usage.Total.OutputTokens, run.Usage.Total.ToolCalls),
		Cost: cost(run.Cost, run.Priced),
	}
	for name, u := range run.Usage.ByModel {
		v.ByModel = append(v.ByModel, fmt.Sprintf("%s: %d requests, %d tokens", name, u.Requests, u.TotalTokens()))
	}
	slices.Sort(v.ByModel)
	for _, c := range run.Calls {
		v.Calls = append(v.Calls, callView{Assistant: c.Assistant, Tool: c.Tool, Arguments: pretty(json.RawMessage(c.Arguments)), Result: c.Result})
	}
	if len(run.Messages) > 0 {
		msgs, err := chat.UnmarshalMessages(run.Messages)
		if err != nil {
			v.RawMessages = pretty(run.Messages)
		} else {
			v.Messages = messageViews(msgs)
		}
	}
	return v
}

// messageViews are msgs as text to show, part by part. An image is shown as its URL, never
// loaded; binary data as its type and size.
func messageViews(msgs []llms.MessageContent) []messageView {
	views := make([]messageView, len(msgs))
	for i, m := range msgs {
		views[i].Role = string(m.Role)
		for _, part := range m.Parts {
			var pv partView
			switch part := part.(type) {
			case llms.TextContent:
				pv = partView{Type: "text", Text: part.Text}
			case model.Reasoning:
				pv = partView{Type: "reasoning", Text: part.Text}
				if part.Text == "" && part.Redacted != "" {
					pv.Text = "(redacted)"
				}
			case llms.ImageURLContent:
				pv = partView{Type: "image_url", Text: part.URL}
			case llms.BinaryContent:
				pv = partView{Type: "binary", Text: fmt.Sprintf("%s, %d bytes", part.MIMEType, len(part.Data))}
			case llms.ToolCall:
				pv = partView{Type: "tool_call", ID: part.ID}
				if part.FunctionCall != nil {
					pv.Name, pv.Text = part.FunctionCall.Name, pretty(json.RawMessage(part.FunctionCall.Arguments))
				}
			case llms.ToolCallResponse:
				pv = partView{Type: "tool_result", ID: part.ToolCallID, Name: part.Name, Text: part.Content}
			default:
				pv = partView{Type: fmt.Sprintf("%T", part)}
			}
			views[i].Parts = append(views[i].Parts, pv)
		}
	}
	return views
}

// pretty is m indented when it is JSON, else m as it is.
func pretty(m json.RawMessage) string {
	if len(m) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Indent(&b, m, "", "  "); err != nil {
		return string(m)
	}
	return b.String()
}

func newChart(cases []caseView, reports []reportView) chart {
	c := chart{Width: chartLabelWidth + chartBarWidth + 60}
	y := 0
	for i, r := range reports {
		c.Legend = append(c.Legend, legendItem{Series: i % 8, X: chartLabelWidth, Y: y, Label: r.Label})
		y += chartLegendRow
	}
	y += chartGap / 2
	for _, cv := range cases {
		g := barGroup{Case: cv.Name, Anchor: "#" + cv.ID, LabelY: y + len(reports)*(chartBarHeight+2)/2 + 4}
		for _, row := range cv.Rows {
			w := int(row.value * chartBarWidth)
			b := bar{Report: row.Report, Series: row.Report % 8, Label: row.Label, X: chartLabelWidth, Y: y, W: w, H: chartBarHeight,
				TextX: chartLabelWidth + w + 4, TextY: y + chartBarHeight - 3, Score: "n/a"}
			if row.Ran {
				b.Score = row.Score
			}
			g.Bars = append(g.Bars, b)
			y += chartBarHeight + 2
		}
		c.Groups = append(c.Groups, g)
		y += chartGap
	}
	c.Height = y
	return c
}
