package yamlconf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

const (
	maxErrors = 10      // errors reported at once; the rest are counted
	maxVisits = 1 << 18 // nodes visited, aliases expanded: bounds the work of a small file

	tooManyNodes = "too many nodes to read with aliases expanded (over 262144): the file repeats itself too much"
)

// A Reader reads one YAML document of a file, recording an Error for each thing wrong that
// its methods meet, and carrying on. It is not safe for concurrent use.
type Reader struct {
	file    string
	env     func(string) (string, bool)
	errs    []*Error
	visits  int                 // nodes visited, up to maxVisits
	walking map[*yaml.Node]bool // the mappings being read: a merge of one of them is a cycle
}

// NewReader returns a Reader for the file named file in errors, which expands variables with
// env (nil means os.LookupEnv).
func NewReader(file string, env func(string) (string, bool)) *Reader {
	if env == nil {
		env = os.LookupEnv
	}
	return &Reader{file: file, env: env}
}

// File returns the file's name, as errors give it.
func (r *Reader) File() string { return r.file }

// Pos returns where n is written: "file:line".
func (r *Reader) Pos(n *yaml.Node) string { return r.file + ":" + strconv.Itoa(n.Line) }

// Document parses data into the root node of its single YAML document: nil for a document
// that holds nothing (empty, or only comments), a null node for one that holds only null. Its error, a YAML syntax error or a second
// document, is returned at once and not recorded: nothing can be read after it.
func (r *Reader) Document(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc, next yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, r.syntaxError(err)
	}
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, r.syntaxError(err)
	default:
		return nil, &Error{File: r.file, Line: next.Line,
			Msg: "a second YAML document (after ---): put everything in one document"}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxError turns yaml's "yaml: line 3: msg" into "file:3: msg (YAML syntax)".
func (r *Reader) syntaxError(err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: r.file, Line: line, Msg: msg[len(m[0]):] + " (YAML syntax)"}
	}
	return &Error{File: r.file, Msg: strings.TrimPrefix(msg, "yaml: ") + " (YAML syntax)"}
}

// Errorf records an error at node n (nil: about the whole file) and key path.
func (r *Reader) Errorf(n *yaml.Node, path, format string, args ...any) {
	e := &Error{File: r.file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line = n.Line
	}
	r.errs = append(r.errs, e)
}

// Err returns the errors recorded, nil when there are none: one *Error, or several joined
// (errors.Join, one a line) in line order, without repeats, at most ten of them and then one
// that counts the rest. When the document made the Reader visit too many nodes, the errors
// recorded after that point say nothing useful: Err returns only the one that says so.
func (r *Reader) Err() error {
	if r.visits >= maxVisits {
		return &Error{File: r.file, Msg: tooManyNodes}
	}
	seen := map[string]bool{}
	var errs []error
	sort.SliceStable(r.errs, func(i, j int) bool { return r.errs[i].Line < r.errs[j].Line })
	for _, e := range r.errs {
		if msg := e.Error(); !seen[msg] {
			seen[msg] = true
			errs = append(errs, e)
		}
	}
	switch {
	case len(errs) == 0:
		return nil
	case len(errs) == 1:
		return errs[0]
	case len(errs) > maxErrors:
		more := &Error{File: r.file, Msg: fmt.Sprintf("and %d more errors", len(errs)-maxErrors)}
		errs = append(errs[:maxErrors], more)
	}
	return errors.Join(errs...)
}
