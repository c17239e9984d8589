package soak

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/providertest"
)

// The fake OpenAI API runs in a process of its own, as a provider would: the heap and the
// goroutines measured are then the client's alone, and the two ends of 10,000 connections do
// not share one process's file descriptors.

// fakeAPI is the process serving the fake OpenAI API.
type fakeAPI struct {
	url    string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	out    *bufio.Scanner
}

// startFakeOpenAI starts the test binary again as TestFakeOpenAIProcess, which serves
// roundModel's answers, and returns once it serves. The process ends when stop closes its
// stdin, or when ctx is done.
func startFakeOpenAI(ctx context.Context, t *testing.T) *fakeAPI {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestFakeOpenAIProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CADRE_SOAK_FAKE_OPENAI=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	api := &fakeAPI{cmd: cmd, stdin: stdin, stdout: stdout, out: bufio.NewScanner(stdout)}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() }) // when the test ends before stop
	url, ok := api.line("url ")
	if !ok {
		t.Fatal("the fake OpenAI API's process ended before it served")
	}
	api.url = url
	return api
}

// line returns the rest of the next line of the process's stdout that starts with prefix.
func (api *fakeAPI) line(prefix string) (string, bool) {
	for api.out.Scan() {
		if rest, ok := strings.CutPrefix(api.out.Text(), prefix); ok {
			return rest, true
		}
	}
	return "", false
}

// stop ends the process and returns how many HTTP requests it received.
func (api *fakeAPI) stop(t *testing.T) int {
	t.Helper()
	api.stdin.Close()
	n, ok := api.line("attempts ")
	attempts, err := strconv.Atoi(n)
	if !ok || err != nil {
		t.Errorf("the fake OpenAI API's process did not say how many requests it received (%q)", n)
	}
	io.Copy(io.Discard, api.stdout) // before Wait, which closes the pipe
	if err := api.cmd.Wait(); err != nil {
		t.Errorf("the fake OpenAI API's process: %v", err)
	}
	return attempts
}

// TestFakeOpenAIProcess serves the fake OpenAI API when startFakeOpenAI starts it; otherwise it
// does nothing. It prints "url URL" once it serves, and "attempts N" once its stdin ends.
func TestFakeOpenAIProcess(t *testing.T) {
	if os.Getenv("CADRE_SOAK_FAKE_OPENAI") != "1" {
		return
	}
	srv := providertest.NewOpenAI(roundModel())
	defer srv.Close()
	fmt.Println("url", srv.URL())
	io.Copy(io.Discard, os.Stdin)
	fmt.Println("attempts", srv.Attempts())
}
