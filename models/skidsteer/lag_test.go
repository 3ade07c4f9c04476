package skidsteer

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
	"gonum.org/v1/gonum/diff/fd"
)

// TestGeneratedLag keeps lag_gen.go equal to what dyn.Generate writes for
// LagModel (DYN_UPDATE=1 rewrites it), and checks that it is in use.
func TestGeneratedLag(t *testing.T) {
	update := os.Getenv("DYN_UPDATE") == "1"
	if err := dyn.GenerateFile(LagModel, "skidsteer", "LagModel", "lagKernel", "lag_gen.go", update); err != nil {
		t.Error(err)
	}
	if !update && !LagModel.Generated() {
		t.Error("the generated kernel of LagModel is not in use")
	}
}

// lagCase is a window of commanded wheel speeds with a step inside it.
func lagCase(seed uint64, T int, dt float64) (t, wl, wr []float64, w0 [2]float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	w0 = [2]float64{rng.Float64()*8 - 4, rng.Float64()*8 - 4}
	a := [2]float64{rng.Float64()*16 - 8, rng.Float64()*16 - 8}
	b := [2]float64{rng.Float64()*16 - 8, rng.Float64()*16 - 8}
	step := rng.IntN(T)
	for k := range T {
		t = append(t, float64(k)*dt)
		c := a
		if k >= step {
			c = b
		}
		wl, wr = append(wl, c[0]), append(wr, c[1])
	}
	return t, wl, wr, w0
}

func lagParams() Params {
	g, _ := SurfaceByName("grass")
	p := FromCoeffs(g.A[:])
	p.A[0][0], p.A[2][1], p.A[1][2] = -0.1, -0.25, -0.3
	p.R, p.Track, p.Tau, p.Delay = 0.3, 1.08, 0.7, 0.137
	return p
}

// lagInputs lays out one window as LagModel's initial state and inputs.
func lagInputs(t, wl, wr []float64, w0 [2]float64) (x0, u []float64) {
	x0 = make([]float64, lagStates)
	x0[3], x0[4] = w0[0], w0[1]
	for j := range DeadTimeSteps {
		x0[5+j], x0[5+DeadTimeSteps+j] = w0[0], w0[1]
	}
	for k := 0; k+1 < len(t); k++ {
		u = append(u, wl[k], wr[k], t[k+1]-t[k])
	}
	return x0, u
}

// LagModel's rollout (generated kernel) equals the native SimulateCommanded
// at every row, with and without a dead time, whole or fractional.
func TestLagModelMatchesSimulateCommanded(t *testing.T) {
	for seed := range uint64(6) {
		p := lagParams()
		p.Delay = []float64{0, 0.05, 0.137, 0.31, 0.5, 0.999}[seed]
		tt, wl, wr, w0 := lagCase(seed, 40, 0.05)
		want, err := SimulateCommanded(p, Pose{}, w0, tt, wl, wr)
		if err != nil {
			t.Fatal(err)
		}
		x0, u := lagInputs(tt, wl, wr, w0)
		T := len(tt) - 1
		sim := LagModel.NewSim(1, T)
		y := make([]float64, 3*T)
		if _, err := sim.Forward(append(p.Coeffs(), p.Tau, p.Delay), []float64{p.R, p.Track}, x0, u, y); err != nil {
			t.Fatal(err)
		}
		f := sim.Final()
		got := func(k int) Pose {
			if k == T {
				return Pose{f[0], f[1], f[2]}
			}
			return Pose{y[k], y[T+k], y[2*T+k]}
		}
		for k := 0; k <= T; k++ {
			g, w := got(k), want[k]
			if math.Abs(g.X-w.X)+math.Abs(g.Y-w.Y)+math.Abs(g.Psi-w.Psi) > 1e-12 {
				t.Fatalf("delay %g, row %d: %+v, want %+v", p.Delay, k, g, w)
			}
		}
	}
}

// The lagged wheel speeds that LagModel's generated kernel carries (its
// states wl, wr) equal dyn.LagDeadTimeValue, the native form that
// SimulateCommanded steps with, to 1e-14 at every row, with and without a
// dead time and a lag.
func TestLagModelWheelSpeedsMatchLagDeadTimeValue(t *testing.T) {
	for seed := range uint64(8) {
		p := lagParams()
		p.Delay = []float64{0, 0.05, 0.137, 0.31, 0.5, 0.999, 0.2, 1}[seed]
		p.Tau = []float64{0.7, 0.7, 0.7, 1.9, 0.01, 0.3, 0, 0.7}[seed]
		tt, wl, wr, w0 := lagCase(seed, 40, 0.05)
		x0, u := lagInputs(tt, wl, wr, w0)
		T := len(tt) - 1
		sim := LagModel.NewSim(1, T)
		if _, err := sim.Forward(append(p.Coeffs(), p.Tau, p.Delay), []float64{p.R, p.Track}, x0, u, nil); err != nil {
			t.Fatal(err)
		}
		w := w0
		cmds := [2][]float64{wl, wr}
		for i := range T {
			for side := range 2 {
				q := func(k int) float64 {
					if r := i - k; r >= 0 {
						return cmds[side][r]
					}
					return w0[side]
				}
				w[side], _ = dyn.LagDeadTimeValue(w[side], q, DeadTimeSteps, p.Delay, tt[i+1]-tt[i], p.Tau)
				if got := sim.State(i + 1)[3+side]; math.Abs(got-w[side]) > 1e-14*max(1, math.Abs(w[side])) {
					t.Fatalf("τ %g, delay %g, row %d, side %d: generated %.17g, LagDeadTimeValue %.17g", p.Tau, p.Delay, i+1, side, got, w[side])
				}
			}
		}
	}
}

// The generated gradient of an end-pose loss with respect to the slip
// coefficients, τ and the dead time equals central differences of the
// native SimulateCommanded (dead times away from whole samples).
func TestLagModelGradient(t *testing.T) {
	p := lagParams()
	const W = 5
	var cases [W][4][]float64
	var w0s [W][2]float64
	for k := range W {
		tt, wl, wr, w0 := lagCase(uint64(10+k), 40, 0.05)
		cases[k] = [4][]float64{tt, wl, wr}
		w0s[k] = w0
	}
	weights := [3]float64{1, -0.7, 0.4}
	loss := func(p Params) float64 {
		s := 0.0
		for k := range W {
			ps, err := SimulateCommanded(p, Pose{}, w0s[k], cases[k][0], cases[k][1], cases[k][2])
			if err != nil {
				t.Fatal(err)
			}
			e := ps[len(ps)-1]
			s += weights[0]*e.X*e.X + weights[1]*e.Y + weights[2]*e.Psi*e.Psi
		}
		return s
	}
	theta := append(p.Coeffs(), p.Tau, p.Delay)
	grad := make([]float64, len(theta))
	g1 := make([]float64, len(theta))
	for k := range W {
		x0, u := lagInputs(cases[k][0], cases[k][1], cases[k][2], w0s[k])
		T := len(cases[k][0]) - 1
		sim := LagModel.NewSim(1, T)
		if _, err := sim.Forward(theta, []float64{p.R, p.Track}, x0, u, nil); err != nil {
			t.Fatal(err)
		}
		f := sim.Final()
		xT := make([]float64, len(f))
		xT[0], xT[1], xT[2] = 2*weights[0]*f[0], weights[1], 2*weights[2]*f[2]
		sim.Backward(theta, []float64{p.R, p.Track}, u, nil, 0, xT, g1, nil, nil)
		for i := range grad {
			grad[i] += g1[i]
		}
	}
	set := func(th []float64) Params {
		q := FromCoeffs(th[:NumCoeffs])
		q.R, q.Track, q.Tau, q.Delay = p.R, p.Track, th[9], th[10]
		return q
	}
	for i := range theta {
		num := fd.Derivative(func(d float64) float64 {
			th := append([]float64(nil), theta...)
			th[i] += d
			return loss(set(th))
		}, 0, &fd.Settings{Formula: fd.Central, Step: 1e-6 * max(math.Abs(theta[i]), 1e-2)})
		if math.Abs(num-grad[i]) > 1e-6*max(math.Abs(num), 1) {
			t.Errorf("∂/∂%s: %.10g (generated), %.10g (central differences)", LagModel.Spec().Params[i], grad[i], num)
		}
	}
}

// syntheticLagRuns are windows of commanded steps predicted by
// SimulateCommanded with p, poses with noise of sd metres (radians), each
// window's measured speeds at its first row the lag's state there.
func syntheticLagRuns(p Params, n int, sd float64, seed uint64) []*Log {
	rng := rand.New(rand.NewPCG(seed, 99))
	var runs []*Log
	for k := range n {
		tt, wl, wr, w0 := lagCase(seed*1000+uint64(k), 40, 0.05)
		ps, err := SimulateCommanded(p, Pose{}, w0, tt, wl, wr)
		if err != nil {
			panic(err)
		}
		x, y, psi := make([]float64, len(tt)), make([]float64, len(tt)), make([]float64, len(tt))
		vc, wc := make([]float64, len(tt)), make([]float64, len(tt))
		for i, q := range ps {
			x[i], y[i], psi[i] = q.X+sd*rng.NormFloat64(), q.Y+sd*rng.NormFloat64(), q.Psi+sd*rng.NormFloat64()
		}
		x[0], y[0], psi[0] = 0, 0, 0
		l, err := NewLog(tt, vc, wc, x, y, psi)
		if err != nil {
			panic(err)
		}
		l.WlCmd, l.WrCmd = wl, wr
		l.Wl, l.Wr = make([]float64, len(tt)), make([]float64, len(tt))
		l.Wl[0], l.Wr[0] = w0[0], w0[1]
		runs = append(runs, l)
	}
	return runs
}

// FitWindows recovers the slip coefficients, τ and the dead time from
// commanded steps (synthetic, with pose noise), σ covering the truth, and
// beats the fit without input dynamics on held-out windows.
func TestFitWindowsRecoversLag(t *testing.T) {
	truth := lagParams()
	train := syntheticLagRuns(truth, 120, 0.01, 1)
	test := syntheticLagRuns(truth, 60, 0.01, 2)
	start := Params{Model: "skidsteer", R: truth.R, Track: truth.Track}
	o := WindowOptions{Inputs: Commanded, WeightPsi: 1, FitTau: true, FitDelay: true}
	f, err := FitWindows(train, start, o)
	if err != nil {
		t.Fatal(err)
	}
	want := append(truth.Coeffs(), truth.Tau, truth.Delay)
	for i, n := range f.Names {
		if f.AtBound[i] || !(f.Std[i] > 0) {
			t.Errorf("%s = %g: σ %g, at bound %v", n, f.Value[i], f.Std[i], f.AtBound[i])
			continue
		}
		if z := math.Abs(f.Value[i]-want[i]) / f.Std[i]; z > 4 {
			t.Errorf("%s = %g ± %g, truth %g (%.1f σ)", n, f.Value[i], f.Std[i], want[i], z)
		}
	}
	if math.Abs(f.Params.Tau-truth.Tau) > 0.05 || math.Abs(f.Params.Delay-truth.Delay) > 0.02 {
		t.Errorf("τ = %g, delay = %g; truth %g, %g", f.Params.Tau, f.Params.Delay, truth.Tau, truth.Delay)
	}
	noLag, err := FitWindows(train, start, WindowOptions{Inputs: Commanded, WeightPsi: 1})
	if err != nil {
		t.Fatal(err)
	}
	eLag, err := PredictWindows(test, f.Params, o)
	if err != nil {
		t.Fatal(err)
	}
	eNo, err := PredictWindows(test, noLag.Params, o)
	if err != nil {
		t.Fatal(err)
	}
	rl, rn := EndpointRMS(eLag), EndpointRMS(eNo)
	t.Logf("τ = %.4f ± %.4f (%g), delay = %.4f ± %.4f (%g); held-out RMS %.4f m with the lag, %.4f m without",
		f.Params.Tau, f.Params.TauStd, truth.Tau, f.Params.Delay, f.Params.DelayStd, truth.Delay, rl, rn)
	if !(rl < 0.05 && rl < rn/3) {
		t.Errorf("held-out endpoint RMS %g m with the lag, %g m without", rl, rn)
	}
}

// BenchmarkLagWindowsEval is one loss and gradient of FitWindows over 180
// two-second windows at 20 Hz (the Warthog's training set): the hot loop of
// the fit.
func BenchmarkLagWindowsEval(b *testing.B) {
	p := lagParams()
	runs := syntheticLagRuns(p, 180, 0.01, 3)
	ws, err := newWindowSet(runs, p, WindowOptions{Inputs: Commanded, WeightPsi: 1})
	if err != nil {
		b.Fatal(err)
	}
	x := ws.modelParams(p)
	g := make([]float64, len(x))
	b.ResetTimer()
	for range b.N {
		if _, err := ws.eval(x, g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitWindowsLag is a whole fit of the slip coefficients, τ and
// the dead time over 180 windows, σ included.
func BenchmarkFitWindowsLag(b *testing.B) {
	p := lagParams()
	runs := syntheticLagRuns(p, 180, 0.01, 3)
	start := Params{Model: "skidsteer", R: p.R, Track: p.Track}
	for range b.N {
		f, err := FitWindows(runs, start, WindowOptions{Inputs: Commanded, WeightPsi: 1, FitTau: true, FitDelay: true})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(f.Iterations), "iterations")
	}
}

// The generated value-only and forward-mode kernels of LagModel equal the
// interpreter (the forward kernels came with the merge of forward mode).
func TestGeneratedForwardLag(t *testing.T) {
	p := lagParams()
	tt, wl, wr, w0 := lagCase(3, 40, 0.05)
	x0, u := lagInputs(tt, wl, wr, w0)
	if _, err := LagModel.CheckGeneratedForward(append(p.Coeffs(), p.Tau, p.Delay), []float64{p.R, p.Track}, x0, u, 1, len(tt)-1, 1e-10); err != nil {
		t.Error(err)
	}
}
