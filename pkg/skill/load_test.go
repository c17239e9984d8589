package skill_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/cadrehq/cadre/pkg/skill"
)

// skillFile returns a valid SKILL.md for a skill named name.
func skillFile(name string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(skillText("Do the task step by step.\n",
		"name: "+name,
		"description: Does "+name+" tasks. Use it when a task involves "+name+".",
	))}
}

// names returns the names of skills, in order.
func names(skills []*skill.Skill) []string {
	var out []string
	for _, s := range skills {
		out = append(out, s.Name)
	}
	return out
}

// dirs returns the folders of skills, in order.
func dirs(skills []*skill.Skill) []string {
	var out []string
	for _, s := range skills {
		out = append(out, s.Dir)
	}
	return out
}

// mustLoad calls Load and fails the test on its error.
func mustLoad(t *testing.T, fsys fs.FS, root string) ([]*skill.Skill, []skill.Problem) {
	t.Helper()
	skills, problems, err := skill.Load(fsys, root)
	if err != nil {
		t.Fatalf("Load(%q) returned error %v, want nil", root, err)
	}
	return skills, problems
}

// TestLoadKeepsGoodSkillsBesideBadOnes: a user relies on a broken skill never hiding the good
// ones: they are loaded, and the broken one is reported, fatally, by its file.
func TestLoadKeepsGoodSkillsBesideBadOnes(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"skills/alpha/SKILL.md":  skillFile("alpha"),
		"skills/broken/SKILL.md": {Data: []byte("no front matter here\n")},
		"skills/nameless/SKILL.md": {Data: []byte(skillText("Do it.\n",
			"description: Has no name.",
		))},
		"skills/zeta/SKILL.md": skillFile("zeta"),
	}
	skills, problems := mustLoad(t, fsys, "skills")

	if diff := cmp.Diff([]string{"alpha", "zeta"}, names(skills)); diff != "" {
		t.Errorf("Load loaded other skills than wanted (-want +got):\n%s", diff)
	}
	var files []string
	for _, p := range problems {
		files = append(files, p.File)
		if !p.Fatal {
			t.Errorf("got problem %v not fatal, want it fatal", p)
		}
	}
	if diff := cmp.Diff([]string{"skills/broken/SKILL.md", "skills/nameless/SKILL.md"}, files); diff != "" {
		t.Errorf("Load reported problems in other files than wanted (-want +got):\n%s", diff)
	}
}

// TestLoadRefusesASecondSkillWithTheSameName: a user relies on skill names being unique: the
// first found is loaded, and the second is refused with a fatal problem naming the first's file.
func TestLoadRefusesASecondSkillWithTheSameName(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"team-a/pdf/SKILL.md": skillFile("pdf"),
		"team-b/pdf/SKILL.md": skillFile("pdf"),
	}
	skills, problems := mustLoad(t, fsys, ".")

	if diff := cmp.Diff([]string{"team-a/pdf"}, dirs(skills)); diff != "" {
		t.Errorf("Load loaded other skills than wanted (-want +got):\n%s", diff)
	}
	if len(problems) != 1 {
		t.Fatalf("got %d problems %v, want 1", len(problems), problems)
	}
	p := problems[0]
	if p.File != "team-b/pdf/SKILL.md" || !p.Fatal {
		t.Errorf("got problem File %q Fatal %v, want File %q Fatal true", p.File, p.Fatal, "team-b/pdf/SKILL.md")
	}
	if !strings.Contains(p.Message, "team-a/pdf/SKILL.md") {
		t.Errorf("got message %q, want it to name the first skill's file %q", p.Message, "team-a/pdf/SKILL.md")
	}
}

// TestLoadAcceptsALowercaseSkillFile: a user relies on a skill.md (as some tools write it)
// being loaded, with a problem asking to rename it, and not listed as a resource.
func TestLoadAcceptsALowercaseSkillFile(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"pdf/skill.md":         skillFile("pdf"),
		"pdf/references/a.md":  {Data: []byte("a\n")},
		"docx/SKILL.md":        skillFile("docx"),
		"docx/references/b.md": {Data: []byte("b\n")},
	}
	skills, problems := mustLoad(t, fsys, ".")

	if diff := cmp.Diff([]string{"docx", "pdf"}, names(skills)); diff != "" {
		t.Errorf("Load loaded other skills than wanted (-want +got):\n%s", diff)
	}
	if len(problems) != 1 {
		t.Fatalf("got %d problems %v, want 1", len(problems), problems)
	}
	if p := problems[0]; p.File != "pdf/skill.md" || p.Fatal || !strings.Contains(p.Message, "name it SKILL.md") {
		t.Errorf("got problem %+v, want a problem of pdf/skill.md, not fatal, asking to name it SKILL.md", p)
	}
	if len(skills) == 2 {
		if diff := cmp.Diff([]string{"references/a.md"}, skills[1].Resources()); diff != "" {
			t.Errorf("the lowercase skill's resources are unlike those wanted (-want +got):\n%s", diff)
		}
	}

	// A skill.md that does not load: the problem names the skill as its front matter does.
	skills, problems = mustLoad(t, fstest.MapFS{"tmp/skill.md": {Data: []byte(skillText("Do it.\n", "name: pdf"))}}, ".")
	if len(skills) != 0 || len(problems) != 2 || problems[0].Skill != "pdf" || !problems[1].Fatal {
		t.Errorf("Load(a skill.md without a description) = %v, %+v; want no skill, a problem naming pdf, and the fatal one", names(skills), problems)
	}

	// At the root of a file system, the problem names the skill by its name: no folder names it.
	skills, problems = mustLoad(t, fstest.MapFS{"skill.md": skillFile("pdf")}, ".")
	if len(skills) != 1 || len(problems) != 1 || problems[0].Skill != "pdf" || problems[0].File != "skill.md" {
		t.Errorf("Load(root holding skill.md) = %v, %+v; want the skill pdf and a problem of skill.md naming it", names(skills), problems)
	}
}

// TestLoadRootIsASkillFolder: a user relies on pointing Load at one skill's folder, as well as
// at a folder of skills; at ".", the name is not compared with a folder name.
func TestLoadRootIsASkillFolder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fsys    fstest.MapFS
		root    string
		wantDir string
	}{
		{
			name: "named folder",
			fsys: fstest.MapFS{
				"pdf/SKILL.md":            skillFile("pdf"),
				"pdf/references/guide.md": {Data: []byte("guide\n")},
			},
			root:    "pdf",
			wantDir: "pdf",
		},
		{
			name: "file system root",
			fsys: fstest.MapFS{
				"SKILL.md":            skillFile("pdf"),
				"references/guide.md": {Data: []byte("guide\n")},
			},
			root:    ".",
			wantDir: ".",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			skills, problems := mustLoad(t, tt.fsys, tt.root)
			if len(problems) != 0 {
				t.Errorf("got problems %v, want none", problems)
			}
			if len(skills) != 1 {
				t.Fatalf("got %d skills, want 1", len(skills))
			}
			s := skills[0]
			if s.Dir != tt.wantDir {
				t.Errorf("got Dir %q, want %q", s.Dir, tt.wantDir)
			}
			if diff := cmp.Diff([]string{"references/guide.md"}, s.Resources()); diff != "" {
				t.Errorf("Resources unlike those wanted (-want +got):\n%s", diff)
			}
			got, err := s.ReadResource("references/guide.md")
			if err != nil || got != "guide\n" {
				t.Errorf("ReadResource = %q, %v; want %q, nil", got, err, "guide\n")
			}
		})
	}
}

// TestLoadFindsSkillsInCategoryFolders: a user relies on grouping skills in folders
// (category/skill/SKILL.md) at any depth.
func TestLoadFindsSkillsInCategoryFolders(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"skills/documents/pdf/SKILL.md":          skillFile("pdf"),
		"skills/documents/office/docx/SKILL.md":  skillFile("docx"),
		"skills/code/review/SKILL.md":            skillFile("review"),
		"skills/code/README.md":                  {Data: []byte("not a skill\n")},
		"skills/documents/office/xlsx/notes.txt": {Data: []byte("not a skill either\n")},
	}
	skills, problems := mustLoad(t, fsys, "skills")
	if len(problems) != 0 {
		t.Errorf("got problems %v, want none", problems)
	}
	want := []string{"skills/code/review", "skills/documents/office/docx", "skills/documents/pdf"}
	if diff := cmp.Diff(want, dirs(skills)); diff != "" {
		t.Errorf("Load found other skills than wanted (-want +got):\n%s", diff)
	}
}

// TestLoadPassesOverHiddenFolders: a user relies on folders whose names start with a dot
// (.git, .cache) not being searched, while a root under a hidden folder is.
func TestLoadPassesOverHiddenFolders(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		".claude/skills/pdf/SKILL.md":           skillFile("pdf"),
		".claude/skills/.trash/old/SKILL.md":    skillFile("old"),
		".claude/skills/.draft/SKILL.md":        skillFile(".draft"),
		".claude/skills/pdf/.cache/x/SKILL.md":  skillFile("x"),
		".claude/skills/pdf/.cache/data.json":   {Data: []byte("{}")},
		".claude/skills/pdf/.env":               {Data: []byte("KEY=1\n")},
		".claude/skills/pdf/references/form.md": {Data: []byte("form\n")},
	}
	skills, problems := mustLoad(t, fsys, ".claude/skills")
	if len(problems) != 0 {
		t.Errorf("got problems %v, want none", problems)
	}
	if diff := cmp.Diff([]string{"pdf"}, names(skills)); diff != "" {
		t.Fatalf("Load loaded other skills than wanted (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"references/form.md"}, skills[0].Resources()); diff != "" {
		t.Errorf("Resources lists hidden files (-want +got):\n%s", diff)
	}

	// From ".", hidden folders under the root are passed over.
	skills, problems = mustLoad(t, fsys, ".")
	if len(skills) != 0 {
		t.Errorf("Load(\".\") loaded %v, want no skill: .claude is hidden", names(skills))
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "no skill found") {
		t.Errorf("Load(\".\") got problems %v, want one saying no skill was found", problems)
	}
}

// TestLoadTreatsSubfoldersAsResources: a user relies on the folders inside a skill's folder
// being its resources: a SKILL.md there (an example, a template) is not a second skill.
func TestLoadTreatsSubfoldersAsResources(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"pdf/SKILL.md":             skillFile("pdf"),
		"pdf/references/SKILL.md":  skillFile("references"),
		"pdf/templates/x/skill.md": skillFile("x"),
	}
	skills, problems := mustLoad(t, fsys, ".")
	if len(problems) != 0 {
		t.Errorf("got problems %v, want none", problems)
	}
	if diff := cmp.Diff([]string{"pdf"}, names(skills)); diff != "" {
		t.Fatalf("Load loaded other skills than wanted (-want +got):\n%s", diff)
	}
	want := []string{"references/SKILL.md", "templates/x/skill.md"}
	if diff := cmp.Diff(want, skills[0].Resources()); diff != "" {
		t.Errorf("Resources unlike those wanted (-want +got):\n%s", diff)
	}
}

// TestResourcesListsFilesRelativeToTheSkill: a user relies on Resources giving the paths
// ReadResource takes — relative to the skill's folder, sorted, without SKILL.md — and on the
// list being the caller's own copy.
func TestResourcesListsFilesRelativeToTheSkill(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"skills/pdf/SKILL.md":                {Data: skillFile("pdf").Data},
		"skills/pdf/scripts/fill.py":         {Data: []byte("print(1)\n")},
		"skills/pdf/scripts-extra.md":        {Data: []byte("more\n")},
		"skills/pdf/references/forms.md":     {Data: []byte("forms\n")},
		"skills/pdf/references/api/field.md": {Data: []byte("field\n")},
		"skills/pdf/assets/template.txt":     {Data: []byte("template\n")},
		"skills/pdf/LICENSE":                 {Data: []byte("MIT\n")},
		"skills/docx/SKILL.md":               skillFile("docx"),
	}
	skills, problems := mustLoad(t, fsys, "skills")
	if len(problems) != 0 {
		t.Errorf("got problems %v, want none", problems)
	}
	var pdf *skill.Skill
	for _, s := range skills {
		if s.Name == "pdf" {
			pdf = s
		}
	}
	if pdf == nil {
		t.Fatalf("got skills %v, want pdf among them", names(skills))
	}
	want := []string{
		"LICENSE",
		"assets/template.txt",
		"references/api/field.md",
		"references/forms.md",
		"scripts-extra.md", // before "scripts/": the paths are sorted as strings
		"scripts/fill.py",
	}
	got := pdf.Resources()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Resources unlike those wanted (-want +got):\n%s", diff)
	}
	got[0] = "changed"
	if again := pdf.Resources(); again[0] != "LICENSE" {
		t.Errorf("after changing the returned list, Resources()[0] = %q, want %q", again[0], "LICENSE")
	}
}

// TestLoadRootErrors: a user relies on Load returning an error — not a problem — for a root
// it cannot read: one that does not exist, or that is not a valid path in a file system.
func TestLoadRootErrors(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"skills/pdf/SKILL.md": skillFile("pdf")}
	tests := []struct {
		root         string
		wantNotExist bool // errors.Is(err, fs.ErrNotExist)
	}{
		{"missing", true},
		{"skills/missing", true},
		{"/abs", false},
		{"../x", false},
		{"skills/../skills", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.root, func(t *testing.T) {
			t.Parallel()
			skills, problems, err := skill.Load(fsys, tt.root)
			if err == nil {
				t.Fatalf("Load(%q) returned no error (skills %v, problems %v), want one", tt.root, names(skills), problems)
			}
			if skills != nil || problems != nil {
				t.Errorf("Load(%q) returned skills %v and problems %v with its error, want none", tt.root, names(skills), problems)
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tt.wantNotExist {
				t.Errorf("errors.Is(%v, fs.ErrNotExist) = %v, want %v", err, got, tt.wantNotExist)
			}
		})
	}
}

// TestLoadReportsARootWithoutSkills: a user relies on a folder holding no skill being
// reported — as one problem, not an error — so that a mistyped root is noticed.
func TestLoadReportsARootWithoutSkills(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"skills/README.md":     {Data: []byte("skills go here\n")},
		"skills/pdf/notes.txt": {Data: []byte("no SKILL.md\n")},
	}
	skills, problems := mustLoad(t, fsys, "skills")
	if len(skills) != 0 {
		t.Errorf("got skills %v, want none", names(skills))
	}
	if len(problems) != 1 {
		t.Fatalf("got %d problems %v, want 1", len(problems), problems)
	}
	if p := problems[0]; p.File != "skills" || !strings.Contains(p.Message, "no skill found") {
		t.Errorf("got problem %+v, want one of file %q saying no skill found", p, "skills")
	}
}

// TestLoadStrict: a user checking skills in a repository's tests relies on LoadStrict
// refusing any problem with a Problems error that lists every one, and returning the skills
// when there is none.
func TestLoadStrict(t *testing.T) {
	t.Parallel()

	t.Run("problems", func(t *testing.T) {
		t.Parallel()
		fsys := fstest.MapFS{
			"skills/pdf/SKILL.md":    skillFile("pdf"),
			"skills/docx/SKILL.md":   skillFile("word"),
			"skills/broken/SKILL.md": {Data: []byte("no front matter\n")},
			"skills/xlsx/skill.md":   skillFile("xlsx"),
		}
		_, problems := mustLoad(t, fsys, "skills")
		if len(problems) != 3 {
			t.Fatalf("Load got %d problems %v, want 3", len(problems), problems)
		}
		skills, err := skill.LoadStrict(fsys, "skills")
		if skills != nil {
			t.Errorf("LoadStrict returned skills %v with problems, want none", names(skills))
		}
		var ps skill.Problems
		if !errors.As(err, &ps) {
			t.Fatalf("LoadStrict returned error %v (%T), want a skill.Problems", err, err)
		}
		if diff := cmp.Diff(skill.Problems(problems), ps); diff != "" {
			t.Errorf("LoadStrict's problems unlike Load's (-want +got):\n%s", diff)
		}
		msg := err.Error()
		for _, p := range problems {
			if !strings.Contains(msg, p.Error()) {
				t.Errorf("LoadStrict's error %q does not list problem %q", msg, p.Error())
			}
		}
		if !strings.Contains(msg, "3 problems") {
			t.Errorf("LoadStrict's error %q does not count its problems, want it to contain %q", msg, "3 problems")
		}
	})

	t.Run("no problem", func(t *testing.T) {
		t.Parallel()
		fsys := fstest.MapFS{
			"skills/pdf/SKILL.md":  skillFile("pdf"),
			"skills/docx/SKILL.md": skillFile("docx"),
		}
		skills, err := skill.LoadStrict(fsys, "skills")
		if err != nil {
			t.Fatalf("LoadStrict returned error %v, want nil", err)
		}
		if diff := cmp.Diff([]string{"docx", "pdf"}, names(skills)); diff != "" {
			t.Errorf("LoadStrict loaded other skills than wanted (-want +got):\n%s", diff)
		}
	})

	t.Run("root error", func(t *testing.T) {
		t.Parallel()
		_, err := skill.LoadStrict(fstest.MapFS{}, "missing")
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("LoadStrict(missing root) returned error %v, want one wrapping fs.ErrNotExist", err)
		}
	})
}

// TestLoadReportsALinkedSkillFolder: a skill's folder reached through a symbolic link is not
// followed, and Load says so instead of passing over it in silence.
func TestLoadReportsALinkedSkillFolder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, f := range map[string]*fstest.MapFile{"shared/docx/SKILL.md": skillFile("docx"), "skills/pdf/SKILL.md": skillFile("pdf")} {
		full := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../shared/docx", filepath.Join(root, "skills", "docx")); err != nil {
		t.Fatal(err)
	}
	skills, problems := mustLoad(t, os.DirFS(root), "skills")
	if got := names(skills); len(got) != 1 || got[0] != "pdf" {
		t.Errorf("skills %q, want pdf", got)
	}
	if len(problems) != 1 || problems[0].File != "skills/docx" || !problems[0].Fatal || !strings.Contains(problems[0].Message, "symbolic link") {
		t.Errorf("problems %v; want one, fatal, saying skills/docx is a symbolic link", problems)
	}
}

// lockedFS is a file system in which what is under locked cannot be read, as a folder or a
// file without the permission, and the folder unlisted cannot be listed, as a folder that
// may be entered and not read.
type lockedFS struct {
	fstest.MapFS
	locked, unlisted string
}

func (l lockedFS) check(name string) error {
	if l.locked != "" && (name == l.locked || strings.HasPrefix(name, l.locked+"/")) {
		return &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return nil
}

func (l lockedFS) Open(name string) (fs.File, error) {
	if err := l.check(name); err != nil {
		return nil, err
	}
	return l.MapFS.Open(name)
}

func (l lockedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := l.check(name); err != nil {
		return nil, err
	}
	if name == l.unlisted {
		return nil, &fs.PathError{Op: "readdirent", Path: name, Err: fs.ErrPermission}
	}
	return l.MapFS.ReadDir(name)
}

func (l lockedFS) ReadFile(name string) ([]byte, error) {
	if err := l.check(name); err != nil {
		return nil, err
	}
	return l.MapFS.ReadFile(name)
}

func (l lockedFS) Stat(name string) (fs.FileInfo, error) {
	if err := l.check(name); err != nil {
		return nil, err
	}
	return l.MapFS.Stat(name)
}

// TestLoadReportsWhatCannotBeRead: a user relies on a folder or a file that cannot be read
// never hiding the skills that can: each is a problem naming it, and the rest loads.
func TestLoadReportsWhatCannotBeRead(t *testing.T) {
	t.Parallel()
	files := fstest.MapFS{
		"docx/SKILL.md":             skillFile("docx"),
		"pdf/SKILL.md":              skillFile("pdf"),
		"pdf/references/guide.md":   {Data: []byte("guide\n")},
		"team/xlsx/SKILL.md":        skillFile("xlsx"),
		"team/xlsx/references/f.md": {Data: []byte("formula\n")},
	}
	tests := []struct {
		name   string
		fsys   lockedFS
		loaded []string
		want   skill.Problem
	}{
		{"a skill's folder", lockedFS{files, "pdf", ""}, []string{"docx", "xlsx"},
			skill.Problem{File: "pdf/SKILL.md", Skill: "pdf", Message: "cannot be read: open pdf/SKILL.md: permission denied", Fatal: true}},
		{"a folder of skills", lockedFS{files, "", "team"}, []string{"docx", "pdf"},
			skill.Problem{File: "team", Message: "cannot be read: readdirent team: permission denied"}},
		{"a skill's resources", lockedFS{files, "", "team/xlsx"}, []string{"docx", "pdf", "xlsx"},
			skill.Problem{File: "team/xlsx", Skill: "xlsx", Message: "its files cannot be listed: readdirent team/xlsx: permission denied"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			skills, problems := mustLoad(t, tt.fsys, ".")
			if diff := cmp.Diff(tt.loaded, names(skills)); diff != "" {
				t.Errorf("skills loaded (-want +got):\n%s", diff)
			}
			if len(problems) == 0 || problems[0] != tt.want {
				t.Errorf("problems = %+v, want first %+v", problems, tt.want)
			}
		})
	}
}
