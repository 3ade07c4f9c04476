package mecanum

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/dyn"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// jitteredRuns are runs of different lengths whose rows are not uniform in
// time (a log's rows may not be), each anchored at row 0.
func jitteredRuns(n int, seed uint64) []Run {
	rng := rand.New(rand.NewPCG(seed, 7))
	runs := testRuns(n, 0.003, seed)
	for i := range runs {
		r := &runs[i]
		t := make([]float64, r.Len())
		for k := 1; k < len(t); k++ {
			t[k] = t[k-1] + (0.5+rng.Float64())/240
		}
		r.T = t
	}
	return runs
}

// batchInputs lays runs out as the lanes of one Model rollout, padded with
// dt = 0 to the longest: x0 [3][B], u [T][5][B].
func batchInputs(runs []Run) (x0, u []float64, T int) {
	B := len(runs)
	for _, r := range runs {
		T = max(T, r.Len())
	}
	x0, u = make([]float64, 3*B), make([]float64, T*5*B)
	for b := range runs {
		r := &runs[b]
		x0[b], x0[B+b], x0[2*B+b] = r.X[0], r.Y[0], r.Theta[0]
		ub := ModelInputs(r)
		for i := range r.Len() {
			for k := range 5 {
				u[(i*5+k)*B+b] = ub[5*i+k]
			}
		}
	}
	return x0, u, T
}

// The step definition's rollout (generated kernel and interpreter) equals
// the native Simulate, batched runs of different lengths with non-uniform
// rows.
func TestModelEqualsSimulate(t *testing.T) {
	p := testParams()
	runs := jitteredRuns(4, 3)
	x0, u, T := batchInputs(runs)
	B := len(runs)
	for _, k := range []struct {
		name string
		k    dyn.Kernel
	}{{"generated", Model.NewKernel()}, {"interpreter", Model.NewInterpreter()}} {
		sim, err := Model.NewSimWith(k.k, B, T)
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float64, 3*T*B)
		if _, err := sim.Forward(p.Mu, SettingsOf(p), x0, u, y); err != nil {
			t.Fatal(err)
		}
		for b := range runs {
			x, yy, th := Simulate(p, &runs[b])
			for i := range x {
				m := i*B + b
				if math.Abs(y[m]-x[i]) > 1e-12 || math.Abs(y[T*B+m]-yy[i]) > 1e-12 || math.Abs(y[2*T*B+m]-th[i]) > 1e-12 {
					t.Fatalf("%s, run %d row %d: dyn (%v %v %v), Simulate (%v %v %v)", k.name, b, i, y[m], y[T*B+m], y[2*T*B+m], x[i], yy[i], th[i])
				}
			}
		}
	}
	if !Model.Generated() {
		t.Error("the generated kernel of Model is not in use")
	}
}

// The generated gradient of the rollout equals central differences of the
// native Simulate: for F = Σ weights·poses over every row of every run,
// with respect to μ and the start poses.
func TestModelGradientMatchesSimulate(t *testing.T) {
	p := testParams()
	runs := jitteredRuns(3, 5)
	x0, u, T := batchInputs(runs)
	B := len(runs)
	rng := rand.New(rand.NewPCG(9, 9))
	ybar := make([]float64, 3*T*B)
	for b := range runs {
		for i := range runs[b].Len() {
			for c := range 3 {
				ybar[(c*T+i)*B+b] = rng.NormFloat64()
			}
		}
	}
	// F from Simulate, with the start poses written into the runs
	F := func(mu []float64, x0 []float64) float64 {
		q := p
		q.Mu = mu
		var f float64
		for b := range runs {
			r := runs[b]
			r.X, r.Y, r.Theta = []float64{x0[b]}, []float64{x0[B+b]}, []float64{x0[2*B+b]}
			x, y, th := Simulate(q, &r)
			for i := range x {
				f += ybar[i*B+b]*x[i] + ybar[(T+i)*B+b]*y[i] + ybar[(2*T+i)*B+b]*th[i]
			}
		}
		return f
	}
	sim := Model.NewSim(B, T)
	if _, err := sim.Forward(p.Mu, SettingsOf(p), x0, u, make([]float64, 3*T*B)); err != nil {
		t.Fatal(err)
	}
	pbar, x0bar, ubar := make([]float64, 4), make([]float64, 3*B), make([]float64, len(u))
	if err := sim.Backward(p.Mu, SettingsOf(p), u, ybar, 0, nil, pbar, x0bar, ubar); err != nil {
		t.Fatal(err)
	}
	z := append(append([]float64(nil), p.Mu...), x0...)
	g := append(append([]float64(nil), pbar...), x0bar...)
	chk, err := ad.CheckGrad(func(z []float64) (float64, error) { return F(z[:4], z[4:]), nil }, g, z, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if chk.MaxRelErr > 1e-7 {
		t.Errorf("generated gradient vs central differences of Simulate: %v", chk)
	}
	// the inputs too (commands and step lengths), by the package's own check
	c, err := Model.CheckRollout(Model.NewKernel(), p.Mu, SettingsOf(p), x0, u, B, T, nil, 0, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c.RelErr > 1e-8 {
		t.Errorf("rollout check over μ, start poses and inputs: %v", c)
	}
}

// The step's Jacobians (for filters and sensitivity reports) equal central
// differences of one Euler step.
func TestModelStepJacobian(t *testing.T) {
	p := testParams()
	st := Model.NewStepper()
	x := []float64{0.3, -0.2, 0.7}
	u := []float64{4, 10, 9, 5, 1.0 / 240}
	jp := make([]float64, 3*4)
	if err := st.Jacobian(p.Mu, SettingsOf(p), x, u, nil, nil, jp); err != nil {
		t.Fatal(err)
	}
	num := mat.NewDense(3, 4, nil)
	fd.Jacobian(num, func(xn, mu []float64) {
		if _, err := st.Step(mu, SettingsOf(p), x, u, xn, nil); err != nil {
			t.Fatal(err)
		}
	}, p.Mu, &fd.JacobianSettings{Formula: fd.Central, Step: 1e-6})
	for j := range 4 {
		for c := range 3 {
			if d := num.At(c, j); math.Abs(d-jp[c*4+j]) > 1e-8*(1+math.Abs(d)) {
				t.Errorf("∂x'_%d/∂μ_%d: %v, central differences %v", c, j+1, jp[c*4+j], d)
			}
		}
	}
}

// The rollout as a gorgonia node (dyn.Rollout, generated backward with its
// built-in self-check) in a loss graph: forward equal to Simulate, gradient
// equal to the native Sim's.
func TestModelRolloutGraph(t *testing.T) {
	p := testParams()
	runs := jitteredRuns(2, 8)
	x0, u, T := batchInputs(runs)
	B := len(runs)
	q := SettingsOf(p)
	w := make([]float64, 3*T*B)
	for i := range w {
		w[i] = math.Sin(float64(i))
	}
	prog, err := ad.Compile([]ad.Param{{Name: "mu", Shape: []int{4}}, {Name: "pose0", Shape: []int{3 * B}}}, func(g *ad.Graph, ps []*G.Node) (*G.Node, error) {
		tr, err := dyn.Rollout(Model, ps[0], g.Const(q), ps[1], g.Const(u), B, T)
		if err != nil {
			return nil, err
		}
		y, err := tr.Outputs()
		if err != nil {
			return nil, err
		}
		g.Watch("y", y)
		return G.Sum(G.Must(G.HadamardProd(y, g.Const(w))))
	})
	if err != nil {
		t.Fatal(err)
	}
	z := append(append([]float64(nil), p.Mu...), x0...)
	grad := make([]float64, len(z))
	if _, err := prog.ValueAndGradInto(z, grad); err != nil {
		t.Fatal(err)
	}
	if ok, e := Model.SelfChecked(); !ok {
		t.Errorf("the Rollout's self-check did not run (%v)", e)
	}
	y := prog.Output("y")
	for b := range runs {
		x, yy, th := Simulate(p, &runs[b])
		for i := range x {
			m := i*B + b
			if math.Abs(y[m]-x[i]) > 1e-12 || math.Abs(y[T*B+m]-yy[i]) > 1e-12 || math.Abs(y[2*T*B+m]-th[i]) > 1e-12 {
				t.Fatalf("run %d row %d: graph (%v %v %v), Simulate (%v %v %v)", b, i, y[m], y[T*B+m], y[2*T*B+m], x[i], yy[i], th[i])
			}
		}
	}
	sim := Model.NewSim(B, T)
	if _, err := sim.Forward(p.Mu, q, x0, u, nil); err != nil {
		t.Fatal(err)
	}
	pbar, x0bar := make([]float64, 4), make([]float64, 3*B)
	if err := sim.Backward(p.Mu, q, u, w, 0, nil, pbar, x0bar, nil); err != nil {
		t.Fatal(err)
	}
	for i, v := range append(pbar, x0bar...) {
		if math.Abs(v-grad[i]) > 1e-12*(1+math.Abs(v)) {
			t.Errorf("∂F/∂z[%d]: graph %v, Sim %v", i, grad[i], v)
		}
	}
}

// The identification loss built from the step definitions (dynFit) equals
// the native Fit.Loss, and its gradient Algorithm 2 (Fit.AnalyticGrad) and
// central differences of Fit.Loss, for every loss variant, one run and
// several.
func TestDynFitEqualsAnalytic(t *testing.T) {
	runs := testRuns(4, 0.003, 2)
	var worstL, worstG float64
	for cname, cfg := range configs() {
		for _, sub := range [][]Run{runs[:1], runs} {
			f, err := NewFit(testParams(), sub, cfg)
			if err != nil {
				t.Fatal(err)
			}
			d := f.newDynFit()
			for _, at := range []string{"start", "moved", "optimum"} {
				x := f.X0([4]float64{0.3, 0.7, 0.5, 0.6})
				switch at {
				case "moved":
					for i := 4; i < len(x); i++ {
						x[i] += 0.01 * float64(i%3-1)
					}
				case "optimum":
					x = f.X0(trueMu)
				}
				tag := fmt.Sprintf("%s, %d runs, %s", cname, len(sub), at)
				ga := make([]float64, f.Dim())
				la := f.AnalyticGrad(x, ga)
				gd := make([]float64, f.Dim())
				ld, err := d.Eval(x, gd)
				if err != nil {
					t.Fatal(err)
				}
				if v, err := d.Eval(x, nil); err != nil || v != ld {
					t.Errorf("%s: value alone %v (%v), with the gradient %v", tag, v, err, ld)
				}
				if nl := f.Loss(x); relErr(ld, nl) > 1e-12 || relErr(la, nl) > 1e-12 {
					t.Errorf("%s: loss dyn %.17g, Fit.Loss %.17g, analytic %.17g", tag, ld, nl, la)
				}
				worstL = math.Max(worstL, relErr(ld, f.Loss(x)))
				for i := range ga {
					worstG = math.Max(worstG, math.Abs(ga[i]-gd[i])/(1+math.Abs(ga[i])))
					if math.Abs(ga[i]-gd[i]) > 1e-9*(1+math.Abs(ga[i])) {
						t.Errorf("%s: ∂L/∂x[%d]: analytic %.15g, dyn %.15g", tag, i, ga[i], gd[i])
					}
				}
				chk, err := ad.CheckGrad(func(x []float64) (float64, error) { return f.Loss(x), nil }, gd, x, 1e-6)
				if err != nil {
					t.Fatal(err)
				}
				if chk.MaxRelErr > 1e-6 {
					t.Errorf("%s: dyn gradient vs central differences: %v", tag, chk)
				}
			}
		}
	}
	t.Logf("worst relative difference from Fit.Loss %.3g, from Algorithm 2's gradient %.3g", worstL, worstG)
}

func TestDynFitDimensionError(t *testing.T) {
	f, err := NewFit(testParams(), testRuns(1, 0.003, 1), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.newDynFit().Eval(make([]float64, 3), nil); err == nil {
		t.Error("a short x was accepted")
	}
}

// Identify reaches the same estimate with every gradient engine of the
// Fit (the generated reverse pass, the default; Algorithm 2; gorgonia's
// autodiff over the fused graph), to a small fraction of its standard
// deviation: their gradients differ by rounding, so the paths of L-BFGS-B
// part, and on this loss (sums of distances, kinked where a distance is
// zero or the closest point jumps) they stop 1e-4 to 2e-4 apart whatever
// the tolerance.
func TestIdentifyEnginesAgree(t *testing.T) {
	var runs []Run
	for i, c := range [][4]float64{{8, 8, 8, 8}, {-6, 6, -6, 6}, {4, 10, 10, 4}} {
		r, _ := paperRun(c, uint64(50+i), [3]float64{0, 0, 0.5 * float64(i)})
		runs = append(runs, r)
	}
	f, err := NewFit(testParams(), runs, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if f.Cfg.Engine != EngineGenerated {
		t.Fatalf("default engine %v", f.Cfg.Engine)
	}
	engines := []Engine{EngineGenerated, EngineAnalytic, EngineGraph}
	mu, sd := make([][4]float64, len(engines)), make([][4]float64, len(engines))
	loss := make([]float64, len(engines))
	for i, e := range engines {
		res, err := Identify(f.WithEngine(e), IdentifyOptions{Init: [4]float64{0.5, 0.5, 0.5, 0.5}})
		if err != nil {
			t.Fatal(err)
		}
		mu[i], sd[i], loss[i] = res.Mu, res.Ident.MuStd, res.Opt.F
		t.Logf("%v: μ %.6f ± %.4f, loss %.9g, %d evaluations", e, res.Mu, res.Ident.MuStd, res.Opt.F, res.Opt.FuncEvaluations)
	}
	// Measured (generated against analytic): the two stop 0.05–0.15σ apart
	// (which of them stops lower depends on the rounding of the generated
	// code), at losses equal to 1e-5: the same estimate. A wrong gradient
	// stops σs away, or not at all.
	for i := 1; i < len(engines); i++ {
		for j := range 4 {
			if math.Abs(mu[0][j]-mu[i][j]) > 0.25*sd[1][j] {
				t.Errorf("μ with the %v engine %v, with %v %v", engines[0], mu[0], engines[i], mu[i])
				break
			}
		}
		if math.Abs(loss[0]-loss[i]) > 1e-5*loss[i] {
			t.Errorf("final loss with the %v engine %.9g, with %v %.9g", engines[0], loss[0], engines[i], loss[i])
		}
	}
}

// Every engine's Eval gives the native loss and Algorithm 2's gradient
// (each engine is checked against central differences in its own test),
// and an unknown engine is an error, not a panic.
func TestFitEvalEngines(t *testing.T) {
	f, err := NewFit(testParams(), testRuns(2, 0.003, 3), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	x := f.X0([4]float64{0.3, 0.7, 0.5, 0.6})
	ga := make([]float64, f.Dim())
	la := f.AnalyticGrad(x, ga)
	for _, e := range []Engine{EngineGenerated, EngineAnalytic, EngineGraph, EnginePrimitive} {
		g := make([]float64, f.Dim())
		l, err := f.WithEngine(e).Eval(x, g)
		if err != nil {
			t.Fatalf("%v: %v", e, err)
		}
		if relErr(l, la) > 1e-12 {
			t.Errorf("%v: loss %.17g, Algorithm 2 %.17g", e, l, la)
		}
		for i := range g {
			if math.Abs(g[i]-ga[i]) > 1e-9*(1+math.Abs(ga[i])) {
				t.Errorf("%v: ∂L/∂x[%d] %.15g, Algorithm 2 %.15g", e, i, g[i], ga[i])
			}
		}
	}
	if _, err := f.WithEngine(Engine(9)).Eval(x, nil); err == nil || !strings.Contains(err.Error(), "engine") {
		t.Errorf("unknown engine: %v", err)
	}
}
