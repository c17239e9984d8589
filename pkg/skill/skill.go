package skill

import (
	"bytes"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// FileName is the name of the file that makes a folder a skill.
const FileName = "SKILL.md"

// The specification's limits, in characters.
const (
	MaxNameLength          = 64
	MaxDescriptionLength   = 1024
	MaxCompatibilityLength = 500
	// AdvisedMaxLines is the length of instructions the specification advises staying under:
	// longer ones are loaded, with a Problem.
	AdvisedMaxLines = 500
)

// Skill is one skill: the front matter and instructions of its SKILL.md, and, when it was
// loaded from a file system, the files beside it. A Skill is not changed after Parse or Load,
// and is safe to use from many goroutines.
type Skill struct {
	Name          string            // its identifier: lowercase letters, digits and hyphens
	Description   string            // what it does and when to use it: all a model sees before it activates the skill
	License       string            // optional
	Compatibility string            // optional: what the skill needs of its environment
	Metadata      map[string]string // optional
	// AllowedTools is what the skill's author lists as pre-approved (allowed-tools, an
	// experimental field). cadre exposes it and grants nothing by it: a skill never gives a
	// model a tool its assistant does not have, and never skips an approval.
	AllowedTools []string
	Instructions string // the body of SKILL.md after the front matter

	// Dir is the skill's folder in the file system it was loaded from; "" after Parse.
	Dir       string
	fsys      fs.FS
	resources []string
	text      string // SKILL.md as read, with \n line ends
}

// Problem is something wrong with a skill file: where, which skill, what, and what to change.
type Problem struct {
	File string // the path of the file in its file system
	Line int    // from 1; 0 when the problem is the file's as a whole
	// Skill is the skill the problem is about: its name as its front matter gives it, or,
	// when that cannot be read, its folder's name; "" for a problem of no one skill (a root
	// without any, a folder that cannot be read) and for a SKILL.md parsed alone whose name
	// cannot be read.
	Skill   string
	Message string
	// Fatal is set when the skill was not loaded because of it; other problems are reported
	// and the skill is loaded.
	Fatal bool
}

// Error prints the problem as file:line: skill "name": message — the place first, in the
// form editors and CI logs link to; without the line for a problem of the whole file, and
// without the skill for a problem of none.
func (p Problem) Error() string {
	where := p.File
	if p.Line > 0 {
		where = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	if p.Skill != "" {
		return fmt.Sprintf("%s: skill %q: %s", where, p.Skill, p.Message)
	}
	return where + ": " + p.Message
}

// Parse reads a SKILL.md. file names it in problems; folder is the name of the folder it is
// in, which the skill's name must equal ("" not to check). It returns the skill, or nil when a
// fatal problem stops it, and every problem found, each naming the skill (Problem.Skill): by
// its name when the front matter gives one, by folder otherwise.
func Parse(file, folder string, data []byte) (*Skill, []Problem) {
	p := parser{file: file, name: folder}
	s := p.parse(folder, data)
	for i := range p.problems {
		p.problems[i].Skill = p.name
	}
	return s, p.problems
}

type parser struct {
	file     string
	name     string // the skill's name, once read; its folder's before
	problems []Problem
}

func (p *parser) report(line int, format string, args ...any) {
	p.problems = append(p.problems, Problem{File: p.file, Line: line, Message: fmt.Sprintf(format, args...)})
}

func (p *parser) fatal(line int, format string, args ...any) *Skill {
	p.report(line, format, args...)
	p.problems[len(p.problems)-1].Fatal = true
	return nil
}

func (p *parser) parse(folder string, data []byte) *Skill {
	if !utf8.Valid(data) {
		return p.fatal(0, "the file is not UTF-8 text")
	}
	text := strings.ReplaceAll(string(bytes.TrimPrefix(data, []byte("\uFEFF"))), "\r\n", "\n")
	front, body, ok := splitFrontMatter(text)
	if !ok {
		if strings.HasPrefix(text, "---\n") {
			return p.fatal(1, "the front matter is not closed: end it with a line of three hyphens (---) before the instructions")
		}
		return p.fatal(1, "the file does not start with front matter: begin it with a line of three hyphens (---), then name: and description:, then another line of ---")
	}
	root := p.yaml(front)
	if root == nil {
		return nil
	}
	s := &Skill{Instructions: strings.TrimSpace(body), text: text}
	if !p.fields(s, root) {
		return nil
	}
	p.checkName(s.Name, folder, line(root, "name"))
	if n := utf8.RuneCountInString(s.Description); n > MaxDescriptionLength {
		p.report(line(root, "description"), "the description is %d characters; the most is %d: keep what the skill does and when to use it, and move the rest to the instructions", n, MaxDescriptionLength)
	}
	if v := value(root, "compatibility"); v != nil {
		if n := utf8.RuneCountInString(s.Compatibility); n == 0 || n > MaxCompatibilityLength {
			p.report(v.Line+1, "compatibility is %d characters; give 1 to %d, or leave the field out", n, MaxCompatibilityLength)
		}
	}
	bodyLine := strings.Count(front, "\n") + 3
	if s.Instructions == "" {
		p.report(bodyLine, "there are no instructions after the front matter: write what the model should do when it uses the skill")
	} else if n := strings.Count(s.Instructions, "\n") + 1; n > AdvisedMaxLines {
		p.report(bodyLine, "the instructions are %d lines; the specification advises under %d: move details to files beside SKILL.md (references/) and say when to read them", n, AdvisedMaxLines)
	}
	return s
}

// splitFrontMatter returns the front matter between the first two lines of "---", and what
// follows.
func splitFrontMatter(text string) (front, body string, ok bool) {
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return "", "", false
	}
	for i := 0; i <= len(rest); {
		end := strings.IndexByte(rest[i:], '\n')
		next := len(rest) + 1
		if end >= 0 {
			end += i
			next = end + 1
		} else {
			end = len(rest)
		}
		if strings.TrimRight(rest[i:end], " \t") == "---" {
			return rest[:i], rest[min(next, len(rest)):], true
		}
		i = next
	}
	return "", "", false
}

// yaml parses the front matter into its mapping node. A value with an unquoted ": " in it — the
// mistake the specification's guide warns about — is reported, quoted and parsed again.
func (p *parser) yaml(front string) *yaml.Node {
	for range 32 {
		var doc yaml.Node
		err := yaml.Unmarshal([]byte(front), &doc)
		if err == nil {
			if len(doc.Content) == 0 {
				p.fatal(2, "the front matter is empty: give at least name: and description:")
				return nil
			}
			root := doc.Content[0]
			if root.Kind != yaml.MappingNode {
				p.fatal(root.Line+1, "the front matter is not a list of fields (key: value lines)")
				return nil
			}
			return root
		}
		n, reason := yamlError(err)
		if n == 0 {
			n = 1 // yaml.v3 names no line for an error on the first
		}
		if fixed, key, ok := quoteColonValue(front, n); ok {
			p.report(n+1, "the value of %s holds \": \", which YAML reads as the start of another field: put the value in quotes (%s: \"...\") or on the lines of a block (%s: >)", key, key, key)
			front = fixed
			continue
		}
		p.fatal(n+1, "the front matter is not valid YAML: %s", reason)
		return nil
	}
	p.fatal(2, "the front matter has too many values with \": \" in them: quote them")
	return nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError returns the line of the front matter a YAML error names (0 when none) and its reason.
func yamlError(err error) (int, string) {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, m[2]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}

// quoteColonValue quotes the plain value of the field at line n (from 1) when it holds ": ",
// keeping the field's indentation (a field of metadata is indented).
func quoteColonValue(front string, n int) (fixed, key string, ok bool) {
	lines := strings.Split(front, "\n")
	if n < 1 || n > len(lines) {
		return "", "", false
	}
	k, v, found := strings.Cut(lines[n-1], ": ")
	key, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !found || key == "" || strings.HasPrefix(key, "-") || strings.ContainsAny(key, "\"'#:[]{}") || !strings.Contains(v, ": ") ||
		strings.ContainsAny(v[:1], "\"'[{|>&*!") {
		return "", "", false
	}
	lines[n-1] = k + ": " + strconv.Quote(v)
	return strings.Join(lines, "\n"), key, true
}

// line returns the file line of the field key, or 0 when it is absent.
func line(root *yaml.Node, key string) int {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return root.Content[i].Line + 1 // the front matter starts on the file's line 2
		}
	}
	return 0
}

func value(root *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return root.Content[i+1]
		}
	}
	return nil
}

var knownFields = []string{"name", "description", "license", "compatibility", "metadata", "allowed-tools"}

// fields reads the front matter's fields into s. It reports false when a required one is
// missing or empty.
func (p *parser) fields(s *Skill, root *yaml.Node) bool {
	seen := make(map[string]int, len(root.Content)/2)
	ok := true
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		at := k.Line + 1
		if first, dup := seen[k.Value]; dup {
			p.fatal(at, "the field %q is given twice (first on line %d): keep one", k.Value, first)
			ok = false
			continue
		}
		seen[k.Value] = at
		switch k.Value {
		case "name":
			s.Name = p.text(k.Value, v)
			if s.Name != "" {
				p.name = s.Name
			}
		case "description":
			s.Description = strings.TrimSpace(p.text(k.Value, v))
		case "license":
			s.License = p.text(k.Value, v)
		case "compatibility":
			s.Compatibility = strings.TrimSpace(p.text(k.Value, v))
		case "metadata":
			s.Metadata = p.metadata(v)
		case "allowed-tools":
			s.AllowedTools = p.allowedTools(v)
		default:
			p.report(at, "unknown field %q, ignored: the specification defines %s", k.Value, strings.Join(knownFields, ", "))
		}
	}
	if at := line(root, "name"); s.Name == "" && at == 0 {
		p.fatal(2, "the skill has no name: add name: with the name of its folder")
		ok = false
	} else if s.Name == "" {
		p.fatal(at, "the name is empty: give the name of the skill's folder")
		ok = false
	}
	if at := line(root, "description"); s.Description == "" && at == 0 {
		p.fatal(2, "the skill has no description: add description: saying what the skill does and when to use it — it is all a model sees before it chooses the skill")
		ok = false
	} else if s.Description == "" {
		p.fatal(at, "the description is empty: say what the skill does and when to use it — it is all a model sees before it chooses the skill")
		ok = false
	}
	return ok
}

// text returns a scalar field's text, and reports a field that is not one.
func (p *parser) text(key string, v *yaml.Node) string {
	if v.Kind != yaml.ScalarNode {
		p.report(v.Line+1, "%s must be text, not a list or a set of fields", key)
		return ""
	}
	if v.Tag == "!!null" {
		return ""
	}
	return v.Value
}

func (p *parser) metadata(v *yaml.Node) map[string]string {
	if v.Kind != yaml.MappingNode {
		p.report(v.Line+1, "metadata must be a set of key: value fields; it is ignored")
		return nil
	}
	m := make(map[string]string, len(v.Content)/2)
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if val.Kind != yaml.ScalarNode {
			p.report(val.Line+1, "metadata %q must be text; it is ignored", k.Value)
			continue
		}
		m[k.Value] = val.Value
	}
	return m
}

func (p *parser) allowedTools(v *yaml.Node) []string {
	switch v.Kind {
	case yaml.ScalarNode:
		return splitTools(v.Value)
	case yaml.SequenceNode:
		var tools []string
		for _, item := range v.Content {
			if item.Kind == yaml.ScalarNode && strings.TrimSpace(item.Value) != "" {
				tools = append(tools, strings.TrimSpace(item.Value))
			}
		}
		p.report(v.Line+1, "allowed-tools is a list; the specification makes it one space-separated string (allowed-tools: %s)", strings.Join(tools, " "))
		return tools
	}
	p.report(v.Line+1, "allowed-tools must be one space-separated string of tools; it is ignored")
	return nil
}

// splitTools splits a space-separated list of tools, keeping spaces inside parentheses, as in
// "Bash(git status:*) Read".
func splitTools(s string) []string {
	var tools []string
	depth, start := 0, -1
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ' ' || r == '\t' || r == '\n'):
			if start >= 0 {
				tools = append(tools, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		tools = append(tools, s[start:])
	}
	return tools
}

// checkName reports what in name the specification does not allow.
func (p *parser) checkName(name, folder string, at int) {
	switch n := utf8.RuneCountInString(name); {
	case n > MaxNameLength:
		p.report(at, "the name is %d characters; the most is %d", n, MaxNameLength)
	case strings.ToLower(name) != name:
		p.report(at, "the name %q has capitals: use lowercase (%q), and name the folder the same", name, strings.ToLower(name))
	case strings.IndexFunc(name, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') }) >= 0:
		p.report(at, "the name %q may hold only lowercase letters a-z, digits and hyphens", name)
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-"):
		p.report(at, "the name %q starts or ends with a hyphen: remove it", name)
	case strings.Contains(name, "--"):
		p.report(at, "the name %q has two hyphens in a row: use one", name)
	}
	if folder != "" && name != folder {
		p.report(at, "the name %q differs from the skill's folder %q: rename one so that they match", name, folder)
	}
}

// Text returns the skill's SKILL.md as it was read (line ends as \n), front matter included.
func (s *Skill) Text() string { return s.text }

// Resources returns the paths of the files in the skill's folder, relative to it, SKILL.md
// aside, in lexical order; none after Parse.
func (s *Skill) Resources() []string { return slices.Clone(s.resources) }
