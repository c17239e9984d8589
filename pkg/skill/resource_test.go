package skill_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"testing/fstest"

	"github.com/cadrehq/cadre/pkg/skill"
)

// loadOne loads the skill named name from root in fsys, failing the test when it is not there.
func loadOne(t *testing.T, fsys fs.FS, root, name string) *skill.Skill {
	t.Helper()
	skills, problems, err := skill.Load(fsys, root)
	if err != nil {
		t.Fatalf("Load(%q) returned error %v, want nil", root, err)
	}
	for _, s := range skills {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("Load(%q) loaded %v with problems %v, want a skill named %q", root, names(skills), problems, name)
	return nil
}

// resourceFS returns a file system holding the skill pdf, its resources, and a sibling skill.
func resourceFS() fstest.MapFS {
	return fstest.MapFS{
		"skills/pdf/SKILL.md":            skillFile("pdf"),
		"skills/pdf/references/guide.md": {Data: []byte("# Guide\nFill every field.\n")},
		"skills/pdf/scripts/fill.py":     {Data: []byte("print('filled')\n")},
		"skills/pdf/assets/logo.png":     {Data: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")},
		"skills/pdf/assets/latin1.txt":   {Data: []byte("caf\xe9\n")},
		"skills/pdf/assets/utf16.txt":    {Data: []byte("\x00h\x00i")}, // UTF-16BE, valid UTF-8 but for its NULs
		"skills/pdf/assets/big.txt":      {Data: bytes.Repeat([]byte("a"), skill.MaxResourceBytes+1)},
		"skills/pdf/assets/largest.txt":  {Data: bytes.Repeat([]byte("a"), skill.MaxResourceBytes)},
		"skills/other/SKILL.md":          skillFile("other"),
		"secret.txt":                     {Data: []byte(secret)},
	}
}

// secret is the content of a file outside every skill: it must never reach a caller.
const secret = "TOP-SECRET-7f3a9c"

// TestReadResourceReturnsAFilesText: a user relies on ReadResource returning the text of a
// file of the skill, given its path as Resources lists it.
func TestReadResourceReturnsAFilesText(t *testing.T) {
	t.Parallel()
	s := loadOne(t, resourceFS(), "skills", "pdf")
	tests := []struct {
		rel  string
		want string
	}{
		{"references/guide.md", "# Guide\nFill every field.\n"},
		{"./references/guide.md", "# Guide\nFill every field.\n"},
		{"scripts/../references/guide.md", "# Guide\nFill every field.\n"},
		{"scripts/fill.py", "print('filled')\n"},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			t.Parallel()
			got, err := s.ReadResource(tt.rel)
			if err != nil {
				t.Fatalf("ReadResource(%q) returned error %v, want nil", tt.rel, err)
			}
			if got != tt.want {
				t.Errorf("ReadResource(%q) = %q, want %q", tt.rel, got, tt.want)
			}
		})
	}
}

// TestReadResourceRefusesPathsOutsideTheSkill: a user relies on ReadResource never reading a
// file outside the skill's folder whatever path a model gives, and on errors.Is(err,
// ErrOutside) telling such a refusal apart.
func TestReadResourceRefusesPathsOutsideTheSkill(t *testing.T) {
	t.Parallel()
	s := loadOne(t, resourceFS(), "skills", "pdf")
	for _, rel := range []string{
		"../other/SKILL.md",
		"/etc/passwd",
		"references/../../x",
		"..",
		"../../secret.txt",
		"./../../secret.txt",
	} {
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			got, err := s.ReadResource(rel)
			if !errors.Is(err, skill.ErrOutside) {
				t.Errorf("ReadResource(%q) returned error %v, want one wrapping skill.ErrOutside", rel, err)
			}
			if got != "" {
				t.Errorf("ReadResource(%q) = %q, want \"\"", rel, got)
			}
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Errorf("ReadResource(%q)'s error %q holds the secret", rel, err)
			}
		})
	}
}

// TestReadResourceRefusesMalformedPaths: a user (or a model) relies on a path that is not a
// file's path in the skill being refused with a message saying what to give instead.
func TestReadResourceRefusesMalformedPaths(t *testing.T) {
	t.Parallel()
	s := loadOne(t, resourceFS(), "skills", "pdf")
	tests := []struct {
		rel  string
		want string
	}{
		{`references\guide.md`, "separate folders with /"},
		{"", "the path is empty"},
		{".", "is the skill's folder"},
		{"references/..", "is the skill's folder"},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			t.Parallel()
			got, err := s.ReadResource(tt.rel)
			if err == nil {
				t.Fatalf("ReadResource(%q) = %q, nil; want an error containing %q", tt.rel, got, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadResource(%q) returned error %q, want it to contain %q", tt.rel, err, tt.want)
			}
			if errors.Is(err, skill.ErrOutside) {
				t.Errorf("ReadResource(%q) returned error %v wrapping ErrOutside, want another error", tt.rel, err)
			}
		})
	}
}

// TestReadResourceMissingFileListsTheSkillsFiles: a model that asks for a file the skill does
// not have relies on the error listing the files it does have, to ask again.
func TestReadResourceMissingFileListsTheSkillsFiles(t *testing.T) {
	t.Parallel()
	s := loadOne(t, resourceFS(), "skills", "pdf")
	_, err := s.ReadResource("references/missing.md")
	if err == nil {
		t.Fatal("ReadResource(missing file) returned no error, want one")
	}
	msg := err.Error()
	if !strings.Contains(msg, `"references/missing.md"`) {
		t.Errorf("got error %q, want it to name %q", msg, "references/missing.md")
	}
	for _, f := range s.Resources() {
		if !strings.Contains(msg, f) {
			t.Errorf("got error %q, want it to list the skill's file %q", msg, f)
		}
	}
	if errors.Is(err, skill.ErrOutside) {
		t.Errorf("got error %v wrapping ErrOutside, want another error", err)
	}
}

// TestReadResourceRefusesWhatIsNotText: a user relies on ReadResource returning only text a
// model can read: not a folder, not a binary or non-UTF-8 file, nothing over MaxResourceBytes.
func TestReadResourceRefusesWhatIsNotText(t *testing.T) {
	t.Parallel()
	s := loadOne(t, resourceFS(), "skills", "pdf")
	tests := []struct {
		rel  string
		want string
	}{
		{"references", "is a folder"},
		{"references/", "is a folder"},
		{"assets/logo.png", "not a text file"},
		{"assets/latin1.txt", "not a text file"},
		{"assets/utf16.txt", "not a text file"},
		{"assets/big.txt", "is over 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			t.Parallel()
			got, err := s.ReadResource(tt.rel)
			if err == nil {
				t.Fatalf("ReadResource(%q) returned %d bytes and no error, want an error containing %q", tt.rel, len(got), tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadResource(%q) returned error %q, want it to contain %q", tt.rel, err, tt.want)
			}
			if got != "" {
				t.Errorf("ReadResource(%q) returned %d bytes with its error, want none", tt.rel, len(got))
			}
		})
	}
}

// TestReadResourceReadsTheLargestResource: a user relies on a file of exactly
// MaxResourceBytes being read whole.
func TestReadResourceReadsTheLargestResource(t *testing.T) {
	t.Parallel()
	s := loadOne(t, resourceFS(), "skills", "pdf")
	got, err := s.ReadResource("assets/largest.txt")
	if err != nil {
		t.Fatalf("ReadResource(largest) returned error %v, want nil", err)
	}
	if len(got) != skill.MaxResourceBytes {
		t.Errorf("ReadResource(largest) returned %d bytes, want %d", len(got), skill.MaxResourceBytes)
	}
}

// TestReadResourceOfAParsedSkill: a user relies on a skill from Parse, which has no file
// system, refusing to read resources with an error saying so.
func TestReadResourceOfAParsedSkill(t *testing.T) {
	t.Parallel()
	s, problems := skill.Parse("pdf/SKILL.md", "pdf", skillFile("pdf").Data)
	if s == nil {
		t.Fatalf("Parse returned no skill (problems %v), want one", problems)
	}
	got, err := s.ReadResource("references/guide.md")
	if err == nil || !strings.Contains(err.Error(), "not loaded from a file system") {
		t.Errorf("ReadResource = %q, %v; want an error saying the skill was not loaded from a file system", got, err)
	}
}

// symlinkRoot builds, in a temporary folder, a root holding skills/pdf and skills/docx, a
// secret file beside skills/, and symbolic links in skills/pdf leading inside and outside.
func symlinkRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		full := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		full := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, full); err != nil {
			t.Fatalf("os.Symlink(%q, %q): %v", target, name, err)
		}
	}
	write("secret.txt", secret)
	write("skills/pdf/SKILL.md", string(skillFile("pdf").Data))
	write("skills/pdf/references/guide.md", "# Guide\n")
	write("skills/docx/SKILL.md", string(skillFile("docx").Data))
	write("skills/docx/notes.md", secret)

	link("references/guide.md", "skills/pdf/alias.md")                   // a file inside
	link("references", "skills/pdf/docs")                                // a folder inside
	link("../../references/guide.md", "skills/pdf/references/sub/up.md") // a file inside, by ..
	link(filepath.Join(root, "secret.txt"), "skills/pdf/absolute.md")    // absolute, outside
	link("../../secret.txt", "skills/pdf/relative.md")                   // relative, outside
	link("relative.md", "skills/pdf/hop.md")                             // a link to a link outside
	link("../hop.md", "skills/pdf/references/hop2.md")                   // and one more hop
	link("../docx", "skills/pdf/sibling")                                // a sibling skill's folder
	link("loop-b", "skills/pdf/loop-a")                                  // a loop
	link("loop-a", "skills/pdf/loop-b")
	return root
}

// TestReadResourceFollowsLinksInsideTheSkill: a user relies on symbolic links that stay in
// the skill's folder being read like the files they lead to.
func TestReadResourceFollowsLinksInsideTheSkill(t *testing.T) {
	t.Parallel()
	root := symlinkRoot(t)
	s := loadOne(t, os.DirFS(root), "skills", "pdf")
	for _, rel := range []string{
		"alias.md",
		"docs/guide.md",
		"references/sub/up.md",
	} {
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			got, err := s.ReadResource(rel)
			if err != nil {
				t.Fatalf("ReadResource(%q) returned error %v, want nil", rel, err)
			}
			if got != "# Guide\n" {
				t.Errorf("ReadResource(%q) = %q, want %q", rel, got, "# Guide\n")
			}
		})
	}
}

// TestReadResourceRefusesLinksLeadingOutside: a user relies on a symbolic link in a skill's
// folder never letting ReadResource read a file outside it — not the machine's, not the
// root's, not another skill's — however many links lead there, and on the file's content
// never appearing in what is returned.
func TestReadResourceRefusesLinksLeadingOutside(t *testing.T) {
	t.Parallel()
	root := symlinkRoot(t)
	s := loadOne(t, os.DirFS(root), "skills", "pdf")
	for _, rel := range []string{
		"absolute.md",
		"relative.md",
		"hop.md",
		"references/hop2.md",
		"sibling/SKILL.md",
		"sibling/notes.md",
		"docs/../relative.md",
	} {
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			got, err := s.ReadResource(rel)
			if !errors.Is(err, skill.ErrOutside) {
				t.Errorf("ReadResource(%q) returned error %v, want one wrapping skill.ErrOutside", rel, err)
			}
			if strings.Contains(got, secret) || got != "" {
				t.Errorf("ReadResource(%q) = %q, want \"\"", rel, got)
			}
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Errorf("ReadResource(%q)'s error %q holds the secret", rel, err)
			}
		})
	}
}

// TestReadResourceRefusesALinkLoop: a user relies on a loop of symbolic links ending in an
// error, not in a hang.
func TestReadResourceRefusesALinkLoop(t *testing.T) {
	t.Parallel()
	root := symlinkRoot(t)
	s := loadOne(t, os.DirFS(root), "skills", "pdf")
	got, err := s.ReadResource("loop-a")
	if err == nil || !strings.Contains(err.Error(), "too many symbolic links") {
		t.Errorf("ReadResource(loop) = %q, %v; want an error saying there are too many symbolic links", got, err)
	}
}

// TestResourcesListOnlyWhatCanBeRead: the files listed to a model are those ReadResource
// reads: links inside the folder are, links leading out, to folders, or in a loop are not.
func TestResourcesListOnlyWhatCanBeRead(t *testing.T) {
	t.Parallel()
	s := loadOne(t, os.DirFS(symlinkRoot(t)), "skills", "pdf")
	want := []string{"alias.md", "references/guide.md", "references/sub/up.md"}
	if diff := cmp.Diff(want, s.Resources()); diff != "" {
		t.Errorf("Resources() (-want +got):\n%s", diff)
	}
}

// TestReadResourceRefusesHiddenAndSpecialFiles: a skill's folder may hold a .env or a .git
// beside its files; they are never read, directly or through a link, and neither is anything
// but a regular file (a named pipe would block the read forever).
func TestReadResourceRefusesHiddenAndSpecialFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "skills", "pdf")
	for name, data := range map[string]string{"SKILL.md": string(skillFile("pdf").Data), ".env": secret, ".git/config": secret, "notes.md": "notes\n"} {
		full := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".env", filepath.Join(dir, "env.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := loadOne(t, os.DirFS(root), "skills", "pdf")
	if diff := cmp.Diff([]string{"notes.md"}, s.Resources()); diff != "" {
		t.Errorf("Resources() (-want +got):\n%s", diff)
	}
	for rel, want := range map[string]string{".env": "hidden", ".git/config": "hidden", "./.env": "hidden", "env.md": "hidden", "pipe.md": "not a regular file"} {
		got, err := s.ReadResource(rel)
		if err == nil || !strings.Contains(err.Error(), want) || got != "" {
			t.Errorf("ReadResource(%q) = %q, %v; want an error saying %q", rel, got, err, want)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("ReadResource(%q)'s error holds the secret", rel)
		}
	}
}

// TestReadResourceFollowsFortyLinks: a user relies on ReadResource following a chain of as
// many symbolic links as Linux does, 40, and refusing a longer one.
func TestReadResourceFollowsFortyLinks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "pdf")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), skillFile("pdf").Data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "guide.md"), []byte("guide\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// chain makes prefix1 -> prefix2 -> ... -> prefixN -> guide.md.
	chain := func(prefix string, n int) {
		for i := 1; i <= n; i++ {
			target := fmt.Sprint(prefix, i+1)
			if i == n {
				target = "guide.md"
			}
			if err := os.Symlink(target, filepath.Join(dir, fmt.Sprint(prefix, i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	chain("a", 40)
	chain("b", 41)
	s := loadOne(t, os.DirFS(root), ".", "pdf")
	if got, err := s.ReadResource("a1"); err != nil || got != "guide\n" {
		t.Errorf("ReadResource(a chain of 40 links) = %q, %v; want the guide", got, err)
	}
	if got, err := s.ReadResource("b1"); err == nil || !strings.Contains(err.Error(), "too many symbolic links") {
		t.Errorf("ReadResource(a chain of 41 links) = %q, %v; want an error saying there are too many symbolic links", got, err)
	}
}
