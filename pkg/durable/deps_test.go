package durable_test

import (
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/depstest"
)

// DBOS, and the PostgreSQL driver and cron scheduler it brings, are linked only by programs that
// import this package: the assistants and the factory do not depend on it, nor on DBOS.
func TestOnlyProgramsThatImportItLinkDBOS(t *testing.T) {
	t.Parallel()
	const (
		cadre = "github.com/cadrehq/cadre/pkg/"
		dbos  = "github.com/dbos-inc/dbos-transact-golang"
	)
	for _, pkg := range []string{cadre + "assistant", cadre + "llmfactory", cadre + "model", cadre + "chat"} {
		for p := range depstest.Deps(t, pkg) {
			if p == cadre+"durable" || strings.HasPrefix(p, dbos+"/") || strings.HasPrefix(p, "github.com/robfig/cron") {
				t.Errorf("%s depends on %s", pkg, p)
			}
		}
	}
	// The check itself works: this package does depend on DBOS.
	if !depstest.Deps(t, cadre+"durable")[dbos+"/dbos"] {
		t.Errorf("go list does not find %s/dbos among durable's dependencies: the check above proves nothing", dbos)
	}
}
