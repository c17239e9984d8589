package doccheck_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/doccheck"
)

// TestDocsCompile type-checks every ```go block of README.md and docs/*.md.
//
// It takes the export data of the packages the blocks import from the go command, built
// without -race whatever this test's build: that is what `go vet ./...`, which make test runs
// first, leaves in the build cache, so it takes a second there. On a cold cache it compiles
// those packages and their dependencies first.
func TestDocsCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the documentation's code is type-checked by a full run")
	}
	root := repoRoot(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)

	var pkgs []doccheck.Package
	blocks := 0
	for _, path := range docs {
		md, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, path)
		bs := doccheck.Blocks(filepath.ToSlash(name), string(md))
		for _, b := range bs {
			if b.Lang == "go" && !b.Skip {
				blocks++
			}
		}
		pkgs = append(pkgs, doccheck.Packages(bs)...)
	}
	if blocks == 0 {
		t.Fatal("no ```go block found in README.md and docs/*.md: is the repository's root right?")
	}

	var paths []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			paths = append(paths, f.Imports...)
		}
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)

	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	exports, err := doccheck.Exports(ctx, root, paths)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("export data of %d packages in %v", len(exports), time.Since(start).Round(time.Millisecond))

	start = time.Now()
	for _, p := range doccheck.Check(pkgs, doccheck.Importer(exports)) {
		t.Error(p)
	}
	t.Logf("%d blocks checked in %v", blocks, time.Since(start).Round(time.Millisecond))
}

// repoRoot returns the directory of the module's go.mod, above the test's directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// schemaKeyword is a keyword of invopop/jsonschema's `jsonschema` tag written into a
// `jsonschema_description` tag, whose whole text is the description: the limit would be
// shown to the model as prose and never enforced.
var schemaKeyword = regexp.MustCompile(`jsonschema_description:"[^"]*\b(minimum|maximum|exclusiveMinimum|exclusiveMaximum|minLength|maxLength|minItems|maxItems|uniqueItems|pattern|format|enum|default|example|multipleOf|const|title|required|nullable)=`)

// TestNoSchemaKeywordsInDescriptions looks through every Go and Markdown file of the
// repository for a schema keyword inside a jsonschema_description tag: a mistake that
// compiles and looks right, and lets values outside the limits through.
func TestNoSchemaKeywordsInDescriptions(t *testing.T) {
	root := repoRoot(t)
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if ext := filepath.Ext(path); d.IsDir() || ext != ".go" && ext != ".md" {
			return nil
		}
		files++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := schemaKeyword.FindStringSubmatch(line); m != nil {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d: %q is in a jsonschema_description tag, where it is only text: put it in the jsonschema tag (jsonschema:\"description=...,%s=...\")", rel, i+1, m[1]+"=", m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("only %d Go and Markdown files found under %s: is the repository's root right?", files, root)
	}
}
