package assistant

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"maps"
	"strings"

	"github.com/cadrehq/cadre/pkg/skill"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/tmc/langchaingo/llms"
)

// WithSkills gives the assistant skills (see package skill; load them with skill.Load). The
// model sees each skill's name and description, listed in the system prompt, and loads a
// skill's instructions only when a task needs them, through two tools the assistant adds:
//
//   - activate_skill, given a skill's name as "name", returns the skill's instructions,
//     marked as such, and the list of its files — not their contents. Activating a skill
//     already active in the run answers briefly instead of sending the instructions again; of
//     two activations of one skill in one turn, the first in the model's order brings them.
//     What is active is read from the run's messages, so that a run replayed from a record
//     (package durable) answers alike.
//   - read_skill_resource, given the skill's name as "skill" and a file's path as "path",
//     returns one of those files, read with skill.Skill.ReadResource: confined to the skill's
//     folder, text only; the result is capped like any tool's (WithMaxToolResult). It is added
//     only when a skill has files.
//
// In a chat (WithStore), the instructions of the skills activated in earlier runs are sent
// after the system prompt in every request of the run whenever the history window no longer
// holds them. A skill's allowed-tools grant nothing: the model has only the assistant's tools,
// and WithApproval still asks. Skills need a model that calls tools. A specialist's skills are
// its own: a supervisor sees them only through the specialist's description.
//
// New fails on two skills of one name, and on a tool of the assistant named like one of the
// skills' tools.
func WithSkills(skills ...*skill.Skill) Option {
	return func(c *config) { c.skills = append(c.skills[:len(c.skills):len(c.skills)], skills...) }
}

const (
	activateSkill      = "activate_skill"
	readSkillResource  = "read_skill_resource"
	skillContentPrefix = `<skill_content name="`
	chatSkillsHeading  = "\n\nSkills you activated earlier in this conversation, still active: "
)

// skillBook is what an assistant knows of its skills, prepared once per plan.
type skillBook struct {
	byName  map[string]*skill.Skill
	names   []string // in the order given
	catalog string   // for the system prompt
	tools   []tool.Tool
}

func newSkillBook(skills []*skill.Skill, tools []tool.Tool) (*skillBook, error) {
	b := &skillBook{byName: make(map[string]*skill.Skill, len(skills))}
	files := false
	for i, s := range skills {
		if s == nil {
			return nil, fmt.Errorf("WithSkills: skill %d is nil", i)
		}
		if s.Name == "" {
			return nil, fmt.Errorf("WithSkills: skill %d has no name", i)
		}
		if _, dup := b.byName[s.Name]; dup {
			return nil, fmt.Errorf("WithSkills: two skills are named %q: skill names must be unique", s.Name)
		}
		b.byName[s.Name] = s
		b.names = append(b.names, s.Name)
		files = files || len(s.Resources()) > 0
	}
	for _, t := range tools {
		if n := t.Name(); n == activateSkill || n == readSkillResource {
			return nil, fmt.Errorf("tool name %q is taken by the assistant's skills (WithSkills): rename the tool", n)
		}
	}
	var c strings.Builder
	c.WriteString("You have skills: instructions for particular kinds of task, loaded when a task needs them. " +
		"When a task matches a skill's description, call " + activateSkill + " with the skill's name before you begin, then follow the instructions it returns.\n<available_skills>\n")
	for _, s := range skills {
		fmt.Fprintf(&c, "<skill>\n<name>%s</name>\n<description>%s</description>\n</skill>\n", html.EscapeString(s.Name), html.EscapeString(s.Description))
	}
	c.WriteString("</available_skills>")
	b.catalog = c.String()
	b.tools = []tool.Tool{activateTool{b}}
	if files {
		b.tools = append(b.tools, resourceTool{b})
	}
	return b, nil
}

// content is what activating s gives the model: its instructions, marked, and its files.
func (b *skillBook) content(s *skill.Skill) string {
	var c strings.Builder
	c.WriteString(skillContentPrefix + html.EscapeString(s.Name) + "\">\n" + s.Instructions + "\n</skill_content>")
	if files := s.Resources(); len(files) > 0 {
		c.WriteString("\n<skill_resources>\n" + strings.Join(files, "\n") + "\n</skill_resources>\n" +
			"Read a file with " + readSkillResource + ", giving the skill's name and the file's path as listed.")
	}
	return c.String()
}

// withChatSkills returns the system message with the instructions of the skills named added
// after the system prompt.
func (b *skillBook) withChatSkills(system llms.MessageContent, names []string) llms.MessageContent {
	var c strings.Builder
	for _, p := range system.Parts {
		if t, ok := p.(llms.TextContent); ok {
			c.WriteString(t.Text)
		}
	}
	c.WriteString(chatSkillsHeading + strings.Join(names, ", ") + ".")
	for _, n := range names {
		c.WriteString("\n" + b.content(b.byName[n]))
	}
	return systemText(c.String())
}

// turnSkills is what the activate_skill calls of a tool turn know of the run's skills, decided
// before any of them runs so that every answer is the same however the calls are run, or
// replayed without running (a durable recovery gives back a recorded result): the skills
// active before the turn, read from the run's messages, and the call of the turn, by its
// index, that activates each of the others — the first in the model's order.
type turnSkills struct {
	active map[string]bool
	first  map[string]int
}

// repeats reports whether the turn's call i activates a skill that is active already: before
// the turn, or by an earlier call of it. A call whose index is not known (ok false) repeats
// only a skill active before the turn.
func (s *turnSkills) repeats(name string, i int, ok bool) bool {
	if s.active[name] {
		return true
	}
	f, in := s.first[name]
	return ok && in && f != i
}

// skillCallKey is the context key of the index, in its turn, of an activate_skill call.
type skillCallKey struct{}

// skillsFor returns what the activate_skill calls of t, about to run, know (nil when t has
// none): the skills active in msgs or by a call of t that ran already, and for each other
// skill the first of t's calls with valid arguments that activates it.
func (p *plan[O]) skillsFor(t *turn, msgs []llms.MessageContent) *turnSkills {
	var s *turnSkills
	for i := range t.calls {
		c := &t.calls[i]
		if c.Tool != activateSkill {
			continue
		}
		if s == nil {
			s = &turnSkills{active: activatedIn(msgs), first: map[string]int{}}
		}
		if c.State == callDone {
			if name, ok := contentName(c.Result); ok {
				s.active[name] = true
			}
			continue
		}
		if name, ok := p.skillArg(c.Arguments); ok {
			if _, seen := s.first[name]; !seen {
				s.first[name] = i
			}
		}
	}
	return s
}

// skillArg returns the skill that activate_skill's arguments args name, when the call would
// activate it: args are valid, and the skill is the assistant's.
func (p *plan[O]) skillArg(args string) (string, bool) {
	e, ok := p.tools.byName[activateSkill]
	if !ok || e.schema.Validate([]byte(args)) != nil {
		return "", false
	}
	var in struct {
		Name string `json:"name"`
	}
	if json.Unmarshal([]byte(args), &in) != nil || p.skills.byName[in.Name] == nil {
		return "", false
	}
	return in.Name, true
}

// activatedIn returns the names of the skills whose instructions msgs hold: the results of
// activate_skill calls that start with a skill's content, and the chat's active skills that
// withChatSkills put in a system message. A tag quoted inside a skill's instructions counts
// for nothing.
func activatedIn(msgs []llms.MessageContent) map[string]bool {
	names := map[string]bool{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.ToolCallResponse:
				if p.Name == activateSkill {
					if name, ok := contentName(p.Content); ok {
						names[name] = true
					}
				}
			case llms.TextContent:
				if m.Role != llms.ChatMessageTypeSystem {
					continue
				}
				if _, listed, ok := strings.Cut(p.Text, chatSkillsHeading); ok {
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
	rest, ok := strings.CutPrefix(text, skillContentPrefix)
	if !ok {
		return "", false
	}
	name, _, ok := strings.Cut(rest, `">`)
	return html.UnescapeString(name), ok
}

// openSkills returns the system message of a run: system, with the instructions of the skills
// activated earlier in its chat (inChat) that the messages sent no longer hold. The run's
// messages then hold every skill active in it (see skillsFor).
func (r *run[O]) openSkills(system llms.MessageContent, inChat map[string]bool, sent ...[]llms.MessageContent) llms.MessageContent {
	active := map[string]bool{}
	for _, msgs := range sent {
		maps.Copy(active, activatedIn(msgs))
	}
	var missing []string
	for _, n := range r.p.skills.names { // in the assistant's order, so that requests repeat
		if inChat[n] && !active[n] {
			missing = append(missing, n)
			active[n] = true
		}
	}
	if len(missing) == 0 {
		return system
	}
	return r.p.skills.withChatSkills(system, missing)
}

// activateTool is the activate_skill tool.
type activateTool struct{ b *skillBook }

func (t activateTool) Name() string { return activateSkill }

func (t activateTool) Description() string {
	return "Activates one of your skills: returns its instructions, which you then follow, and the list of its files. " +
		"Call it before a task that a skill listed in your instructions covers."
}

func (t activateTool) Schema() json.RawMessage {
	return skillSchema(t.b.names, false)
}

func (t activateTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return "", fmt.Errorf("%w: %v", tool.ErrInvalidArgs, err)
	}
	s, ok := t.b.byName[in.Name]
	if !ok {
		return "", fmt.Errorf("%w: there is no skill %q; the skills are %s", tool.ErrInvalidArgs, in.Name, strings.Join(t.b.names, ", "))
	}
	if st := runFrom(ctx); st != nil && st.skills != nil {
		i, ok := ctx.Value(skillCallKey{}).(int)
		if st.skills.repeats(s.Name, i, ok) {
			return fmt.Sprintf("The skill %q is already active: its instructions are earlier in this conversation; follow them.", s.Name), nil
		}
	}
	return t.b.content(s), nil
}

// resourceTool is the read_skill_resource tool.
type resourceTool struct{ b *skillBook }

func (t resourceTool) Name() string { return readSkillResource }

func (t resourceTool) Description() string {
	return "Reads one of a skill's files, by the path " + activateSkill + " listed for it."
}

func (t resourceTool) Schema() json.RawMessage {
	return skillSchema(t.b.names, true)
}

func (t resourceTool) Call(_ context.Context, args json.RawMessage) (string, error) {
	var in struct {
		Skill string `json:"skill"`
		Path  string `json:"path"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return "", fmt.Errorf("%w: %v", tool.ErrInvalidArgs, err)
	}
	s, ok := t.b.byName[in.Skill]
	if !ok {
		return "", fmt.Errorf("%w: there is no skill %q; the skills are %s", tool.ErrInvalidArgs, in.Skill, strings.Join(t.b.names, ", "))
	}
	return s.ReadResource(in.Path)
}

// skillSchema is the arguments' schema of the skill tools: a skill's name, one of names, and
// with path, a file's path.
func skillSchema(names []string, path bool) json.RawMessage {
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
