package fit

import "math"

// CorrelationInflation is the factor by which Gauss–Newton standard
// deviations grow when the residuals are correlated in time:
//
//	infl = sqrt((1+ρ)/(1−ρ))
//
// for the lag-1 autocorrelation ρ, pooled over series (one per run and
// output, in time order): ρ = Σ e_k·e_{k−1} / Σ e_k², the products taken
// within each series. For AR(1) residuals the variance of a mean, and so of
// a least-squares estimate, is (1+ρ)/(1−ρ) times the independent value (the
// effective number of independent samples is n(1−ρ)/(1+ρ)). A trajectory
// fit's residuals are one slow drift when, e.g., an error in the start pose
// bends the whole predicted path, and the plain σ is then tens of times too
// small.
//
// infl is 1 when ρ ≤ 0 or there are no residuals, and at most the square
// root of the samples per series (n/len(series)): a series counts as at
// least one independent sample. ρ is capped at 0.9999. NaN entries
// (missing samples) are left out, with the products they take part in.
func CorrelationInflation(series [][]float64) (infl, rho float64) {
	var num, den float64
	n := 0
	for _, s := range series {
		for k, e := range s {
			if math.IsNaN(e) {
				continue
			}
			den += e * e
			n++
			if k > 0 && !math.IsNaN(s[k-1]) {
				num += e * s[k-1]
			}
		}
	}
	if n == 0 || den == 0 {
		return 1, 0
	}
	rho = num / den
	if rho <= 0 {
		return 1, rho
	}
	rho = min(rho, 0.9999)
	infl = math.Sqrt((1 + rho) / (1 - rho))
	return min(infl, math.Sqrt(float64(n)/float64(len(series)))), rho
}

// RMS is the root mean square over every value of the series that is not
// NaN; NaN when there are none.
func RMS(series ...[]float64) float64 {
	var ss float64
	n := 0
	for _, s := range series {
		for _, e := range s {
			if !math.IsNaN(e) {
				ss += e * e
				n++
			}
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Sqrt(ss / float64(n))
}
