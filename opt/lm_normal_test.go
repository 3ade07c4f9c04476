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
