package mecanum

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/opt"
)

// The first stage's compressed least-squares form: ½‖r‖² is the squared
// objective (evalAs with squared), with and without the Jacobian, Jᵀr is
// its gradient (central differences), and normal hands opt the same JᵀJ,
// Jᵀr and cost, with and without a prior.
func TestSquaredStageResiduals(t *testing.T) {
	for _, prior := range []float64{0, 2} {
		cfg := DefaultConfig()
		cfg.Prior, cfg.PriorMu = prior, [4]float64{0.4, 0.5, 0.6, 0.7}
		f, err := NewFit(testParams(), testRuns(3, 0.003, 4), cfg)
		if err != nil {
			t.Fatal(err)
		}
		st := f.squaredStage()
		n := f.Dim()
		x := f.X0([4]float64{0.3, 0.7, 0.5, 0.6})
		x[4] += 0.01
		F := f.evalAs(x, nil, nil, true, nil)
		r := make([]float64, n+1)
		J := mat.NewDense(n+1, n, nil)
		if err := st.residuals(x, r, J); err != nil {
			t.Fatal(err)
		}
		half := 0.5 * mat.Dot(mat.NewVecDense(n+1, r), mat.NewVecDense(n+1, r))
		if relErr(half, F) > 1e-9 {
			t.Errorf("prior %g: ½‖r‖² %.15g, squared objective %.15g", prior, half, F)
		}
		rv := make([]float64, n+1)
		if err := st.residuals(x, rv, nil); err != nil || relErr(0.5*rv[0]*rv[0], F) > 1e-12 {
			t.Errorf("prior %g: value-only residuals %v (%v), objective %g", prior, rv[:2], err, F)
		}
		// normal: the normal equations of the same factor, and its cost
		rn, jtj, jtr := make([]float64, n+1), make([]float64, n*n), make([]float64, n)
		if err := st.normal(x, rn, jtj, jtr); err != nil {
			t.Fatal(err)
		}
		if relErr(0.5*rn[0]*rn[0], F) > 1e-9 {
			t.Errorf("prior %g: normal's ½‖r‖² %.15g, squared objective %.15g", prior, 0.5*rn[0]*rn[0], F)
		}
		var jj mat.Dense
		jj.Mul(J.T(), J)
		jr := mat.NewVecDense(n, nil)
		jr.MulVec(J.T(), mat.NewVecDense(n+1, r))
		scale := mat.Norm(&jj, math.Inf(1))
		for i := range n {
			if math.Abs(jtr[i]-jr.AtVec(i)) > 1e-9*(scale+math.Abs(jr.AtVec(i))) {
				t.Errorf("prior %g: normal's Jᵀr[%d] %.15g, the factor's %.15g", prior, i, jtr[i], jr.AtVec(i))
			}
			for j := range n {
				if math.Abs(jtj[i*n+j]-jj.At(i, j)) > 1e-9*scale {
					t.Errorf("prior %g: normal's JᵀJ[%d, %d] %.15g, the factor's %.15g", prior, i, j, jtj[i*n+j], jj.At(i, j))
				}
			}
		}
		g := make([]float64, n)
		mat.NewVecDense(n, g).MulVec(J.T(), mat.NewVecDense(n+1, r))
		chk, err := ad.CheckGrad(func(x []float64) (float64, error) { return f.evalAs(x, nil, nil, true, nil), nil }, g, x, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if chk.MaxRelErr > 1e-5 {
			t.Errorf("prior %g: Jᵀr against central differences of the squared objective: %v", prior, chk)
		}
	}
}

// Identify's two stages (the default with PoseFree) reach eq. 8's optimum
// of the one-stage L-BFGS-B to 1e-6 relative, or a lower one, with μ
// within its σ and fewer evaluations. Measured: 49, 42 and 34 evaluations
// against 152, 348 and 185, losses +5.3e-7, −1.9e-4 and −4.4e-5 relative,
// μ at most 0.05, 0.77 and 0.65 σ from the one-stage answer. With the
// start poses held, the one stage runs as before.
func TestIdentifyStaged(t *testing.T) {
	sets := stageSets()
	runs := sets["paper 3 runs"]
	init := [4]float64{0.5, 0.5, 0.5, 0.5}
	for name, runs := range sets {
		f, err := NewFit(DefaultParams(), runs, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		one, err := Identify(f, IdentifyOptions{Init: init, OneStage: true})
		if err != nil {
			t.Fatal(err)
		}
		two, err := Identify(f, IdentifyOptions{Init: init})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: one stage %d iterations, %d evaluations, loss %.10g, μ %.5f ± %.5f; two stages %d, %d, loss %.10g, μ %.5f",
			name, one.Opt.Iterations, one.Opt.FuncEvaluations, one.Opt.F, one.Mu, one.Ident.MuStd, two.Opt.Iterations, two.Opt.FuncEvaluations, two.Opt.F, two.Mu)
		if !two.Opt.Status.Converged() {
			t.Errorf("%s: two stages: %v", name, two.Opt.Status)
		}
		if two.Opt.F > one.Opt.F*(1+1e-6) {
			t.Errorf("%s: loss %.12g above the one-stage %.12g", name, two.Opt.F, one.Opt.F)
		}
		if relErr(f.Loss(two.X), two.Opt.F) > 1e-12 {
			t.Errorf("%s: reported loss %.15g, the loss at the answer %.15g", name, two.Opt.F, f.Loss(two.X))
		}
		for j := range 4 {
			if math.Abs(two.Mu[j]-one.Mu[j]) > one.Ident.MuStd[j] {
				t.Errorf("%s: μ_%d %.5f, one stage %.5f ± %.5f", name, j+1, two.Mu[j], one.Mu[j], one.Ident.MuStd[j])
			}
		}
		if two.Opt.FuncEvaluations >= one.Opt.FuncEvaluations {
			t.Errorf("%s: %d evaluations, one stage %d", name, two.Opt.FuncEvaluations, one.Opt.FuncEvaluations)
		}
	}
	f, err := NewFit(DefaultParams(), runs, PaperConfig())
	if err != nil {
		t.Fatal(err)
	}
	one, err := Identify(f, IdentifyOptions{Init: init, OneStage: true})
	if err != nil {
		t.Fatal(err)
	}
	def, err := Identify(f, IdentifyOptions{Init: init})
	if err != nil {
		t.Fatal(err)
	}
	if def.Opt.F != one.Opt.F || def.Mu != one.Mu || def.Opt.FuncEvaluations != one.Opt.FuncEvaluations {
		t.Errorf("PaperConfig: default %v (%d evaluations), one stage %v (%d)", def.Mu, def.Opt.FuncEvaluations, one.Mu, one.Opt.FuncEvaluations)
	}
}

// The first stage's own tolerance (firstStageFunctionTol) changes the
// answer of the two stages by less than the fit can tell: the loss within
// 1e-6 relative (or lower) and μ within 0.1 σ of the two stages with the
// first stage run to the default tolerance (the answer before the
// tolerance), in no more rollouts (the first stage's evaluations and the
// linearisations of the second; its evaluations of the linearised model
// cost no rollout, and their number moves either way with its start).
// Measured: 8, 7, 7 rollouts against 10, 7, 7; losses −5e-8, 0, 0
// relative (the first stage without the spline term stops at the same
// point on two sets); μ within 0.01 σ.
func TestFirstStageTolerance(t *testing.T) {
	sets := stageSets()
	init := [4]float64{0.5, 0.5, 0.5, 0.5}
	set := opt.Settings{FunctionTol: DefaultFunctionTol, GradientTol: DefaultGradientTol, StepTol: 1e-7}
	for name, runs := range sets {
		f, err := NewFit(DefaultParams(), runs, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		x0 := f.X0(init)
		lower, upper := stageBounds(f)
		ref, ref1, refRo, _, err := f.stagedTol(x0, lower, upper, set, 0)
		if err != nil || ref == nil {
			t.Fatalf("%s: default tolerance: %v (%v)", name, err, ref)
		}
		got, got1, gotRo, _, err := f.staged(x0, lower, upper, set)
		if err != nil || got == nil {
			t.Fatalf("%s: %v (%v)", name, err, got)
		}
		std := f.IdentifiabilityHeld(ref.X, [4]bool{}).MuStd
		d := 0.0
		for j := range 4 {
			d = math.Max(d, math.Abs(got.X[j]-ref.X[j])/std[j])
		}
		ro, refRo := gotRo+got1.FuncEvaluations, refRo+ref1.FuncEvaluations
		t.Logf("%s: %d rollouts (first stage %d), default tolerance %d (%d); %d and %d evaluations; loss %+.2e relative; μ %.3f σ apart",
			name, ro, got1.FuncEvaluations, refRo, ref1.FuncEvaluations, got.FuncEvaluations+got1.FuncEvaluations, ref.FuncEvaluations+ref1.FuncEvaluations, got.F/ref.F-1, d)
		if got.F > ref.F*(1+1e-6) || d > 0.1 || ro > refRo {
			t.Errorf("%s: loss %.12g against %.12g, μ %.3f σ apart, %d rollouts against %d", name, got.F, ref.F, d, ro, refRo)
		}
	}
}

// stageSets are the three data sets the two stages are measured on: the
// demo-like logs, four short runs, and three of the paper's runs.
func stageSets() map[string][]Run {
	sets := map[string][]Run{"demo-like": demoLikeRuns(), "four short": testRuns(4, 0.003, 9)}
	var runs []Run
	for k, c := range [][4]float64{{8, 8, 8, 8}, {-6, 6, -6, 6}, {4, 10, 10, 4}} {
		r, _ := paperRun(c, 50+uint64(k), [3]float64{0, 0, 0.5 * float64(k)})
		runs = append(runs, r)
	}
	sets["paper 3 runs"] = runs
	return sets
}

// The first stage's per-sample sums: addPose (the start-pose columns' 0
// and 1 entries left out) equals addGeneral on the rows of a real
// linearisation, whose samples all have those columns.
func TestStageBlockAddPose(t *testing.T) {
	f, err := NewFit(DefaultParams(), demoLikeRuns(), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	lin, err := f.linearize(f.X0([4]float64{0.4, 0.6, 0.5, 0.7}), nil)
	if err != nil {
		t.Fatal(err)
	}
	var gen, pose stageBlock
	for i := range lin.terms {
		tm := &lin.terms[i]
		if !poseColumns7(tm) {
			t.Fatalf("sample %d: start-pose columns %v %v", i, tm.gp, tm.gq)
		}
		gen.addGeneral(tm, 1, 0.2)
		pose.addPose(tm, 1, 0.2)
	}
	for p := range 8 {
		for q := p; q < 8; q++ {
			if math.Abs(gen[p][q]-pose[p][q]) > 1e-12*(1+math.Abs(gen[p][q])) {
				t.Errorf("block (%d, %d): addPose %.17g, addGeneral %.17g", p, q, pose[p][q], gen[p][q])
			}
		}
	}
	// a term without those columns is not taken for one
	tm := lin.terms[0]
	tm.gq[1][4] = 1e-9
	if poseColumns7(&tm) {
		t.Error("a marker row moved by x0 passed as a start-pose row")
	}
}

// The first stage on opt's normal-equations path (squaredStage.normal: JᵀJ
// and Jᵀr read off A) takes the steps of the QR path on the factor of A
// (squaredStage.residuals with its Jacobian, the stage before the normal
// path): on the three stage sets, the same iterations and evaluations and
// the same answer, loss to 1e-9 relative and x to 1e-9 of its scale.
func TestFirstStageNormalPath(t *testing.T) {
	set := opt.Settings{FunctionTol: firstStageFunctionTol, GradientTol: DefaultGradientTol, StepTol: 1e-7}
	for name, runs := range stageSets() {
		f, err := NewFit(DefaultParams(), runs, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		g := *f
		g.Cfg.Weights.Spline = 0
		x0 := f.X0([4]float64{0.5, 0.5, 0.5, 0.5})
		n := f.Dim()
		lower, upper := stageBounds(f)
		normal, err := opt.LeastSquares{TrialJacobian: true, Solver: opt.NormalSolver}.Solve(g.squaredStage().problem(lower, upper), x0, set)
		if err != nil {
			t.Fatal(err)
		}
		p := g.squaredStage().problem(lower, upper)
		p.Normal = nil
		qr, err := opt.LeastSquares{TrialJacobian: true, Solver: opt.QRSolver}.Solve(p, x0, set)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: normal path %d iterations, %d evaluations, F %.15g; QR %d, %d, %.15g", name, normal.Iterations, normal.FuncEvaluations, normal.F, qr.Iterations, qr.FuncEvaluations, qr.F)
		if normal.Iterations != qr.Iterations || normal.FuncEvaluations != qr.FuncEvaluations || relErr(normal.F, qr.F) > 1e-9 {
			t.Errorf("%s: normal path %d iterations, %d evaluations, F %.15g; QR path %d, %d, %.15g", name, normal.Iterations, normal.FuncEvaluations, normal.F, qr.Iterations, qr.FuncEvaluations, qr.F)
		}
		for i := range n {
			if math.Abs(normal.X[i]-qr.X[i]) > 1e-9*(1+math.Abs(qr.X[i])) {
				t.Errorf("%s: x[%d] %.15g on the normal path, %.15g on QR", name, i, normal.X[i], qr.X[i])
			}
		}
	}
}

// The first stage by SquaredLS (squaredFirst) is squaredStage's problem:
// on the three stage sets, run to a tight tolerance (squaredFirst from
// SquaredLS's linear estimate, squaredStage from μ = 0.5 and the first
// camera poses), both reach the same point (x to 1e-7 of its scale) at the same cost (F
// in the first stage's scale, 1e-9 relative), and the cost squaredFirst
// reports at its answer is squaredStage's there (1e-12). Where the two
// problems differ (the marker term weighed unlike the position's, a prior,
// the start poses held) it declines.
func TestSquaredFirst(t *testing.T) {
	set := opt.Settings{FunctionTol: 1e-14, GradientTol: 1e-14, StepTol: 1e-14}
	for name, runs := range stageSets() {
		f, err := NewFit(DefaultParams(), runs, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		g := *f
		g.Cfg.Weights.Spline = 0
		x0 := f.X0([4]float64{0.5, 0.5, 0.5, 0.5})
		n := f.Dim()
		lower, upper := stageBounds(f)
		got, ok, err := f.squaredFirst(x0, lower, upper, set)
		if err != nil || !ok {
			t.Fatalf("%s: squaredFirst declined (%v)", name, err)
		}
		st := g.squaredStage()
		ref, err := opt.LeastSquares{TrialJacobian: true, Solver: opt.NormalSolver}.Solve(st.problem(lower, upper), x0, set)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: squaredFirst %d iterations, F %.15g; squaredStage %d, %.15g", name, got.Iterations, got.F, ref.Iterations, ref.F)
		if relErr(got.F, ref.F) > 1e-9 {
			t.Errorf("%s: F %.15g, squaredStage's %.15g", name, got.F, ref.F)
		}
		for i := range n {
			if math.Abs(got.X[i]-ref.X[i]) > 1e-7*(1+math.Abs(ref.X[i])) {
				t.Errorf("%s: x[%d] %.12g, squaredStage's %.12g", name, i, got.X[i], ref.X[i])
			}
		}
		if err := st.accumulate(got.X); err != nil {
			t.Fatal(err)
		}
		raw := st.a.RawSymmetric()
		if F := 0.5 * raw.Data[n*raw.Stride+n]; relErr(got.F, F) > 1e-12 {
			t.Errorf("%s: reported F %.15g, squaredStage's cost there %.15g", name, got.F, F)
		}
		for _, c := range []func(*Config){
			func(c *Config) { c.Heading = 0.3 },
			func(c *Config) { c.Prior = 1 },
			func(c *Config) { c.Pose = PoseFixed },
			func(c *Config) { c.Marker = 0.9 * f.P.Lab },
		} {
			cfg := DefaultConfig()
			c(&cfg)
			h, err := NewFit(DefaultParams(), runs, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := h.squaredFirst(h.X0([4]float64{0.5, 0.5, 0.5, 0.5}), lower, upper, set); ok {
				t.Errorf("%s: squaredFirst took the problem of %+v", name, cfg)
			}
		}
	}
}

// stageBounds are Identify's bounds of f's variables: μ within the
// parameters' bounds, the start poses free.
func stageBounds(f *Fit) (lower, upper []float64) {
	lo, hi := f.P.Bounds()
	n := f.Dim()
	lower, upper = make([]float64, n), make([]float64, n)
	for i := range n {
		lower[i], upper[i] = math.Inf(-1), math.Inf(1)
		if i < 4 {
			lower[i], upper[i] = lo, hi
		}
	}
	return lower, upper
}
