package skill_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cadrehq/cadre/pkg/skill"
)

// ignoreUnexported compares the fields a user sees, not the file system a Skill keeps.
var ignoreUnexported = cmpopts.IgnoreUnexported(skill.Skill{})

// wantProblem is a problem a conformance row expects: its line, a part of its message that
// identifies the rule, and whether it stops the skill.
type wantProblem struct {
	line  int
	msg   string
	fatal bool
}

// conformanceRow is one SKILL.md and what Parse must make of it.
type conformanceRow struct {
	name     string
	folder   string
	text     string
	problems []wantProblem
	// skill, when set, is the skill Parse must return; when nil, only whether a skill is
	// returned is checked (it is when no wanted problem is fatal).
	skill *skill.Skill
}

// skillText returns a SKILL.md with the given front matter lines and body.
func skillText(body string, front ...string) string {
	return "---\n" + strings.Join(front, "\n") + "\n---\n" + body
}

// conformanceRows returns the rows of TestParseConformance; FuzzParse seeds from them too.
func conformanceRows() []conformanceRow {
	const (
		desc = "description: Fills PDF forms. Use it when a task involves a PDF form."
		body = "Read the form, then fill it.\n"
	)
	name65 := strings.Repeat("a", 65)
	return []conformanceRow{
		// Valid skills.
		{
			name:   "minimal skill",
			folder: "pdf",
			text:   skillText(body, "name: pdf", desc),
			skill: &skill.Skill{
				Name:         "pdf",
				Description:  "Fills PDF forms. Use it when a task involves a PDF form.",
				Instructions: "Read the form, then fill it.",
			},
		},
		{
			name:   "every field",
			folder: "pdf",
			text: skillText("\n# PDF forms\n\nRead the form, then fill it.\n\n",
				"name: pdf",
				desc,
				"license: Apache-2.0",
				"compatibility: Needs python3 and network access",
				"metadata:",
				`  version: "1.0"`,
				"  revision: 2",
				"allowed-tools: Bash(git status:*) Read",
			),
			skill: &skill.Skill{
				Name:          "pdf",
				Description:   "Fills PDF forms. Use it when a task involves a PDF form.",
				License:       "Apache-2.0",
				Compatibility: "Needs python3 and network access",
				Metadata:      map[string]string{"version": "1.0", "revision": "2"},
				AllowedTools:  []string{"Bash(git status:*)", "Read"},
				Instructions:  "# PDF forms\n\nRead the form, then fill it.",
			},
		},
		{
			name:   "CRLF line endings and a UTF-8 BOM",
			folder: "pdf",
			text:   "\uFEFF---\r\nname: pdf\r\ndescription: Fills PDF forms.\r\n---\r\nLine one.\r\nLine two.\r\n",
			skill: &skill.Skill{
				Name:         "pdf",
				Description:  "Fills PDF forms.",
				Instructions: "Line one.\nLine two.",
			},
		},
		{
			name:   "description as a folded block",
			folder: "pdf",
			text: skillText(body, "name: pdf", "description: >",
				"  Fills PDF forms.",
				"  Use it when a task involves a PDF form.",
			),
			skill: &skill.Skill{
				Name:         "pdf",
				Description:  "Fills PDF forms. Use it when a task involves a PDF form.",
				Instructions: "Read the form, then fill it.",
			},
		},

		// The file's shape.
		{
			name:     "no front matter",
			folder:   "pdf",
			text:     "# PDF\nFill the form.\n",
			problems: []wantProblem{{1, "does not start with front matter", true}},
		},
		{
			name:     "front matter not closed",
			folder:   "pdf",
			text:     "---\nname: pdf\n" + desc + "\nRead the form.\n",
			problems: []wantProblem{{1, "front matter is not closed", true}},
		},
		{
			name:     "empty front matter",
			folder:   "pdf",
			text:     "---\n---\n" + body,
			problems: []wantProblem{{2, "front matter is empty", true}},
		},
		{
			name:     "front matter is a YAML list",
			folder:   "pdf",
			text:     skillText(body, "- name: pdf", "- "+desc),
			problems: []wantProblem{{2, "not a list of fields", true}},
		},
		{
			name:     "invalid YAML",
			folder:   "pdf",
			text:     skillText(body, "name: [x", desc),
			problems: []wantProblem{{2, "not valid YAML", true}},
		},
		{
			name:     "duplicate key",
			folder:   "pdf",
			text:     skillText(body, "name: pdf", "description: Fills PDF forms.", "description: Merges PDF files."),
			problems: []wantProblem{{4, `"description"`, true}},
		},

		// Required fields.
		{
			name:     "missing name",
			folder:   "pdf",
			text:     skillText(body, desc),
			problems: []wantProblem{{2, "has no name", true}},
		},
		{
			name:     "missing description",
			folder:   "pdf",
			text:     skillText(body, "name: pdf"),
			problems: []wantProblem{{2, "has no description", true}},
		},
		{
			name:     "empty description",
			folder:   "pdf",
			text:     skillText(body, "name: pdf", `description: ""`),
			problems: []wantProblem{{3, "the description is empty", true}},
		},
		{
			name:   "name that is a list",
			folder: "pdf",
			text:   skillText(body, "name: [pdf, forms]", desc),
			problems: []wantProblem{
				{2, "name must be text", false},
				{2, "the name is empty", true},
			},
		},

		// The name's rules.
		{
			name:     "name of 65 characters",
			folder:   name65,
			text:     skillText(body, "name: "+name65, desc),
			problems: []wantProblem{{2, "the name is 65 characters", false}},
		},
		{
			name:     "name with capitals",
			folder:   "PDF-Forms",
			text:     skillText(body, "name: PDF-Forms", desc),
			problems: []wantProblem{{2, "has capitals", false}},
		},
		{
			name:     "name with an underscore",
			folder:   "pdf_forms",
			text:     skillText(body, "name: pdf_forms", desc),
			problems: []wantProblem{{2, "only lowercase letters a-z, digits and hyphens", false}},
		},
		{
			name:     "name with a leading hyphen",
			folder:   "-pdf",
			text:     skillText(body, "name: -pdf", desc),
			problems: []wantProblem{{2, "starts or ends with a hyphen", false}},
		},
		{
			name:     "name with a trailing hyphen",
			folder:   "pdf-",
			text:     skillText(body, "name: pdf-", desc),
			problems: []wantProblem{{2, "starts or ends with a hyphen", false}},
		},
		{
			name:     "name with two hyphens in a row",
			folder:   "pdf--forms",
			text:     skillText(body, "name: pdf--forms", desc),
			problems: []wantProblem{{2, "two hyphens in a row", false}},
		},
		{
			name:     "name unlike its folder",
			folder:   "pdf-forms",
			text:     skillText(body, "name: pdf", desc),
			problems: []wantProblem{{2, `differs from the skill's folder "pdf-forms"`, false}},
		},

		// Other fields.
		{
			name:   "the longest description, compatibility and advised instructions",
			folder: "pdf",
			text: skillText(strings.Repeat("A step.\n", 500), "name: pdf", "description: "+strings.Repeat("d", 1024),
				"compatibility: "+strings.Repeat("c", 500)),
		},
		{
			name:   "blank lines in the front matter",
			folder: "pdf",
			text:   skillText(body, "", "name: pdf", "", desc, ""),
			skill: &skill.Skill{
				Name:         "pdf",
				Description:  "Fills PDF forms. Use it when a task involves a PDF form.",
				Instructions: "Read the form, then fill it.",
			},
		},
		{
			name:   "name with every digit",
			folder: "v0123456789",
			text:   skillText(body, "name: v0123456789", desc),
		},
		{
			name:     "name with a colon",
			folder:   "",
			text:     skillText(body, "name: 'pdf:forms'", desc),
			problems: []wantProblem{{2, "may hold only lowercase letters a-z, digits and hyphens", false}},
		},
		{
			name:     "name with a slash",
			folder:   "",
			text:     skillText(body, "name: pdf/forms", desc),
			problems: []wantProblem{{2, "may hold only lowercase letters a-z, digits and hyphens", false}},
		},
		{
			name:     "description of 1025 characters",
			folder:   "pdf",
			text:     skillText(body, "name: pdf", "description: "+strings.Repeat("d", 1025)),
			problems: []wantProblem{{3, "the description is 1025 characters", false}},
		},
		{
			name:     "compatibility of 501 characters",
			folder:   "pdf",
			text:     skillText(body, "name: pdf", desc, "compatibility: "+strings.Repeat("c", 501)),
			problems: []wantProblem{{4, "compatibility is 501 characters", false}},
		},
		{
			name:     "empty compatibility",
			folder:   "pdf",
			text:     skillText(body, "name: pdf", desc, `compatibility: ""`),
			problems: []wantProblem{{4, "compatibility is 0 characters", false}},
		},
		{
			name:     "metadata that is a list",
			folder:   "pdf",
			text:     skillText(body, "name: pdf", desc, "metadata: [author, version]"),
			problems: []wantProblem{{4, "metadata must be a set of key: value fields", false}},
		},
		{
			name:   "metadata value that is a mapping",
			folder: "pdf",
			text:   skillText(body, "name: pdf", desc, "metadata:", "  author: ada", "  links: {home: example.com}"),
			problems: []wantProblem{
				{6, `metadata "links" must be text`, false},
			},
			skill: &skill.Skill{
				Name:         "pdf",
				Description:  "Fills PDF forms. Use it when a task involves a PDF form.",
				Metadata:     map[string]string{"author": "ada"},
				Instructions: "Read the form, then fill it.",
			},
		},
		{
			name:     "allowed-tools as a YAML list",
			folder:   "pdf",
			text:     skillText(body, "name: pdf", desc, "allowed-tools: [Bash, Read]"),
			problems: []wantProblem{{4, "allowed-tools is a list", false}},
			skill: &skill.Skill{
				Name:         "pdf",
				Description:  "Fills PDF forms. Use it when a task involves a PDF form.",
				AllowedTools: []string{"Bash", "Read"},
				Instructions: "Read the form, then fill it.",
			},
		},
		{
			name:   "one allowed tool",
			folder: "pdf",
			text:   skillText(body, "name: pdf", desc, "allowed-tools: Read"),
			skill: &skill.Skill{
				Name:         "pdf",
				Description:  "Fills PDF forms. Use it when a task involves a PDF form.",
				AllowedTools: []string{"Read"},
				Instructions: "Read the form, then fill it.",
			},
		},
		{
			name:     "allowed-tools as a mapping",
			folder:   "pdf",
			text:     skillText(body, "name: pdf", desc, "allowed-tools: {Bash: yes}"),
			problems: []wantProblem{{4, "allowed-tools must be one space-separated string", false}},
		},
		{
			name:     "unknown field",
			folder:   "pdf",
			text:     skillText(body, "name: pdf", desc, "author: ada"),
			problems: []wantProblem{{4, `unknown field "author"`, false}},
		},
		{
			name:     "unquoted colon on the first line",
			folder:   "pdf",
			text:     skillText(body, "description: Use it when: the user has a PDF form.", "name: pdf"),
			problems: []wantProblem{{2, `the value of description holds ": "`, false}},
			skill: &skill.Skill{
				Name:         "pdf",
				Description:  "Use it when: the user has a PDF form.",
				Instructions: "Read the form, then fill it.",
			},
		},
		{
			name:     "unquoted colon in a metadata value",
			folder:   "pdf",
			text:     skillText(body, "name: pdf", desc, "metadata:", "  note: see: the form"),
			problems: []wantProblem{{5, `the value of note holds ": "`, false}},
			skill: &skill.Skill{
				Name:         "pdf",
				Description:  "Fills PDF forms. Use it when a task involves a PDF form.",
				Metadata:     map[string]string{"note": "see: the form"},
				Instructions: "Read the form, then fill it.",
			},
		},
		{
			name:     "unquoted colon in the description",
			folder:   "pdf",
			text:     skillText(body, "name: pdf", "description: Fills PDF forms. Use it when: the user has a PDF form."),
			problems: []wantProblem{{3, `the value of description holds ": "`, false}},
			skill: &skill.Skill{
				Name:         "pdf",
				Description:  "Fills PDF forms. Use it when: the user has a PDF form.",
				Instructions: "Read the form, then fill it.",
			},
		},

		// The body.
		{
			name:     "no body",
			folder:   "pdf",
			text:     skillText("", "name: pdf", desc),
			problems: []wantProblem{{5, "no instructions", false}},
		},
		{
			name:     "body of 501 lines",
			folder:   "pdf",
			text:     skillText(strings.Repeat("A step.\n", 501), "name: pdf", desc),
			problems: []wantProblem{{5, "the instructions are 501 lines", false}},
		},

		// The bytes.
		{
			name:     "bytes that are not UTF-8",
			folder:   "pdf",
			text:     skillText("caf\xe9\n", "name: pdf", desc),
			problems: []wantProblem{{0, "not UTF-8", true}},
		},
	}
}

// TestParseConformance: a user relies on Parse accepting every skill the specification allows,
// and on it naming, for each rule a SKILL.md breaks, the file, the line to change, what is
// wrong, and whether the skill is still loaded.
func TestParseConformance(t *testing.T) {
	t.Parallel()
	for _, row := range conformanceRows() {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			file := row.folder + "/SKILL.md"
			s, problems := skill.Parse(file, row.folder, []byte(row.text))

			if len(problems) != len(row.problems) {
				t.Errorf("Parse returned %d problems, want %d:\ngot  %v\nwant %v", len(problems), len(row.problems), problems, row.problems)
			}
			for i := range min(len(problems), len(row.problems)) {
				got, want := problems[i], row.problems[i]
				if got.File != file {
					t.Errorf("problem %d: got File %q, want %q", i, got.File, file)
				}
				if got.Line != want.line {
					t.Errorf("problem %d (%s): got Line %d, want %d", i, got.Message, got.Line, want.line)
				}
				if !strings.Contains(got.Message, want.msg) {
					t.Errorf("problem %d: got Message %q, want it to contain %q", i, got.Message, want.msg)
				}
				if got.Fatal != want.fatal {
					t.Errorf("problem %d (%s): got Fatal %v, want %v", i, got.Message, got.Fatal, want.fatal)
				}
			}

			wantLoaded := true
			for _, p := range row.problems {
				if p.fatal {
					wantLoaded = false
				}
			}
			if loaded := s != nil; loaded != wantLoaded {
				t.Fatalf("Parse returned a skill: %v, want %v (problems: %v)", loaded, wantLoaded, problems)
			}
			if row.skill != nil {
				if diff := cmp.Diff(row.skill, s, ignoreUnexported); diff != "" {
					t.Errorf("Parse returned a skill unlike the one wanted (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestParseSkillHasNoFileSystem: a user relies on a parsed skill having no folder and no
// resources, since it was not read from a file system.
func TestParseSkillHasNoFileSystem(t *testing.T) {
	t.Parallel()
	s, problems := skill.Parse("SKILL.md", "", []byte(skillText("Do it.\n", "name: pdf", "description: Fills PDF forms.")))
	if s == nil {
		t.Fatalf("Parse returned no skill, want one (problems: %v)", problems)
	}
	if len(problems) != 0 {
		t.Errorf("got problems %v, want none", problems)
	}
	if s.Dir != "" {
		t.Errorf("got Dir %q, want \"\"", s.Dir)
	}
	if got := s.Resources(); len(got) != 0 {
		t.Errorf("got Resources %q, want none", got)
	}
}

// TestParseEmptyFolderSkipsTheNameCheck: a user relies on folder "" meaning "do not compare
// the name with a folder", for a SKILL.md read on its own.
func TestParseEmptyFolderSkipsTheNameCheck(t *testing.T) {
	t.Parallel()
	s, problems := skill.Parse("SKILL.md", "", []byte(skillText("Do it.\n", "name: pdf-forms", "description: Fills PDF forms.")))
	if s == nil || len(problems) != 0 {
		t.Fatalf("got skill %v and problems %v, want a skill and no problem", s, problems)
	}
}

// TestProblemError: a user relies on a problem printing as file:line: message, the form
// editors and CI logs link to, and as file: message for a problem of the whole file, naming
// its skill after the place when it has one.
func TestProblemError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		problem skill.Problem
		want    string
	}{
		{skill.Problem{File: "pdf/SKILL.md", Line: 3, Message: "bad"}, "pdf/SKILL.md:3: bad"},
		{skill.Problem{File: "pdf/SKILL.md", Message: "bad", Fatal: true}, "pdf/SKILL.md: bad"},
		{skill.Problem{File: "forms/SKILL.md", Line: 3, Skill: "pdf", Message: "bad"}, `forms/SKILL.md:3: skill "pdf": bad`},
		{skill.Problem{File: "forms/SKILL.md", Skill: "pdf", Message: "bad"}, `forms/SKILL.md: skill "pdf": bad`},
	}
	for _, tt := range tests {
		if got := tt.problem.Error(); got != tt.want {
			t.Errorf("%#v.Error() = %q, want %q", tt.problem, got, tt.want)
		}
	}
}

// TestProblemsNameTheirSkill: a user relies on each problem naming the skill it is about — by
// the name its front matter gives, or by its folder when the name cannot be read — so that a
// list of problems says which skills are not loaded; a problem of no skill names none.
func TestProblemsNameTheirSkill(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"skills/triage/SKILL.md":   {Data: []byte(skillText("Label.\n", "name: Triage", "description: Labels issues."))},
		"skills/broken/SKILL.md":   {Data: []byte("no front matter here\n")},
		"skills/nameless/SKILL.md": {Data: []byte(skillText("Do it.\n", "description: Has no name."))},
		"skills/notes/skill.md":    {Data: []byte(skillText("Write.\n", "name: notes", "description: Writes notes."))},
		"skills/pdf/SKILL.md":      {Data: []byte(skillText("Fill.\n", "name: pdf", "description: Fills PDF forms."))},
		"skills/x/pdf/SKILL.md":    {Data: []byte(skillText("Fill.\n", "name: pdf", "description: Fills PDF forms."))},
		"skills/wordy/SKILL.md":    {Data: []byte(skillText("", "name: wordy", "description: Talks."))},
	}
	_, problems, err := skill.Load(fsys, "skills")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, p := range problems {
		got[p.File] = append(got[p.File], p.Skill)
		if p.Skill != "" && !strings.Contains(p.Error(), fmt.Sprintf("skill %q: ", p.Skill)) {
			t.Errorf("%q does not name its skill %q", p.Error(), p.Skill)
		}
	}
	want := map[string][]string{
		"skills/triage/SKILL.md":   {"Triage", "Triage"}, // capitals; unlike its folder
		"skills/broken/SKILL.md":   {"broken"},
		"skills/nameless/SKILL.md": {"nameless"},
		"skills/notes/skill.md":    {"notes"},
		"skills/x/pdf/SKILL.md":    {"pdf"}, // a second skill of the name
		"skills/wordy/SKILL.md":    {"wordy"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the skills the problems name, by file (-want +got):\n%s", d)
	}
	_, problems, err = skill.Load(fstest.MapFS{"empty/README.md": {Data: []byte("none")}}, "empty")
	if err != nil || len(problems) != 1 || problems[0].Skill != "" {
		t.Errorf("a root without skills: problems %+v, %v; want one that names no skill", problems, err)
	}
	if _, problems := skill.Parse("SKILL.md", "", []byte("no front matter\n")); len(problems) != 1 || problems[0].Skill != "" {
		t.Errorf("a SKILL.md parsed alone without a name: problems %+v; want one that names no skill", problems)
	}
}
