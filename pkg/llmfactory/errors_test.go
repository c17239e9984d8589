package llmfactory_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/llmfactory"
)

// The first errors a newcomer meets each say what is wrong and what to do about it.
func TestNewcomerErrorsSayWhatToDo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	noEnv := llmfactory.WithEnv(func(string) (string, bool) { return "", false })
	const withKeyVar = "providers:\n" +
		"  openai:\n" +
		"    api_key: ${OPENAI_API_KEY}\n" +
		"models:\n" +
		"  fast: { provider: openai, model: gpt-5-mini }\n" +
		"default: fast\n"
	const typo = "providers:\n" +
		"  openai: { api_key: k }\n" +
		"models:\n" +
		"  fast: { provider: openai, model: gpt-5-mini }\n" +
		"  deep: { provider: openai, model: gpt-5 }\n" +
		"assistants:\n" +
		"  a: fastt\n"
	missing := filepath.Join(t.TempDir(), "llm.yaml")

	tests := []struct {
		name string
		err  func() error
		want []string // each in the message
	}{{
		name: "missing llm.yaml",
		err: func() error {
			_, err := llmfactory.Load(missing)
			return err
		},
		want: []string{missing + " does not exist", "copy llm.yaml.example", "set the API keys"},
	}, {
		name: "missing llm.yaml at a relative path says where it was looked for",
		err: func() error {
			_, err := llmfactory.Load(filepath.Join("no-such-dir", "llm.yaml"))
			return err
		},
		want: []string{"looked for " + string(filepath.Separator), "copy llm.yaml.example"},
	}, {
		name: "unset key: names the variable and the provider, and says to set it",
		err:  modelOf(withKeyVar, "fast"),
		want: []string{`provider "openai"`, "llm.yaml:2", "OPENAI_API_KEY is not set", "set it (export OPENAI_API_KEY=...)"},
	}, {
		name: "unset key, through Resolve",
		err: func() error {
			f, err := llmfactory.Parse([]byte(withKeyVar), noEnv)
			if err != nil {
				return err
			}
			_, err = f.Resolve(ctx, "writer")
			return err
		},
		want: []string{`provider "openai"`, "OPENAI_API_KEY", "set it"},
	}, {
		name: "typo of a model name in llm.yaml: the line, the key, and the models there are",
		err: func() error {
			_, err := llmfactory.Parse([]byte(typo))
			return err
		},
		want: []string{`llm.yaml:7: assistants.a: no model named "fastt"`, "(models: deep, fast)"},
	}, {
		name: "typo of a model name in code",
		err:  modelOf(withKeyVar, "fastt"),
		want: []string{`no model named "fastt" (models: fast)`, "use one of those names", `add "fastt" under models`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.err()
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not say %q", err, w)
				}
			}
		})
	}
}

// modelOf returns a function that parses doc, with no environment variable set, and returns
// the error of getting the model name from it.
func modelOf(doc, name string) func() error {
	return func() error {
		f, err := llmfactory.Parse([]byte(doc), llmfactory.WithEnv(func(string) (string, bool) { return "", false }))
		if err != nil {
			return err
		}
		_, err = f.Model(context.Background(), name)
		return err
	}
}

// Two unset variables are named together, so that one restart fixes both.
func TestNewcomerErrorNamesEveryUnsetVariable(t *testing.T) {
	t.Parallel()
	err := modelOf("providers:\n"+
		"  vllm: { type: openai, base_url: '${VLLM_URL}', api_key: '${VLLM_API_KEY}' }\n"+
		"models:\n"+
		"  served: { provider: vllm, model: m }\n", "served")()
	if err == nil || !strings.Contains(err.Error(), "VLLM_URL, VLLM_API_KEY are not set: set them") {
		t.Errorf("error %v, want one naming both variables and saying to set them", err)
	}
}
