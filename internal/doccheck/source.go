package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Kind is what a Go block holds.
type Kind int

const (
	// KindFile is a whole Go file: the block has a package clause.
	KindFile Kind = iota
	// KindDecls is declarations: the block parses as a file's body, or does not parse but has
	// a func or type declaration at column 0 and nothing else there but declarations and
	// comments (so that its syntax error is reported as a declaration's).
	KindDecls
	// KindStmts is statements, wrapped in a function to compile.
	KindStmts
)

// DocPackage is the package name of the files made of a document's blocks.
const DocPackage = "snippets"

// A File is a Go file made of a Block. Its //line directives give the block's lines their
// positions in the document, so that an error in the block names the document's line.
type File struct {
	Block   Block
	Kind    Kind
	Name    string   // the file's name, e.g. "block23.go"
	Src     string   // the Go source
	Imports []string // the paths it imports
}

// A Package is files to type-check together: the blocks of one document that are not whole
// files, or one block that is.
type Package struct {
	Name  string // DocPackage, or the whole file's package name
	Files []File
}

// Packages turns the Go blocks of one document into packages to check: one for its
// declarations and statements, and one for each block that is a whole file. Blocks of
// another language and skipped blocks are left out.
func Packages(blocks []Block) []Package {
	var doc Package
	var pkgs []Package
	parts := make([]part, 0, len(blocks))
	declared := make(map[string]bool) // the document's package-level names
	for _, b := range blocks {
		if b.Lang != "go" || b.Skip {
			continue
		}
		p := split(b)
		if p.kind == KindFile {
			pkgs = append(pkgs, Package{Name: p.pkg, Files: []File{p.file()}})
			continue
		}
		for _, name := range p.decls {
			declared[name] = true
		}
		parts = append(parts, p)
	}
	for _, p := range parts {
		doc.Files = append(doc.Files, p.file(declared))
	}
	if len(doc.Files) > 0 {
		doc.Name = DocPackage
		pkgs = append([]Package{doc}, pkgs...)
	}
	return pkgs
}

// part is a block cut into what a file needs of it.
type part struct {
	b        Block
	kind     Kind
	pkg      string      // KindFile: the package clause's name
	imports  string      // the block's own import declarations (KindStmts)
	body     string      // the rest: declarations or statements
	bodyLine int         // the document's line of body's first line
	decls    []string    // KindDecls: the package-level names declared
	own      []*ast.File // the parsed block, for its imports (nil when it does not parse)
}

// split classifies b and cuts its import declarations from the rest.
func split(b Block) part {
	p := part{b: b, body: b.Code, bodyLine: b.Line + 1}
	fset := token.NewFileSet()
	if f, err := parser.ParseFile(fset, "", b.Code, parser.PackageClauseOnly); err == nil {
		p.kind, p.pkg = KindFile, f.Name.Name
		return p
	}
	const head = "package p\n"
	if f, err := parser.ParseFile(fset, "", head+b.Code, parser.SkipObjectResolution); err == nil {
		p.kind, p.own = KindDecls, []*ast.File{f}
		for _, d := range f.Decls {
			p.decls = append(p.decls, declNames(d)...)
		}
		return p
	}
	if looksLikeDecls(b.Code) {
		// Declarations with a mistake: checked as declarations, so that the error is the one
		// the reader expects.
		p.kind = KindDecls
		p.own, _ = parseImports(head + b.Code)
		return p
	}
	p.kind = KindStmts
	f, err := parser.ParseFile(fset, "", head+b.Code, parser.ImportsOnly|parser.SkipObjectResolution)
	if err != nil || len(f.Decls) == 0 {
		return p
	}
	end := fset.Position(f.Decls[len(f.Decls)-1].End()).Offset - len(head)
	p.imports, p.body = b.Code[:end], b.Code[end:]
	p.bodyLine += strings.Count(p.imports, "\n")
	p.own = []*ast.File{f}
	return p
}

// looksLikeDecls reports whether code was meant as a file's declarations: it has a line that
// starts a function or a type at column 0, and every line at column 0 starts a declaration, a
// comment or the end of one.
func looksLikeDecls(code string) bool {
	decl := false
	for line := range strings.Lines(code) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		switch {
		case strings.HasPrefix(line, "func "), strings.HasPrefix(line, "type "):
			decl = true
		case strings.HasPrefix(line, "var "), strings.HasPrefix(line, "const "), strings.HasPrefix(line, "import "),
			strings.HasPrefix(line, "//"), strings.HasPrefix(line, "/*"), line[0] == '}', line[0] == ')':
		default:
			return false
		}
	}
	return decl
}

// parseImports returns the file src as far as its imports, when they parse.
func parseImports(src string) ([]*ast.File, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	return []*ast.File{f}, nil
}

// declNames returns the package-level names d declares; methods declare none.
func declNames(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			names = append(names, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
			}
		}
	}
	return names
}

// file makes the Go file of p. declared holds the document's package-level names, which no
// preamble declaration hides.
func (p part) file(declared ...map[string]bool) File {
	// A name without a directory: the //line directives' relative names are taken from the
	// file's directory.
	f := File{Block: p.b, Kind: p.kind, Name: fmt.Sprintf("block%d.go", p.b.Line)}
	if p.kind == KindFile {
		f.Src = lineDirective(p.b.File, p.b.Line+1) + p.b.Code + "\n"
		if own, err := parser.ParseFile(token.NewFileSet(), "", p.b.Code, parser.ImportsOnly); err == nil {
			f.Imports = importPaths(own)
		}
		return f
	}
	var preamble []string
	if p.kind == KindStmts {
		used := identifiers(p.text(nil))
		table := Preamble()
		for _, name := range slices.Sorted(maps.Keys(table)) {
			if used[name] && (len(declared) == 0 || !declared[0][name]) {
				preamble = append(preamble, table[name])
			}
		}
	}
	// The imports: the block's own, and those of the other packages it names. own holds the
	// paths and the names the block imports itself.
	own := map[string]bool{}
	for _, o := range p.own {
		for _, path := range importPaths(o) {
			own[path] = true
			f.Imports = append(f.Imports, path)
		}
		for _, s := range o.Imports {
			if s.Name != nil {
				own[s.Name.Name] = true
			} else if path, err := strconv.Unquote(s.Path.Value); err == nil {
				own[packageName(path)] = true
			}
		}
	}
	var auto []string
	for _, name := range slices.Sorted(maps.Keys(selectorBases(p.text(preamble)))) {
		path, ok := ImportPath(name)
		if !ok || own[path] || own[name] {
			continue
		}
		auto = append(auto, path)
	}
	f.Imports = append(f.Imports, auto...)
	f.Src = p.text(preamble, auto...)
	return f
}

// text is the Go source of p, with the preamble's declarations (statements only) and the
// imports.
func (p part) text(preamble []string, imports ...string) string {
	var sb strings.Builder
	sb.WriteString("package " + DocPackage + "\n\n")
	if len(imports) > 0 {
		sb.WriteString("import (\n")
		for _, path := range imports {
			sb.WriteString("\t" + strconv.Quote(path) + "\n")
		}
		sb.WriteString(")\n\n")
	}
	if p.kind == KindDecls {
		sb.WriteString(lineDirective(p.b.File, p.bodyLine) + p.body + "\n")
		return sb.String()
	}
	if p.imports != "" {
		sb.WriteString(lineDirective(p.b.File, p.b.Line+1) + p.imports + "\n")
	}
	// The block goes in a block of its own, inside the preamble's, so that it may declare
	// the preamble's names again.
	fmt.Fprintf(&sb, "\nfunc block%d() error {\n", p.b.Line)
	for _, d := range preamble {
		sb.WriteString("\t" + d + "\n")
	}
	sb.WriteString("\t{\n" + lineDirective(p.b.File, p.bodyLine) + p.body + "\n\t}\n\treturn nil\n}\n")
	return sb.String()
}

// lineDirective makes the lines after it the document's, from line on.
func lineDirective(file string, line int) string {
	return fmt.Sprintf("//line %s:%d:1\n", file, line)
}

// importPaths returns the paths f imports.
func importPaths(f *ast.File) []string {
	var paths []string
	for _, s := range f.Imports {
		if p, err := strconv.Unquote(s.Path.Value); err == nil {
			paths = append(paths, p)
		}
	}
	return paths
}

// selectorBases returns the names x of the selectors x.y in src, which may name packages.
// src need not parse whole: what parses is looked at.
func selectorBases(src string) map[string]bool {
	names := map[string]bool{}
	f, _ := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if f == nil {
		return names
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := s.X.(*ast.Ident); ok {
				names[id.Name] = true
			}
		}
		return true
	})
	return names
}

// identifiers returns every identifier of src.
func identifiers(src string) map[string]bool {
	names := map[string]bool{}
	f, _ := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if f == nil {
		return names
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			names[id.Name] = true
		}
		return true
	})
	return names
}
