package prompt

import (
	"maps"
	"regexp"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/tmc/langchaingo/llms"
)

// Instructions are an assistant's instructions, parsed once; they are never modified after
// Parse, and safe for concurrent use.
type Instructions struct {
	tmpl         *template.Template // nil when the text has no template action
	text         string             // the text, when it has none
	placesRoster bool               // the text places the roster itself
}

// placesRoster matches instructions that place the roster themselves ({{.roster}}).
var placesRoster = regexp.MustCompile(`\.roster\b`)

// Parse parses text as the instructions named name: a text/template in which every var used
// must be given (missingkey=error). Text without any template action is kept as the
// template would write it — without its comments — and never rendered again.
func Parse(name, text string) (*Instructions, error) {
	in := &Instructions{placesRoster: placesRoster.MatchString(text)}
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, err
	}
	if t.Tree == nil {
		return in, nil
	}
	var b strings.Builder
	for _, n := range t.Tree.Root.Nodes {
		tn, ok := n.(*parse.TextNode)
		if !ok {
			in.tmpl = t
			return in, nil
		}
		b.Write(tn.Text) // without the comments and the spaces trimmed around actions
	}
	in.text = b.String()
	return in, nil
}

// Static reports whether the instructions have no template action: they read no var, and
// every run that adds the same parts after them has the same prompt.
func (in *Instructions) Static() bool { return in.tmpl == nil }

// Write returns a system prompt: the instructions rendered with vars, over them key by key
// the run's own (over), and under both the roster as the var "roster"; then, as paragraphs,
// the roster when the instructions do not place it themselves, and each text of after that is
// not empty. The error is the template's: a var it uses that is not given, above all.
func (in *Instructions) Write(vars, over map[string]any, roster string, after ...string) (string, error) {
	text := in.text
	if in.tmpl != nil {
		data := Over(vars, over)
		if roster != "" {
			data = Over(map[string]any{"roster": roster}, data)
		}
		if data == nil {
			data = map[string]any{}
		}
		var b strings.Builder
		if err := in.tmpl.Execute(&b, data); err != nil {
			return "", err
		}
		text = b.String()
	}
	if roster != "" && !in.placesRoster {
		text = Join(text, roster)
	}
	for _, a := range after {
		text = Join(text, a)
	}
	return text, nil
}

// Over returns base with the values of over put over it, key by key, in a new map: base
// itself when over is empty. Neither map is changed.
func Over(base, over map[string]any) map[string]any {
	if len(over) == 0 {
		return base
	}
	merged := maps.Clone(base)
	if merged == nil {
		merged = make(map[string]any, len(over))
	}
	maps.Copy(merged, over)
	return merged
}

// Join returns the texts that are not empty as paragraphs, in order.
func Join(texts ...string) string {
	var out string
	for _, t := range texts {
		switch {
		case t == "":
		case out == "":
			out = t
		default:
			out += "\n\n" + t
		}
	}
	return out
}

// Message returns text as a system message.
func Message(text string) llms.MessageContent {
	return llms.MessageContent{Role: llms.ChatMessageTypeSystem, Parts: []llms.ContentPart{llms.TextContent{Text: text}}}
}

// Member is one of the assistants a roster lists: the name of the tool that calls it, and
// what it does.
type Member struct{ Name, Description string }

// Roster returns the roster of a team, which tells a model whom it leads: each member on a
// line of its own, by the tool that calls it and its description (the name alone for a
// member without one); "" for no member.
func Roster(members []Member) string {
	if len(members) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("You lead a team: these assistants work for you, each called as the tool of its name. Give each the part of the task it does best.")
	for _, m := range members {
		b.WriteString("\n- " + m.Name)
		if d := strings.TrimSpace(strings.ReplaceAll(m.Description, "\n", " ")); d != "" {
			b.WriteString(": " + d)
		}
	}
	return b.String()
}
