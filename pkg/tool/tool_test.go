package tool_test

import (
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/tool"
)

func TestValidName(t *testing.T) {
	t.Parallel()
	valid := []string{"a", "z", "A", "Z", "0", "9", "7", "get_weather", "get-weather", "GetWeather2", "_", "-", strings.Repeat("x", 64)}
	for _, name := range valid {
		if err := tool.ValidName(name); err != nil {
			t.Errorf("ValidName(%q) = %v, want nil", name, err)
		}
	}
	invalid := []struct {
		name string
		want string // in the error
	}{
		{"", "empty"},
		{strings.Repeat("x", 65), "64"},
		{"get weather", `"get weather"`},
		{"get.weather", `'.'`},
		{"a/b", `'/'`},
		{"météo", `"météo"`},
		{"tab\t", `'\t'`},
		// The characters just outside each allowed range.
		{"a`", "'`'"}, {"a{", `'{'`}, {"a@", `'@'`}, {"a[", `'['`}, {"a:", `':'`},
	}
	for _, tt := range invalid {
		err := tool.ValidName(tt.name)
		if err == nil {
			t.Errorf("ValidName(%q) = nil, want an error", tt.name)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ValidName(%q) = %q, want it to mention %s", tt.name, err, tt.want)
		}
	}
}

// The error for a name a model API would reject offers one it accepts: each character it
// cannot hold replaced by '_'.
func TestValidNameSuggestsAName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"get weather": `"get_weather"`,
		"météo":       `"m_t_o"`,
		"a.b/c":       `"a_b_c"`,
	} {
		err := tool.ValidName(name)
		if err == nil || !strings.Contains(err.Error(), "e.g. "+want) {
			t.Errorf("ValidName(%q) = %v, want it to suggest %s", name, err, want)
		}
	}
}
