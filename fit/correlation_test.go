package fit

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ar1 draws series of AR(1) noise e_k = ρ·e_{k−1} + w_k (w unit normal),
// each started from the stationary distribution.
func ar1(rho float64, series, n int, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([][]float64, series)
	for s := range out {
		e := rng.NormFloat64() / math.Sqrt(1-rho*rho)
		out[s] = make([]float64, n)
		for k := range n {
			if k > 0 {
				e = rho*e + rng.NormFloat64()
			}
			out[s][k] = e
		}
	}
	return out
}

// On AR(1) residuals with ρ = 0.8 the estimated ρ and inflation match the
// theory, and the inflation is what the scatter of a least-squares
// estimate (here the mean of each series) shows over 400 series.
func TestCorrelationInflationAR1(t *testing.T) {
	const rho, ns, n = 0.8, 400, 500
	ser := ar1(rho, ns, n, 11)
	infl, r := CorrelationInflation(ser)
	theory := math.Sqrt((1 + rho) / (1 - rho)) // 3
	// ρ̂ has a standard error of about sqrt((1−ρ²)/(ns·n)) ≈ 0.0013
	if math.Abs(r-rho) > 0.006 {
		t.Errorf("ρ̂ = %.4f, want %.1f ± 0.006", r, rho)
	}
	if math.Abs(infl/theory-1) > 0.03 {
		t.Errorf("inflation %.4f, theory %.4f", infl, theory)
	}
	// the real scatter of each series' mean against the independent σ/√n
	var v0, vm float64
	for _, s := range ser {
		m := 0.0
		for _, e := range s {
			m += e
			v0 += e * e
		}
		m /= n
		vm += m * m
	}
	v0 /= ns * n
	vm /= ns
	ratio := math.Sqrt(vm / (v0 / n))
	// sampling error of a standard deviation from 400 draws: 1/sqrt(800) ≈ 3.5 %
	if math.Abs(ratio/infl-1) > 0.11 {
		t.Errorf("the means scatter %.3f× the independent σ; the inflation says %.3f", ratio, infl)
	}
	t.Logf("ρ̂ = %.4f, inflation %.4f (theory %.4f), measured scatter of the mean %.4f× the independent σ", r, infl, theory, ratio)

	// white residuals: ρ ≈ 0 and no inflation beyond sampling error
	if infl, r := CorrelationInflation(ar1(0, 20, 500, 12)); math.Abs(r) > 0.02 || infl > 1.03 {
		t.Errorf("white: ρ̂ %.4f, inflation %.4f", r, infl)
	}
	// alternating residuals: ρ < 0, no deflation
	if infl, r := CorrelationInflation([][]float64{{1, -1, 1, -1, 1, -1}}); infl != 1 || r >= 0 {
		t.Errorf("alternating: ρ̂ %.4f, inflation %.4f", r, infl)
	}
	// one drift: capped at the square root of the samples per series
	drift := [][]float64{{1, 1, 1, 1}, {2, 2, 2, 2}}
	if infl, _ := CorrelationInflation(drift); math.Abs(infl-2) > 1e-12 {
		t.Errorf("drift: inflation %g, want the cap sqrt(4) = 2", infl)
	}
	if infl, _ := CorrelationInflation(nil); infl != 1 {
		t.Errorf("no residuals: %g", infl)
	}
	// a missing sample breaks the lag-1 products around it
	if infl, r := CorrelationInflation([][]float64{{1, math.NaN(), 1, 1}}); math.Abs(r-1.0/3) > 1e-15 || math.Abs(infl-math.Sqrt(2)) > 1e-12 {
		t.Errorf("with NaN: ρ̂ %g, inflation %g; want 1/3 and min(√2, √3)", r, infl)
	}
	if r := RMS([]float64{3, math.NaN()}, []float64{4, 0}); math.Abs(r-math.Sqrt(25.0/3)) > 1e-15 {
		t.Errorf("RMS %g", r)
	}
}
