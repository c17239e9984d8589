package ratelimittest

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/cadrehq/cadre/pkg/ratelimit"
)

// Kind says which method of ratelimit.Limiter an Op calls.
type Kind int

// The kinds of Op.
const (
	Take   Kind = iota // Limiter.Take
	Charge             // Limiter.Charge
)

// Op is one call of a ratelimit.Limiter in a history: what was called, by which client,
// when, and what it returned. A history of Ops, from any number of goroutines and processes,
// is what CheckLinearizable and CheckInvariants check. Its fields are plain data, so that a
// process can send its Ops to another (as JSON) to be merged into one history.
type Op struct {
	// Client is the goroutine that made the call, numbered across the processes of the
	// history: the calls of one client follow one another, never overlapping.
	Client int
	// Call and Return are when the call was made and when it returned, read from a clock
	// that every client of the history shares and that never goes back: an Op that returned
	// before another was called has a smaller Return than the other's Call. (Ops whose
	// intervals overlap may have run in either order.)
	Call, Return int64

	Kind    Kind
	Buckets []ratelimit.Bucket
	N       int // the n of a Charge

	// Refused is the Key of the bucket that refused a Take, "" when the Take took.
	Refused string
	// Err is the error the call returned, "" when none.
	Err string
}

// Run calls op on l, reading clock just before the call and just after it, and returns op
// with the call's times and outcome filled in.
func (op Op) Run(ctx context.Context, l ratelimit.Limiter, clock func() int64) Op {
	var ref *ratelimit.Refusal
	var err error
	op.Call = clock()
	switch op.Kind {
	case Take:
		ref, err = l.Take(ctx, op.Buckets)
	case Charge:
		err = l.Charge(ctx, op.Buckets, op.N)
	default:
		err = fmt.Errorf("ratelimittest: an Op of unknown kind %d", op.Kind)
	}
	op.Return = clock()
	op.Refused, op.Err = "", ""
	if ref != nil {
		op.Refused = ref.Bucket.Key
	}
	if err != nil {
		op.Err = err.Error()
	}
	return op
}

// Record runs each client's Ops on l, the clients at once, each in a goroutine of its own
// that runs its Ops one after the other, and returns the Ops run, times and outcomes filled
// in: a history of l. It returns when every client is done.
func Record(ctx context.Context, l ratelimit.Limiter, clock func() int64, clients [][]Op) []Op {
	done := make([][]Op, len(clients))
	var wg sync.WaitGroup
	for i, ops := range clients {
		done[i] = make([]Op, len(ops))
		wg.Go(func() {
			for j, op := range ops {
				done[i][j] = op.Run(ctx, l, clock)
			}
		})
	}
	wg.Wait()
	var history []Op
	for _, ops := range done {
		history = append(history, ops...)
	}
	return history
}

// String describes op as a line of a history: "client 2 [15, 19] Take(a, b): refused by b".
func (op Op) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "client %d [%d, %d] ", op.Client, op.Call, op.Return)
	switch op.Kind {
	case Take:
		fmt.Fprintf(&b, "Take(%s)", describeBuckets(op.Buckets))
	case Charge:
		fmt.Fprintf(&b, "Charge(%s, %d)", describeBuckets(op.Buckets), op.N)
	default:
		fmt.Fprintf(&b, "kind %d(%s)", op.Kind, describeBuckets(op.Buckets))
	}
	switch {
	case op.Err != "":
		fmt.Fprintf(&b, ": error %s", op.Err)
	case op.Kind == Take && op.Refused != "":
		fmt.Fprintf(&b, ": refused by %s", op.Refused)
	case op.Kind == Take:
		b.WriteString(": took")
	}
	return b.String()
}

// describeBuckets names buckets with their limits: "a/5, b/2".
func describeBuckets(buckets []ratelimit.Bucket) string {
	parts := make([]string, len(buckets))
	for i, b := range buckets {
		parts[i] = fmt.Sprintf("%s/%d", b.Key, b.Limit)
	}
	return strings.Join(parts, ", ")
}

// Tally counts the histories a test has checked, and their Ops, for its report.
type Tally struct {
	Histories int
	Ops       int
	Refused   int // Takes refused
	Charges   int
	Across    int // Takes across several buckets
}

// Add counts history.
func (t *Tally) Add(history []Op) {
	t.Histories++
	t.Ops += len(history)
	for _, op := range history {
		switch {
		case op.Kind == Charge:
			t.Charges++
		case op.Refused != "":
			t.Refused++
		}
		if op.Kind == Take && len(op.Buckets) > 1 {
			t.Across++
		}
	}
}

// String reports the counts: "40 histories, 960 calls (310 Takes refused, 118 Charges, 302 Takes across buckets)".
func (t Tally) String() string {
	return fmt.Sprintf("%d histories, %d calls (%d Takes refused, %d Charges, %d Takes across buckets)",
		t.Histories, t.Ops, t.Refused, t.Charges, t.Across)
}
