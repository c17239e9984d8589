package ratelimittest_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/ratelimit"
	"github.com/cadrehq/cadre/pkg/ratelimit/ratelimittest"
)

var (
	a = ratelimit.Bucket{Key: "a", Limit: 2, Period: time.Hour}
	b = ratelimit.Bucket{Key: "b", Limit: 1, Period: time.Hour}
)

// took is a Take by client c, called at call and returned at ret, that took from buckets.
func took(c int, call, ret int64, buckets ...ratelimit.Bucket) ratelimittest.Op {
	return ratelimittest.Op{Client: c, Call: call, Return: ret, Kind: ratelimittest.Take, Buckets: buckets}
}

// refused is a Take that the bucket by refuses.
func refused(c int, call, ret int64, by ratelimit.Bucket, buckets ...ratelimit.Bucket) ratelimittest.Op {
	op := took(c, call, ret, buckets...)
	op.Refused = by.Key
	return op
}

func charged(c int, call, ret int64, n int, buckets ...ratelimit.Bucket) ratelimittest.Op {
	return ratelimittest.Op{Client: c, Call: call, Return: ret, Kind: ratelimittest.Charge, Buckets: buckets, N: n}
}

func TestCheckLinearizable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		history []ratelimittest.Op
		ok      bool
	}{
		{"holds its limit, then refuses", []ratelimittest.Op{
			took(0, 1, 2, a), took(0, 3, 4, a), refused(0, 5, 6, a, a),
		}, true},
		{"admits more than its limit", []ratelimittest.Op{
			took(0, 1, 2, a), took(0, 3, 4, a), took(0, 5, 6, a),
		}, false},
		{"refuses before it is full", []ratelimittest.Op{
			took(0, 1, 2, a), refused(0, 3, 4, a, a), took(0, 5, 6, a),
		}, false},
		{"a refusal concurrent with the Takes that fill the bucket", []ratelimittest.Op{
			took(0, 1, 4, a), refused(1, 2, 6, a, a), took(0, 5, 8, a),
		}, true},
		{"a refusal that returned before the bucket's second Take was called", []ratelimittest.Op{
			took(0, 1, 4, a), refused(1, 2, 4, a, a), took(0, 5, 8, a),
		}, false},
		{"times are closed intervals: a call at the instant of a return may go first", []ratelimittest.Op{
			took(0, 1, 2, a), refused(1, 3, 5, a, a), took(0, 5, 6, a),
		}, true},
		{"a Take across buckets is all or none", []ratelimittest.Op{
			took(0, 1, 2, b), refused(0, 3, 4, b, a, b), took(0, 5, 6, a), took(0, 7, 8, a),
		}, true},
		{"a refused Take across buckets that took one", []ratelimittest.Op{
			took(0, 1, 2, b), refused(0, 3, 4, b, a, b), took(0, 5, 6, a), refused(0, 7, 8, a, a),
		}, false},
		{"a Take refused by a bucket with room, when another is full", []ratelimittest.Op{
			took(0, 1, 2, b), refused(0, 3, 4, a, a, b),
		}, false},
		{"a Take refused by a bucket it did not ask for", []ratelimittest.Op{
			took(0, 1, 2, b), refused(0, 3, 4, b, a),
		}, false},
		{"a Charge into debt, then refusals", []ratelimittest.Op{
			charged(0, 1, 2, 5, a), refused(0, 3, 4, a, a), refused(1, 3, 4, a, a),
		}, true},
		{"a Charge counted in full", []ratelimittest.Op{
			charged(0, 1, 2, 1, a, b), took(0, 3, 4, a), refused(0, 5, 6, b, b), refused(0, 7, 8, a, a),
		}, true},
		{"a Charge not counted", []ratelimittest.Op{
			charged(0, 1, 2, 1, a), took(0, 3, 4, a), took(0, 5, 6, a),
		}, false},
		{"a Charge of 0 or less charges nothing", []ratelimittest.Op{
			charged(0, 1, 2, 0, a), charged(0, 3, 4, -2, a), took(0, 5, 6, a), took(0, 7, 8, a),
		}, true},
		{"a Charge that may come after the Takes it overlaps", []ratelimittest.Op{
			charged(1, 1, 9, 3, a), took(0, 2, 3, a), took(0, 4, 5, a), refused(0, 10, 11, a, a),
		}, true},
		{"buckets are apart", []ratelimittest.Op{
			took(0, 1, 2, a), took(0, 3, 4, b), took(0, 5, 6, a), refused(0, 7, 8, b, b), refused(0, 9, 10, a, a),
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := ratelimittest.CheckLinearizable(tc.history, time.Minute)
			if tc.ok && err != nil {
				t.Errorf("CheckLinearizable of a linearizable history: %v", err)
			}
			if !tc.ok && (err == nil || errors.Is(err, ratelimittest.ErrUndecided)) {
				t.Errorf("CheckLinearizable = %v, want a history that is not linearizable", err)
			}
		})
	}
}

// The error names the calls of the buckets whose history is not linearizable, and only them.
func TestCheckLinearizableNamesTheCalls(t *testing.T) {
	t.Parallel()
	err := ratelimittest.CheckLinearizable([]ratelimittest.Op{
		took(0, 10, 20, a), took(1, 11, 21, b), took(0, 30, 40, a), took(0, 50, 60, a),
	}, time.Minute)
	if err == nil {
		t.Fatal("CheckLinearizable of 3 Takes from a bucket of 2: nil, want an error")
	}
	want := "client 0 [0, 10] Take(a/2): took\n\tclient 0 [20, 30] Take(a/2): took\n\tclient 0 [40, 50] Take(a/2): took"
	if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "b/1") {
		t.Errorf("error:\n%v\nwant it to list only a's calls, times from the first:\n\t%s", err, want)
	}
}

func TestCheckLinearizableRefusesErrors(t *testing.T) {
	t.Parallel()
	op := took(0, 1, 2, a)
	op.Err = "redis: connection refused"
	err := ratelimittest.CheckLinearizable([]ratelimittest.Op{op}, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("CheckLinearizable of a call that failed = %v, want an error that names it", err)
	}
}
