package postgresstore_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cadrehq/cadre/internal/pgtest"
	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/chat/postgresstore"
)

// takerSchema names the environment variable that makes this test binary a taker process of
// TestOneOfSeveralProcessesTakesAState, and holds the schema of the store it takes from.
const takerSchema = "CADRE_POSTGRESSTORE_TAKER_SCHEMA"

// paused is the chat the taker processes take the state of.
var paused = chat.ID{Tenant: "acme", User: "alice", Chat: "paused"}

// TestOneOfSeveralProcessesTakesAState runs taker processes, each with a Store of its own on one
// schema, which take the state of one chat at the same instant, round after round: in each,
// exactly one of them gets the state, as when several instances resume one paused run.
func TestOneOfSeveralProcessesTakesAState(t *testing.T) {
	t.Parallel()
	s, schema := open(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	const processes, rounds = 4, 20
	takers := make([]*taker, processes)
	for i := range takers {
		takers[i] = startTaker(ctx, t, schema)
	}
	// Each taker has a connection open and waits for a line: a round starts them together.
	for _, tk := range takers {
		tk.reply(t, "ready")
	}
	if err := s.Append(ctx, paused, hello("kept")); err != nil {
		t.Fatal(err)
	}
	for round := range rounds {
		state := fmt.Sprintf("paused %d", round)
		if err := s.SetState(ctx, paused, []byte(state)); err != nil {
			t.Fatal(err)
		}
		for _, tk := range takers {
			tk.send(t)
		}
		won := 0
		for i, tk := range takers {
			switch got := tk.reply(t, ""); got {
			case "took " + state:
				won++
			case "nil":
			default:
				t.Errorf("round %d: process %d: TakeState = %s; want %q or nil", round, i, got, state)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d of %d processes got the state, want exactly 1", round, won, processes)
		}
		if st, err := s.State(ctx, paused); err != nil || st != nil {
			t.Fatalf("round %d: State after the takes = %q, %v; want nil", round, st, err)
		}
	}
	for i, tk := range takers {
		if err := tk.stop(); err != nil {
			t.Errorf("process %d: %v\n%s", i, err, tk.stderr)
		}
	}
}

// taker is a taker process: each line it reads starts a TakeState, whose outcome it writes as
// a line: "took STATE", "nil" or "error ...".
type taker struct {
	in     io.WriteCloser
	out    *bufio.Scanner
	stderr *strings.Builder
	stop   func() error
}

func startTaker(ctx context.Context, t *testing.T, schema string) *taker {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestTakerProcess$", "-test.count=1", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), takerSchema+"="+schema, pgtest.EnvURL+"="+postgres.url)
	cmd.WaitDelay = 5 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	tk := &taker{in: in, out: bufio.NewScanner(out), stderr: &strings.Builder{}}
	cmd.Stderr = tk.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tk.stop = sync.OnceValue(func() error {
		in.Close()
		return cmd.Wait()
	})
	t.Cleanup(func() { tk.stop() })
	return tk
}

// send starts a TakeState in the taker.
func (tk *taker) send(t *testing.T) {
	t.Helper()
	if _, err := io.WriteString(tk.in, "take\n"); err != nil {
		t.Fatalf("a taker process does not read: %v", err)
	}
}

// reply returns the taker's next line of the protocol, which must be want when want is not "".
// The test binary's own lines (PASS, ...) are not the protocol's.
func (tk *taker) reply(t *testing.T, want string) string {
	t.Helper()
	for tk.out.Scan() {
		if line, ok := strings.CutPrefix(tk.out.Text(), "taker: "); ok {
			if want != "" && line != want {
				t.Fatalf("a taker process says %q, want %q", line, want)
			}
			return line
		}
	}
	err := tk.stop()
	t.Fatalf("a taker process ended (%v, %v):\n%s", tk.out.Err(), err, tk.stderr)
	return ""
}

// TestTakerProcess is a taker process, when TestOneOfSeveralProcessesTakesAState runs this test
// binary as one.
func TestTakerProcess(t *testing.T) {
	schema := os.Getenv(takerSchema)
	if schema == "" {
		t.Skip("a helper process of TestOneOfSeveralProcessesTakesAState")
	}
	s, err := postgresstore.Open(t.Context(), postgres.url, postgresstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fmt.Println("taker: ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch state, err := s.TakeState(t.Context(), paused); {
		case err != nil:
			fmt.Printf("taker: error %v\n", err)
		case state == nil:
			fmt.Println("taker: nil")
		default:
			fmt.Printf("taker: took %s\n", state)
		}
	}
}
