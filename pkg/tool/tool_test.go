package tool_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/tool"
)

func TestValidName(t *testing.T) {
	t.Parallel()
	valid := []string{"a", "Z", "7", "get_weather", "get-weather", "GetWeather2", "_", "-", strings.Repeat("x", 64)}
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

func TestIsObjectType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[weatherArgs](), true},
		{reflect.TypeFor[*weatherArgs](), true},
		{reflect.TypeFor[map[string]int](), true},
		{reflect.TypeFor[map[string]any](), true},
		{reflect.TypeFor[string](), false},
		{reflect.TypeFor[int](), false},
		{reflect.TypeFor[[]weatherArgs](), false},
		{reflect.TypeFor[any](), false},
		{reflect.TypeFor[time.Time](), false}, // a struct whose JSON is a string
		{reflect.TypeFor[*time.Time](), false},
	}
	for _, tt := range tests {
		if got := tool.IsObjectType(tt.t); got != tt.want {
			t.Errorf("IsObjectType(%v) = %t, want %t", tt.t, got, tt.want)
		}
	}
}
