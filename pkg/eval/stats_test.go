package eval

import (
	"math"
	"testing"
)

// The published values below are rounded to four decimals, so they are compared to within half
// a unit in the last place.
const published = 0.5e-4

func TestNormalQuantile(t *testing.T) {
	t.Parallel()
	// The standard normal quantile at (1+confidence)/2, from a 40-digit evaluation of
	// sqrt(2)·erf⁻¹(confidence); 1.959963984540054 is the quantile at 0.975.
	tests := []struct {
		confidence, want float64
	}{
		{0.5, 0.6744897501960817432},
		{0.8, 1.281551565544600467},
		{0.9, 1.6448536269514727149},
		{0.95, 1.959963984540054},
		{0.99, 2.575829303548900761},
		{0.999, 3.2905267314918947932},
		{0.999999, 4.8916384756985903862},
	}
	for _, tt := range tests {
		if got := normalQuantile(tt.confidence); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("normalQuantile(%v) = %.16f, want %.16f", tt.confidence, got, tt.want)
		}
	}
}

func TestWilsonPublished(t *testing.T) {
	t.Parallel()
	// The first four rows are the examples of Newcombe (1998), "Two-sided confidence
	// intervals for the single proportion", Table I, method 3 (the score interval without
	// continuity correction). The others are the same formula evaluated to 40 digits.
	tests := []struct {
		passes, n int
		lo, hi    float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0, 0.1611},
		{1, 29, 0.0061, 0.1718},
		{0, 10, 0, 0.2775},
		{5, 10, 0.2366, 0.7634},
		{10, 10, 0.7225, 1},
		{1, 1, 0.2065, 1},
	}
	for _, tt := range tests {
		lo, hi := Wilson(tt.passes, tt.n, 0.95)
		if math.Abs(lo-tt.lo) > published || math.Abs(hi-tt.hi) > published {
			t.Errorf("Wilson(%d, %d, 0.95) = (%.4f, %.4f), want (%.4f, %.4f)",
				tt.passes, tt.n, lo, hi, tt.lo, tt.hi)
		}
	}
}

func TestWilsonPrecise(t *testing.T) {
	t.Parallel()
	// Bounds evaluated to 40 digits from the same formula, to catch a loss of precision the
	// four-decimal table would hide.
	tests := []struct {
		passes, n int
		lo, hi    float64
	}{
		{81, 263, 0.25528851987827423, 0.36620957698280007},
		{1, 29, 0.0061132142927626605, 0.17175521879320288},
		{5, 10, 0.23659309051256398, 0.76340690948743602},
	}
	for _, tt := range tests {
		lo, hi := Wilson(tt.passes, tt.n, 0.95)
		if math.Abs(lo-tt.lo) > 1e-12 || math.Abs(hi-tt.hi) > 1e-12 {
			t.Errorf("Wilson(%d, %d, 0.95) = (%.17f, %.17f), want (%.17f, %.17f)",
				tt.passes, tt.n, lo, hi, tt.lo, tt.hi)
		}
	}
}

// TestWilsonScoreEquation checks the defining property of the interval: each bound p0 other
// than an exact 0 or 1 solves |p − p0| = z·sqrt(p0(1−p0)/n), the score test at the boundary.
func TestWilsonScoreEquation(t *testing.T) {
	t.Parallel()
	for _, confidence := range []float64{0.8, 0.95, 0.99} {
		z := normalQuantile(confidence)
		for n := 1; n <= 40; n++ {
			for passes := 0; passes <= n; passes++ {
				lo, hi := Wilson(passes, n, confidence)
				p := float64(passes) / float64(n)
				if !(0 <= lo && lo <= p && p <= hi && hi <= 1) {
					t.Fatalf("Wilson(%d, %d, %v) = (%v, %v), want 0 <= lo <= %v <= hi <= 1",
						passes, n, confidence, lo, hi, p)
				}
				for _, bound := range []float64{lo, hi} {
					if bound == 0 || bound == 1 {
						continue
					}
					score := z * math.Sqrt(bound*(1-bound)/float64(n))
					if d := math.Abs(math.Abs(p-bound) - score); d > 1e-12 {
						t.Errorf("Wilson(%d, %d, %v): bound %v misses the score equation by %g",
							passes, n, confidence, bound, d)
					}
				}
			}
		}
	}
}

func TestWilsonEdges(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 100; n++ {
		if lo, _ := Wilson(0, n, 0.95); lo != 0 {
			t.Errorf("Wilson(0, %d, 0.95) lo = %v, want exactly 0", n, lo)
		}
		if _, hi := Wilson(n, n, 0.95); hi != 1 {
			t.Errorf("Wilson(%d, %d, 0.95) hi = %v, want exactly 1", n, n, hi)
		}
		// Swapping passes and failures mirrors the interval about 1/2.
		for passes := 0; passes <= n; passes++ {
			lo, hi := Wilson(passes, n, 0.95)
			mlo, mhi := Wilson(n-passes, n, 0.95)
			if math.Abs(lo-(1-mhi)) > 1e-12 || math.Abs(hi-(1-mlo)) > 1e-12 {
				t.Errorf("Wilson(%d, %d) = (%v, %v) is not the mirror of Wilson(%d, %d) = (%v, %v)",
					passes, n, lo, hi, n-passes, n, mlo, mhi)
			}
		}
	}
	if lo, hi := Wilson(0, 0, 0.95); lo != 0 || hi != 1 {
		t.Errorf("Wilson(0, 0, 0.95) = (%v, %v), want (0, 1)", lo, hi)
	}
}

func TestWilsonInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		passes, n  int
		confidence float64
	}{
		{"negative n", 0, -1, 0.95},
		{"negative passes", -1, 10, 0.95},
		{"passes over n", 11, 10, 0.95},
		{"passes with no trials", 1, 0, 0.95},
		{"confidence 0", 5, 10, 0},
		{"confidence 1", 5, 10, 1},
		{"confidence as a percentage", 5, 10, 95},
		{"confidence NaN", 5, 10, math.NaN()},
	}
	for _, tt := range tests {
		lo, hi := Wilson(tt.passes, tt.n, tt.confidence)
		if !math.IsNaN(lo) || !math.IsNaN(hi) {
			t.Errorf("%s: Wilson(%d, %d, %v) = (%v, %v), want (NaN, NaN)",
				tt.name, tt.passes, tt.n, tt.confidence, lo, hi)
		}
	}
}

func TestPassAtKByHand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n, c, k int
		want    float64
	}{
		{5, 2, 1, 0.4}, // c/n
		{5, 2, 2, 0.7}, // 1 − C(3,2)/C(5,2) = 1 − 3/10
		{5, 2, 3, 0.9}, // 1 − C(3,3)/C(5,3) = 1 − 1/10
		{5, 2, 4, 1},   // n−c < k: every draw of 4 holds a pass
		{10, 0, 1, 0},
		{10, 0, 10, 0},
		{10, 10, 1, 1},
		{10, 10, 10, 1},
		{1, 1, 1, 1},
		{1, 0, 1, 0},
		{10, 3, 5, 1 - 21.0/252}, // 1 − C(7,5)/C(10,5)
	}
	for _, tt := range tests {
		if got := PassAtK(tt.n, tt.c, tt.k); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("PassAtK(%d, %d, %d) = %v, want %v", tt.n, tt.c, tt.k, got, tt.want)
		}
	}
}

// TestPassAtKEnumeration compares PassAtK with the share of all k-subsets of n runs, the
// first c of them passing, that hold at least one pass.
func TestPassAtKEnumeration(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 12; n++ {
		for c := 0; c <= n; c++ {
			passing := uint(1)<<c - 1 // runs 0..c−1 pass
			hits := make([]int, n+1)  // by subset size
			total := make([]int, n+1)
			for subset := uint(0); subset < 1<<n; subset++ {
				k := bitCount(subset)
				total[k]++
				if subset&passing != 0 {
					hits[k]++
				}
			}
			for k := 1; k <= n; k++ {
				want := float64(hits[k]) / float64(total[k])
				if got := PassAtK(n, c, k); math.Abs(got-want) > 1e-12 {
					t.Errorf("PassAtK(%d, %d, %d) = %v, enumeration gives %v", n, c, k, got, want)
				}
			}
		}
	}
}

func bitCount(x uint) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func TestPassAtKLargeN(t *testing.T) {
	t.Parallel()
	// C(1000, 500) overflows float64; the product form does not. With k = 1 the estimator
	// is c/n, and it grows with k.
	if got := PassAtK(1000, 1, 1); math.Abs(got-0.001) > 1e-15 {
		t.Errorf("PassAtK(1000, 1, 1) = %v, want 0.001", got)
	}
	prev := 0.0
	for k := 1; k <= 1000; k++ {
		got := PassAtK(1000, 1, k)
		if math.IsNaN(got) || got < prev || got > 1 {
			t.Fatalf("PassAtK(1000, 1, %d) = %v after %v, want a value rising to 1", k, got, prev)
		}
		prev = got
	}
	if got := PassAtK(1000, 1, 500); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("PassAtK(1000, 1, 500) = %v, want 0.5", got)
	}
}

func TestPassAtKInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		n, c, k int
	}{
		{"k over n", 5, 2, 6},
		{"k zero", 5, 2, 0},
		{"k negative", 5, 2, -1},
		{"no runs", 0, 0, 1},
		{"c over n", 5, 6, 1},
		{"c negative", 5, -1, 1},
	}
	for _, tt := range tests {
		if got := PassAtK(tt.n, tt.c, tt.k); !math.IsNaN(got) {
			t.Errorf("%s: PassAtK(%d, %d, %d) = %v, want NaN", tt.name, tt.n, tt.c, tt.k, got)
		}
	}
}

func TestNewcombePublished(t *testing.T) {
	t.Parallel()
	// Newcombe (1998), "Interval estimation for the difference between independent
	// proportions", method 10, for his examples written p1 − p2 = m/M − n/N. Here the first
	// proportion is B and the second A, so the paper's difference and signs carry over.
	// Rows a, b and d are the paper's published limits; row c and the boundary rows e to h are
	// the same formula evaluated to 40 digits.
	tests := []struct {
		name                   string
		passesB, nB, passA, nA int
		diff, lo, hi           float64
	}{
		{"a 56/70 − 48/80", 56, 70, 48, 80, 0.2, 0.0524, 0.3339},
		{"b 9/10 − 3/10", 9, 10, 3, 10, 0.6, 0.1705, 0.8090},
		{"c 6/7 − 2/7", 6, 7, 2, 7, 0.5714, 0.0582, 0.8062},
		{"d 5/56 − 0/29", 5, 56, 0, 29, 0.0893, -0.0381, 0.1926},
		{"e 0/10 − 0/20", 0, 10, 0, 20, 0, -0.1611, 0.2775},
		{"f 0/10 − 0/10", 0, 10, 0, 10, 0, -0.2775, 0.2775},
		{"g 10/10 − 0/20", 10, 10, 0, 20, 1, 0.6791, 1},
		{"h 10/10 − 0/10", 10, 10, 0, 10, 1, 0.6075, 1},
	}
	for _, tt := range tests {
		diff, lo, hi := Newcombe(tt.passA, tt.nA, tt.passesB, tt.nB, 0.95)
		if math.Abs(diff-tt.diff) > published || math.Abs(lo-tt.lo) > published ||
			math.Abs(hi-tt.hi) > published {
			t.Errorf("%s: Newcombe = (%.4f, %.4f, %.4f), want (%.4f, %.4f, %.4f)",
				tt.name, diff, lo, hi, tt.diff, tt.lo, tt.hi)
		}
	}
}

func TestNewcombePrecise(t *testing.T) {
	t.Parallel()
	diff, lo, hi := Newcombe(48, 80, 56, 70, 0.95)
	if math.Abs(diff-0.2) > 1e-15 || math.Abs(lo-0.052431472402364878) > 1e-12 ||
		math.Abs(hi-0.33387265403690598) > 1e-12 {
		t.Errorf("Newcombe(48, 80, 56, 70, 0.95) = (%.17f, %.17f, %.17f)", diff, lo, hi)
	}
}

func TestNewcombeDirection(t *testing.T) {
	t.Parallel()
	// A candidate B that passes 10 of 10 where the baseline A passed 2 of 10 is an
	// improvement: a positive difference with an interval above 0.
	diff, lo, hi := Newcombe(2, 10, 10, 10, 0.95)
	if !(diff > 0 && lo > 0 && hi <= 1) {
		t.Errorf("Newcombe(2, 10, 10, 10) = (%v, %v, %v), want an interval above 0", diff, lo, hi)
	}
	// Swapping A and B negates the difference and mirrors the interval.
	for nA := 1; nA <= 12; nA++ {
		for nB := 1; nB <= 12; nB += 3 {
			for a := 0; a <= nA; a++ {
				for b := 0; b <= nB; b++ {
					d, lo, hi := Newcombe(a, nA, b, nB, 0.95)
					md, mlo, mhi := Newcombe(b, nB, a, nA, 0.95)
					if d != -md || math.Abs(lo+mhi) > 1e-12 || math.Abs(hi+mlo) > 1e-12 {
						t.Fatalf("Newcombe(%d/%d, %d/%d) = (%v, %v, %v), swapped (%v, %v, %v)",
							a, nA, b, nB, d, lo, hi, md, mlo, mhi)
					}
					if !(-1 <= lo && lo <= d && d <= hi && hi <= 1) {
						t.Fatalf("Newcombe(%d/%d, %d/%d) = (%v, %v, %v), want -1 <= lo <= diff <= hi <= 1",
							a, nA, b, nB, d, lo, hi)
					}
				}
			}
		}
	}
}

func TestNewcombeNoise(t *testing.T) {
	t.Parallel()
	// Cases run once: one pass before and one failure after is not evidence of a regression,
	// and neither is 4 of 5 after 5 of 5.
	for _, tt := range []struct{ passA, nA, passB, nB int }{{1, 1, 0, 1}, {5, 5, 4, 5}} {
		_, lo, hi := Newcombe(tt.passA, tt.nA, tt.passB, tt.nB, 0.95)
		if !(lo < 0 && 0 < hi) {
			t.Errorf("Newcombe(%d/%d, %d/%d) = [%v, %v], want an interval holding 0",
				tt.passA, tt.nA, tt.passB, tt.nB, lo, hi)
		}
	}
	// 0 of 20 after 20 of 20 is.
	if _, _, hi := Newcombe(20, 20, 0, 20, 0.95); hi >= 0 {
		t.Errorf("Newcombe(20/20, 0/20) hi = %v, want below 0", hi)
	}
}

func TestNewcombeInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                 string
		passA, nA, passB, nB int
		confidence           float64
	}{
		{"no trials in A", 0, 0, 3, 10, 0.95},
		{"no trials in B", 3, 10, 0, 0, 0.95},
		{"passes over n in A", 11, 10, 3, 10, 0.95},
		{"negative passes in B", 3, 10, -1, 10, 0.95},
		{"confidence 1", 3, 10, 5, 10, 1},
	}
	for _, tt := range tests {
		d, lo, hi := Newcombe(tt.passA, tt.nA, tt.passB, tt.nB, tt.confidence)
		if !math.IsNaN(d) || !math.IsNaN(lo) || !math.IsNaN(hi) {
			t.Errorf("%s: Newcombe = (%v, %v, %v), want NaN for all three", tt.name, d, lo, hi)
		}
	}
}
