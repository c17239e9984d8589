package yamlconf

import (
	"fmt"
	"slices"
	"strings"
)

// Expand replaces ${NAME} and ${NAME:-default} in s with values from env, and $$ with a
// literal $. A $ followed by anything else is kept as written.
//
// ${NAME:-default} gives the default when NAME is unset or empty; the default is taken as
// written, up to the first }. ${NAME} of an unset NAME expands to "" and NAME is returned in
// missing (once), for the caller to report. err describes a malformed ${...}; it quotes the
// file's text, never a variable's value.
func Expand(s string, env func(string) (string, bool)) (out string, missing []string, err error) {
	if !strings.Contains(s, "$") {
		return s, nil, nil
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 {
			b.WriteString(s)
			return b.String(), missing, nil
		}
		b.WriteString(s[:i])
		s = s[i:]
		switch {
		case strings.HasPrefix(s, "$$"):
			b.WriteByte('$')
			s = s[2:]
		case strings.HasPrefix(s, "${"):
			end := strings.IndexByte(s, '}')
			if end < 0 {
				return "", nil, fmt.Errorf("%s has no closing }: write ${NAME} or ${NAME:-default} ($$ for a literal $)", Clip(s))
			}
			name, def, hasDef := strings.Cut(s[2:end], ":-")
			if err := checkVarName(s[:end+1], name); err != nil {
				return "", nil, err
			}
			if hasDef && strings.Contains(def, "${") {
				return "", nil, fmt.Errorf("%s: a default cannot hold another ${...}", Clip(s[:end+1]))
			}
			v, ok := env(name)
			switch {
			case ok && (v != "" || !hasDef):
				b.WriteString(v)
			case hasDef:
				b.WriteString(def)
			case !slices.Contains(missing, name):
				missing = append(missing, name)
			}
			s = s[end+1:]
		default:
			b.WriteByte('$')
			s = s[1:]
		}
	}
}

// checkVarName reports whether name, from the reference ref, is a variable name: letters,
// digits and _, not starting with a digit.
func checkVarName(ref, name string) error {
	ok := name != ""
	for i, c := range name {
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			ok = false
			break
		}
	}
	if ok {
		return nil
	}
	if name == "" {
		return fmt.Errorf("%s names no variable: write ${NAME} or ${NAME:-default}", Clip(ref))
	}
	return fmt.Errorf("%s: %s is not a variable name (letters, digits and _, not starting with a digit); write ${NAME} or ${NAME:-default}", Clip(ref), Clip(name))
}

// clip shortens the file's text quoted in an error.
func Clip(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "..."
}
