package yamlconf_test

import (
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/yamlconf"
	"github.com/google/go-cmp/cmp"
)

func TestExpand(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"KEY": "sk-1", "EMPTY": "", "PORT": "8000", "_x1": "y"})
	tests := []struct {
		in, want string
		missing  []string
	}{
		{in: "plain", want: "plain"},
		{in: "", want: ""},
		{in: "${KEY}", want: "sk-1"},
		{in: "Bearer ${KEY}!", want: "Bearer sk-1!"},
		{in: "${_x1}", want: "y"},
		{in: "http://h:${PORT}/v1", want: "http://h:8000/v1"},
		{in: "${PORT:-9}", want: "8000"},
		{in: "${UNSET:-30s}", want: "30s"},
		{in: "${UNSET:-}", want: ""},
		{in: "${UNSET:-a b:c-d}", want: "a b:c-d"},
		{in: "${EMPTY}", want: ""},                   // set, empty: its value
		{in: "${EMPTY:-fallback}", want: "fallback"}, // :- covers empty too
		{in: "${UNSET}", want: "", missing: []string{"UNSET"}},
		{in: "${A}/${B}/${A}", want: "//", missing: []string{"A", "B"}},
		{in: "$$", want: "$"},
		{in: "$${KEY}", want: "${KEY}"},
		{in: "a$$$${KEY}", want: "a$${KEY}"},
		{in: "$$${KEY}", want: "$sk-1"},
		{in: "cost: $5", want: "cost: $5"},
		{in: "$", want: "$"},
		{in: "trailing $", want: "trailing $"},
		{in: "${KEY}${KEY}", want: "sk-1sk-1"},
		{in: "${UNSET:-$$}", want: "$$"}, // a default is taken as written
	}
	for _, tc := range tests {
		got, missing, err := yamlconf.Expand(tc.in, env)
		if err != nil {
			t.Errorf("Expand(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want || !cmp.Equal(missing, tc.missing) {
			t.Errorf("Expand(%q) = %q, missing %v; want %q, missing %v", tc.in, got, missing, tc.want, tc.missing)
		}
	}
}

func TestExpandMalformed(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"KEY": "sk-secret"})
	tests := []struct{ in, want string }{
		{"${KEY", "${KEY has no closing }"},
		{"${", "${ has no closing }"},
		{"${}", "${} names no variable"},
		{"${:-x}", "${:-x} names no variable"},
		{"${1KEY}", "1KEY is not a variable name"},
		{"${KEY-x}", "KEY-x is not a variable name"},
		{"${KEY:?required}", "KEY:?required is not a variable name"},
		{"${ KEY }", " KEY  is not a variable name"},
		{"${KEY:-${OTHER}}", "a default cannot hold another ${...}"},
		{"ok ${KEY} then ${BAD NAME}", "BAD NAME is not a variable name"},
	}
	for _, tc := range tests {
		_, _, err := yamlconf.Expand(tc.in, env)
		if err == nil {
			t.Errorf("Expand(%q): no error", tc.in)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Expand(%q) error %q; want it to contain %q", tc.in, err, tc.want)
		}
		if strings.Contains(err.Error(), "sk-secret") {
			t.Errorf("Expand(%q) error %q shows a variable's value", tc.in, err)
		}
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 40) // 80 bytes
	got := yamlconf.Clip(long)
	if !strings.HasSuffix(got, "...") || len(got) > 63 || !strings.HasPrefix(long, strings.TrimSuffix(got, "...")) {
		t.Errorf("Clip(80 bytes) = %q", got)
	}
	if got := yamlconf.Clip("short"); got != "short" {
		t.Errorf("Clip(short) = %q", got)
	}
}
