package doccheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
)

// A Problem is an error in a block: it does not parse, or does not type-check.
type Problem struct {
	Block Block
	Err   error // its position, when it has one, is the document's
}

func (p Problem) Error() string {
	return fmt.Sprintf("%s: the ```go block at line %d does not compile: %v", p.Block.File, p.Block.Line, p.Err)
}

// Check type-checks each package with the importer imp makes (see Importer), and returns
// the problems of their blocks, in no particular order. It leaves
// out what is an artefact of cutting documentation into blocks: a variable declared and not
// used, and an unused import that Packages added.
func Check(pkgs []Package, imp func(fset *token.FileSet) types.Importer) []Problem {
	var problems []Problem
	fset := token.NewFileSet()
	from := imp(fset) // one for every package: each import is read once
	for _, pkg := range pkgs {
		problems = append(problems, checkPackage(fset, from, pkg)...)
	}
	return problems
}

func checkPackage(fset *token.FileSet, imp types.Importer, pkg Package) []Problem {
	var problems []Problem
	var files []*ast.File
	blockOf := map[*token.File]Block{}
	for _, f := range pkg.Files {
		af, err := parser.ParseFile(fset, f.Name, f.Src, parser.SkipObjectResolution)
		if err != nil {
			problems = append(problems, Problem{Block: f.Block, Err: err})
			continue
		}
		files = append(files, af)
		blockOf[fset.File(af.Pos())] = f.Block
	}
	conf := types.Config{
		Importer: imp,
		Error: func(err error) {
			var te types.Error
			if !errors.As(err, &te) {
				return
			}
			pos := te.Fset.Position(te.Pos)
			switch {
			case strings.Contains(te.Msg, "declared and not used"):
				return
			case strings.Contains(te.Msg, "imported and not used") && !strings.HasSuffix(pos.Filename, ".md"):
				return // an import Packages added: the name was not the package's
			}
			problems = append(problems, Problem{Block: blockOf[te.Fset.File(te.Pos)], Err: err})
		},
	}
	conf.Check(pkg.Name, fset, files, nil) // its errors went to conf.Error
	return problems
}

// Exports returns, by import path, the export data files of the packages at paths and of
// everything they import, as `go list -export -deps` builds them in dir, a directory of the
// module to resolve paths in (a path that is not found there is left out, and importing it
// is the error). It runs go with GOPROXY=off: what is not in the module cache is an error,
// never a download.
func Exports(ctx context.Context, dir string, paths []string) (map[string]string, error) {
	args := append([]string{"list", "-e", "-export", "-deps", "-json=ImportPath,Export"}, paths...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v\n%s", err, stderr.Bytes())
	}
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list -export: reading its output: %v", err)
		}
		if p.Export != "" {
			exports[p.ImportPath] = p.Export
		}
	}
	return exports, nil
}

// Importer returns an importer of the packages whose export data files exports holds (see
// Exports).
func Importer(exports map[string]string) func(fset *token.FileSet) types.Importer {
	return func(fset *token.FileSet) types.Importer {
		return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			file, ok := exports[path]
			if !ok {
				return nil, fmt.Errorf("no package %q in the module or its requirements", path)
			}
			return os.Open(file)
		})
	}
}
