package ratelimittest

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/cadrehq/cadre/pkg/ratelimit"
)

// Workload makes random histories to check a Limiter with. Single's buckets are used one at
// a time, by Takes and Charges (of 1 to 7: into debt, and beyond what a bucket of 5 holds),
// and CheckLinearizable checks their history. Multi's are used one to all at once, in a random
// order, by Takes and now and then a Charge of 1 or 2: CheckInvariants checks their history,
// and CheckLinearizable too of a limiter whose calls across buckets are atomic.
//
// Its buckets refill by a unit in Period/Limit: a history must run in far less time than that
// (an hour's bucket of 5 refills one in 12 minutes), for the checks count no refill.
type Workload struct {
	Single []ratelimit.Bucket
	Multi  []ratelimit.Bucket
}

// NewWorkload returns the Workload of a history named name, whose buckets no other history
// uses: two Single buckets of 5 an hour, "NAME:s0" and "NAME:s1", and three Multi buckets
// "NAME:m0" to "NAME:m2" of 1 to 5 an hour, drawn from rng.
func NewWorkload(rng *rand.Rand, name string) Workload {
	var w Workload
	for i := range 2 {
		w.Single = append(w.Single, ratelimit.Bucket{Key: fmt.Sprintf("%s:s%d", name, i), Limit: 5, Period: time.Hour})
	}
	for i := range 3 {
		w.Multi = append(w.Multi, ratelimit.Bucket{Key: fmt.Sprintf("%s:m%d", name, i), Limit: 1 + rng.IntN(5), Period: time.Hour})
	}
	return w
}

// Plan returns the Ops of a history: for each of clients clients, ops Ops drawn from rng,
// their Client set. Half of them are on a Single bucket: a Take, or one time in five a
// Charge. Half are on Multi's buckets: a Take, or one time in eight a Charge.
func (w Workload) Plan(rng *rand.Rand, clients, ops int) [][]Op {
	plan := make([][]Op, clients)
	for c := range plan {
		for range ops {
			op := w.op(rng)
			op.Client = c
			plan[c] = append(plan[c], op)
		}
	}
	return plan
}

func (w Workload) op(rng *rand.Rand) Op {
	if len(w.Multi) == 0 || len(w.Single) > 0 && rng.IntN(2) == 0 {
		b := []ratelimit.Bucket{w.Single[rng.IntN(len(w.Single))]}
		if rng.IntN(5) == 0 {
			return Op{Kind: Charge, Buckets: b, N: 1 + rng.IntN(7)}
		}
		return Op{Kind: Take, Buckets: b}
	}
	var buckets []ratelimit.Bucket
	for _, i := range rng.Perm(len(w.Multi))[:1+rng.IntN(len(w.Multi))] {
		buckets = append(buckets, w.Multi[i])
	}
	if rng.IntN(8) == 0 {
		return Op{Kind: Charge, Buckets: buckets, N: 1 + rng.IntN(2)}
	}
	return Op{Kind: Take, Buckets: buckets}
}

// SingleOps returns the Ops of history that use Single's buckets only.
func (w Workload) SingleOps(history []Op) []Op { return usingOnly(history, w.Single) }

// MultiOps returns the Ops of history that use Multi's buckets only.
func (w Workload) MultiOps(history []Op) []Op { return usingOnly(history, w.Multi) }

func usingOnly(history []Op, buckets []ratelimit.Bucket) []Op {
	in := map[string]bool{}
	for _, b := range buckets {
		in[b.Key] = true
	}
	var out []Op
	for _, op := range history {
		all := true
		for _, b := range op.Buckets {
			all = all && in[b.Key]
		}
		if all {
			out = append(out, op)
		}
	}
	return out
}
