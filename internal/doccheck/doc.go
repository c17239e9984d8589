// Package doccheck keeps the Go code of cadre's documentation compiling. Its test reads
// README.md and docs/*.md, makes a Go file of every ```go block, type-checks the files of each
// document together against the module's packages, and fails with the document, the block's
// line and the compiler's error at its line in the document.
//
// A block is one of three kinds:
//
//   - a whole file, when it has a package clause: checked as it is, as a package of its own;
//   - declarations (types, functions, vars, consts, with imports or not), when it parses as a
//     file's body, or was meant as one (see [KindDecls]): they go into the document's package,
//     so that a later block of the same document may use them;
//   - statements, otherwise: wrapped in a function returning error, which declares the names
//     of [Preamble] the block uses (ctx, llm, factory, ...) and the document does not.
//
// A block needs no import declaration: the imports are worked out from the package names it
// uses ([ImportPath]). A variable a block declares and does not use is not an error, since a
// fragment often ends with one. Output, shell commands and YAML go in blocks of another
// language; a Go block that cannot be compiled alone follows a line `<!-- not compiled -->`.
//
// Blocks are type-checked with go/types, against the export data that `go list -export`
// builds (and the build cache keeps), so the check takes well under a second once the
// module's packages are built.
package doccheck
