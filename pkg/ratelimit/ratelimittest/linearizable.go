package ratelimittest

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// ErrUndecided is the error of CheckLinearizable when its search ends at its timeout without
// an answer: the history is neither proved linearizable nor proved not to be. Treat it as a
// failure (a history too large to check proves nothing), not as a pass.
var ErrUndecided = errors.New("ratelimittest: the linearizability check did not decide within its time")

// CheckLinearizable reports whether history is linearizable: whether each Op can be given an
// instant between its Call and its Return at which it took effect, whole, such that the Ops
// in the order of those instants return what they returned in the sequential model of a
// Limiter whose buckets do not refill during the history:
//
//   - a bucket holds its Limit and has used none of it at first;
//   - a Take takes one from each of its buckets when each has used less than its Limit, and
//     returns nil; otherwise it returns a refusal by a bucket that has used its Limit (or
//     more) and takes from none;
//   - a Charge of n > 0 adds n to what each of its buckets has used, beyond the Limit if need
//     be (a debt, which refuses every Take); n <= 0 charges nothing.
//
// A Take or a Charge across buckets is one step of the model. The contract promises that of a
// Take's outcome only as far as the limiter can make it (see CheckInvariants for a Take that
// takes bucket by bucket), and not of a Charge: check such calls only on a limiter that makes
// them one step, as Local does under its lock.
//
// It returns nil when the history is linearizable; an error listing the Ops of buckets whose
// history is not (the Ops that share a bucket, directly or through a Take across buckets,
// are checked together); ErrUndecided, wrapped, when porcupine's search has not decided
// within timeout (0: no limit); and an error when an Op of history returned an error, which
// the model cannot tell the effect of.
func CheckLinearizable(history []Op, timeout time.Duration) error {
	for _, op := range history {
		if op.Err != "" {
			return fmt.Errorf("ratelimittest: %v: a history with errors cannot be checked", op)
		}
	}
	ops := make([]porcupine.Operation, len(history))
	for i, op := range history {
		ops[i] = porcupine.Operation{ClientId: op.Client, Input: op, Call: op.Call, Return: op.Return}
	}
	switch porcupine.CheckOperationsTimeout(model(true), ops, timeout) {
	case porcupine.Ok:
		return nil
	case porcupine.Unknown:
		return fmt.Errorf("%w (%s, for %d calls): check smaller histories", ErrUndecided, timeout, len(history))
	}
	// Illegal: name the partitions that are, each checked on its own.
	var errs []error
	for _, part := range partition(ops) {
		if porcupine.CheckOperationsTimeout(model(false), part, timeout) == porcupine.Illegal {
			errs = append(errs, notLinearizable(part))
		}
	}
	if len(errs) == 0 { // each part alone undecided within timeout
		return fmt.Errorf("ratelimittest: the history of %d calls is not linearizable", len(history))
	}
	return errors.Join(errs...)
}

// notLinearizable describes the Ops of part, in the order of their calls, times from the first.
func notLinearizable(part []porcupine.Operation) error {
	history := make([]Op, len(part))
	for i, o := range part {
		history[i] = o.Input.(Op)
	}
	slices.SortFunc(history, func(a, b Op) int { return cmp.Compare(a.Call, b.Call) })
	var b strings.Builder
	fmt.Fprintf(&b, "ratelimittest: these %d calls are not linearizable: no order of them, each at an instant between its call and its return, gives what they returned from buckets that hold their limit and do not refill:", len(history))
	for _, op := range history {
		op.Call, op.Return = op.Call-history[0].Call, op.Return-history[0].Call
		fmt.Fprintf(&b, "\n\t%v", op)
	}
	return errors.New(b.String())
}

// used is the state of the model: how much each bucket, by key, has used. A state is never
// changed: a step makes a new one.
type used map[string]int

// model is the sequential model of a Limiter for porcupine. Partitioned, it checks apart the
// Ops of buckets that no Op uses together.
func model(partitioned bool) porcupine.Model {
	m := porcupine.Model{
		Init:  func() any { return used{} },
		Step:  step,
		Equal: func(a, b any) bool { return maps.Equal(a.(used), b.(used)) },
		DescribeOperation: func(in, _ any) string {
			return in.(Op).String()
		},
		DescribeState: func(s any) string { return fmt.Sprint(s.(used)) },
	}
	if partitioned {
		m.Partition = partition
	}
	return m
}

// step is one Op of the model (see CheckLinearizable); an Op carries its own outcome.
func step(state, in, _ any) (bool, any) {
	u, op := state.(used), in.(Op)
	switch op.Kind {
	case Charge:
		if op.N <= 0 {
			return true, u
		}
		next := maps.Clone(u)
		for _, b := range op.Buckets {
			next[b.Key] += op.N
		}
		return true, next
	case Take:
		if op.Refused != "" {
			for _, b := range op.Buckets {
				if b.Key == op.Refused {
					return u[b.Key] >= b.Limit, u
				}
			}
			return false, u // refused by a bucket it did not ask for
		}
		next := maps.Clone(u)
		for _, b := range op.Buckets {
			if next[b.Key] >= b.Limit {
				return false, u
			}
			next[b.Key]++
		}
		return true, next
	}
	return false, u
}

// partition groups ops into the histories of buckets that no Op uses together: each group
// holds the Ops whose buckets are linked to one another through the Ops' buckets.
func partition(ops []porcupine.Operation) [][]porcupine.Operation {
	parent := map[string]string{}
	var find func(string) string
	find = func(k string) string {
		p, ok := parent[k]
		if !ok || p == k {
			parent[k] = k
			return k
		}
		root := find(p)
		parent[k] = root
		return root
	}
	for _, o := range ops {
		buckets := o.Input.(Op).Buckets
		for _, b := range buckets[min(1, len(buckets)):] {
			parent[find(b.Key)] = find(buckets[0].Key)
		}
	}
	groups := map[string]int{}
	var parts [][]porcupine.Operation
	for _, o := range ops {
		root := ""
		if buckets := o.Input.(Op).Buckets; len(buckets) > 0 {
			root = find(buckets[0].Key)
		}
		i, ok := groups[root]
		if !ok {
			i = len(parts)
			groups[root] = i
			parts = append(parts, nil)
		}
		parts[i] = append(parts[i], o)
	}
	return parts
}
