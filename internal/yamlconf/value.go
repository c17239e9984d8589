package yamlconf

import (
	"errors"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// State says how a scalar value was found.
type State int

const (
	Absent  State = iota // null, or empty after expansion: as if it were not written
	Present              // the Value holds it
	Skipped              // an error was recorded, or an unset variable deferred it
)

// Value is a scalar of the file, its variables expanded, as a Reader's methods read it further.
type Value struct {
	Text string     // expanded
	Node *yaml.Node // as written (an alias keeps the line where it is used); nil for a default
	Path string     // its key path, for errors
	raw  string     // as written in the file, never holding a variable's value
}

// Quoted is the value for an error message: quoted as written in the file when it refers to
// variables (`the value of "${T}"`), since an error must not show a variable's value; quoted
// when it does not; and as it is when it is not in the file (a Value made by the caller to
// name a default, such as "10s (the default)").
func (v Value) Quoted() string {
	if v.Node == nil {
		return v.Text
	}
	if strings.Contains(v.raw, "${") {
		return "the value of " + strconv.Quote(Clip(v.raw))
	}
	return strconv.Quote(Clip(v.Text))
}

// Text reads the scalar n, at key path path, expanding its variables (see Expand).
//
// A variable that is unset and has no default either defers the value or is an error: when
// missing is not nil, its name is added to *missing (once) and the value is Skipped without an
// error, for the caller to report when the value is needed; when missing is nil, it is an
// error now. A value that is not a scalar, or a malformed ${...}, is an error and Skipped; a
// null, or a value empty after expansion, is Absent.
func (r *Reader) Text(n *yaml.Node, path string, missing *[]string) (Value, State) {
	s := r.Resolve(n)
	switch {
	case s == nil:
		return Value{}, Skipped
	case s.Kind != yaml.ScalarNode:
		r.Errorf(n, path, "expected a single value, found %s", Describe(s))
		return Value{}, Skipped
	case IsNull(s):
		return Value{}, Absent
	}
	out, unset, err := Expand(s.Value, r.env)
	if err != nil {
		r.Errorf(n, path, "%v", err)
		return Value{}, Skipped
	}
	if len(unset) > 0 {
		if missing == nil {
			r.Errorf(n, path, "environment variable %s is not set: set it, or give a default as in ${%s:-...}",
				strings.Join(unset, ", "), unset[0])
			return Value{}, Skipped
		}
		for _, name := range unset {
			if !slices.Contains(*missing, name) {
				*missing = append(*missing, name)
			}
		}
		return Value{}, Skipped
	}
	if out == "" {
		return Value{}, Absent
	}
	return Value{Text: out, Node: n, Path: path, raw: s.Value}, Present
}

// Texts reads a list of scalars, or a single scalar as a list of one, as Text reads each.
// Items that are not Present are left out.
func (r *Reader) Texts(n *yaml.Node, path string, missing *[]string) []string {
	s := r.Resolve(n)
	if s == nil {
		return nil
	}
	var out []string
	for _, item := range items(n, s) {
		if v, st := r.Text(item, path, missing); st == Present {
			out = append(out, v.Text)
		}
	}
	return out
}

// Duration parses v as a duration of more than 0 and at most hi (60s, 2m, 1m30s); 0 after
// recording an error.
func (r *Reader) Duration(v Value, hi time.Duration) time.Duration {
	d, err := time.ParseDuration(v.Text)
	switch {
	case err != nil:
		r.Errorf(v.Node, v.Path, "%s is not a duration (write e.g. 60s or 2m)", v.Quoted())
	case d <= 0:
		r.Errorf(v.Node, v.Path, "%s: must be more than 0", v.Quoted())
	case d > hi:
		r.Errorf(v.Node, v.Path, "%s is out of range (more than 0, at most %s)", v.Quoted(), hi)
	default:
		return d
	}
	return 0
}

// Number parses v as a number from lo to hi; nil after recording an error.
func (r *Reader) Number(v Value, lo, hi float64) *float64 {
	f, err := strconv.ParseFloat(v.Text, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		r.Errorf(v.Node, v.Path, "%s is not a number (write e.g. %v)", v.Quoted(), (lo+hi)/2)
	case err != nil || !(f >= lo && f <= hi): // NaN fails both comparisons
		r.Errorf(v.Node, v.Path, "%s is out of range (%v to %v)", v.Quoted(), lo, hi)
	default:
		return &f
	}
	return nil
}

// Integer parses v as a whole number from lo to hi (math.MaxInt for no bound); nil after
// recording an error. example is one to suggest in the error.
func (r *Reader) Integer(v Value, lo, hi int, example string) *int {
	i, err := strconv.Atoi(v.Text)
	switch {
	case errors.Is(err, strconv.ErrRange):
		r.Errorf(v.Node, v.Path, "%s is out of range", v.Quoted())
	case err != nil:
		r.Errorf(v.Node, v.Path, "%s is not a whole number (write e.g. %s)", v.Quoted(), example)
	case i < lo && hi == math.MaxInt:
		r.Errorf(v.Node, v.Path, "%s: must be at least %d", v.Quoted(), lo)
	case i < lo || i > hi:
		r.Errorf(v.Node, v.Path, "%s is out of range (%d to %d)", v.Quoted(), lo, hi)
	default:
		return &i
	}
	return nil
}

// Bool parses v as true or false, in any case; false after recording an error.
func (r *Reader) Bool(v Value) bool {
	switch strings.ToLower(v.Text) {
	case "true":
		return true
	case "false":
		return false
	}
	r.Errorf(v.Node, v.Path, "%s is not true or false", v.Quoted())
	return false
}

// URL reports whether v is an absolute http or https URL, recording an error if not.
func (r *Reader) URL(v Value) bool {
	u, err := url.Parse(v.Text)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return true
	}
	r.Errorf(v.Node, v.Path, "%s is not an absolute http(s) URL (write e.g. http://localhost:8000/v1)", v.Quoted())
	return false
}
