package ratelimit_test

import (
	"testing"

	"github.com/cadrehq/cadre/internal/depstest"
)

// LimitsFrom converts llm.yaml's limits without either package importing the other: a program
// that reads llm.yaml links nothing of the rate limits, nor of the packages that run
// assistants, and one that limits a model of its own links no provider client. Neither links
// Redis, which only redislimit brings.
func TestNeitherLinksTheOther(t *testing.T) {
	t.Parallel()
	const (
		cadre     = "github.com/cadrehq/cadre/pkg/"
		openai    = "github.com/tmc/langchaingo/llms/openai"
		anthropic = "github.com/tmc/langchaingo/llms/anthropic"
		redis     = "github.com/redis/go-redis/v9"
	)
	for pkg, never := range map[string][]string{
		cadre + "ratelimit":  {cadre + "llmfactory", openai, anthropic, redis},
		cadre + "llmfactory": {cadre + "ratelimit", cadre + "assistant", redis},
	} {
		deps := depstest.Deps(t, pkg)
		for _, p := range never {
			if deps[p] {
				t.Errorf("%s links %s", pkg, p)
			}
		}
	}
	// The check itself works: llmfactory links the provider clients, redislimit Redis.
	for pkg, p := range map[string]string{cadre + "llmfactory": openai, cadre + "ratelimit/redislimit": redis} {
		if !depstest.Deps(t, pkg)[p] {
			t.Errorf("go list does not find %s among %s's dependencies: the check above proves nothing", p, pkg)
		}
	}
}
