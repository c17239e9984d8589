package chattest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/cadrehq/cadre/pkg/chat"
)

// The environment variables of the checks of linearizability: how many histories each check
// records (default 3; make reliability sets many more), and the seed of the first one's
// random operations (default: a random seed; history h uses seed+h), which a failure prints.
const (
	EnvLinearizableHistories = "CADRE_LINEARIZABLE_CHAT_HISTORIES"
	EnvLinearizableSeed      = "CADRE_LINEARIZABLE_CHAT_SEED"
)

// opsPerHistory is how many operations a history holds, of all its clients together. A long
// run checks more histories, not longer ones: porcupine's search grows fast with the number of
// operations that overlap.
const opsPerHistory = 200

// checkTimeout bounds porcupine's search for a linearization of one history. A history of
// opsPerHistory operations of a store that keeps its promises is decided in well under a
// second on a busy 2-core machine: every text and state written is unique, so each read
// leaves the search little to try, and the model keeps the Appends no Load has seen yet as
// a set (see pendingAppends).
const checkTimeout = time.Minute

// CheckLinearizable checks that the store open returns behaves as one chat at a time would,
// whatever its calls overlap: eight goroutines make random calls of Append, Load, SetState,
// State, TakeState, TakeStateIf and Delete on two chats of one store, and porcupine
// (github.com/anishathalye/porcupine) checks that every history they record is linearizable
// against a sequential model of one chat: each call takes effect at one instant between its
// call and its return. Append's messages and SetState's states are unique, so that a Load
// names the Appends it saw, in their order, and a State or TakeState the SetState it saw.
//
// Each history holds 200 operations, on chats of its own; how many histories,
// EnvLinearizableHistories says, so that a long run checks many more than make test. A history
// that is not linearizable fails t, and so does one porcupine cannot decide within a minute,
// which is no evidence of a pass: the failure names the seed and writes porcupine's
// visualization of the history to t's ArtifactDir (go test -artifacts keeps it). An operation
// that returns an error other than chat.ErrNotFound fails t too. CheckLinearizable logs a line
// "figures: ..." at its end: the histories checked, their operations, how many of those
// overlapped another, and porcupine's longest check. name names the store in it.
//
// open is called once; the store's chats must start empty.
func CheckLinearizable(t *testing.T, name string, open func(t *testing.T) chat.Store) {
	t.Helper()
	size := sizeOf(t)
	s := open(t)
	const clients = 8
	fig := figures{}
	for h := range size.histories {
		seed := size.seed + uint64(h)
		recs := workload{store: s, history: h, clients: clients, ops: opsPerHistory / clients, seed: seed}.run(t.Context())
		checkHistory(t, recs, clients, h, seed, &fig)
	}
	t.Logf("figures: chat store linearizability: %s, %d goroutines: %s", name, clients, fig)
}

// size is how much a check of linearizability records, and from which seed.
type size struct {
	histories int
	seed      uint64
}

// sizeOf reads the size from the environment, as EnvLinearizableHistories and
// EnvLinearizableSeed say.
func sizeOf(t *testing.T) size {
	t.Helper()
	s := size{histories: 3, seed: rand.Uint64()}
	if text := os.Getenv(EnvLinearizableHistories); text != "" {
		n, err := strconv.Atoi(text)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a whole number of at least 1", EnvLinearizableHistories, text)
		}
		s.histories = n
	}
	if text := os.Getenv(EnvLinearizableSeed); text != "" {
		seed, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: want a seed that a failure printed", EnvLinearizableSeed, text)
		}
		s.seed = seed
	}
	return s
}

// figures are what a check of linearizability did.
type figures struct {
	histories, ops int
	overlapping    int           // operations that overlap one of another client
	across         int           // operations that overlap one of another process
	processes      bool          // whether across counts
	longest        time.Duration // porcupine's longest check of one history
}

// add counts the history recs, whose check took took.
func (f *figures) add(recs []record, clientsPerProcess int, took time.Duration) {
	f.histories++
	f.ops += len(recs)
	f.longest = max(f.longest, took)
	for i, r := range recs {
		var overlaps, across bool
		for j, o := range recs {
			if i == j || o.Client == r.Client || o.Call > r.Return || r.Call > o.Return {
				continue
			}
			overlaps = true
			across = across || o.Client/clientsPerProcess != r.Client/clientsPerProcess
		}
		if overlaps {
			f.overlapping++
		}
		if across {
			f.across++
		}
	}
}

func (f figures) String() string {
	percent := func(n int) int { return n * 100 / max(1, f.ops) }
	s := fmt.Sprintf("%d histories checked, %d operations (%d%% overlap another client's", f.histories, f.ops, percent(f.overlapping))
	if f.processes {
		s += fmt.Sprintf(", %d%% another process's", percent(f.across))
	}
	return s + fmt.Sprintf("), longest check %v", f.longest.Round(time.Millisecond))
}

// checkHistory checks that the operations of history h, made from seed by processes of
// clientsPerProcess clients each, are linearizable, and fails t if they are not, or if one
// failed.
func checkHistory(t *testing.T, recs []record, clientsPerProcess, h int, seed uint64, fig *figures) {
	t.Helper()
	for _, r := range recs {
		if r.Err != "" {
			t.Errorf("history %d (%s=%d): %s: %s", h, EnvLinearizableSeed, seed, describeOperation(r.In, r.Out), r.Err)
			return
		}
	}
	ops := operations(recs)
	started := time.Now()
	result := porcupine.CheckOperationsTimeout(chatModel, ops, checkTimeout)
	fig.add(recs, clientsPerProcess, time.Since(started))
	if result == porcupine.Ok {
		return
	}
	shown, err := visualize(t.ArtifactDir(), fmt.Sprintf("history-%d.html", h), ops)
	if err != nil {
		shown = "not written: " + err.Error()
	}
	t.Errorf("history %d of %d operations (%s=%d): %v\nporcupine's visualization of it: %s (go test -artifacts -outputdir DIR keeps it)",
		h, len(ops), EnvLinearizableSeed, seed, verdict(result), shown)
}

// verdict says what porcupine's result means for the store, or nil when it is linearizable.
//
// Unknown, a search that ran out of time, is a failure, not a pass: a history porcupine cannot
// linearize quickly is most often one that has no linearization, and a check that let such
// histories through would pass a broken store precisely where it breaks. Checking a shorter
// history instead would hide the same. With unique texts and states, a store that keeps its
// promises is linearized in milliseconds, far from the bound.
func verdict(result porcupine.CheckResult) error {
	switch result {
	case porcupine.Ok:
		return nil
	case porcupine.Illegal:
		return fmt.Errorf("not linearizable: no order of the operations, each at an instant between its call and its return, gives their results on one chat")
	default:
		return fmt.Errorf("porcupine found no linearization within %v, nor that there is none: undecided is not a pass", checkTimeout)
	}
}

// visualize writes porcupine's visualization of ops, as file in dir, and returns its path.
func visualize(dir, file string, ops []porcupine.Operation) (string, error) {
	_, info := porcupine.CheckOperationsVerbose(chatModel, ops, checkTimeout)
	path := filepath.Join(dir, file)
	if err := porcupine.VisualizePath(chatModel, info, path); err != nil {
		return "", err
	}
	return path, nil
}
