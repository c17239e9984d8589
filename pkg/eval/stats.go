package eval

import "math"

// The functions in this file take counts and return plain float64 values. An argument outside
// a function's domain (a negative count, more passes than trials, a confidence outside the open
// interval (0, 1), and so on) gives NaN in every result, as math.Sqrt(-1) does: the inputs come
// from the eval's own tallies, so such a call is a defect of the caller, and NaN makes it
// visible without an error value that every correct call would have to check. Callers that
// serialise a result to JSON check math.IsNaN first, since encoding/json rejects NaN.

// Wilson returns the Wilson score interval [lo, hi] for a pass rate of passes out of n trials
// at the given two-sided confidence level (0.95 for a 95 % interval).
//
// With p = passes/n and z the standard normal quantile at (1+confidence)/2 (1.959964 at 0.95),
// the bounds are
//
//	(p + z²/2n ± z·sqrt(p(1−p)/n + z²/4n²)) / (1 + z²/n)
//
// the interval of Edwin B. Wilson, "Probable inference, the law of succession, and statistical
// inference" (1927), method 3 of Robert G. Newcombe, "Two-sided confidence intervals for the
// single proportion: comparison of seven methods" (1998), without continuity correction. The
// bounds always lie within [0, 1]; lo is exactly 0 when passes is 0 and hi exactly 1 when
// passes is n. Unlike the textbook p ± z·sqrt(p(1−p)/n) it does not collapse to a point when
// every trial passes or every trial fails, which is the usual case for a few repetitions.
//
// n == 0 gives (0, 1): no trials say nothing about the rate. The result is (NaN, NaN) when
// n < 0, passes < 0, passes > n, or confidence is not in the open interval (0, 1).
func Wilson(passes, n int, confidence float64) (lo, hi float64) {
	if n < 0 || passes < 0 || passes > n || !validConfidence(confidence) {
		return math.NaN(), math.NaN()
	}
	if n == 0 {
		return 0, 1
	}
	z := normalQuantile(confidence)
	nf := float64(n)
	p := float64(passes) / nf
	z2 := z * z
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := z / denom * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	lo, hi = max(center-half, 0), min(center+half, 1)
	if passes == 0 {
		lo = 0
	}
	if passes == n {
		hi = 1
	}
	return lo, hi
}

// PassAtK returns pass@k, the probability that at least one of k samples drawn without
// replacement from n runs of a case passes, given that c of the n runs passed:
//
//	pass@k = 1 − C(n−c, k) / C(n, k)
//
// the unbiased estimator of Mark Chen et al., "Evaluating Large Language Models Trained on
// Code" (2021). It is computed as 1 − ∏ (1 − k/i) for i from n−c+1 to n, the product form
// given in that paper, so no binomial coefficient is ever formed and large n do not overflow.
// The result is 1 when n−c < k (every draw of k contains a pass), 0 when c == 0, and equals
// c/n when k == 1.
//
// The domain is 1 ≤ k ≤ n and 0 ≤ c ≤ n; outside it the result is NaN. In particular pass@k
// is not defined for k > n: a case repeated n times reports pass@k only for k up to n.
func PassAtK(n, c, k int) float64 {
	if k < 1 || k > n || c < 0 || c > n {
		return math.NaN()
	}
	if n-c < k {
		return 1
	}
	fail := 1.0 // C(n−c, k)/C(n, k), the chance that all k drawn runs failed
	for i := n - c + 1; i <= n; i++ {
		fail *= 1 - float64(k)/float64(i)
	}
	return 1 - fail
}

// Newcombe returns the difference diff = pB − pA of two independent pass rates, pA =
// passesA/nA and pB = passesB/nB, and its confidence interval [lo, hi] at the given two-sided
// confidence level. B is subtracted from first: with A the baseline and B the candidate
// ("after minus before"), a positive diff is an improvement and an interval wholly below 0 a
// regression.
//
// The interval is the hybrid score interval of Robert G. Newcombe, "Interval estimation for the
// difference between independent proportions: comparison of eleven methods" (1998), method
// 10. It is built from the Wilson intervals [lA, uA] and [lB, uB] of the two rates:
//
//	lo = diff − sqrt((pB − lB)² + (uA − pA)²)
//	hi = diff + sqrt((uB − pB)² + (pA − lA)²)
//
// The bounds always lie within [−1, 1]. The result is (NaN, NaN, NaN) when nA or nB is 0 (a
// side with no trials has no rate to subtract) and when either side, or the confidence, is
// outside Wilson's domain.
func Newcombe(passesA, nA, passesB, nB int, confidence float64) (diff, lo, hi float64) {
	if nA == 0 || nB == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	lA, uA := Wilson(passesA, nA, confidence)
	lB, uB := Wilson(passesB, nB, confidence)
	if math.IsNaN(lA) || math.IsNaN(lB) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	pA := float64(passesA) / float64(nA)
	pB := float64(passesB) / float64(nB)
	diff = pB - pA
	lo = diff - math.Hypot(pB-lB, uA-pA)
	hi = diff + math.Hypot(uB-pB, pA-lA)
	return diff, max(lo, -1), min(hi, 1)
}

// validConfidence reports whether c is a two-sided confidence level: 0 < c < 1.
func validConfidence(c float64) bool {
	return c > 0 && c < 1 // false for NaN
}

// normalQuantile returns z such that a standard normal variable lies in [−z, z] with
// probability confidence: the quantile of the standard normal distribution at
// (1+confidence)/2. It is sqrt(2)·erf⁻¹(confidence), since P(|Z| ≤ z) = erf(z/sqrt(2));
// math.Erfinv is accurate to about 1e-15 over (0, 1).
func normalQuantile(confidence float64) float64 {
	return math.Sqrt2 * math.Erfinv(confidence)
}
