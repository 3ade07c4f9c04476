package opt

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLeastSquaresNormalMatchesQR: NormalSolver reaches the QR path's
// answers on the MGH problems, free and bounded: the same cost to 1e-9
// relative (both below 1e-16 on the zero-residual ones) and, where the
// minimum has residuals, the same x to 1e-6, in as many iterations give or
// take one. (Meyer's cond(J) ~1e13 is mostly column scale: the scaled H
// stays within normalCond; Powell's singular Jacobian at its zero-residual
// minimum sends an iteration to QR.)
func TestLeastSquaresNormalMatchesQR(t *testing.T) {
	for _, b := range mghBounded {
		p := mghByName(b.name)
		for k, lp := range []LSProblem{{Residuals: p.res, M: p.m}, {Residuals: p.res, M: p.m, Lower: b.lo, Upper: b.hi}} {
			set := Settings{GradientTol: 1e-12}
			qr, err := LeastSquares{Solver: QRSolver}.Solve(lp, p.x0, set)
			if err != nil {
				t.Fatal(err)
			}
			ne, st, err := LeastSquares{Solver: NormalSolver}.solve(lp, p.x0, set)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s bounded %v: QR %v %d it %d ev F %.15g; normal %v %d it (%d normal, %d QR) %d ev F %.15g",
				p.name, k == 1, qr.Status, qr.Iterations, qr.FuncEvaluations, qr.F, ne.Status, ne.Iterations, st.normalIters, st.qrIters, ne.FuncEvaluations, ne.F)
			if !ne.Status.Converged() {
				t.Errorf("%s: normal: %v", p.name, ne.Status)
			}
			if !(qr.F < 1e-16 && ne.F < 1e-16) && math.Abs(qr.F-ne.F) > 1e-9*qr.F {
				t.Errorf("%s bounded %v: F %.15g (normal), %.15g (QR)", p.name, k == 1, ne.F, qr.F)
			}
			if qr.F > 1e-10 {
				for i := range qr.X {
					if math.Abs(qr.X[i]-ne.X[i]) > 1e-6*(1+math.Abs(qr.X[i])) {
						t.Errorf("%s bounded %v: x %v (normal), %v (QR)", p.name, k == 1, ne.X, qr.X)
						break
					}
				}
			}
			if d := ne.Iterations - qr.Iterations; d < -1 || d > 1 {
				t.Errorf("%s bounded %v: %d iterations (normal), %d (QR)", p.name, k == 1, ne.Iterations, qr.Iterations)
			}
			if st.normalIters == 0 {
				t.Errorf("%s bounded %v: no iteration used the normal equations", p.name, k == 1)
			}
		}
	}
}

// TestLeastSquaresNormalIllConditioned: a linear fit whose two columns are
// nearly collinear (cond(J) ≈ 1.3e8, which column scaling does not
// change, so H's is ≈ 2e16): NormalSolver's iterations fall back to QR and reach the exact
// least-squares solution (a QR solve of the linear problem) as QRSolver
// does; on a well-conditioned tall problem Auto takes the normal path and
// agrees with QR.
func TestLeastSquaresNormalIllConditioned(t *testing.T) {
	const m = 200
	a := mat.NewDense(m, 2, nil)
	y := mat.NewVecDense(m, nil)
	for i := range m {
		ti := float64(i) / m
		a.Set(i, 0, 1+ti)
		a.Set(i, 1, 1+ti+1e-7*ti*ti)
		y.SetVec(i, 3+2*ti+0.01*math.Sin(float64(7*i)))
	}
	res := func(x, r []float64, jac *mat.Dense) error {
		for i := range m {
			r[i] = a.At(i, 0)*x[0] + a.At(i, 1)*x[1] - y.AtVec(i)
		}
		if jac != nil {
			jac.Copy(a)
		}
		return nil
	}
	var exact mat.VecDense
	if err := exact.SolveVec(a, y); err != nil {
		t.Fatal(err)
	}
	cond := mat.Cond(a, 2)
	t.Logf("cond(J) = %.3g, exact x = %v", cond, exact.RawVector().Data)
	lp := LSProblem{Residuals: res, M: m}
	set := Settings{GradientTol: 1e-14, FunctionTol: 1e-15, StepTol: 1e-15}
	for _, solver := range []LSSolver{QRSolver, NormalSolver} {
		r, st, err := LeastSquares{Solver: solver}.solve(lp, []float64{0, 0}, set)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v: %v after %d iterations (%d normal, %d QR): x %v", solver, r.Status, r.Iterations, st.normalIters, st.qrIters, r.X)
		if solver == NormalSolver && st.normalIters != 0 {
			t.Errorf("normal: %d iterations on the normal equations of an H with cond ≈ %.2g", st.normalIters, cond*cond)
		}
		for i := range 2 {
			if e := exact.AtVec(i); math.Abs(r.X[i]-e) > 1e-6*math.Abs(e) {
				t.Errorf("%v: x %v, exact %v", solver, r.X, exact.RawVector().Data)
				break
			}
		}
	}
	p := expFit(2000)
	lp = LSProblem{Residuals: p.res, M: p.m, Lower: []float64{-10, 0, 0}, Upper: []float64{10, 5, 5}}
	qr, err := LeastSquares{Solver: QRSolver}.Solve(lp, p.x0, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	auto, st, err := LeastSquares{}.solve(lp, p.x0, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("expfit 2000×3: QR %d iterations F %.15g, auto %d iterations (%d normal, %d QR) F %.15g", qr.Iterations, qr.F, auto.Iterations, st.normalIters, st.qrIters, auto.F)
	if st.qrIters != 0 || st.normalIters != auto.Iterations {
		t.Errorf("auto on a 2000×3 problem: %d normal, %d QR iterations", st.normalIters, st.qrIters)
	}
	if auto.Iterations != qr.Iterations || math.Abs(auto.F-qr.F) > 1e-12*qr.F {
		t.Errorf("auto: %d iterations F %.15g; QR %d, %.15g", auto.Iterations, auto.F, qr.Iterations, qr.F)
	}
	for i := range qr.X {
		if math.Abs(qr.X[i]-auto.X[i]) > 1e-9*(1+math.Abs(qr.X[i])) {
			t.Errorf("x %v (auto), %v (QR)", auto.X, qr.X)
			break
		}
	}
}

// TestLeastSquaresNormalNonFinite: with NormalSolver the rows of J are
// checked only when JᵀJ is not finite, and then the entry is named as on
// the QR path: at the start, and at an accepted point.
func TestLeastSquaresNormalNonFinite(t *testing.T) {
	p := expFit(200)
	for _, at := range []int{1, 3} {
		calls := 0
		res := func(x, r []float64, jac *mat.Dense) error {
			if err := p.res(x, r, jac); err != nil {
				return err
			}
			if jac != nil {
				calls++
				if calls == at {
					jac.Set(17, 2, math.NaN())
				}
			}
			return nil
		}
		r, err := LeastSquares{Solver: NormalSolver}.Solve(LSProblem{Residuals: res, M: p.m}, p.x0, Settings{})
		t.Logf("NaN at Jacobian %d: %v", at, err)
		if err == nil || r == nil || r.Status != NonFinite || !strings.Contains(err.Error(), "Jacobian entry (17, 2)") {
			t.Errorf("NaN in the %d-th Jacobian: result %v, error %v", at, r, err)
		}
	}
}

// normalOf gives lp the normal equations of its own Jacobian (the test's
// stand-in for a problem that forms them row by row), counting the
// Residuals calls that asked for J (jacCalls) and those to Normal.
func normalOf(lp LSProblem, jacCalls, normalCalls *int) LSProblem {
	res := lp.Residuals
	var jac *mat.Dense
	lp.Residuals = func(x, r []float64, j *mat.Dense) error {
		if j != nil {
			*jacCalls++
		}
		return res(x, r, j)
	}
	lp.Normal = func(x, r, jtj, jtr []float64) error {
		*normalCalls++
		n := len(x)
		if jac == nil {
			jac = mat.NewDense(lp.M, n, nil)
		}
		if err := res(x, r, jac); err != nil {
			return err
		}
		// the solver's own sums, so that the steps agree to the bit
		clear(jtr)
		gramAndGradient(jac.RawMatrix().Data, r, lp.M, n, jtj, jtr)
		return nil
	}
	return lp
}

// TestLeastSquaresNormalEquations: a problem that hands the solver JᵀJ
// and Jᵀr (LSProblem.Normal) takes the steps of the same problem through
// its Jacobian on the normal path — the same iterations and evaluations,
// the cost to 1e-9 relative and x to 1e-6 — on the MGH problems, free and
// bounded, with and without TrialJacobian, and with a fixed variable;
// Residuals is asked for J only in the iterations that fall back to QR
// (Freudenstein–Roth, Powell's singular minimum), one more evaluation
// each. QRSolver ignores Normal.
func TestLeastSquaresNormalEquations(t *testing.T) {
	type tc struct {
		name string
		lp   LSProblem
		x0   []float64
	}
	var cs []tc
	for _, b := range mghBounded {
		p := mghByName(b.name)
		cs = append(cs, tc{p.name, LSProblem{Residuals: p.res, M: p.m}, p.x0}, tc{p.name + " bounded", LSProblem{Residuals: p.res, M: p.m, Lower: b.lo, Upper: b.hi}, p.x0})
	}
	p := expFit(500)
	cs = append(cs, tc{"expfit, x[1] fixed", LSProblem{Residuals: p.res, M: p.m, Lower: []float64{-10, 1.5, 0}, Upper: []float64{10, 1.5, 5}}, p.x0})
	for _, c := range cs {
		for _, trial := range []bool{false, true} {
			set := Settings{GradientTol: 1e-12}
			ls := LeastSquares{Solver: NormalSolver, TrialJacobian: trial}
			ref, rst, err := ls.solve(c.lp, c.x0, set)
			if err != nil {
				t.Fatal(err)
			}
			var jc, nc int
			got, st, err := ls.solve(normalOf(c.lp, &jc, &nc), c.x0, set)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s trial %v: J %v %d it %d ev F %.15g; JᵀJ %v %d it %d ev (%d Normal, %d J calls; %d QR iterations) F %.15g",
				c.name, trial, ref.Status, ref.Iterations, ref.FuncEvaluations, ref.F, got.Status, got.Iterations, got.FuncEvaluations, nc, jc, st.qrIters, got.F)
			if got.Status != ref.Status || got.Iterations != ref.Iterations || got.FuncEvaluations != ref.FuncEvaluations+jc || got.GradEvaluations != ref.GradEvaluations+jc {
				t.Errorf("%s trial %v: %v after %d iterations, %d/%d evaluations; through J %v, %d, %d/%d", c.name, trial,
					got.Status, got.Iterations, got.FuncEvaluations, got.GradEvaluations, ref.Status, ref.Iterations, ref.FuncEvaluations, ref.GradEvaluations)
			}
			if !(ref.F < 1e-16 && got.F < 1e-16) && math.Abs(got.F-ref.F) > 1e-9*ref.F {
				t.Errorf("%s trial %v: F %.15g, through J %.15g", c.name, trial, got.F, ref.F)
			}
			for i := range ref.X {
				if math.Abs(ref.X[i]-got.X[i]) > 1e-6*(1+math.Abs(ref.X[i])) {
					t.Errorf("%s trial %v: x %v, through J %v", c.name, trial, got.X, ref.X)
					break
				}
			}
			if jc > st.qrIters || st.qrIters > 0 && jc == 0 || nc != got.GradEvaluations-jc || rst.qrIters != st.qrIters {
				t.Errorf("%s trial %v: %d Normal and %d Jacobian calls for %d Jacobians, %d QR iterations (through J %d)", c.name, trial, nc, jc, got.GradEvaluations, st.qrIters, rst.qrIters)
			}
		}
		var jc, nc int
		if _, err := (LeastSquares{Solver: QRSolver}).Solve(normalOf(c.lp, &jc, &nc), c.x0, Settings{}); err != nil || nc != 0 {
			t.Errorf("%s: QRSolver called Normal %d times (%v)", c.name, nc, err)
		}
	}
}

// TestLeastSquaresNormalEquationsFallback: with LSProblem.Normal, an
// ill-conditioned iteration still falls back to QR, evaluating J for it,
// and reaches the exact solution; a NaN in J is named by its entry.
func TestLeastSquaresNormalEquationsFallback(t *testing.T) {
	const m = 200
	a := mat.NewDense(m, 2, nil)
	y := mat.NewVecDense(m, nil)
	for i := range m {
		ti := float64(i) / m
		a.Set(i, 0, 1+ti)
		a.Set(i, 1, 1+ti+1e-7*ti*ti)
		y.SetVec(i, 3+2*ti+0.01*math.Sin(float64(7*i)))
	}
	res := func(x, r []float64, jac *mat.Dense) error {
		for i := range m {
			r[i] = a.At(i, 0)*x[0] + a.At(i, 1)*x[1] - y.AtVec(i)
		}
		if jac != nil {
			jac.Copy(a)
		}
		return nil
	}
	var exact mat.VecDense
	if err := exact.SolveVec(a, y); err != nil {
		t.Fatal(err)
	}
	var jc, nc int
	set := Settings{GradientTol: 1e-14, FunctionTol: 1e-15, StepTol: 1e-15}
	r, st, err := LeastSquares{Solver: NormalSolver}.solve(normalOf(LSProblem{Residuals: res, M: m}, &jc, &nc), []float64{0, 0}, set)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v after %d iterations (%d normal, %d QR; %d Normal, %d J calls): x %v", r.Status, r.Iterations, st.normalIters, st.qrIters, nc, jc, r.X)
	if st.qrIters == 0 || jc == 0 {
		t.Errorf("%d QR iterations, %d Jacobian evaluations: no fallback", st.qrIters, jc)
	}
	for i := range 2 {
		if e := exact.AtVec(i); math.Abs(r.X[i]-e) > 1e-6*math.Abs(e) {
			t.Errorf("x %v, exact %v", r.X, exact.RawVector().Data)
			break
		}
	}
	p := expFit(200)
	for _, at := range []int{1, 3} {
		calls := 0
		nan := func(x, r []float64, jac *mat.Dense) error {
			if err := p.res(x, r, jac); err != nil {
				return err
			}
			if jac != nil {
				calls++
				if calls >= at { // from then on: Residuals names it
					jac.Set(17, 2, math.NaN())
				}
			}
			return nil
		}
		var jc, nc int
		lp := normalOf(LSProblem{Residuals: nan, M: p.m}, &jc, &nc)
		r, err := LeastSquares{Solver: NormalSolver}.Solve(lp, p.x0, Settings{})
		t.Logf("NaN at Jacobian %d: %v", at, err)
		if err == nil || r == nil || r.Status != NonFinite || !strings.Contains(err.Error(), "Jacobian entry (17, 2)") {
			t.Errorf("NaN in the %d-th Jacobian: result %v, error %v", at, r, err)
		}
	}
}
