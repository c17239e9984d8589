package doccheck_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/doccheck"
	"github.com/google/go-cmp/cmp"
)

func TestBlocks(t *testing.T) {
	t.Parallel()
	md := strings.Join([]string{
		"# Title",                         // 1
		"",                                // 2
		"```go",                           // 3
		"x := 1",                          // 4
		"```",                             // 5
		"",                                // 6
		"- a list item:",                  // 7
		"",                                // 8
		"  ```go",                         // 9
		"  f, err := load()",              // 10
		"  ```",                           // 11
		"",                                // 12
		doccheck.NotCompiled,              // 13
		"",                                // 14
		"~~~~go title=example.go",         // 15
		"```",                             // 16: inside a longer fence of another kind
		"~~~~",                            // 17
		"",                                // 18
		doccheck.NotCompiled,              // 19
		"Some text between.",              // 20
		"```sh",                           // 21
		"make test",                       // 22
		"```",                             // 23
		"Inline ```go``` is not a fence.", // 24
		"```",                             // 25
		"left open",                       // 26
	}, "\n")
	got := doccheck.Blocks("doc.md", md)
	want := []doccheck.Block{
		{File: "doc.md", Line: 3, Lang: "go", Code: "x := 1"},
		{File: "doc.md", Line: 9, Lang: "go", Code: "f, err := load()"},
		{File: "doc.md", Line: 15, Lang: "go", Code: "```", Skip: true},
		{File: "doc.md", Line: 21, Lang: "sh", Code: "make test"},
		{File: "doc.md", Line: 25, Lang: "", Code: "left open"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Blocks (-want +got):\n%s", diff)
	}
}

func TestPackages(t *testing.T) {
	t.Parallel()
	blocks := doccheck.Blocks("doc.md", strings.Join([]string{
		"```go",
		"type Report struct{ Title string }",
		"```",
		"```go",
		"import \"github.com/cadrehq/cadre/pkg/usage\"",
		"",
		"l := usage.NewLedger(usage.Limits{})",
		"fmt.Println(l.Report().Total.Requests, ctx != nil)",
		"```",
		"```go",
		"package main",
		"",
		"func main() {}",
		"```",
		"```text",
		"not Go",
		"```",
	}, "\n"))
	pkgs := doccheck.Packages(blocks)
	if len(pkgs) != 2 {
		t.Fatalf("%d packages, want the document's and the whole file's: %+v", len(pkgs), pkgs)
	}
	doc, file := pkgs[0], pkgs[1]
	if doc.Name != doccheck.DocPackage || len(doc.Files) != 2 || file.Name != "main" || len(file.Files) != 1 {
		t.Fatalf("packages: %+v", pkgs)
	}
	kinds := []doccheck.Kind{doc.Files[0].Kind, doc.Files[1].Kind, file.Files[0].Kind}
	if want := []doccheck.Kind{doccheck.KindDecls, doccheck.KindStmts, doccheck.KindFile}; !slices.Equal(kinds, want) {
		t.Errorf("kinds = %v, want %v", kinds, want)
	}
	// The statements' imports: their own, and those of the packages they name, the preamble's
	// (ctx) included.
	imports := slices.Sorted(slices.Values(doc.Files[1].Imports))
	if want := []string{"context", "fmt", "github.com/cadrehq/cadre/pkg/usage"}; !slices.Equal(imports, want) {
		t.Errorf("imports = %v, want %v", imports, want)
	}
}

// TestCheck checks what a reader of the documentation relies on: an error names the block and
// the document's line, and what only comes from cutting the documentation into blocks is not
// an error.
func TestCheck(t *testing.T) {
	t.Parallel()
	md := strings.Join([]string{
		"```go",                              // 1
		"type Report struct{ Title string }", // 2
		"```",                                // 3
		"",                                   // 4
		"```go",                              // 5: fine: declared and not used, preamble, another block's type
		"res, err := guide.Run(ctx, assistant.Input{Prompt: \"Hi\"})", // 6
		"r := Report{Title: res.Output}",                              // 7
		"```",                                                         // 8
		"",                                                            // 9
		"```go",                                                       // 10
		"var n int = \"three\"",                                       // 11: a type error
		"```",                                                         // 12
		"",                                                            // 13
		"```go",                                                       // 14
		"func broken( {",                                              // 15: a syntax error
		"```",                                                         // 16
		"",                                                            // 17
		"```go",                                                       // 18
		"assistant.New[Report](\"x\", assistant.WithNothing())", // 19: no such option
		"```",                            // 20
		"",                               // 21
		"```go",                          // 22
		"import \"example.com/nowhere\"", // 23: not a package of the module
		"",                               // 24
		"nowhere.Do()",                   // 25
		"```",                            // 26
	}, "\n")
	pkgs := doccheck.Packages(doccheck.Blocks("doc.md", md))
	var paths []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			paths = append(paths, f.Imports...)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	exports, err := doccheck.Exports(ctx, repoRoot(t), paths)
	if err != nil {
		t.Fatal(err)
	}
	problems := doccheck.Check(pkgs, doccheck.Importer(exports))
	for _, p := range problems {
		t.Log(p)
	}

	want := map[int]string{ // by the block's line: the error's position and a word of it
		10: "doc.md:11:",
		14: "doc.md:15:",
		18: "doc.md:19:",
		22: "doc.md:23:",
	}
	got := map[int]bool{}
	for _, p := range problems {
		line := p.Block.Line
		got[line] = true
		pos, ok := want[line]
		if !ok {
			t.Errorf("unexpected problem: %v", p)
			continue
		}
		msg := p.Error()
		if !strings.HasPrefix(msg, "doc.md: the ```go block at line ") || !strings.Contains(msg, pos) {
			t.Errorf("problem of the block at line %d: %q, want the block and position %s", line, msg, pos)
		}
	}
	for line := range want {
		if !got[line] {
			t.Errorf("no problem reported for the block at line %d", line)
		}
	}
}
