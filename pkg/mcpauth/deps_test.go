package mcpauth_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/depstest"
)

// The JWT libraries are linked only by programs that import this package: a program that serves
// or imports MCP tools with mcpbridge, and does not check bearer tokens, links none of them, nor
// this package; and this package links nothing of mcpbridge. (go list -deps without -test: the
// packages a program links, not its tests', which use both.)
func TestOnlyProgramsThatCheckTokensLinkJWT(t *testing.T) {
	t.Parallel()
	const cadre = "github.com/cadrehq/cadre/pkg/"
	jwt := []string{"github.com/golang-jwt/jwt", "github.com/MicahParks/jwkset", "github.com/MicahParks/keyfunc"}
	// found returns the packages of deps that are, or are under, any of the modules.
	found := func(deps map[string]bool, modules ...string) []string {
		var out []string
		for p := range deps {
			for _, m := range modules {
				if p == m || strings.HasPrefix(p, m+"/") {
					out = append(out, p)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	for _, pkg := range []string{cadre + "mcpbridge", cadre + "assistant"} {
		deps := depstest.Deps(t, pkg)
		if f := found(deps, jwt...); len(f) > 0 {
			t.Errorf("%s links %s", pkg, strings.Join(f, ", "))
		}
		if deps[cadre+"mcpauth"] {
			t.Errorf("%s links %smcpauth", pkg, cadre)
		}
	}
	// Nor the other way: checking tokens takes nothing of the bridge, nor of the assistants.
	deps := depstest.Deps(t, cadre+"mcpauth")
	for _, p := range []string{cadre + "mcpbridge", cadre + "assistant"} {
		if deps[p] {
			t.Errorf("mcpauth links %s", p)
		}
	}
	// The check itself works: this package links every one of them.
	for _, m := range jwt {
		if len(found(deps, m)) == 0 {
			t.Errorf("go list does not find %s among mcpauth's dependencies: the check above proves nothing", m)
		}
	}
}
