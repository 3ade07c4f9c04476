package mecanum

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/opt"
)

// linEq8 is eq. 8 itself at its linearisation point, its gradient is the
// model's (central differences of the model), and it departs from eq. 8 at
// x̄ + δ by the rollout's second order only: halving δ quarters the gap.
func TestLinEq8(t *testing.T) {
	for _, prior := range []float64{0, 2} {
		cfg := DefaultConfig()
		cfg.Prior, cfg.PriorMu = prior, [4]float64{0.4, 0.5, 0.6, 0.7}
		f, err := NewFit(testParams(), testRuns(3, 0.003, 4), cfg)
		if err != nil {
			t.Fatal(err)
		}
		n := f.Dim()
		x := f.X0([4]float64{0.3, 0.7, 0.5, 0.6})
		x[4] += 0.01
		m, err := f.linearize(x, nil)
		if err != nil {
			t.Fatal(err)
		}
		zero := make([]float64, n)
		if got, want := m.eval(zero, nil), f.Loss(x); relErr(got, want) > 1e-12 {
			t.Errorf("prior %g: model at x̄ %.15g, eq. 8 %.15g", prior, got, want)
		}
		rng := rand.New(rand.NewPCG(1, uint64(prior)))
		d := make([]float64, n)
		for i := range d {
			d[i] = 1e-3 * rng.NormFloat64()
		}
		g := make([]float64, n)
		m.eval(d, g)
		chk, err := ad.CheckGrad(func(d []float64) (float64, error) { return m.eval(d, nil), nil }, g, d, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if chk.MaxRelErr > 1e-5 {
			t.Errorf("prior %g: the model's gradient against its central differences: %v", prior, chk)
		}
		gap := func(a float64) float64 {
			xd, da := make([]float64, n), make([]float64, n)
			for i := range d {
				da[i] = a * d[i]
				xd[i] = x[i] + da[i]
			}
			return math.Abs(m.eval(da, nil) - f.Loss(xd))
		}
		g1, g2 := gap(1), gap(0.5)
		t.Logf("prior %g: |model − eq. 8| at δ %.3g, at δ/2 %.3g (ratio %.2f)", prior, g1, g2, g1/g2)
		if r := g1 / g2; !(r > 3 && r < 5.5) {
			t.Errorf("prior %g: the gap at δ over the gap at δ/2 is %.3g, want ≈ 4 (second order)", prior, r)
		}
	}
}

// identifyBothWays identifies f from init with the linearised second
// stage (a) and with the second stage that searches eq. 8 itself (b,
// fullSecondStage).
func identifyBothWays(t *testing.T, f *Fit, init [4]float64) (a, b *Result) {
	t.Helper()
	full := f.WithEngine(f.Cfg.Engine)
	full.fullSecondStage = true
	a, err := Identify(f, IdentifyOptions{Init: init})
	if err != nil {
		t.Fatal(err)
	}
	b, err = Identify(full, IdentifyOptions{Init: init})
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

// The linearised second stage reaches the loss of the second stage that
// searches eq. 8 itself (fullSecondStage) to 1e-6 relative, or a lower
// one, with μ within 0.1 σ, in fewer rollouts.
func TestLinearStage(t *testing.T) {
	sets := stageSets()
	init := [4]float64{0.5, 0.5, 0.5, 0.5}
	for name, runs := range sets {
		f, err := NewFit(DefaultParams(), runs, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		a, b := identifyBothWays(t, f, init)
		d := 0.0
		for j := range 4 {
			d = math.Max(d, math.Abs(a.Mu[j]-b.Mu[j])/b.Ident.MuStd[j])
		}
		t.Logf("%s: linearised %d evaluations, %d rollouts, loss %+.2e relative, μ %.3f σ apart; eq. 8 searched itself: %d evaluations (rollouts)",
			name, a.Opt.FuncEvaluations, a.Rollouts, a.Opt.F/b.Opt.F-1, d, b.Opt.FuncEvaluations)
		if !a.Linearised || b.Linearised {
			t.Errorf("%s: Linearised %v with the linearised stage, %v without", name, a.Linearised, b.Linearised)
		}
		if !a.Opt.Status.Converged() || a.Opt.F > b.Opt.F*(1+1e-6) || d > 0.1 || a.Rollouts >= b.Opt.FuncEvaluations {
			t.Errorf("%s: %v, loss %.12g against %.12g, μ %.3f σ apart, %d rollouts against %d", name, a.Opt.Status, a.Opt.F, b.Opt.F, d, a.Rollouts, b.Opt.FuncEvaluations)
		}
		if relErr(f.Loss(a.X), a.Opt.F) > 1e-12 {
			t.Errorf("%s: reported loss %.15g, eq. 8 at the answer %.15g", name, a.Opt.F, f.Loss(a.X))
		}
	}

}

// From eq. 8's own minimum the linearised stage takes no step: it returns
// that point as converged after the one evaluation there (it returned nil
// before, and staged then searched eq. 8 itself with L-BFGS-B), with the
// loss eq. 8's; from a point a step away it still steps.
func TestLinearStageAtMinimum(t *testing.T) {
	f, err := NewFit(DefaultParams(), demoLikeRuns(), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Identify(f, IdentifyOptions{Init: [4]float64{0.5, 0.5, 0.5, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	set := opt.Settings{FunctionTol: DefaultFunctionTol}
	g, err := NewFit(DefaultParams(), demoLikeRuns(), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := g.linearStage(r.X, set, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res == nil {
		t.Fatal("no result from eq. 8's minimum")
	}
	if res.Status != opt.FunctionConverged || res.FuncEvaluations != 1 || !slices.Equal(res.X, r.X) {
		t.Errorf("from the minimum: %v after %d evaluations, moved %v", res.Status, res.FuncEvaluations, !slices.Equal(res.X, r.X))
	}
	if want := g.Loss(r.X); relErr(res.F, want) > 1e-12 {
		t.Errorf("loss %.15g, eq. 8 there %.15g", res.F, want)
	}
	x := slices.Clone(r.X)
	x[0] += 1e-3
	res, _, err = g.linearStage(x, set, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res == nil || res.FuncEvaluations < 2 || res.F >= g.Loss(x) {
		t.Errorf("from μ₀ + 1e-3: %+v", res)
	}
}
