package pioneer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/pioneer/p3dx"
)

// noisyRun is the experimental model's own response to the references of
// p3dx.Cases plus Gaussian noise of sd (sv, sw) on the measured v, ω.
func noisyRun(t *testing.T, p Params, sv, sw float64, seed uint64) *Run {
	t.Helper()
	vr, wr := p3dx.Cases(1, 5)
	r := uniformRun(vr, wr)
	v, w, err := Simulate(p, r)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	r.V, r.W = make([]float64, len(v)), make([]float64, len(w))
	for k := range v {
		r.V[k], r.W[k] = v[k]+sv*rng.NormFloat64(), w[k]+sw*rng.NormFloat64()
	}
	return r
}

// The Gauss–Newton σ against the spread of repeated identifications: data
// from the model itself with independent noise, fitted again and again;
// the estimates' standard deviation about the truth must match σ (within
// the sampling error of a few repetitions).
func TestGaussNewtonSigmaMatchesSpread(t *testing.T) {
	if testing.Short() {
		t.Skip("identifies repeatedly")
	}
	p := Default(FormExperimental)
	free := []string{"acc_v", "dec_v", "tau_v", "acc_w", "dec_w", "tau_w"}
	truth := map[string]float64{"acc_v": p.AccV, "dec_v": p.DecV, "tau_v": *p.TauV, "acc_w": p.AccW, "dec_w": p.DecW, "tau_w": *p.TauW}
	dv, dw := p.Delays()
	if dv != dw {
		t.Fatalf("delays %d, %d", dv, dw)
	}
	const seeds = 40
	sumSq := make([]float64, len(free))
	sigma := make([]float64, len(free))
	for s := range seeds {
		r := noisyRun(t, p, 0.01, 0.02, uint64(s+1))
		res, err := Identify(p, []*Run{r}, IdentifyOptions{Free: free, Delays: []int{dv}, Temps: []float64{0.005, 0.0005}})
		if err != nil {
			t.Fatal(err)
		}
		sg, err := GaussNewton(res.Params, []*Run{r}, free)
		if err != nil {
			t.Fatal(err)
		}
		x := res.Params.vector()
		names := ExperimentalParamNames
		for j, n := range free {
			for k, m := range names {
				if m == n {
					e := x[k] - truth[n]
					sumSq[j] += e * e
				}
			}
			sigma[j] += sg.Std[j] / seeds
		}
	}
	for j, n := range free {
		spread := math.Sqrt(sumSq[j] / seeds)
		ratio := spread / sigma[j]
		t.Logf("%s: RMS error %.3g, mean σ %.3g, ratio %.2f", n, spread, sigma[j], ratio)
		// 40 repetitions: the RMS error itself is uncertain by about 11 %.
		if !(ratio > 0.5 && ratio < 2) {
			t.Errorf("%s: RMS error over %d noise seeds %.3g, mean σ %.3g: ratio %.2f, want 0.5–2", n, seeds, spread, sigma[j], ratio)
		}
	}
}

// A parameter the model does not depend on (a saturation the references
// never reach) has σ = +Inf and a null direction; σ grows with the noise.
func TestGaussNewtonUndeterminedAndScale(t *testing.T) {
	p := Default(FormExperimental)
	p.Vmax = 2.5 // Cases drives at most 0.3 m/s
	free := []string{"vmax", "acc_v", "tau_w"}
	r1 := noisyRun(t, p, 0.01, 0.02, 3)
	r2 := noisyRun(t, p, 0.02, 0.04, 3) // the same noise, twice as large
	s1, err := GaussNewton(p, []*Run{r1}, free)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := GaussNewton(p, []*Run{r2}, free)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(s1.Std[0], 1) || len(s1.Null) != 1 {
		t.Errorf("vmax: σ %v, null directions %v; want +Inf and one", s1.Std[0], s1.Null)
	}
	for j := 1; j < 3; j++ {
		if !(s1.Std[j] > 0) || math.IsInf(s1.Std[j], 0) {
			t.Errorf("%s: σ %v, want finite and positive", free[j], s1.Std[j])
		}
		// The residuals are normalised by the measured variance, which
		// the noise barely changes: σ about doubles.
		if r := s2.Std[j] / s1.Std[j]; r < 1.7 || r > 2.3 {
			t.Errorf("%s: σ %v with the noise doubled, %v before: ratio %.2f, want about 2", free[j], s2.Std[j], s1.Std[j], r)
		}
	}
	if _, err := GaussNewton(p, []*Run{r1}, []string{"KR"}); err == nil {
		t.Error("KR (a physical-form parameter) accepted for the experimental form")
	}
}
