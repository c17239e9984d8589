package evaltest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/eval"
	"github.com/cadrehq/cadre/pkg/eval/evaltest"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/tmc/langchaingo/llms"
)

// childEnv marks the process a child: only then do the TestChild tests run, each an eval that
// a test of this file runs in a child process to see it pass or fail as `go test` would.
const childEnv = "CADRE_EVALTEST_CHILD"

func child(t *testing.T) {
	t.Helper()
	if os.Getenv(childEnv) != "1" {
		t.Skip("run in a child process by the tests of evaltest")
	}
}

// capital is an assistant that answers each prompt with answer's word for it; its n-th answer
// to a prompt (from 0) is answer(prompt, n).
func capital(answer func(prompt string, n int) string) *assistant.Assistant[string] {
	var mu sync.Mutex
	asked := map[string]int{}
	m := llmtest.NewFunc(func(_ context.Context, req llmtest.Request) llmtest.Reply {
		prompt := req.Messages[len(req.Messages)-1].Parts[0].(llms.TextContent).Text
		mu.Lock()
		n := asked[prompt]
		asked[prompt]++
		mu.Unlock()
		return llmtest.Text(answer(prompt, n))
	})
	return assistant.New[string]("capital", assistant.WithModel(m))
}

func countries(cases ...string) *eval.Dataset[string, string] {
	capitals := map[string]string{"Norway": "Oslo", "Peru": "Lima", "Chile": "Santiago"}
	d := &eval.Dataset[string, string]{Name: "capitals", Evaluators: []eval.Evaluator[string]{eval.Equals[string]()}}
	for _, c := range cases {
		want := capitals[c]
		d.Cases = append(d.Cases, eval.Case[string, string]{Name: strings.ToLower(c), Input: c, Expected: &want})
	}
	return d
}

// knows answers Norway and Chile right, Peru wrong.
func knows(prompt string, _ int) string {
	if prompt == "Peru" {
		return "Cusco"
	}
	return map[string]string{"Norway": "Oslo", "Chile": "Santiago"}[prompt]
}

func TestChildFailsACase(t *testing.T) {
	child(t)
	evaltest.Run(t, countries("Norway", "Peru"), capital(knows), evaltest.With(eval.WithRepeat(2)))
}

func TestChildPassesAtItsRate(t *testing.T) {
	child(t)
	// Chile's answers alternate: one run of two passes, at the case's minimum.
	flaky := func(prompt string, n int) string {
		if prompt == "Chile" && n%2 == 1 {
			return "Valparaíso"
		}
		return knows(prompt, n)
	}
	evaltest.Run(t, countries("Norway", "Chile"), capital(flaky), evaltest.CaseMinPassRate(0.5),
		evaltest.With(eval.WithRepeat(2)))
}

func TestChildFailsTheEval(t *testing.T) {
	child(t)
	// Every case is at its minimum of 0; the eval as a whole, 2 of 3 runs, is under 90 %.
	evaltest.Run(t, countries("Norway", "Peru", "Chile"), capital(knows), evaltest.CaseMinPassRate(0), evaltest.MinPassRate(0.9))
}

// runChild runs the test named name of this package in a child process, as go test would, and
// returns its output and whether it passed.
func runChild(t *testing.T, name string) (string, bool) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running %s: %v", name, err)
	}
	return string(out), err == nil
}

// TestRunFailsACaseUnderItsRate: a case with a failed run fails its subtest — with the reason
// its grade gave — and the test; the case that passed passes.
func TestRunFailsACaseUnderItsRate(t *testing.T) {
	t.Parallel()
	out, passed := runChild(t, "TestChildFailsACase")
	if passed {
		t.Fatalf("the eval passed with a case under its rate:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestChildFailsACase/peru",
		"0 of 2 runs passed (0%), under the case's minimum of 100%",
		`run 1: equals: the output: want "Lima", got "Cusco"`,
		"--- PASS: TestChildFailsACase/norway",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
}

// TestRunPassesACaseAtItsRate: a case that reaches CaseMinPassRate passes, though a run of it
// failed, and the test passes.
func TestRunPassesACaseAtItsRate(t *testing.T) {
	t.Parallel()
	out, passed := runChild(t, "TestChildPassesAtItsRate")
	if !passed || !strings.Contains(out, "--- PASS: TestChildPassesAtItsRate/chile") || !strings.Contains(out, "1 of 2 runs passed (50%), at least the case's minimum of 50%") {
		t.Errorf("the eval at its case's rate: passed %v:\n%s", passed, out)
	}
}

// TestRunFailsTheEvalUnderItsRate: MinPassRate fails the test when the eval as a whole is
// under it, though every case passes.
func TestRunFailsTheEvalUnderItsRate(t *testing.T) {
	t.Parallel()
	out, passed := runChild(t, "TestChildFailsTheEval")
	if passed || !strings.Contains(out, "the eval's pass rate 67% is under its minimum of 90%") || strings.Contains(out, "--- FAIL: TestChildFailsTheEval/") {
		t.Errorf("the eval under its rate: passed %v:\n%s", passed, out)
	}
}

func TestLive(t *testing.T) {
	t.Setenv(evaltest.LiveEnv, "1")
	if !evaltest.Live() {
		t.Error("Live() is false with CADRE_LIVE=1")
	}
	t.Setenv(evaltest.LiveEnv, "")
	if evaltest.Live() {
		t.Error("Live() is true without CADRE_LIVE")
	}
}

// TestGoTestExitsNonZero: `go test` itself, run on a package whose eval has a case under its
// rate, exits with status 1 and says which case failed — what CI reads.
func TestGoTestExitsNonZero(t *testing.T) {
	t.Parallel()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	cmd := exec.CommandContext(t.Context(), goCmd, "test", "-count=1", "-run", "^TestChildFailsACase$", ".")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("go test: %v; want exit status 1:\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- FAIL: TestChildFailsACase/peru") {
		t.Errorf("go test's output does not name the failing case:\n%s", out)
	}
}
