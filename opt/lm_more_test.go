package opt

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

func TestLeastSquaresRosenbrockIterations(t *testing.T) {
	p := mghByName("rosenbrock")
	res, err := LeastSquares{}.Solve(LSProblem{Residuals: p.res, M: 2}, p.x0, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations > 25 || res.F > 1e-20 || !res.Status.Converged() {
		t.Errorf("%v after %d iterations (want ≤ 25) at F = %g", res.Status, res.Iterations, res.F)
	}
	if len(res.Trace) != res.Iterations {
		t.Errorf("trace has %d points for %d iterations", len(res.Trace), res.Iterations)
	}
	for k := 1; k < len(res.Trace); k++ {
		if res.Trace[k].F > res.Trace[k-1].F {
			t.Errorf("cost rose from %g to %g at iteration %d", res.Trace[k-1].F, res.Trace[k].F, k+1)
		}
	}
}

// lineData is y = 2x + 1 with N(0, 0.05²) noise at x = 0 … 10, 5 % of the
// points (at the largest x) pushed up by 20: gross outliers that tilt a
// least-squares line.
func lineData() (xs, ys []float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 100 {
		x := 0.1 * float64(i)
		y := 2*x + 1 + 0.05*rng.NormFloat64()
		if i%20 == 19 {
			y += 20
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	return xs, ys
}

func lineResiduals(xs, ys []float64) Residuals {
	return func(p, r []float64, jac *mat.Dense) error {
		for i, x := range xs {
			r[i] = p[0]*x + p[1] - ys[i]
			if jac != nil {
				jac.Set(i, 0, x)
				jac.Set(i, 1, 1)
			}
		}
		return nil
	}
}

func TestLeastSquaresRobustLosses(t *testing.T) {
	xs, ys := lineData()
	p := LSProblem{Residuals: lineResiduals(xs, ys), M: len(xs)}
	plain, err := LeastSquares{}.Solve(p, []float64{0, 0}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	plainErr := math.Abs(plain.X[0]-2) / 2
	t.Logf("linear: slope %.5f (error %.2f %%), %v after %d iterations", plain.X[0], 100*plainErr, plain.Status, plain.Iterations)
	if plainErr <= 0.01 {
		t.Errorf("the outliers should tilt the least-squares line by more than 1 %%: slope %g", plain.X[0])
	}
	for _, loss := range []Loss{Huber, SoftL1, Cauchy, Arctan} {
		res, err := LeastSquares{Loss: loss, FScale: 0.1}.Solve(p, []float64{0, 0}, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		e := math.Abs(res.X[0]-2) / 2
		t.Logf("%v: slope %.5f (error %.3f %%), intercept %.4f, %v after %d iterations", loss, res.X[0], 100*e, res.X[1], res.Status, res.Iterations)
		if !res.Status.Converged() {
			t.Errorf("%v: %v", loss, res.Status)
		}
		if loss == SoftL1 && e > 0.01 {
			t.Errorf("soft-L1 slope %g: error %.2f %% > 1 %%", res.X[0], 100*e)
		}
		if e >= plainErr {
			t.Errorf("%v: slope error %.3g not below least squares' %.3g", loss, e, plainErr)
		}
		// The cost is ½ Σ C²ρ(r²/C²), as SciPy's.
		r := make([]float64, p.M)
		_ = p.Residuals(res.X, r, nil)
		var cost float64
		for _, v := range r {
			z := v * v / 0.01
			r0, _, _ := loss.rho(z)
			cost += 0.01 * r0
		}
		if math.Abs(cost/2-res.F) > 1e-12*res.F {
			t.Errorf("%v: F = %g, ½ Σ C²ρ = %g", loss, res.F, cost/2)
		}
	}
}

func TestLossDerivatives(t *testing.T) {
	for _, loss := range []Loss{Linear, Huber, SoftL1, Cauchy, Arctan} {
		for _, z := range []float64{0.01, 0.5, 0.9, 1.7, 5, 40} {
			r0, r1, r2 := loss.rho(z)
			step := &fd.Settings{Formula: fd.Central, Step: 1e-6 * z}
			if d := fd.Derivative(func(z float64) float64 { r, _, _ := loss.rho(z); return r }, z, step); math.Abs(d-r1) > 1e-7*math.Max(1, math.Abs(r1)) {
				t.Errorf("%v: ρ'(%g) = %g, central difference %g", loss, z, r1, d)
			}
			if d := fd.Derivative(func(z float64) float64 { _, r, _ := loss.rho(z); return r }, z, step); math.Abs(d-r2) > 1e-6*math.Max(1, math.Abs(r2)) {
				t.Errorf("%v: ρ''(%g) = %g, central difference %g", loss, z, r2, d)
			}
			if r0 < 0 || r1 <= 0 {
				t.Errorf("%v: ρ(%g) = %g, ρ' = %g", loss, z, r0, r1)
			}
		}
	}
}

func TestLeastSquaresCovariance(t *testing.T) {
	// A linear model r = A x − b: the Gauss–Newton covariance is exact,
	// (AᵀA)⁻¹·‖r‖²/(m − n).
	rng := rand.New(rand.NewPCG(3, 4))
	m, n := 40, 3
	a := mat.NewDense(m, n, nil)
	b := make([]float64, m)
	for i := range m {
		t := float64(i) / 10
		a.Set(i, 0, 1)
		a.Set(i, 1, t)
		a.Set(i, 2, t*t)
		b[i] = 1 + 0.5*t - 0.1*t*t + 0.01*rng.NormFloat64()
	}
	res := func(x, r []float64, jac *mat.Dense) error {
		for i := range m {
			r[i] = a.At(i, 0)*x[0] + a.At(i, 1)*x[1] + a.At(i, 2)*x[2] - b[i]
		}
		if jac != nil {
			jac.Copy(a)
		}
		return nil
	}
	p := LSProblem{Residuals: res, M: m}
	sol, err := LeastSquares{}.Solve(p, []float64{0, 0, 0}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := LeastSquares{}.Covariance(p, sol)
	if err != nil {
		t.Fatal(err)
	}
	var ata, inv mat.Dense
	ata.Mul(a.T(), a)
	if err := inv.Inverse(&ata); err != nil {
		t.Fatal(err)
	}
	s2 := 2 * sol.F / float64(m-n)
	for i := range n {
		for j := range n {
			if w := inv.At(i, j) * s2; math.Abs(c.Cov.At(i, j)-w) > 1e-8*math.Abs(w) {
				t.Errorf("Cov(%d,%d) = %g, want %g", i, j, c.Cov.At(i, j), w)
			}
		}
	}
	if c.Rank != n || len(c.Null) != 0 || c.DOF != m-n || math.Abs(c.S2-s2) > 1e-12*s2 {
		t.Errorf("rank %d, null %v, dof %d, s² %g (want %d, none, %d, %g)", c.Rank, c.Null, c.DOF, c.S2, n, m-n, s2)
	}

	// With x₂ held on a bound it is excluded; the others' covariance is that
	// of the reduced model.
	pb := LSProblem{Residuals: res, M: m, Lower: []float64{-10, -10, 0}, Upper: []float64{10, 10, 10}}
	solb, err := LeastSquares{}.Solve(pb, []float64{0, 0, 1}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(solb.AtLower, []int{2}) {
		t.Fatalf("at lower %v, want [2] (x = %v)", solb.AtLower, solb.X)
	}
	cb, err := LeastSquares{}.Covariance(pb, solb)
	if err != nil {
		t.Fatal(err)
	}
	a2 := a.Slice(0, m, 0, 2)
	var ata2, inv2 mat.Dense
	ata2.Mul(a2.T(), a2)
	if err := inv2.Inverse(&ata2); err != nil {
		t.Fatal(err)
	}
	s2b := 2 * solb.F / float64(m-2)
	for i := range 2 {
		if w := math.Sqrt(inv2.At(i, i) * s2b); math.Abs(cb.Sigma[i]-w) > 1e-7*w {
			t.Errorf("σ%d = %g, want %g", i, cb.Sigma[i], w)
		}
	}
	if cb.Sigma[2] != 0 || !slices.Equal(cb.AtBound, []int{2}) || cb.DOF != m-2 {
		t.Errorf("σ2 = %g, at bound %v, dof %d: want 0, [2], %d", cb.Sigma[2], cb.AtBound, cb.DOF, m-2)
	}
}

func TestLeastSquaresCovarianceRankDeficient(t *testing.T) {
	// r_i = (x₀ + x₁)·t_i + x₂ − y_i: only x₀ + x₁ is determined.
	m := 20
	res := func(x, r []float64, jac *mat.Dense) error {
		for i := range m {
			t := float64(i)
			r[i] = (x[0]+x[1])*t + x[2] - (3*t + 1 + 0.01*math.Sin(float64(7*i)))
			if jac != nil {
				jac.Set(i, 0, t)
				jac.Set(i, 1, t)
				jac.Set(i, 2, 1)
			}
		}
		return nil
	}
	p := LSProblem{Residuals: res, M: m}
	sol, err := LeastSquares{}.Solve(p, []float64{0, 0, 0}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v after %d iterations: x = %v", sol.Status, sol.Iterations, sol.X)
	if !sol.Status.Converged() || math.Abs(sol.X[0]+sol.X[1]-3) > 1e-3 {
		t.Errorf("%v: x₀ + x₁ = %g", sol.Status, sol.X[0]+sol.X[1])
	}
	c, err := LeastSquares{}.Covariance(p, sol)
	if err != nil {
		t.Fatal(err)
	}
	if c.Rank != 2 || len(c.Null) != 1 {
		t.Fatalf("rank %d, %d null directions: want 2 and 1", c.Rank, len(c.Null))
	}
	d := c.Null[0]
	if math.Abs(math.Abs(d[0])-math.Sqrt(0.5)) > 1e-8 || math.Abs(d[0]+d[1]) > 1e-8 || math.Abs(d[2]) > 1e-8 {
		t.Errorf("null direction %v, want ±(1, −1, 0)/√2", d)
	}
	if !math.IsInf(c.Sigma[0], 1) || !math.IsInf(c.Sigma[1], 1) || math.IsInf(c.Sigma[2], 0) || !(c.Sigma[2] > 0) {
		t.Errorf("σ = %v: want +Inf, +Inf, finite", c.Sigma)
	}
}

func TestNumericalJacobian(t *testing.T) {
	for _, p := range mghProblems {
		plain := func(x, r []float64) error { return p.res(x, r, nil) }
		n := len(p.x0)
		jn := mat.NewDense(p.m, n, nil)
		ja := mat.NewDense(p.m, n, nil)
		r := make([]float64, p.m)
		x := slices.Clone(p.x0)
		for i := range x {
			x[i] += 0.1 * float64(i+1)
		}
		if err := NumericalJacobian(plain, p.m, nil, nil)(x, r, jn); err != nil {
			t.Fatal(err)
		}
		_ = p.res(x, r, ja)
		scale := mat.Norm(ja, math.Inf(1))
		for i := range p.m {
			for j := range n {
				// Truncation, plus the rounding of r_i over the step
				// (Brown's r₀ = x₀ − 10⁶ loses 6 digits to it).
				tol := 1e-7*scale + 1e-9*math.Abs(r[i])/math.Max(math.Abs(x[j]), 1)
				if d := math.Abs(jn.At(i, j) - ja.At(i, j)); d > tol {
					t.Errorf("%s: J(%d,%d) = %g by differences, %g exact", p.name, i, j, jn.At(i, j), ja.At(i, j))
				}
			}
		}
	}
	// On the bounds the differences are one-sided and stay in the box, and
	// the solver reaches the known bounded Rosenbrock minimum with them.
	p := mghByName("rosenbrock")
	lo, hi := []float64{-2, -2}, []float64{0.5, 2}
	inBox := func(x, r []float64) error {
		if x[0] < lo[0] || x[0] > hi[0] || x[1] < lo[1] || x[1] > hi[1] {
			t.Errorf("evaluated at %v, outside the box", x)
		}
		return p.res(x, r, nil)
	}
	jn := mat.NewDense(2, 2, nil)
	if err := NumericalJacobian(inBox, 2, lo, hi)([]float64{0.5, 2}, make([]float64, 2), jn); err != nil {
		t.Fatal(err)
	}
	if math.Abs(jn.At(0, 0)+10) > 1e-6 || math.Abs(jn.At(0, 1)-10) > 1e-6 {
		t.Errorf("one-sided row 0 = (%g, %g), want (−10, 10)", jn.At(0, 0), jn.At(0, 1))
	}
	res, err := LeastSquares{}.Solve(LSProblem{Residuals: NumericalJacobian(inBox, 2, lo, hi), M: 2, Lower: lo, Upper: hi}, p.x0, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.F-0.125) > 1e-9 || !res.Status.Converged() {
		t.Errorf("%v at F = %.12g, want 0.125", res.Status, res.F)
	}
}

// stictionResiduals: the robot of stictionLoss, as residuals.
func stictionResiduals(x, r []float64, jac *mat.Dense) error {
	v := math.Max(0, x[0]-x[1])
	for k := range r {
		t := 0.1 * float64(k+1)
		r[k] = v*t - t
		if jac != nil {
			dv := 0.0
			if x[0] > x[1] {
				dv = t
			}
			jac.Set(k, 0, dv)
			jac.Set(k, 1, -dv)
		}
	}
	return nil
}

func TestLeastSquaresTruth(t *testing.T) {
	box := LSProblem{Residuals: boxChecker(t, stictionResiduals, []float64{0, 0}, []float64{10, 10}), M: 20, Lower: []float64{0, 0}, Upper: []float64{10, 10}}
	t.Run("flat-start", func(t *testing.T) {
		res, err := LeastSquares{}.Solve(box, []float64{1, 2}, Settings{Names: []string{"tau", "mu"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != Flat || !slices.Equal(res.Flat, []int{0, 1}) || !strings.Contains(res.Reason, "x[0] (tau), x[1] (mu)") {
			t.Errorf("%v, flat %v, reason %q: want Flat naming both", res.Status, res.Flat, res.Reason)
		}
	})
	t.Run("step-onto-plateau", func(t *testing.T) {
		// r = 5 − 2x up to x = 2, then 1 until x = 10, then 11 − x: from
		// x = 1.5 the Gauss–Newton step lands at 2.5, on the plateau (cost
		// 0.5 < 2, accepted), where J = 0; the minimum r = 0 is at x = 11.
		res := func(x, r []float64, jac *mat.Dense) error {
			d := 0.0
			switch {
			case x[0] <= 2:
				r[0], d = 5-2*x[0], -2
			case x[0] < 10:
				r[0] = 1
			default:
				r[0], d = 11-x[0], -1
			}
			if jac != nil {
				jac.Set(0, 0, d)
			}
			return nil
		}
		r, err := LeastSquares{}.Solve(LSProblem{Residuals: res, M: 1}, []float64{1.5}, Settings{Names: []string{"offset"}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != Flat || r.Iterations != 1 || !slices.Equal(r.Flat, []int{0}) || r.X[0] != 2.5 {
			t.Errorf("%v after %d iterations at %v, flat %v: want %v after 1 at 2.5", r.Status, r.Iterations, r.X, r.Flat, Flat)
		}
		t.Log(r.Reason)
	})
	t.Run("zero-gradient-start", func(t *testing.T) {
		// r = (x₀ − 1)², x₁ − 2 + 1: a nonzero residual whose gradient
		// vanishes at x₀ = 1 … and x₁ stationary too: r₁ = (x₁ − 2)² + 1.
		res := func(x, r []float64, jac *mat.Dense) error {
			r[0] = (x[0]-1)*(x[0]-1) + 1
			r[1] = (x[1]-2)*(x[1]-2) + 1
			if jac != nil {
				jac.Set(0, 0, 2*(x[0]-1))
				jac.Set(0, 1, 0)
				jac.Set(1, 0, 0)
				jac.Set(1, 1, 2*(x[1]-2))
			}
			return nil
		}
		r, err := LeastSquares{}.Solve(LSProblem{Residuals: res, M: 2}, []float64{1, 2}, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != StartStationary || r.Status.Converged() {
			t.Errorf("%v, want %v", r.Status, StartStationary)
		}
	})
	t.Run("zero-residuals-start", func(t *testing.T) {
		p := mghByName("rosenbrock")
		r, err := LeastSquares{}.Solve(LSProblem{Residuals: p.res, M: 2}, []float64{1, 1}, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != FunctionConverged || r.F != 0 || r.Iterations != 0 {
			t.Errorf("%v at F = %g after %d iterations: zero residuals are the minimum", r.Status, r.F, r.Iterations)
		}
	})
	t.Run("wrong-jacobian", func(t *testing.T) {
		// The Jacobian has the wrong sign: every model step goes uphill.
		p := mghByName("rosenbrock")
		wrong := func(x, r []float64, jac *mat.Dense) error {
			err := p.res(x, r, jac)
			if jac != nil {
				jac.Scale(-1, jac)
			}
			return err
		}
		r, err := LeastSquares{}.Solve(LSProblem{Residuals: wrong, M: 2}, p.x0, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != Failure || r.X[0] != -1.2 || r.X[1] != 1 {
			t.Errorf("%v at %v, want %v at the start", r.Status, r.X, Failure)
		}
		t.Log(r.Reason)
	})
	t.Run("stall", func(t *testing.T) {
		// The Jacobian is right far from the minimum and wrong near it:
		// progress, then no step lowers the cost.
		p := mghByName("rosenbrock")
		wrong := func(x, r []float64, jac *mat.Dense) error {
			err := p.res(x, r, jac)
			if jac != nil && math.Hypot(x[0]-1, x[1]-1) < 0.3 {
				jac.Scale(-1, jac)
			}
			return err
		}
		r, err := LeastSquares{}.Solve(LSProblem{Residuals: wrong, M: 2}, p.x0, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != Stalled || r.Iterations < 2 || r.Status.Kind() != "stalled" {
			t.Errorf("%v after %d iterations at %v, want %v", r.Status, r.Iterations, r.X, Stalled)
		}
		t.Log(r.Reason)
	})
	t.Run("non-finite", func(t *testing.T) {
		p := mghByName("rosenbrock")
		nan := func(x, r []float64, jac *mat.Dense) error {
			err := p.res(x, r, jac)
			r[1] = math.NaN()
			return err
		}
		r, err := LeastSquares{}.Solve(LSProblem{Residuals: nan, M: 2}, p.x0, Settings{})
		if err == nil || !strings.Contains(err.Error(), "residual 1 is NaN") {
			t.Errorf("error %v, want one naming residual 1", err)
		}
		if r == nil || r.Status != NonFinite {
			t.Errorf("result %+v, want status NonFinite", r)
		}
	})
	t.Run("non-finite-trial", func(t *testing.T) {
		// A trial step into a region where the residuals overflow only
		// shrinks the trust region (Meyer from its standard start does this).
		p := mghByName("meyer")
		res, err := LeastSquares{}.Solve(LSProblem{Residuals: p.res, M: p.m}, p.x0, Settings{})
		if err != nil || !res.Status.Converged() {
			t.Errorf("%v, %v", res.Status, err)
		}
	})
}

func TestLeastSquaresBadInput(t *testing.T) {
	p := mghByName("rosenbrock")
	for _, c := range []struct {
		ls   LeastSquares
		p    LSProblem
		x0   []float64
		want string
	}{
		{LeastSquares{}, LSProblem{M: 2}, []float64{0, 0}, "nil residual"},
		{LeastSquares{}, LSProblem{Residuals: p.res}, []float64{0, 0}, "M = 0"},
		{LeastSquares{Loss: 9}, LSProblem{Residuals: p.res, M: 2}, []float64{0, 0}, "unknown loss"},
		{LeastSquares{FScale: -1}, LSProblem{Residuals: p.res, M: 2}, []float64{0, 0}, "FScale"},
		{LeastSquares{XScale: []float64{1, 0}}, LSProblem{Residuals: p.res, M: 2}, []float64{0, 0}, "XScale[1]"},
		{LeastSquares{}, LSProblem{Residuals: p.res, M: 2, Lower: []float64{0}}, []float64{0, 0}, "dimension"},
		{LeastSquares{InitialRadius: math.Inf(1)}, LSProblem{Residuals: p.res, M: 2}, []float64{0, 0}, "InitialRadius"},
		{LeastSquares{}, LSProblem{Residuals: p.res, M: 2}, []float64{math.NaN(), 0}, "x0[0]"},
	} {
		if _, err := c.ls.Solve(c.p, c.x0, Settings{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

func TestLeastSquaresFixedAndXScale(t *testing.T) {
	// x₁ fixed at 0.8: the solver moves x₀ only; XScale gives the same answer.
	p := mghByName("rosenbrock")
	for _, ls := range []LeastSquares{{}, {XScale: []float64{1, 1}}} {
		res, err := ls.Solve(LSProblem{Residuals: p.res, M: 2, Lower: []float64{-2, 0.8}, Upper: []float64{2, 0.8}}, p.x0, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		// min over x₀ of 100(0.8 − x₀²)² + (1 − x₀)²
		lb, err := LBFGSB{}.Minimize(Problem{Objective: mghObjective(p), Lower: []float64{-2, 0.8}, Upper: []float64{2, 0.8}}, res.X, Settings{GradientTol: 1e-13})
		if err != nil {
			t.Fatal(err)
		}
		if res.X[1] != 0.8 || !res.Status.Converged() || math.Abs(res.F-lb.F) > 1e-9*lb.F || len(res.AtLower)+len(res.AtUpper) != 0 {
			t.Errorf("%+v: %v at %v, F = %.15g (L-BFGS-B %.15g)", ls, res.Status, res.X, res.F, lb.F)
		}
	}
}

func TestLeastSquaresLimitsAndCallback(t *testing.T) {
	p := mghByName("meyer")
	lp := LSProblem{Residuals: p.res, M: p.m}
	res, err := LeastSquares{}.Solve(lp, p.x0, Settings{MaxIterations: 3})
	if err != nil || res.Status != IterationLimit || res.Iterations != 3 || len(res.Trace) != 3 {
		t.Errorf("MaxIterations 3: %v after %d iterations (%d trace points), %v", res.Status, res.Iterations, len(res.Trace), err)
	}
	res, err = LeastSquares{}.Solve(lp, p.x0, Settings{MaxEvaluations: 10})
	if err != nil || res.Status != EvaluationLimit || res.FuncEvaluations > 11 {
		t.Errorf("MaxEvaluations 10: %v after %d evaluations, %v", res.Status, res.FuncEvaluations, err)
	}
	calls := 0
	res, err = LeastSquares{}.Solve(lp, p.x0, Settings{Callback: func(it Iteration) bool {
		calls++
		if it.Iter != calls || len(it.X) != 3 {
			t.Errorf("callback %d saw iteration %d, x %v", calls, it.Iter, it.X)
		}
		return calls < 5
	}})
	if err != nil || res.Status != Stopped || res.Iterations != 5 || calls != 5 {
		t.Errorf("callback stop: %v after %d iterations, %d calls, %v", res.Status, res.Iterations, calls, err)
	}
}

func TestLeastSquaresTrialJacobian(t *testing.T) {
	// The same iterates, fewer residual passes.
	for _, p := range mghProblems {
		lp := LSProblem{Residuals: p.res, M: p.m}
		a, err := LeastSquares{}.Solve(lp, p.x0, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := LeastSquares{TrialJacobian: true}.Solve(lp, p.x0, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.X, b.X) || a.Iterations != b.Iterations || a.Status != b.Status {
			t.Errorf("%s: %v after %d at %v; with TrialJacobian %v after %d at %v", p.name, a.Status, a.Iterations, a.X, b.Status, b.Iterations, b.X)
		}
		if b.FuncEvaluations >= a.FuncEvaluations {
			t.Errorf("%s: %d residual calls with TrialJacobian, %d without", p.name, b.FuncEvaluations, a.FuncEvaluations)
		}
		t.Logf("%s: %d calls (%d with J) → %d (%d with J)", p.name, a.FuncEvaluations, a.GradEvaluations, b.FuncEvaluations, b.GradEvaluations)
	}
}

func TestLeastSquaresObjective(t *testing.T) {
	// The scalar objective equals the solver's cost, its gradient central
	// differences, and L-BFGS-B on it reaches the solver's minimum.
	xs, ys := lineData()
	p := LSProblem{Residuals: lineResiduals(xs, ys), M: len(xs)}
	for _, l := range []LeastSquares{{}, {Loss: SoftL1, FScale: 0.1}, {Loss: Cauchy, FScale: 0.5}} {
		sol, err := l.Solve(p, []float64{0, 0}, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		obj := l.Objective(p)
		x := []float64{1.7, 0.4}
		g := make([]float64, 2)
		f, _ := obj(x, g)
		num := fd.Gradient(nil, func(x []float64) float64 {
			f, _ := obj(x, nil)
			return f
		}, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		for k, d := range num {
			if math.Abs(d-g[k]) > 1e-6*math.Max(1, math.Abs(g[k])) {
				t.Errorf("%v: ∂f/∂x%d = %g, central difference %g", l.Loss, k, g[k], d)
			}
		}
		if fs, _ := obj(sol.X, nil); math.Abs(fs-sol.F) > 1e-12*sol.F {
			t.Errorf("%v: objective %g at the solution, solver's F %g", l.Loss, fs, sol.F)
		}
		lb, err := LBFGSB{}.Minimize(Problem{Objective: obj}, []float64{0, 0}, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v: LM %d iterations F = %.12g; L-BFGS-B %d iterations F = %.12g (f at x₀ %g)", l.Loss, sol.Iterations, sol.F, lb.Iterations, lb.F, f)
		if math.Abs(lb.F-sol.F) > 1e-9*sol.F {
			t.Errorf("%v: L-BFGS-B F = %.15g, LM %.15g", l.Loss, lb.F, sol.F)
		}
	}
}

func TestLeastSquaresInitialRadius(t *testing.T) {
	// A linear problem: with a radius large enough for the Gauss–Newton
	// step, one iteration reaches the minimum.
	xs, ys := lineData()
	p := LSProblem{Residuals: lineResiduals(xs, ys), M: len(xs)}
	def, err := LeastSquares{}.Solve(p, []float64{0, 0}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	big, err := LeastSquares{InitialRadius: 1e4}.Solve(p, []float64{0, 0}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if big.Iterations != 1 || math.Abs(big.F-def.F) > 1e-12*def.F || big.Iterations >= def.Iterations {
		t.Errorf("InitialRadius 1e4: %d iterations to F = %.15g; default %d to %.15g", big.Iterations, big.F, def.Iterations, def.F)
	}
}

func TestLeastSquaresShapes(t *testing.T) {
	// Fewer residuals than parameters: r = x₀ + 2x₁ − 3 (a line of minima).
	under := func(x, r []float64, jac *mat.Dense) error {
		r[0] = x[0] + 2*x[1] - 3
		if jac != nil {
			jac.Set(0, 0, 1)
			jac.Set(0, 1, 2)
		}
		return nil
	}
	res, err := LeastSquares{}.Solve(LSProblem{Residuals: under, M: 1}, []float64{0, 0}, Settings{})
	if err != nil || !res.Status.Converged() || res.F > 1e-15 {
		t.Errorf("m < n: %v at F = %g, %v", res.Status, res.F, err)
	}
	// One parameter, every parameter fixed.
	one := func(x, r []float64, jac *mat.Dense) error {
		r[0], r[1] = x[0]-1, 2*(x[0]-1.5)
		if jac != nil {
			jac.Set(0, 0, 1)
			jac.Set(1, 0, 2)
		}
		return nil
	}
	res, err = LeastSquares{}.Solve(LSProblem{Residuals: one, M: 2}, []float64{0}, Settings{})
	if err != nil || !res.Status.Converged() || math.Abs(res.X[0]-1.4) > 1e-10 {
		t.Errorf("n = 1: %v at %v, %v", res.Status, res.X, err)
	}
	res, err = LeastSquares{}.Solve(LSProblem{Residuals: one, M: 2, Lower: []float64{0.5}, Upper: []float64{0.5}}, []float64{0}, Settings{})
	if err != nil || res.X[0] != 0.5 || res.F != 0.5*(0.25+4) {
		t.Errorf("all fixed: %v at %v, F = %g, %v", res.Status, res.X, res.F, err)
	}
	// An error of the residual function is returned.
	bad := func(x, r []float64, jac *mat.Dense) error { return errTest }
	if _, err := (LeastSquares{}).Solve(LSProblem{Residuals: bad, M: 1}, []float64{0}, Settings{}); err != errTest {
		t.Errorf("residual error: got %v", err)
	}
}

var errTest = errors.New("test error")

func TestLeastSquaresCovarianceFewResiduals(t *testing.T) {
	// One residual, two parameters: rank 1, one null direction ∝ (2, −1),
	// no degrees of freedom for s².
	under := func(x, r []float64, jac *mat.Dense) error {
		r[0] = x[0] + 2*x[1] - 3
		if jac != nil {
			jac.Set(0, 0, 1)
			jac.Set(0, 1, 2)
		}
		return nil
	}
	p := LSProblem{Residuals: under, M: 1}
	c, err := LeastSquares{}.Covariance(p, &Result{X: []float64{1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Rank != 1 || len(c.Null) != 1 || c.DOF != -1 || !math.IsNaN(c.S2) {
		t.Fatalf("rank %d, null %v, dof %d, s² %g", c.Rank, c.Null, c.DOF, c.S2)
	}
	d := c.Null[0]
	if math.Abs(math.Abs(d[0])-2/math.Sqrt(5)) > 1e-12 || math.Abs(d[0]+2*d[1]) > 1e-12 {
		t.Errorf("null direction %v, want ±(2, −1)/√5", d)
	}
}

// Finite residuals whose squares overflow (a log with a value of 1e308)
// end the run at once with status NonFinite and an error that says so;
// before, LAPACK's SVD looped on the overflowed factorisation (issue 26.4).
func TestLeastSquaresOverflowingResiduals(t *testing.T) {
	res := func(x, r []float64, jac *mat.Dense) error {
		r[0] = 1e300 * (x[0] - 1)
		r[1] = x[1] - 2
		r[2] = 1e200 * x[0] * x[1]
		if jac != nil {
			jac.Set(0, 0, 1e300)
			jac.Set(1, 1, 1)
			jac.Set(2, 0, 1e200*x[1])
			jac.Set(2, 1, 1e200*x[0])
		}
		return nil
	}
	done := make(chan struct{})
	var r *Result
	var err error
	go func() {
		r, err = LeastSquares{}.Solve(LSProblem{Residuals: res, M: 3}, []float64{3, 4}, Settings{})
		close(done)
	}()
	<-done
	if err == nil || !strings.Contains(err.Error(), "overflows") || r == nil || r.Status != NonFinite {
		t.Errorf("result %+v, error %v: want status NonFinite and an error naming the overflow", r, err)
	}
}
