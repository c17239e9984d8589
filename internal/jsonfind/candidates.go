package jsonfind

import (
	"encoding/json"
	"iter"
	"strings"
)

// Candidates yields the JSON values in a model's answer, most likely first: the whole answer,
// the fenced code blocks that hold JSON, then each object or array in the surrounding prose (a
// citation like "[1]" may come before the answer), found in time linear in the answer's
// length (see Values). Within a whole answer that is an object or an array, the
// values it holds are candidates too: an answer may wrap the one meant.
func Candidates(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		s := strings.TrimSpace(text)
		if s == "" {
			return
		}
		prose := s
		if json.Valid([]byte(s)) {
			if !yield(s) {
				return
			}
			if s[0] == '{' || s[0] == '[' {
				prose = s[1:]
			}
		}
		for rest := s; ; {
			_, fenced, ok := strings.Cut(rest, "```")
			if !ok {
				break
			}
			_, body, ok := strings.Cut(fenced, "\n") // after the fence's info string
			if !ok {
				break
			}
			block, after, closed := strings.Cut(body, "```") // a block left open ends the answer
			if block = strings.TrimSpace(block); block != "" && json.Valid([]byte(block)) {
				if !yield(block) {
					return
				}
			}
			if !closed {
				break
			}
			rest = after
		}
		for v := range Values(prose) {
			if !yield(v) {
				return
			}
		}
	}
}
