package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// EqualOption tunes Equals.
type EqualOption func(*equality)

type equality struct {
	tolerances map[string]float64 // by path pattern
	unordered  []string           // path patterns of lists compared in any order; "*" for all
}

// Tolerance lets the numbers at the paths that match pattern differ from the expected ones by
// up to eps. A path names a value as field.field, a list's item by its index
// ("items.0.price"); a pattern matches it as path.Match does, "*" standing for one field or
// index ("items.*.price"); "**" matches every number.
func Tolerance(pattern string, eps float64) EqualOption {
	return func(e *equality) { e.tolerances[pattern] = eps }
}

// AnyOrder compares the lists at the paths that match the patterns (see Tolerance) as
// multisets: the same items in any order. With no pattern, every list.
func AnyOrder(patterns ...string) EqualOption {
	return func(e *equality) {
		if len(patterns) == 0 {
			patterns = []string{"**"}
		}
		e.unordered = append(e.unordered, patterns...)
	}
}

// Equals asserts that the output equals the case's expected output, compared as JSON values
// (as the output marshals): every field and item, numbers within the tolerances given. The
// reason names the first path that differs. A case without an expected output passes, said so.
func Equals[O any](opts ...EqualOption) Evaluator[O] {
	e := equality{tolerances: map[string]float64{}}
	for _, o := range opts {
		o(&e)
	}
	return Func("equals", func(_ context.Context, o *Observation[O]) (Grade, error) {
		if o.Expected == nil {
			return Passed("no expected output"), nil
		}
		got, err := asValue(o.Output)
		if err != nil {
			return Grade{}, fmt.Errorf("the output: %w", err)
		}
		want, err := asValue(*o.Expected)
		if err != nil {
			return Grade{}, fmt.Errorf("the expected output: %w", err)
		}
		if diff := e.diff("", want, got); diff != "" {
			return Failed(diff), nil
		}
		return Passed("equal to the expected output"), nil
	})
}

// asValue is v as encoding/json decodes its JSON, numbers as json.Number.
func asValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return asJSON(b)
}

func (e *equality) matches(patterns []string, p string) bool {
	for _, pat := range patterns {
		if pat == "**" {
			return true
		}
		if ok, _ := path.Match(strings.ReplaceAll(pat, ".", "/"), strings.ReplaceAll(p, ".", "/")); ok {
			return true
		}
	}
	return false
}

// diff says where got differs from want, below p; "" when they are equal.
func (e *equality) diff(p string, want, got any) string {
	where := p
	if where == "" {
		where = "the output"
	}
	switch w := want.(type) {
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return fmt.Sprintf("%s: want %s, got %s", where, w, show(got))
		}
		wf, _ := w.Float64()
		gf, _ := g.Float64()
		eps := 0.0
		for pat, t := range e.tolerances {
			if e.matches([]string{pat}, p) {
				eps = max(eps, t)
			}
		}
		if math.Abs(wf-gf) > eps {
			if eps > 0 {
				return fmt.Sprintf("%s: want %s ± %v, got %s", where, w, eps, g)
			}
			return fmt.Sprintf("%s: want %s, got %s", where, w, g)
		}
		return ""
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %s", where, show(got))
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if d := e.diff(join(p, k), w[k], g[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: want a list, got %s", where, show(got))
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s: want %d items, got %d", where, len(w), len(g))
		}
		if e.matches(e.unordered, p) {
			return e.multiset(p, w, g)
		}
		for i := range w {
			if d := e.diff(join(p, strconv.Itoa(i)), w[i], g[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if fmt.Sprint(want) != fmt.Sprint(got) || (want == nil) != (got == nil) {
		return fmt.Sprintf("%s: want %s, got %s", where, show(want), show(got))
	}
	return ""
}

// multiset says whether the items of got can be paired with those of want, each pair equal.
func (e *equality) multiset(p string, want, got []any) string {
	used := make([]bool, len(got))
	for i, w := range want {
		found := false
		for j, g := range got {
			if !used[j] && e.diff(join(p, strconv.Itoa(i)), w, g) == "" {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return fmt.Sprintf("%s: no item equal to %s (in any order)", p, show(w))
		}
	}
	return ""
}

func join(p, k string) string {
	if p == "" {
		return k
	}
	return p + "." + k
}

func show(v any) string {
	if v == nil {
		return "nothing"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Contains asserts that the answer's text (Result.Text: the output's JSON, or the text of a
// string output) contains s.
func Contains[O any](s string) Evaluator[O] {
	return Func("contains "+strconv.Quote(s), func(_ context.Context, o *Observation[O]) (Grade, error) {
		if strings.Contains(o.Result.Text, s) {
			return Passed("the answer contains " + strconv.Quote(s)), nil
		}
		return Failed("the answer does not contain " + strconv.Quote(s)), nil
	})
}

// Matches asserts that the answer's text (as for Contains) matches the regular expression
// expr. It panics when expr does not compile, as regexp.MustCompile does.
func Matches[O any](expr string) Evaluator[O] {
	re := regexp.MustCompile(expr)
	return Func("matches "+strconv.Quote(expr), func(_ context.Context, o *Observation[O]) (Grade, error) {
		if re.MatchString(o.Result.Text) {
			return Passed("the answer matches " + expr), nil
		}
		return Failed("the answer does not match " + expr), nil
	})
}

// MaxDuration asserts that the run took at most d.
func MaxDuration[O any](d time.Duration) Evaluator[O] {
	return Func("max duration", func(_ context.Context, o *Observation[O]) (Grade, error) {
		if o.Duration > d {
			return Failed(fmt.Sprintf("took %v, more than %v", o.Duration.Round(time.Millisecond), d)), nil
		}
		return Passed(fmt.Sprintf("took %v", o.Duration.Round(time.Millisecond))), nil
	})
}

// MaxTokens asserts that the run's tree used at most n tokens, input and output.
func MaxTokens[O any](n int) Evaluator[O] {
	return Func("max tokens", func(_ context.Context, o *Observation[O]) (Grade, error) {
		if t := o.Usage.Total.TotalTokens(); t > n {
			return Failed(fmt.Sprintf("used %d tokens, more than %d", t, n)), nil
		}
		return Passed(fmt.Sprintf("used %d tokens", o.Usage.Total.TotalTokens())), nil
	})
}

// MaxCost asserts that the run cost at most c, priced by WithPrices; a run with a model
// without a price fails, since its cost is not known.
func MaxCost[O any](c float64) Evaluator[O] {
	return Func("max cost", func(_ context.Context, o *Observation[O]) (Grade, error) {
		switch {
		case !o.CostKnown:
			return Failed("the cost is not known: a model of the run has no price (WithPrices)"), nil
		case o.Cost > c:
			return Failed(fmt.Sprintf("cost %.6f, more than %.6f", o.Cost, c)), nil
		}
		return Passed(fmt.Sprintf("cost %.6f", o.Cost)), nil
	})
}
