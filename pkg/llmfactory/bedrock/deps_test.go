package bedrock_test

import (
	"strings"
	"testing"

	"github.com/cadrehq/cadre/internal/depstest"
)

// The AWS SDK is linked only by programs that import this package: the factory and the
// assistants do not depend on it.
func TestOnlyThisPackageLinksTheAWSSDK(t *testing.T) {
	t.Parallel()
	deps := func(pkg string) []string {
		t.Helper()
		var aws []string
		for p := range depstest.Deps(t, pkg) {
			if strings.HasPrefix(p, "github.com/aws/") {
				aws = append(aws, p)
			}
		}
		return aws
	}
	const cadre = "github.com/cadrehq/cadre/pkg/"
	for _, pkg := range []string{cadre + "llmfactory", cadre + "assistant", cadre + "model"} {
		if aws := deps(pkg); len(aws) > 0 {
			t.Errorf("%s depends on the AWS SDK: %s", pkg, strings.Join(aws, ", "))
		}
	}
	// The check itself works: this package does depend on it.
	if aws := deps(cadre + "llmfactory/bedrock"); len(aws) == 0 {
		t.Error("go list finds no AWS package under pkg/llmfactory/bedrock: the check above proves nothing")
	}
}
