package opt

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLeastSquaresCholeskyFirst: on the normal-equations path,
// CholeskyFirst reaches the answers without it on the MGH problems, free
// and bounded, and the exponential fit: the same status, the cost to 1e-9
// relative (both below 1e-16 on the zero-residual ones), where the minimum
// has residuals x to 1e-6, in at most one iteration more (Meyer's, cond(J)
// ~1e13, whose path the rounding moves: 87 instead of 89); some
// of the trial steps come from the Cholesky factors alone (the
// Gauss–Newton step inside the radius). On an H too ill-conditioned for
// it (TestLeastSquaresNormalIllConditioned's, cond ≈ 1e17) it declines:
// the run equals the one without it bit for bit.
func TestLeastSquaresCholeskyFirst(t *testing.T) {
	type tc struct {
		name string
		lp   LSProblem
		x0   []float64
	}
	var cs []tc
	for _, p := range mghProblems {
		cs = append(cs, tc{p.name, LSProblem{Residuals: p.res, M: p.m}, p.x0})
	}
	for _, b := range mghBounded {
		p := mghByName(b.name)
		cs = append(cs, tc{p.name + " bounded", LSProblem{Residuals: p.res, M: p.m, Lower: b.lo, Upper: b.hi}, p.x0})
	}
	p := expFit(500)
	cs = append(cs, tc{"expfit", LSProblem{Residuals: p.res, M: p.m}, p.x0})
	var gn, trials int
	for _, c := range cs {
		var jc, nc int
		lp := normalOf(c.lp, &jc, &nc)
		for _, trial := range []bool{false, true} {
			ref, _, err := LeastSquares{TrialJacobian: trial, Solver: NormalSolver}.solve(lp, c.x0, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			got, st, err := LeastSquares{TrialJacobian: trial, Solver: NormalSolver, CholeskyFirst: true}.solve(lp, c.x0, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			gn += st.gnSteps
			trials += got.FuncEvaluations - 1
			t.Logf("%s (trial J %v): %v after %d it F %.6g; Cholesky first %v after %d (%d steps from it) F %.6g",
				c.name, trial, ref.Status, ref.Iterations, ref.F, got.Status, got.Iterations, st.gnSteps, got.F)
			if got.Status != ref.Status || got.Iterations > ref.Iterations+1 {
				t.Errorf("%s: %v after %d iterations; without %v after %d", c.name, got.Status, got.Iterations, ref.Status, ref.Iterations)
			}
			zero := ref.F < 1e-16 && got.F < 1e-16
			if !zero && math.Abs(got.F-ref.F) > 1e-9*ref.F {
				t.Errorf("%s: F %.15g, without %.15g", c.name, got.F, ref.F)
			}
			if !zero {
				for i := range ref.X {
					if math.Abs(got.X[i]-ref.X[i]) > 1e-6*(1+math.Abs(ref.X[i])) {
						t.Errorf("%s: x %v, without %v", c.name, got.X, ref.X)
						break
					}
				}
			}
		}
	}
	t.Logf("%d of %d trial steps from the Cholesky factors", gn, trials)
	if gn == 0 {
		t.Error("no step came from the Cholesky factors")
	}

	const m = 200
	a := mat.NewDense(m, 2, nil)
	y := make([]float64, m)
	for i := range m {
		ti := float64(i) / m
		a.Set(i, 0, 1+ti)
		a.Set(i, 1, 1+ti+1e-7*ti*ti)
		y[i] = 3 + 2*ti + 0.01*math.Sin(float64(7*i))
	}
	lp := LSProblem{M: m, Residuals: func(x, r []float64, jac *mat.Dense) error {
		for i := range m {
			r[i] = a.At(i, 0)*x[0] + a.At(i, 1)*x[1] - y[i]
		}
		if jac != nil {
			jac.Copy(a)
		}
		return nil
	}}
	set := Settings{GradientTol: 1e-14, FunctionTol: 1e-15, StepTol: 1e-15}
	ref, err := LeastSquares{Solver: NormalSolver}.Solve(lp, []float64{0, 0}, set)
	if err != nil {
		t.Fatal(err)
	}
	got, st, err := LeastSquares{Solver: NormalSolver, CholeskyFirst: true}.solve(lp, []float64{0, 0}, set)
	if err != nil {
		t.Fatal(err)
	}
	if st.gnSteps != 0 || !slices.Equal(got.X, ref.X) || got.F != ref.F || got.Iterations != ref.Iterations {
		t.Errorf("ill-conditioned: %d Cholesky steps, x %v F %v after %d; without %v %v after %d", st.gnSteps, got.X, got.F, got.Iterations, ref.X, ref.F, ref.Iterations)
	}
}
