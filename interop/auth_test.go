package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/oauthtest"
)

// The official TypeScript client, with an access token of the server's issuer, uses
// examples/mcpserver run with -issuer as it uses it without: the whole session goes through,
// the chat continued. Without a token, or with one for another server, it cannot connect.
func TestTypeScriptClientWithAnAccessToken(t *testing.T) {
	t.Parallel()
	requireNode(t)
	iss := oauthtest.NewIssuer(t, oauthtest.NewKey(t, "k1"))
	url := serveWithIssuer(t, iss.URL)

	out, stderr, err := runClientWithToken(t, iss.Token(t, url, "ana", map[string]any{"tenant": "acme"}), session, "--http", url)
	if err != nil {
		t.Fatalf("node client.mjs with a token: %v\n%s", err, stderr)
	}
	var res struct {
		Server struct{ Name string } `json:"server"`
		Steps  []outcome             `json:"steps"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Server.Name != "cadre-mcpserver" || len(res.Steps) != len(session) {
		t.Fatalf("client.mjs wrote %s (%v)\n%s", out, err, stderr)
	}
	check(t, res.Steps)

	// The SDK's error quotes the body of the 401.
	for _, c := range []struct{ name, token, want string }{
		{"no token", "", `"error":"unauthorized"`},
		{"a token for another server", iss.Token(t, "https://other.example.com/mcp", "ana", map[string]any{"tenant": "acme"}), `"error":"invalid_token"`},
	} {
		_, stderr, err := runClientWithToken(t, c.token, session[:1], "--http", url)
		if err == nil || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: %v, want the client to fail with %s:\n%s", c.name, err, c.want, stderr)
		}
	}
}

// runClientWithToken runs client.mjs with token in MCP_ACCESS_TOKEN (none when ""), and returns
// its stdout, its stderr and how it exited.
func runClientWithToken(t *testing.T, token string, steps []step, args ...string) ([]byte, string, error) {
	t.Helper()
	in, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(testContext(t), "node", append([]string{"client.mjs"}, args...)...)
	cmd.Env = append(os.Environ(), "MCP_ACCESS_TOKEN="+token)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	return stdout.Bytes(), stderr.String(), err
}

// serveWithIssuer starts examples/mcpserver over HTTP on loopback, checking the tokens of
// issuer, and returns the URL it serves at; it is interrupted, and must stop cleanly, when the
// test ends.
func serveWithIssuer(t *testing.T, issuer string) string {
	t.Helper()
	srv := exec.Command(serverBinary(t), "-http", "127.0.0.1:0", "-issuer", issuer)
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	var log lockedBuffer
	urls, exited := make(chan string, 1), make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if m := urlLine.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		exited <- srv.Wait()
	}()
	t.Cleanup(func() {
		_ = srv.Process.Signal(os.Interrupt)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("the server exited with %v:\n%s", err, log.String())
			}
		case <-time.After(30 * time.Second):
			_ = srv.Process.Kill()
			t.Errorf("the server did not stop within 30s of an interrupt:\n%s", log.String())
		}
		t.Logf("the server's stderr:\n%s", log.String())
	})
	select {
	case url := <-urls:
		return url
	case err := <-exited:
		exited <- err // for the cleanup
		t.Fatalf("the server exited before serving: %v\n%s", err, log.String())
	case <-time.After(time.Minute):
		t.Fatalf("the server did not say where it serves within a minute:\n%s", log.String())
	}
	return ""
}
