package main

import (
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/opt"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// TestLSJacobian: the residual Jacobian lsProblem writes (forward mode,
// straight into the solver's matrix) equals central differences of the
// residuals computed by the native rollout, and its residuals give ½‖r‖²
// equal to the loss graph's value.
func TestLSJacobian(t *testing.T) {
	d, err := synth(3, 1500, cmdNoise, 7)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := lsProblem(d)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := compile(d)
	if err != nil {
		t.Fatal(err)
	}
	native := func(p []float64) []float64 {
		sim := Robot.NewSim(d.B, d.T)
		y := make([]float64, 2*d.T*d.B)
		if _, err := sim.Forward(p, []float64{dt}, d.x0, d.u, y); err != nil {
			t.Fatal(err)
		}
		meas := append(append([]float64(nil), d.xm...), d.ym...)
		for i := range y {
			y[i] = (y[i] - meas[i]) / posNoise
		}
		return y
	}
	for _, p := range [][]float64{start, truth, {0.4, 0.9, 0.1}} {
		r := make([]float64, lp.M)
		jac := mat.NewDense(lp.M, 3, nil)
		if err := lp.Residuals(p, r, jac); err != nil {
			t.Fatal(err)
		}
		rv := make([]float64, lp.M)
		if err := lp.Residuals(p, rv, nil); err != nil {
			t.Fatal(err)
		}
		ref := native(p)
		var half float64
		for i := range r {
			if r[i] != rv[i] || math.Abs(r[i]-ref[i]) > 1e-9*(1+math.Abs(ref[i])) {
				t.Fatalf("p %v: residual %d: Jacobian pass %v, value pass %v, native %v", p, i, r[i], rv[i], ref[i])
			}
			half += 0.5 * r[i] * r[i]
		}
		loss, err := prog.Value(p)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(half-loss) > 1e-10*loss {
			t.Errorf("p %v: ½‖r‖² = %v, loss graph %v", p, half, loss)
		}
		var worst float64
		m, _ := jac.Dims()
		col := mat.NewDense(m, 1, nil)
		for k := range 3 {
			fd.Jacobian(col, func(r, d []float64) {
				pd := append([]float64(nil), p...)
				pd[k] += d[0]
				copy(r, native(pd))
			}, []float64{0}, &fd.JacobianSettings{Formula: fd.Central, Step: 1e-6 * math.Max(1, math.Abs(p[k]))})
			var scale float64
			for i := range m {
				scale = math.Max(scale, math.Abs(jac.At(i, k)))
			}
			for i := range m {
				worst = math.Max(worst, math.Abs(col.At(i, 0)-jac.At(i, k))/scale)
			}
		}
		// The Coulomb clamp's kinks sit between the ±h points for a
		// few residuals at most; the rest agree to the differences' error.
		if worst > 1e-5 {
			t.Errorf("p %v: Jacobian off central differences by %.2g of its largest entry", p, worst)
		}
	}
}

// TestLSIdentify: bounded least squares with the forward-mode Jacobian
// reaches, in at most 15 iterations and converged, a loss no higher (to
// 1e-9 relative) than L-BFGS-B's through the reverse-mode gradient.
func TestLSIdentify(t *testing.T) {
	d, err := synth(4, 3000, cmdNoise, 3)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := lsProblem(d)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := opt.LeastSquares{TrialJacobian: true}.Solve(lp, start, opt.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	prog, err := compile(d)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: prog.Eval, Lower: lower, Upper: upper}, start, opt.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("least squares: %d iterations, %s, loss %.12g; L-BFGS-B: %d iterations, %s, loss %.12g",
		ls.Iterations, ls.Status, ls.F, lb.Iterations, lb.Status, lb.F)
	if !ls.Status.Converged() || ls.Iterations > 15 {
		t.Errorf("least squares: %s after %d iterations", ls.Status, ls.Iterations)
	}
	if ls.F > lb.F*(1+1e-9) {
		t.Errorf("least-squares loss %.15g above L-BFGS-B's %.15g", ls.F, lb.F)
	}
}

// TestLSNormal: the normal equations lsProblem hands the solver (formed in
// the forward-mode rollout's loop, no Jacobian stored) equal JᵀJ and Jᵀr
// of the Jacobian Residuals writes, to 1e-13 of their largest entry, with
// the same residuals bit for bit; and the solver reaches the same loss (to
// 1e-12 relative) in the same iterations with them as from J itself.
func TestLSNormal(t *testing.T) {
	d, err := synth(3, 1500, cmdNoise, 7)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := lsProblem(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][]float64{start, truth, {0.4, 0.9, 0.1}} {
		r, rn := make([]float64, lp.M), make([]float64, lp.M)
		jac := mat.NewDense(lp.M, 3, nil)
		if err := lp.Residuals(p, r, jac); err != nil {
			t.Fatal(err)
		}
		jtj, jtr := make([]float64, 9), make([]float64, 3)
		if err := lp.Normal(p, rn, jtj, jtr); err != nil {
			t.Fatal(err)
		}
		for i := range r {
			if r[i] != rn[i] {
				t.Fatalf("p %v: residual %d: %v with the normal equations, %v with J", p, i, rn[i], r[i])
			}
		}
		var h mat.Dense
		h.Mul(jac.T(), jac)
		g := mat.NewVecDense(3, nil)
		g.MulVec(jac.T(), mat.NewVecDense(lp.M, r))
		hmax, gmax := mat.Max(&h), math.Max(mat.Max(g), -mat.Min(g))
		for a := range 3 {
			if math.Abs(jtr[a]-g.AtVec(a)) > 1e-13*gmax {
				t.Errorf("p %v: Jᵀr[%d] = %v, from J %v", p, a, jtr[a], g.AtVec(a))
			}
			for b := range 3 {
				if math.Abs(jtj[a*3+b]-h.At(a, b)) > 1e-13*hmax {
					t.Errorf("p %v: JᵀJ[%d,%d] = %v, from J %v", p, a, b, jtj[a*3+b], h.At(a, b))
				}
			}
		}
	}
	withJ := lp
	withJ.Normal = nil
	a, err := opt.LeastSquares{TrialJacobian: true}.Solve(lp, start, opt.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := opt.LeastSquares{TrialJacobian: true}.Solve(withJ, start, opt.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("normal equations: %d iterations, %s, loss %.15g; from J: %d iterations, %s, loss %.15g", a.Iterations, a.Status, a.F, b.Iterations, b.Status, b.F)
	if a.Iterations != b.Iterations || math.Abs(a.F-b.F) > 1e-12*b.F || a.Status != b.Status {
		t.Errorf("normal equations: %d iterations, %s, loss %.15g; from J: %d, %s, %.15g", a.Iterations, a.Status, a.F, b.Iterations, b.Status, b.F)
	}
}

// TestLSNormalLong: at the benchmark's size (4 × 20,000 steps, command
// noise), the solver with lsProblem's normal equations (its default path)
// and from J (Normal unset: the path before them) reach the same loss to
// 1e-9 relative, each converged in at most 15 iterations.
func TestLSNormalLong(t *testing.T) {
	if testing.Short() {
		t.Skip("4 × 20,000 steps")
	}
	d, err := synth(4, 20000, cmdNoise, 3)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := lsProblem(d)
	if err != nil {
		t.Fatal(err)
	}
	withJ := lp
	withJ.Normal = nil
	a, err := opt.LeastSquares{TrialJacobian: true}.Solve(lp, start, opt.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := opt.LeastSquares{TrialJacobian: true}.Solve(withJ, start, opt.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("normal equations: %d iterations, %d evaluations, %s, loss %.15g; from J: %d iterations, %d evaluations, %s, loss %.15g (relative difference %.2g)",
		a.Iterations, a.FuncEvaluations, a.Status, a.F, b.Iterations, b.FuncEvaluations, b.Status, b.F, (a.F-b.F)/b.F)
	for _, r := range []*opt.Result{a, b} {
		if !r.Status.Converged() || r.Iterations > 15 {
			t.Errorf("%s after %d iterations", r.Status, r.Iterations)
		}
	}
	if math.Abs(a.F-b.F) > 1e-9*b.F {
		t.Errorf("loss %.15g with the normal equations, %.15g from J", a.F, b.F)
	}
}
