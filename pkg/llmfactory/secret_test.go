package llmfactory

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const testKey = "sk-live-0123456789abcdef"

// clientConfig is how a user might hold a key: in an exported field.
type clientConfig struct {
	Name string
	Key  Secret
}

func TestSecretFormat(t *testing.T) {
	t.Parallel()
	s := Secret(testKey)
	tests := []struct {
		format string
		arg    any
		want   string
	}{
		{"%v", s, "[redacted]"},
		{"%s", s, "[redacted]"},
		{"%q", s, `"[redacted]"`},
		{"%#v", s, `"[redacted]"`},
		{"%+v", s, "[redacted]"},
		{"%x", s, "[redacted]"},
		{"%X", s, "[redacted]"},
		{"%d", s, "[redacted]"},
		{"%40s", s, "[redacted]"},
		{"%.3s", s, "[redacted]"},
		{"%v", &s, "[redacted]"},
		{"%v", []Secret{s, ""}, "[[redacted] ]"},
		{"%v", map[string]Secret{"k": s}, "map[k:[redacted]]"},
		{"%+v", clientConfig{"openai", s}, "{Name:openai Key:[redacted]}"},
		{"%v", &clientConfig{"openai", s}, "&{openai [redacted]}"},
		{"%#v", clientConfig{"openai", s}, `llmfactory.clientConfig{Name:"openai", Key:"[redacted]"}`},
		{"%v", Secret(""), ""},
		{"%q", Secret(""), `""`},
		{"%#v", Secret(""), `""`},
	}
	for _, tc := range tests {
		got := fmt.Sprintf(tc.format, tc.arg)
		if got != tc.want {
			t.Errorf("Sprintf(%q, %T) = %s; want %s", tc.format, tc.arg, got, tc.want)
		}
	}
	if got := fmt.Sprint(s) + fmt.Sprintln(s) + s.String() + s.GoString(); strings.Contains(got, testKey) {
		t.Errorf("Sprint, String or GoString shows the key: %s", got)
	}
	if err := fmt.Errorf("calling openai with %v: %w", s, errors.New("refused")); strings.Contains(err.Error(), testKey) {
		t.Errorf("an error shows the key: %v", err)
	}
}

func TestSecretReveal(t *testing.T) {
	t.Parallel()
	if got := Secret(testKey).Reveal(); got != testKey {
		t.Errorf("Reveal() = %q; want the key", got)
	}
}

func TestSecretSlog(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		new  func(*bytes.Buffer) slog.Handler
		want []string
	}{
		{"json", func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
			[]string{`"key":"[redacted]"`, `"config":{"Name":"openai","Key":"[redacted]"}`, `"empty":""`}},
		{"text", func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
			[]string{`key=[redacted]`, `config="{Name:openai Key:[redacted]}"`, `empty=""`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			logger := slog.New(tc.new(&buf))
			s := Secret(testKey)
			logger.Info("ready", "key", s, "config", clientConfig{"openai", s}, "empty", Secret(""))
			logger.With("key", s).Info("again", slog.Any("ptr", &s), slog.Group("g", "key", s))
			out := buf.String()
			if strings.Contains(out, testKey) {
				t.Errorf("log shows the key:\n%s", out)
			}
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("log\n%s\ndoes not contain %s", out, want)
				}
			}
		})
	}
}

func TestSecretEncoders(t *testing.T) {
	t.Parallel()
	s := Secret(testKey)
	cfg := clientConfig{"openai", s}
	tests := []struct {
		name string
		enc  func() ([]byte, error)
		want string
	}{
		{"json", func() ([]byte, error) { return json.Marshal(s) }, `"[redacted]"`},
		{"json struct", func() ([]byte, error) { return json.Marshal(cfg) }, `{"Name":"openai","Key":"[redacted]"}`},
		{"json map", func() ([]byte, error) { return json.Marshal(map[string]any{"k": s, "e": Secret("")}) }, `{"e":"","k":"[redacted]"}`},
		{"text", func() ([]byte, error) { return s.MarshalText() }, `[redacted]`},
		{"xml", func() ([]byte, error) { return xml.Marshal(cfg) }, `<clientConfig><Name>openai</Name><Key>[redacted]</Key></clientConfig>`},
		{"yaml", func() ([]byte, error) { return yaml.Marshal(cfg) }, "name: openai\nkey: '[redacted]'\n"},
	}
	for _, tc := range tests {
		got, err := tc.enc()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%s: %s; want %s", tc.name, got, tc.want)
		}
	}
}
