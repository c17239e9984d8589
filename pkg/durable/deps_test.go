package durable_test

import (
	"os/exec"
	"strings"
	"testing"
)

// DBOS, and the PostgreSQL driver and cron scheduler it brings, are linked only by programs that
// import this package: the assistants and the factory do not depend on it, nor on DBOS.
func TestOnlyProgramsThatImportItLinkDBOS(t *testing.T) {
	t.Parallel()
	deps := func(args ...string) map[string]bool {
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
	const (
		cadre = "github.com/cadrehq/cadre/pkg/"
		dbos  = "github.com/dbos-inc/dbos-transact-golang"
	)
	for _, pkg := range []string{cadre + "assistant", cadre + "llmfactory", cadre + "model", cadre + "chat"} {
		for p := range deps(pkg) {
			if p == cadre+"durable" || strings.HasPrefix(p, dbos+"/") || strings.HasPrefix(p, "github.com/robfig/cron") {
				t.Errorf("%s depends on %s", pkg, p)
			}
		}
	}
	// The check itself works: this package does depend on DBOS.
	if !deps(cadre + "durable")[dbos+"/dbos"] {
		t.Errorf("go list does not find %s/dbos among durable's dependencies: the check above proves nothing", dbos)
	}
}
