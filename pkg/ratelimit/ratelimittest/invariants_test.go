package ratelimittest_test

import (
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/ratelimit"
	"github.com/cadrehq/cadre/pkg/ratelimit/ratelimittest"
)

func TestCheckInvariants(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		history   []ratelimittest.Op
		remaining map[string]int
		want      string // in the error; "" for none
	}{
		{"held", []ratelimittest.Op{
			took(0, 1, 2, b), refused(0, 3, 4, b, a, b), took(0, 5, 6, a),
		}, map[string]int{"a": 1, "b": 0}, ""},
		// Not linearizable, yet what a Limiter that takes bucket by bucket may do: the Take
		// of b refused while the Take across a and b held b, before a refused it.
		{"a refusal by a bucket that a refused Take held", []ratelimittest.Op{
			took(0, 1, 2, a), took(0, 3, 4, a), refused(0, 5, 9, a, b, a), refused(1, 6, 7, b, b),
		}, map[string]int{"a": 0, "b": 1}, ""},
		{"more admitted than the limit", []ratelimittest.Op{
			took(0, 1, 2, b), took(1, 1, 2, b),
		}, map[string]int{"b": 0}, `bucket "b" of 1 admitted 2 Takes`},
		{"a give-back lost", []ratelimittest.Op{
			took(0, 1, 2, b), refused(0, 3, 4, b, a, b),
		}, map[string]int{"a": 1, "b": 0}, `bucket "a" of 2 admitted 0 Takes and was charged 0, and has 1 left after them, not 2`},
		{"a give-back given twice", []ratelimittest.Op{
			took(0, 1, 2, a), took(0, 3, 4, b), refused(0, 5, 6, b, a, b),
		}, map[string]int{"a": 2, "b": 0}, `bucket "a" of 2 admitted 1 Takes and was charged 0, and has 2 left after them, not 1`},
		{"a refusal by a bucket with room", []ratelimittest.Op{
			took(0, 1, 2, a), refused(0, 3, 4, a, a),
		}, map[string]int{"a": 1}, `refused it when other calls could have held at most 1 of it`},
		{"a refused Take that held a bucket only after the refusal", []ratelimittest.Op{
			took(0, 1, 2, a), took(2, 1, 2, b), refused(1, 3, 4, a, a), refused(0, 5, 6, b, a, b),
		}, map[string]int{"a": 1, "b": 0}, `refused it when other calls could have held at most 1 of it`},
		{"a refused Take that never took the bucket", []ratelimittest.Op{
			took(0, 1, 2, a), took(2, 0, 1, b), refused(1, 3, 6, a, a), refused(0, 2, 7, b, b, a),
		}, map[string]int{"a": 1, "b": 0}, `refused it when other calls could have held at most 1 of it`},
		{"a bucket's remains not given", []ratelimittest.Op{took(0, 1, 2, a)}, nil, `what is left in bucket "a" is not given`},
		{"a Charge counts", []ratelimittest.Op{
			charged(0, 1, 2, 1, a, b), took(0, 3, 4, a), refused(1, 3, 4, b, b),
		}, map[string]int{"a": 0, "b": 0}, ""},
		{"a Charge into debt leaves nothing", []ratelimittest.Op{
			took(0, 1, 2, a), charged(0, 3, 4, 5, a), refused(0, 5, 6, a, a),
		}, map[string]int{"a": 0}, ""},
		{"a Charge not counted", []ratelimittest.Op{
			charged(0, 1, 2, 1, a),
		}, map[string]int{"a": 2}, `bucket "a" of 2 admitted 0 Takes and was charged 1, and has 2 left after them, not 1`},
		{"a refusal before the Charge that would have filled the bucket", []ratelimittest.Op{
			took(0, 1, 2, a), refused(0, 3, 4, a, a), charged(1, 5, 6, 1, a),
		}, map[string]int{"a": 0}, `refused it when other calls could have held at most 1 of it`},
		{"an error", []ratelimittest.Op{{Kind: ratelimittest.Take, Buckets: []ratelimit.Bucket{a}, Err: "EOF"}}, map[string]int{"a": 2}, "cannot be checked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := ratelimittest.CheckInvariants(tc.history, tc.remaining)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("CheckInvariants: %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("CheckInvariants = %v, want an error with %q", err, tc.want)
			}
		})
	}
}
