package mecanum

import (
	"math"
	"slices"
	"testing"

	"github.com/wheelgrad/wheelgrad/opt"
)

// identifySquaredBoth runs IdentifySquared (no delays) from the linear
// start (SquaredLS.linearStart) and from the given μ and first camera
// poses (squaredFromInit), and returns both results.
func identifySquaredBoth(t *testing.T, runs []Run, init [4]float64) (lin, from *NetResult) {
	t.Helper()
	p := DefaultParams()
	_, lin, _, err := IdentifySquared(p, runs, init, false, opt.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	squaredFromInit = true
	defer func() { squaredFromInit = false }()
	_, from, _, err = IdentifySquared(p, runs, init, false, opt.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	return lin, from
}

// newSquaredLS is the NetFit of runs (DefaultParams, one constant μ) and
// its SquaredLS.
func newSquaredLS(t *testing.T, runs []Run) (*NetFit, *SquaredLS) {
	t.Helper()
	f, err := NewNetFit(DefaultParams(), runs, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.SquaredLS()
	if err != nil {
		t.Fatal(err)
	}
	return f, s
}

// squaredStart is SquaredLS's vector for μ and the NetFit's start poses
// (the first camera poses).
func squaredStart(f *NetFit, s *SquaredLS, mu [4]float64) []float64 {
	x0 := f.X0(mu, 1)
	return s.X0(mu, x0[f.NetWeights():])
}

// squaredStartLoss is SquaredLS's ½‖r‖² at the start identifySquaredLS
// takes on runs from init: the linear start, or init's with fromInit.
func squaredStartLoss(t *testing.T, runs []Run, init [4]float64, fromInit bool) (float64, []float64) {
	t.Helper()
	f, s := newSquaredLS(t, runs)
	x := squaredStart(f, s, init)
	if !fromInit && !s.linearStart(f.P, x) {
		t.Fatal("linearStart failed")
	}
	r := make([]float64, s.M)
	if err := s.Residuals(x, r, nil); err != nil {
		t.Fatal(err)
	}
	var F float64
	for _, v := range r {
		F += v * v
	}
	return F / 2, x
}

// TestSquaredLinearStart: from the linear start the squared-loss fit
// reaches the optimum it reaches from μ = 0.5 and the first camera poses
// (loss within 1e-9 relative, μ within 1e-6) in fewer iterations, on the
// demo-like runs and on runs that turn through ±π with the measured
// heading wrapped to (−π, π]; the start's loss is far below init's.
func TestSquaredLinearStart(t *testing.T) {
	init := [4]float64{0.5, 0.5, 0.5, 0.5}
	spin := demoLikeRuns()
	for i := range spin {
		truth := DefaultParams()
		truth.Mu = []float64{0.6, 0.7, 0.8, 0.9}
		cmd := [4]float64{12, -10, -11, 13}
		if i == 1 {
			cmd = [4]float64{-8, 12, 10, -9}
		}
		spin[i], _ = Synthesize(truth, SynthSpec{ID: string(rune('1' + i)), Command: cmd, Duration: 7,
			Pose0: [3]float64{0.1 * float64(i), 0, 3}, Noise: 0.003, HeadNoise: 0.01, Seed: uint64(i + 7)})
		for k, th := range spin[i].Theta {
			spin[i].Theta[k] = math.Remainder(th, 2*math.Pi) // NaN stays NaN
		}
	}
	for _, c := range []struct {
		name string
		runs []Run
	}{{"demo-like", demoLikeRuns()}, {"spinning-wrapped", spin}} {
		t.Run(c.name, func(t *testing.T) {
			F0, _ := squaredStartLoss(t, c.runs, init, true)
			F1, _ := squaredStartLoss(t, c.runs, init, false)
			lin, from := identifySquaredBoth(t, c.runs, init)
			t.Logf("start loss: μ = 0.5 %.6g, linear %.10g; optimum %.14g (from μ = 0.5: %.14g); iterations %d vs %d, evaluations %d vs %d",
				F0, F1, lin.Opt.F, from.Opt.F, lin.Opt.Iterations, from.Opt.Iterations, lin.Opt.FuncEvaluations, from.Opt.FuncEvaluations)
			if !(F1 < F0) {
				t.Errorf("linear start's loss %g not below μ = 0.5's %g", F1, F0)
			}
			if d := math.Abs(lin.Opt.F-from.Opt.F) / from.Opt.F; !(d <= 1e-9) {
				t.Errorf("loss %.14g from the linear start, %.14g from μ = 0.5: %.2g relative", lin.Opt.F, from.Opt.F, d)
			}
			for j := range 4 {
				if d := math.Abs(lin.Opt.X[j] - from.Opt.X[j]); !(d <= 1e-6) {
					t.Errorf("μ_%d %.10g from the linear start, %.10g from μ = 0.5", j+1, lin.Opt.X[j], from.Opt.X[j])
				}
			}
			if lin.Opt.Iterations > 8 || lin.Opt.Iterations >= from.Opt.Iterations {
				t.Errorf("%d iterations from the linear start, %d from μ = 0.5", lin.Opt.Iterations, from.Opt.Iterations)
			}
		})
	}
}

// TestSquaredLinearStartSingular: runs whose commands leave μ
// undetermined (standing still) give no linear start: x is unchanged and
// the fit starts at init.
func TestSquaredLinearStartSingular(t *testing.T) {
	var runs []Run
	for i := range 2 {
		r, _ := Synthesize(DefaultParams(), SynthSpec{ID: string(rune('1' + i)), Duration: 2, Noise: 0.003, HeadNoise: 0.01, Seed: uint64(i + 1)})
		runs = append(runs, r)
	}
	f, s := newSquaredLS(t, runs)
	x := squaredStart(f, s, [4]float64{0.5, 0.5, 0.5, 0.5})
	before := slices.Clone(x)
	if s.linearStart(f.P, x) {
		t.Errorf("linearStart succeeded on runs standing still: %v", x[:4])
	}
	if !slices.Equal(x, before) {
		t.Errorf("x changed: %v, was %v", x, before)
	}
}

// TestSquaredLinearStartUndetermined: one run of one constant command
// determines only three combinations of μ (eq. 4: B·diag(ω_s) has the
// null vector d_j = n_j/ω_s,j, n = NullVector): linearStart declines, and
// IdentifySquared's fit is the fit from init, to the bit.
func TestSquaredLinearStartUndetermined(t *testing.T) {
	truth := DefaultParams()
	truth.Mu = []float64{0.6, 0.7, 0.8, 0.9}
	r, _ := Synthesize(truth, SynthSpec{ID: "1", Command: [4]float64{10, 12, 8, 14}, Duration: 7, Noise: 0.003, HeadNoise: 0.01, Seed: 3})
	f, s := newSquaredLS(t, []Run{r})
	init := [4]float64{0.5, 0.5, 0.5, 0.5}
	x := squaredStart(f, s, init)
	before := slices.Clone(x)
	if s.linearStart(f.P, x) {
		t.Errorf("linearStart took μ = %v from one command", x[:4])
	}
	if !slices.Equal(x, before) {
		t.Errorf("x changed: %v, was %v", x, before)
	}
	lin, from := identifySquaredBoth(t, []Run{r}, init)
	if !slices.Equal(lin.Opt.X, from.Opt.X) || lin.Opt.F != from.Opt.F {
		t.Errorf("one command: %v (F %v), from init %v (F %v)", lin.Opt.X[:4], lin.Opt.F, from.Opt.X[:4], from.Opt.F)
	}
}
