package eval

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// parsePage writes reports with WriteHTML and parses the page.
func parsePage(t *testing.T, reports ...*Report) (*html.Node, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, reports...); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	return doc, buf.String()
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasClass(n *html.Node, class string) bool {
	v, _ := attr(n, "class")
	for _, c := range strings.Fields(v) {
		if c == class {
			return true
		}
	}
	return false
}

// find returns the element nodes under n for which match holds, in document order.
func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && match(d) {
			out = append(out, d)
		}
	}
	return out
}

func text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}

func TestWriteHTMLLoadsNothing(t *testing.T) {
	t.Parallel()
	doc, _ := parsePage(t, sampleReport())
	for _, n := range find(doc, func(*html.Node) bool { return true }) {
		for _, a := range n.Attr {
			switch a.Key {
			case "src", "href", "xlink:href", "action", "srcset", "poster", "data":
				if !strings.HasPrefix(a.Val, "#") {
					t.Errorf("<%s %s=%q> refers outside the page", n.Data, a.Key, a.Val)
				}
			}
		}
		if n.Data == "link" || n.Data == "img" || n.Data == "iframe" || n.Data == "object" {
			t.Errorf("the page has a <%s>", n.Data)
		}
		if n.Data == "style" && (strings.Contains(text(n), "url(") || strings.Contains(text(n), "@import")) {
			t.Errorf("the style loads something: %s", text(n))
		}
	}
}

func TestWriteHTMLChartHasABarPerCaseAndReport(t *testing.T) {
	t.Parallel()
	a, b := sampleReport(), sampleReport()
	b.Variant = "slow"
	b.Cases[1].Score = 0.25
	b.Cases = append(b.Cases, CaseReport{Name: "only in slow", N: 1, Passes: 1, PassRate: 1, Score: 1})
	doc, _ := parsePage(t, a, b)

	charts := find(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "chart" && n.Data == "svg" })
	if len(charts) != 1 {
		t.Fatalf("want one svg#chart, got %d", len(charts))
	}
	type key struct{ c, r string }
	bars := map[key]string{}
	for _, n := range find(charts[0], func(n *html.Node) bool { return n.Data == "rect" && hasClass(n, "bar") }) {
		c, _ := attr(n, "data-case")
		r, _ := attr(n, "data-report")
		s, _ := attr(n, "data-score")
		if _, dup := bars[key{c, r}]; dup {
			t.Errorf("two bars for case %q, report %s", c, r)
		}
		bars[key{c, r}] = s
	}
	want := map[key]string{
		{"add", "0"}: "1.00", {"add", "1"}: "1.00",
		{"divide | by zero", "0"}: "0.50", {"divide | by zero", "1"}: "0.25",
		{"only in slow", "0"}: "n/a", {"only in slow", "1"}: "1.00",
	}
	if len(bars) != len(want) {
		t.Errorf("got %d bars, want %d: %v", len(bars), len(want), bars)
	}
	for k, s := range want {
		if bars[k] != s {
			t.Errorf("bar of case %q, report %s: score %q, want %q", k.c, k.r, bars[k], s)
		}
	}
	rows := find(doc, func(n *html.Node) bool { return n.Data == "tr" && hasClass(n, "report-row") })
	if len(rows) != 2 || !strings.Contains(text(rows[1]), "calculator (slow)") {
		t.Errorf("want a summary row per report, the second the slow variant")
	}
}

func TestWriteHTMLShowsModelTextAsText(t *testing.T) {
	t.Parallel()
	doc, page := parsePage(t, sampleReport())
	if strings.Contains(page, xss) {
		t.Fatalf("the page holds the model's markup unescaped")
	}
	scripts := find(doc, func(n *html.Node) bool { return n.Data == "script" })
	if len(scripts) != 1 || strings.Contains(text(scripts[0]), "alert") {
		t.Errorf("want only the page's own script, got %d scripts", len(scripts))
	}
	answers := find(doc, func(n *html.Node) bool { return hasClass(n, "run-text") })
	found := false
	for _, n := range answers {
		found = found || text(n) == xss
	}
	if !found {
		t.Errorf("no .run-text shows the answer %q as text", xss)
	}
}

func TestWriteHTMLRunDetails(t *testing.T) {
	t.Parallel()
	doc, _ := parsePage(t, sampleReport())
	cases := find(doc, func(n *html.Node) bool { return n.Data == "details" && hasClass(n, "case") })
	if len(cases) != 2 {
		t.Fatalf("want two details.case, got %d", len(cases))
	}
	if name, _ := attr(cases[1], "data-case"); name != "divide | by zero" {
		t.Errorf("second case is %q", name)
	}
	if f, _ := attr(cases[1], "data-failing"); f != "true" {
		t.Errorf("divide's data-failing = %q, want true", f)
	}
	if f, _ := attr(cases[0], "data-failing"); f != "false" {
		t.Errorf("add's data-failing = %q, want false", f)
	}
	runs := find(cases[1], func(n *html.Node) bool { return n.Data == "details" && hasClass(n, "run") })
	if len(runs) != 2 {
		t.Fatalf("want two runs of divide, got %d", len(runs))
	}
	failed := runs[1]
	if p, _ := attr(failed, "data-pass"); p != "false" {
		t.Errorf("the second run's data-pass = %q", p)
	}
	details := find(failed, func(n *html.Node) bool { return hasClass(n, "run-details") })
	if len(details) != 1 {
		t.Fatalf("want one .run-details, got %d", len(details))
	}
	d := details[0]
	one := func(class string) string {
		t.Helper()
		ns := find(d, func(n *html.Node) bool { return hasClass(n, class) })
		if len(ns) != 1 {
			t.Fatalf("want one .%s, got %d", class, len(ns))
		}
		return text(ns[0])
	}
	if got := one("grade-reason"); got != "got "+xss+", want undefined" {
		t.Errorf("grade reason = %q", got)
	}
	if got := one("call-arguments"); got != "{\n  \"op\": \"div\"\n}" {
		t.Errorf("call arguments = %q", got)
	}
	if got := one("call-result"); got != "division by zero" {
		t.Errorf("call result = %q", got)
	}
	if got, want := one("usage"), "2 requests, 120 tokens (100 in, 20 out), 0 tool calls"; got != want {
		t.Errorf("usage = %q, want %q", got, want)
	}
	if got := one("cost"); got != "Cost: $0.0010" {
		t.Errorf("cost = %q", got)
	}
	var roles, types []string
	for _, m := range find(d, func(n *html.Node) bool { return hasClass(n, "message") }) {
		r, _ := attr(m, "data-role")
		roles = append(roles, r)
		for _, p := range find(m, func(n *html.Node) bool { return hasClass(n, "part") }) {
			ty, _ := attr(p, "data-type")
			types = append(types, ty)
		}
	}
	if got, want := strings.Join(roles, " "), "human ai tool ai"; got != want {
		t.Errorf("message roles = %q, want %q", got, want)
	}
	if got, want := strings.Join(types, " "), "text tool_call tool_result text"; got != want {
		t.Errorf("part types = %q, want %q", got, want)
	}
}

func TestWriteHTMLShowsMessagesThatDoNotDecode(t *testing.T) {
	t.Parallel()
	r := sampleReport()
	r.Cases[1].Runs[1].Messages = []byte(`[{"role":"ai","parts":[{"type":"hologram","text":"<b>hi</b>"}]}]`)
	doc, _ := parsePage(t, r)
	raw := find(doc, func(n *html.Node) bool { return hasClass(n, "messages-raw") })
	if len(raw) != 1 || !strings.Contains(text(raw[0]), `"type": "hologram"`) {
		t.Errorf("want the undecodable messages as JSON text")
	}
}
