package ratelimittest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/cadrehq/cadre/pkg/ratelimit"
)

// Remaining returns how many Takes of b alone l admits, taking them, up to b.Limit+1: what
// is left in b once a history is over, for CheckInvariants. Call it when no call of the
// history is running any more.
func Remaining(ctx context.Context, l ratelimit.Limiter, b ratelimit.Bucket) (int, error) {
	n := 0
	for n <= b.Limit {
		ref, err := l.Take(ctx, []ratelimit.Bucket{b})
		if err != nil {
			return n, fmt.Errorf("ratelimittest: taking what is left in %q: %w", b.Key, err)
		}
		if ref != nil {
			break
		}
		n++
	}
	return n, nil
}

// CheckInvariants checks a history of Takes and Charges against what a Limiter promises even
// when its calls across buckets are not atomic: a Take that takes bucket by bucket, giving back
// what it took when one refuses (as redislimit does), lets another caller find a bucket fuller
// for a while than it ends, and the history need not be linearizable. remaining gives, by key,
// what each bucket of the history has left after it (see Remaining). With buckets that do not
// refill during the history:
//
//   - no bucket admits more Takes than its Limit;
//   - a refused Take leaves every bucket as it was: each bucket has left exactly its Limit
//     less the Takes it admitted and what it was charged, or nothing when that is in debt;
//   - a bucket refuses only when full: when it refuses a Take, other calls could have held at
//     least its Limit of it at some instant of that Take — Takes that took it and Charges of
//     it, called before the refusal returned, and refused Takes that took it before their
//     refusal and returned after the refusal was called.
//
// It returns nil when all hold; otherwise an error naming each that does not. A history with
// an error is an error.
func CheckInvariants(history []Op, remaining map[string]int) error {
	buckets := map[string]ratelimit.Bucket{}
	for _, op := range history {
		if op.Err != "" {
			return fmt.Errorf("ratelimittest: %v: a history with errors cannot be checked", op)
		}
		for _, b := range op.Buckets {
			buckets[b.Key] = b
		}
	}
	var errs []error
	for _, key := range slices.Sorted(maps.Keys(buckets)) {
		b, admitted, charged := buckets[key], 0, 0
		for _, op := range history {
			if !slices.ContainsFunc(op.Buckets, func(x ratelimit.Bucket) bool { return x.Key == key }) {
				continue
			}
			switch {
			case op.Kind == Charge:
				charged += max(op.N, 0)
			case op.Refused == "":
				admitted++
			}
		}
		if admitted > b.Limit {
			errs = append(errs, fmt.Errorf("bucket %q of %d admitted %d Takes", key, b.Limit, admitted))
		}
		left, ok := remaining[key]
		want := max(b.Limit-admitted-charged, 0)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("what is left in bucket %q is not given", key))
		case left != want:
			errs = append(errs, fmt.Errorf("bucket %q of %d admitted %d Takes and was charged %d, and has %d left after them, not %d: the refused Takes did not leave it as it was",
				key, b.Limit, admitted, charged, left, want))
		}
	}
	for _, r := range history {
		if r.Kind != Take || r.Refused == "" {
			continue
		}
		b, ok := buckets[r.Refused]
		if !slices.ContainsFunc(r.Buckets, func(x ratelimit.Bucket) bool { return x.Key == r.Refused }) || !ok {
			errs = append(errs, fmt.Errorf("%v: refused by a bucket it did not ask for", r))
			continue
		}
		if held := holders(history, r); held < b.Limit {
			errs = append(errs, fmt.Errorf("%v: bucket %q of %d refused it when other calls could have held at most %d of it", r, b.Key, b.Limit, held))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("ratelimittest: a history of %d calls breaks the invariants of a Limiter:\n%w", len(history), errors.Join(errs...))
	}
	return nil
}

// holders counts how much of the bucket that refused r the calls of history other than r
// could have held at some instant between r's call and return (see CheckInvariants).
func holders(history []Op, r Op) int {
	n := 0
	for _, o := range history {
		if o.Client == r.Client && o.Call == r.Call || o.Call > r.Return {
			continue
		}
		at := slices.IndexFunc(o.Buckets, func(x ratelimit.Bucket) bool { return x.Key == r.Refused })
		switch {
		case at < 0:
		case o.Kind == Charge:
			n += max(o.N, 0)
		case o.Refused == "":
			n++
		case o.Return >= r.Call && slices.ContainsFunc(o.Buckets[at+1:], func(x ratelimit.Bucket) bool { return x.Key == o.Refused }):
			n++ // took the bucket, then was refused by one after it, and gave it back
		}
	}
	return n
}
