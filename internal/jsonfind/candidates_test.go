package jsonfind

import (
	"slices"
	"testing"
)

// TestCandidatesMostLikelyFirst: the whole answer first, with the values it holds; then the
// fenced blocks that hold JSON; then each value in the prose.
func TestCandidatesMostLikelyFirst(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want []string
	}{
		{` {"a":[1]} `, []string{`{"a":[1]}`, `[1]`}},
		{"See [1].\n```json\n{\"a\":1}\n```\nor {\"b\":2}", []string{`{"a":1}`, `[1]`, `{"a":1}`, `{"b":2}`}},
		{"```\nnot json\n```", nil},
		{"   ", nil},
	} {
		if got := slices.Collect(Candidates(tc.text)); !slices.Equal(got, tc.want) {
			t.Errorf("Candidates(%q) = %q; want %q", tc.text, got, tc.want)
		}
	}
}
