package skill

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// The names of the skill tools.
const (
	ActivateTool = "activate_skill"
	ResourceTool = "read_skill_resource"
)

const (
	contentPrefix = `<skill_content name="`
	activeHeading = "Skills you activated earlier in this conversation, still active: "
)

// ToolSet gives an assistant skills (assistant.WithSkills gives it NewToolSet's): the model
// sees each skill's name and description in the system prompt, and loads a skill's
// instructions only when a task needs them, through two tools:
//
//   - activate_skill, given a skill's name as "name", returns the skill's instructions,
//     marked as such, and the list of its files — not their contents. Activating a skill
//     already active in the run answers briefly instead of sending the instructions again; of
//     two activations of one skill in one turn, the first in the model's order brings them.
//     What is active is read from the run's messages (tool.Messages), so that a run replayed
//     from a record (package durable) answers alike.
//   - read_skill_resource, given the skill's name as "skill" and a file's path as "path",
//     returns one of those files, read with ReadResource: confined to the skill's folder, text
//     only. It is there only when a skill has files.
//
// In a chat, the instructions of the skills activated in its earlier runs are part of the
// system prompt of the next run whenever the messages it sends no longer hold them (its
// history window dropped them). A skill's allowed-tools grant nothing.
//
// It is a tool.FixedSet and a tool.Prompter, safe for concurrent use.
type ToolSet struct {
	byName  map[string]*Skill
	names   []string // in the order given
	catalog string   // for the system prompt
	tools   []tool.Tool
	err     error // what is wrong with the skills given
}

var (
	_ tool.FixedSet = (*ToolSet)(nil)
	_ tool.Prompter = (*ToolSet)(nil)
)

// NewToolSet returns the tool set of skills. A nil skill, a skill without a name or two
// skills of one name are an error that the set's Tools and FixedTools return, so that an
// assistant given the set reports it (assistant.New panics with it).
func NewToolSet(skills ...*Skill) *ToolSet {
	s := &ToolSet{byName: make(map[string]*Skill, len(skills))}
	files := false
	for i, sk := range skills {
		switch {
		case sk == nil:
			s.err = fmt.Errorf("WithSkills: skill %d is nil", i)
		case sk.Name == "":
			s.err = fmt.Errorf("WithSkills: skill %d has no name", i)
		case s.byName[sk.Name] != nil:
			s.err = fmt.Errorf("WithSkills: two skills are named %q: skill names must be unique", sk.Name)
		}
		if s.err != nil {
			return s
		}
		s.byName[sk.Name] = sk
		s.names = append(s.names, sk.Name)
		files = files || len(sk.resources) > 0
	}
	var c strings.Builder
	c.WriteString("You have skills: instructions for particular kinds of task, loaded when a task needs them. " +
		"When a task matches a skill's description, call " + ActivateTool + " with the skill's name before you begin, then follow the instructions it returns.\n<available_skills>\n")
	for _, sk := range skills {
		fmt.Fprintf(&c, "<skill>\n<name>%s</name>\n<description>%s</description>\n</skill>\n", html.EscapeString(sk.Name), html.EscapeString(sk.Description))
	}
	c.WriteString("</available_skills>")
	s.catalog = c.String()
	s.tools = []tool.Tool{activateTool{s}}
	if files {
		s.tools = append(s.tools, resourceTool{s})
	}
	return s
}

// Tools returns the skill tools.
func (s *ToolSet) Tools(context.Context) ([]tool.Tool, error) { return s.FixedTools() }

// FixedTools returns the skill tools: activate_skill, and read_skill_resource when a skill has
// files.
func (s *ToolSet) FixedTools() ([]tool.Tool, error) {
	if s.err != nil {
		return nil, s.err
	}
	return s.tools, nil
}

// Prompt returns the catalog of the skills, and the instructions of the skills activated in
// history that msgs no longer hold, in the order the skills were given.
func (s *ToolSet) Prompt(_ context.Context, history, msgs []llms.MessageContent) (string, error) {
	if s.err != nil {
		return "", s.err
	}
	inChat, active := activatedIn(history), activatedIn(msgs)
	var missing []string
	for _, n := range s.names {
		if inChat[n] && !active[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return s.catalog, nil
	}
	var c strings.Builder
	c.WriteString(s.catalog + "\n\n" + activeHeading + strings.Join(missing, ", ") + ".")
	for _, n := range missing {
		c.WriteString("\n" + content(s.byName[n]))
	}
	return c.String(), nil
}

// content is what activating sk gives the model: its instructions, marked, and its files.
func content(sk *Skill) string {
	var c strings.Builder
	c.WriteString(contentPrefix + html.EscapeString(sk.Name) + "\">\n" + sk.Instructions + "\n</skill_content>")
	if files := sk.resources; len(files) > 0 {
		c.WriteString("\n<skill_resources>\n" + strings.Join(files, "\n") + "\n</skill_resources>\n" +
			"Read a file with " + ResourceTool + ", giving the skill's name and the file's path as listed.")
	}
	return c.String()
}

// activatedIn returns the names of the skills whose instructions msgs hold: the results of
// activate_skill calls that start with a skill's content, and the skills a system message
// says are active (see Prompt). A tag quoted inside a skill's instructions counts for nothing.
func activatedIn(msgs []llms.MessageContent) map[string]bool {
	names := map[string]bool{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.ToolCallResponse:
				if name, ok := contentName(p.Content); ok && p.Name == ActivateTool {
					names[name] = true
				}
			case llms.TextContent:
				if _, listed, ok := strings.Cut(p.Text, activeHeading); ok && m.Role == llms.ChatMessageTypeSystem {
					listed, _, _ = strings.Cut(listed, "\n")
					for name := range strings.SplitSeq(strings.TrimSuffix(listed, "."), ", ") {
						names[name] = true
					}
				}
			}
		}
	}
	return names
}

// contentName returns the name of the skill whose content text starts with.
func contentName(text string) (string, bool) {
	rest, ok := strings.CutPrefix(text, contentPrefix)
	if !ok {
		return "", false
	}
	name, _, ok := strings.Cut(rest, `">`)
	return html.UnescapeString(name), ok
}

// active reports whether the skill named name is active for call c of activate_skill: its
// instructions are in the run's messages, or an earlier call of the model's turn that made c,
// in the model's order, activates it with valid arguments.
func (s *ToolSet) active(name string, c tool.Call) bool {
	if activatedIn(c.Messages)[name] {
		return true
	}
	for i := len(c.Messages) - 1; i >= 0; i-- {
		parts := c.Messages[i].Parts
		at := slices.IndexFunc(parts, func(p llms.ContentPart) bool {
			call, ok := p.(llms.ToolCall)
			return ok && call.ID == c.ID
		})
		if at < 0 {
			continue
		}
		return slices.ContainsFunc(parts[:at], func(p llms.ContentPart) bool {
			call, ok := p.(llms.ToolCall)
			return ok && call.FunctionCall != nil && call.FunctionCall.Name == ActivateTool && s.arg(call.FunctionCall.Arguments) == name
		})
	}
	return false
}

// arg returns the skill that activate_skill's arguments name, or "" when they are not valid:
// an object of one property, "name", one of the skills' names.
func (s *ToolSet) arg(args string) string {
	var in struct {
		Name string `json:"name"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(args)))
	dec.DisallowUnknownFields()
	if dec.Decode(&in) != nil || s.byName[in.Name] == nil {
		return ""
	}
	return in.Name
}

// activateTool is the activate_skill tool.
type activateTool struct{ s *ToolSet }

func (t activateTool) Name() string { return ActivateTool }

func (t activateTool) Description() string {
	return "Activates one of your skills: returns its instructions, which you then follow, and the list of its files. " +
		"Call it before a task that a skill listed in your instructions covers."
}

func (t activateTool) Schema() json.RawMessage { return schema(t.s.names, false) }

func (t activateTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return "", fmt.Errorf("%w: %v", tool.ErrInvalidArgs, err)
	}
	sk, ok := t.s.byName[in.Name]
	if !ok {
		return "", fmt.Errorf("%w: there is no skill %q; the skills are %s", tool.ErrInvalidArgs, in.Name, strings.Join(t.s.names, ", "))
	}
	if c, ok := tool.CallOf(ctx); ok && t.s.active(sk.Name, c) {
		return fmt.Sprintf("The skill %q is already active: its instructions are earlier in this conversation; follow them.", sk.Name), nil
	}
	return content(sk), nil
}

// resourceTool is the read_skill_resource tool.
type resourceTool struct{ s *ToolSet }

func (t resourceTool) Name() string { return ResourceTool }

func (t resourceTool) Description() string {
	return "Reads one of a skill's files, by the path " + ActivateTool + " listed for it."
}

func (t resourceTool) Schema() json.RawMessage { return schema(t.s.names, true) }

func (t resourceTool) Call(_ context.Context, args json.RawMessage) (string, error) {
	var in struct {
		Skill string `json:"skill"`
		Path  string `json:"path"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return "", fmt.Errorf("%w: %v", tool.ErrInvalidArgs, err)
	}
	sk, ok := t.s.byName[in.Skill]
	if !ok {
		return "", fmt.Errorf("%w: there is no skill %q; the skills are %s", tool.ErrInvalidArgs, in.Skill, strings.Join(t.s.names, ", "))
	}
	return sk.ReadResource(in.Path)
}

// schema is the arguments' schema of the skill tools: a skill's name, one of names, and with
// path, a file's path.
func schema(names []string, path bool) json.RawMessage {
	enum, _ := json.Marshal(names)
	key := "name"
	if path {
		key = "skill"
	}
	doc := `{"type":"object","properties":{"` + key + `":{"type":"string","description":"The skill's name.","enum":` + string(enum) + `}`
	required := `"` + key + `"`
	if path {
		doc += `,"path":{"type":"string","description":"The file's path, relative to the skill's folder, as activate_skill listed it."}`
		required += `,"path"`
	}
	return json.RawMessage(doc + `},"required":[` + required + `],"additionalProperties":false}`)
}
