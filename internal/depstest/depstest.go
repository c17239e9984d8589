// Package depstest tells tests which packages a package links, so that a subpackage can check
// that what it brings (an SDK, a driver) is linked only by the programs that import it.
package depstest

import (
	"os/exec"
	"strings"
	"testing"
)

// Deps returns the packages that go list -deps gives for args: the packages named and all
// they depend on.
func Deps(t testing.TB, args ...string) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", strings.Join(args, " "), err)
	}
	found := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		found[p] = true
	}
	return found
}
