package mcpbridge_test

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/cadrehq/cadre/pkg/skill"
	"github.com/mark3labs/mcp-go/mcp"
)

const releaseNotes = "---\nname: release-notes\ndescription: Writes release notes. Use it for release notes.\n---\nGroup the changes; read references/style.md.\n"

func loadSkills(t *testing.T) []*skill.Skill {
	t.Helper()
	fsys := fstest.MapFS{
		"skills/release-notes/SKILL.md":            {Data: []byte(releaseNotes)},
		"skills/release-notes/references/style.md": {Data: []byte("Past tense.\n")},
		"secret.txt": {Data: []byte("not for clients")},
	}
	skills, problems, err := skill.Load(fsys, "skills")
	if err != nil || len(problems) > 0 {
		t.Fatalf("loading skills: %v %v", err, problems)
	}
	return skills
}

// TestSkillsServedAsResources: an MCP client lists a skill's SKILL.md and its files as
// resources and reads them; a URI outside them is not served.
func TestSkillsServedAsResources(t *testing.T) {
	t.Parallel()
	s := newServer()
	if err := mcpbridge.AddSkills(s, loadSkills(t)...); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s)
	list, err := c.ListResources(testContext(t), mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
		if r.URI == "skill://release-notes/SKILL.md" && (r.Description != "Writes release notes. Use it for release notes." || r.MIMEType != "text/markdown") {
			t.Errorf("SKILL.md listed as %+v; want the skill's description, text/markdown", r)
		}
	}
	slices.Sort(uris)
	if want := []string{"skill://release-notes/SKILL.md", "skill://release-notes/references/style.md"}; !slices.Equal(uris, want) {
		t.Errorf("resources %q, want %q", uris, want)
	}
	for uri, want := range map[string]string{
		"skill://release-notes/SKILL.md":            releaseNotes,
		"skill://release-notes/references/style.md": "Past tense.\n",
	} {
		var req mcp.ReadResourceRequest
		req.Params.URI = uri
		res, err := c.ReadResource(testContext(t), req)
		if err != nil {
			t.Fatalf("reading %s: %v", uri, err)
		}
		if len(res.Contents) != 1 {
			t.Fatalf("reading %s gave %d contents", uri, len(res.Contents))
		}
		if got, ok := res.Contents[0].(mcp.TextResourceContents); !ok || got.Text != want {
			t.Errorf("reading %s gave %+v, want %q", uri, res.Contents[0], want)
		}
	}
	var req mcp.ReadResourceRequest
	req.Params.URI = "skill://release-notes/../../secret.txt"
	if res, err := c.ReadResource(testContext(t), req); err == nil {
		t.Errorf("reading a path out of the skill gave %+v; want an error", res)
	} else if strings.Contains(err.Error(), "not for clients") {
		t.Errorf("the error %q holds the file's content", err)
	}
}

// TestAddSkillsRefusals: AddSkills refuses what it cannot serve, and registers nothing then.
func TestAddSkillsRefusals(t *testing.T) {
	t.Parallel()
	skills := loadSkills(t)
	for _, tc := range []struct {
		name   string
		skills []*skill.Skill
		want   string
	}{
		{"a nil skill", []*skill.Skill{nil}, "skill 0 is nil"},
		{"two of one name", []*skill.Skill{skills[0], skills[0]}, `two skills are named "release-notes"`},
	} {
		s := newServer()
		if err := mcpbridge.AddSkills(s, tc.skills...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one saying %q", tc.name, err, tc.want)
		}
		if n := len(s.ListResources()); n != 0 {
			t.Errorf("%s: %d resources registered; want none", tc.name, n)
		}
	}
	s := newServer()
	if err := mcpbridge.AddSkills(s, skills...); err != nil {
		t.Fatal(err)
	}
	if err := mcpbridge.AddSkills(s, skills...); err == nil || !strings.Contains(err.Error(), "already has a resource at skill://release-notes/SKILL.md") {
		t.Errorf("adding the skills twice: err = %v; want one naming the resource", err)
	}
	if err := mcpbridge.AddSkills(nil, skills...); err == nil {
		t.Error("a nil server was accepted")
	}
}

// TestSkillURIsAreEscaped: a file whose name has a space is served at a valid URI, and read
// there.
func TestSkillURIsAreEscaped(t *testing.T) {
	t.Parallel()
	if got, want := mcpbridge.SkillURI("release-notes", "references/my notes.md"), "skill://release-notes/references/my%20notes.md"; got != want {
		t.Errorf("SkillURI = %q, want %q", got, want)
	}
	fsys := fstest.MapFS{
		"skills/release-notes/SKILL.md":               {Data: []byte(releaseNotes)},
		"skills/release-notes/references/my notes.md": {Data: []byte("Notes.\n")},
	}
	skills, _, err := skill.Load(fsys, "skills")
	if err != nil {
		t.Fatal(err)
	}
	s := newServer()
	if err := mcpbridge.AddSkills(s, skills...); err != nil {
		t.Fatal(err)
	}
	var req mcp.ReadResourceRequest
	req.Params.URI = "skill://release-notes/references/my%20notes.md"
	res, err := connect(t, s).ReadResource(testContext(t), req)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := res.Contents[0].(mcp.TextResourceContents); !ok || got.Text != "Notes.\n" {
		t.Errorf("read %+v", res.Contents)
	}
}
