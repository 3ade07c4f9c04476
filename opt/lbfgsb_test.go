package opt

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

// lbHalfDist is f = ½‖x − c‖², whose minimiser over a box is c clamped
// onto the box.
func lbHalfDist(c []float64) Objective {
	return func(x, g []float64) (float64, error) {
		f := 0.0
		for i := range x {
			d := x[i] - c[i]
			f += 0.5 * d * d
			g[i] = d
		}
		return f, nil
	}
}

// lbQuadratic is f = ½xᵀAx − bᵀx for a dense symmetric A.
func lbQuadratic(a [][]float64, b []float64) Objective {
	return func(x, g []float64) (float64, error) {
		f := 0.0
		for i := range x {
			ax := lbDot(a[i], x)
			g[i] = ax - b[i]
			f += 0.5*x[i]*ax - b[i]*x[i]
		}
		return f, nil
	}
}

// lbQuadTri is f = ½xᵀAx − bᵀx with A = tridiag(−1, diag, −1): cheap to
// evaluate, and ill-conditioned when diag is close to 2.
func lbQuadTri(diag float64, b []float64) Objective {
	return func(x, g []float64) (float64, error) {
		n := len(x)
		f := 0.0
		for i := range x {
			ax := diag * x[i]
			if i > 0 {
				ax -= x[i-1]
			}
			if i+1 < n {
				ax -= x[i+1]
			}
			f += 0.5*x[i]*ax - b[i]*x[i]
			g[i] = ax - b[i]
		}
		return f, nil
	}
}

func lbFill(n int, v float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = v
	}
	return x
}

// lbAlternating is the standard extended-Rosenbrock start (−1.2, 1, −1.2, 1, …).
func lbAlternating(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = 1
		if i%2 == 0 {
			x[i] = -1.2
		}
	}
	return x
}

func lbMustMinimize(t *testing.T, m LBFGSB, p Problem, x0 []float64, s Settings) *Result {
	t.Helper()
	res, err := m.Minimize(p, x0, s)
	if err != nil {
		t.Fatalf("Minimize: %v", err)
	}
	return res
}

func TestLBFGSBClampedQuadratic(t *testing.T) {
	// c lies outside the box in coordinates 0, 2 and 4 (and the last one
	// has only an upper bound), so those end exactly on a bound.
	inf := math.Inf(1)
	c := []float64{-3, 0.5, 4, -0.2, 2, 7}
	lo := []float64{-1, -1, -1, -1, -1, -inf}
	hi := []float64{1, 1, 1, 1, 1, 5}
	want := []float64{-1, 0.5, 1, -0.2, 1, 5}
	atBound := []bool{true, false, true, false, true, true}
	res := lbMustMinimize(t, LBFGSB{}, Problem{Objective: lbHalfDist(c), Lower: lo, Upper: hi}, make([]float64, 6), Settings{})
	if !res.Status.Converged() {
		t.Errorf("status %v", res.Status)
	}
	for i := range want {
		if math.Abs(res.X[i]-want[i]) > 1e-8 {
			t.Errorf("x[%d] = %.12g, want %g", i, res.X[i], want[i])
		}
		onBound := res.X[i] == lo[i] || res.X[i] == hi[i]
		if onBound != atBound[i] {
			t.Errorf("x[%d] = %.17g: on a bound %v, want %v", i, res.X[i], onBound, atBound[i])
		}
	}
}

func TestLBFGSBSPDQuadraticKKT(t *testing.T) {
	// A = BᵀB + I is SPD and non-diagonal. Choose the solution x* and the
	// gradient there, g* = A x* − b: zero on the free variables, positive
	// where x* is at its lower bound, negative at its upper bound. Then x*
	// is the unique KKT point, hence the minimiser.
	const n = 6
	bm := [n][n]float64{
		{2, 1, 0, 0.5, 0, 1},
		{0, 1, -1, 0, 2, 0},
		{1, 0, 3, 1, 0, -1},
		{0, -2, 0, 1, 1, 0},
		{1, 1, 1, 1, 1, 1},
		{0.5, 0, -1, 2, 0, 1},
	}
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, n)
		for j := range a[i] {
			for k := range n {
				a[i][j] += bm[k][i] * bm[k][j]
			}
		}
		a[i][i]++
	}
	lo, hi := lbFill(n, -1), lbFill(n, 1)
	xStar := []float64{-1, 0.3, -0.5, 1, 0.1, -1}
	gStar := []float64{2, 0, 0, -1.5, 0, 0.25}
	wantActive := []bool{true, false, false, true, false, true}
	b := make([]float64, n)
	for i := range b {
		b[i] = lbDot(a[i], xStar) - gStar[i]
	}
	res := lbMustMinimize(t, LBFGSB{}, Problem{Objective: lbQuadratic(a, b), Lower: lo, Upper: hi}, make([]float64, n), Settings{})
	if !res.Status.Converged() {
		t.Errorf("status %v", res.Status)
	}
	for i := range xStar {
		if math.Abs(res.X[i]-xStar[i]) > 1e-8 {
			t.Errorf("x[%d] = %.12g, want %g", i, res.X[i], xStar[i])
		}
		active := res.X[i] == lo[i] || res.X[i] == hi[i]
		if active != wantActive[i] {
			t.Errorf("x[%d] = %.17g: active %v, want %v", i, res.X[i], active, wantActive[i])
		}
	}
	t.Logf("%d iterations, %d evaluations, %v", res.Iterations, res.FuncEvaluations, res.Status)
}

func TestLBFGSBRosenbrock(t *testing.T) {
	// Ceilings are twice SciPy's L-BFGS-B counts (48 evaluations in 2-D, 82
	// in 10-D from the alternating start).
	for _, tc := range []struct {
		name    string
		x0      []float64
		maxEval int
	}{
		{"2D", []float64{-1.2, 1}, 2 * 48},
		{"10D", lbAlternating(10), 2 * 82},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := len(tc.x0)
			res := lbMustMinimize(t, LBFGSB{}, Problem{Objective: tfRosenbrock, Lower: lbFill(n, -2), Upper: lbFill(n, 2)}, tc.x0, Settings{})
			t.Logf("%s: %d evaluations, %d iterations, f = %.3g, %v", tc.name, res.FuncEvaluations, res.Iterations, res.F, res.Status)
			if !(res.F < 1e-10) {
				t.Errorf("f = %g, want < 1e-10", res.F)
			}
			if !res.Status.Converged() {
				t.Errorf("status %v", res.Status)
			}
			if res.FuncEvaluations > tc.maxEval {
				t.Errorf("%d evaluations, want ≤ %d", res.FuncEvaluations, tc.maxEval)
			}
			if res.GradEvaluations != res.FuncEvaluations {
				t.Errorf("%d gradient evaluations for %d calls", res.GradEvaluations, res.FuncEvaluations)
			}
		})
	}
}

// TestLBFGSBMatchesSciPy compares with SciPy 1.10.1's Fortran L-BFGS-B 3.0
// (minimize(..., method='L-BFGS-B', jac=True, options=dict(gtol=1e-8,
// ftol=1e-12, maxcor=M))), i.e. our default tolerances. The problems cover
// boxes, one-sided bounds, no bounds, a wrapped memory and many changes of
// the active set. Followed routine by routine, the counts agree exactly on
// amd64; the slack allows for fused multiply-adds elsewhere.
func TestLBFGSBMatchesSciPy(t *testing.T) {
	inf := math.Inf(1)
	rbHi := lbFill(20, 2)
	for i := 0; i < 20; i += 2 {
		rbHi[i] = 0.7
	}
	sinB := func(n int, scale, freq, shift float64) []float64 {
		b := make([]float64, n)
		for i := range b {
			b[i] = scale*math.Sin(freq*(float64(i)+1)) + shift
		}
		return b
	}
	lowerOnly := lbFill(10, -inf)
	lowerOnly[0] = 1.5
	for _, tc := range []struct {
		name       string
		obj        Objective
		x0, lo, hi []float64
		m          int
		ftol       float64 // Settings.FunctionTol; 0 for the default
		nfev, nit  int
		f          float64
		status     Status
	}{
		{"rosen2-box", tfRosenbrock, []float64{-1.2, 1}, lbFill(2, -2), lbFill(2, 2), 10, 0, 47, 34, 9.227e-21, GradientConverged},
		{"rosen10-box", tfRosenbrock, lbAlternating(10), lbFill(10, -2), lbFill(10, 2), 10, 0, 80, 66, 2.074e-14, FunctionConverged},
		{"rosen10-box-all", tfRosenbrock, lbFill(10, -1.2), lbFill(10, -2), lbFill(10, 2), 10, 0, 42, 38, 7.964e-14, FunctionConverged},
		{"rosen20-cut", tfRosenbrock, lbAlternating(20), lbFill(20, -2), rbHi, 10, 0, 39, 33, 16.597168419, FunctionConverged},
		{"rosen20-cut-m5", tfRosenbrock, lbAlternating(20), lbFill(20, -2), rbHi, 5, 0, 34, 28, 16.597168419, FunctionConverged},
		{"rosen10-lower", tfRosenbrock, lbAlternating(10), lowerOnly, nil, 10, 0, 58, 52, 124.52568244, FunctionConverged},
		{"rosen4-lower", tfRosenbrock, lbAlternating(4), lowerOnly[:4], nil, 10, 0, 40, 32, 15.222343208981, FunctionConverged},
		{"rosen10-upper", tfRosenbrock, lbAlternating(10), nil, lbFill(10, 0.5), 10, 0, 38, 29, 7.5948129489, FunctionConverged},
		{"rosen10-free", tfRosenbrock, lbAlternating(10), nil, nil, 10, 0, 92, 74, 5.64e-15, FunctionConverged},
		{"tri100", lbQuadTri(2.01, sinB(100, 3, 1, 0)), make([]float64, 100), lbFill(100, -1), lbFill(100, 1), 10, 0, 13, 12, -142.30261456, FunctionConverged},
		{"tri100-m3", lbQuadTri(2.01, sinB(100, 3, 1, 0)), make([]float64, 100), lbFill(100, -1), lbFill(100, 1), 3, 0, 13, 12, -142.30261456, FunctionConverged},
		{"tri200", lbQuadTri(2.0001, sinB(200, 0.01, 0.37, 0.002)), make([]float64, 200), lbFill(200, -1), lbFill(200, 1.5), 10, 0, 203, 197, -0.45889695272, FunctionConverged},
		{"tri200-m4", lbQuadTri(2.0001, sinB(200, 0.01, 0.37, 0.002)), make([]float64, 200), lbFill(200, -1), lbFill(200, 1.5), 4, 0, 186, 179, -0.45889695272, FunctionConverged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := lbMustMinimize(t, LBFGSB{M: tc.m}, Problem{Objective: tc.obj, Lower: tc.lo, Upper: tc.hi}, tc.x0, Settings{FunctionTol: tc.ftol})
			t.Logf("%d evaluations (SciPy %d), %d iterations (SciPy %d), f = %.11g, %v", res.FuncEvaluations, tc.nfev, res.Iterations, tc.nit, res.F, res.Status)
			if d := res.FuncEvaluations - tc.nfev; d < -2 || d > 2 {
				t.Errorf("%d evaluations, SciPy needs %d", res.FuncEvaluations, tc.nfev)
			}
			if d := res.Iterations - tc.nit; d < -2 || d > 2 {
				t.Errorf("%d iterations, SciPy needs %d", res.Iterations, tc.nit)
			}
			if math.Abs(res.F-tc.f) > 1e-9*math.Max(1, math.Abs(tc.f)) {
				t.Errorf("f = %.12g, SciPy reaches %.12g", res.F, tc.f)
			}
			if res.Status != tc.status {
				t.Errorf("status %v, SciPy stops with %v", res.Status, tc.status)
			}
		})
	}
}

func TestLBFGSBCornerMinimiser(t *testing.T) {
	// On [0,1]×[−1,0] the gradient at (1, −1) is (−4.1, 4.1): pointing out
	// of the box through the corner.
	obj := func(x, g []float64) (float64, error) {
		g[0] = 2*(x[0]-3) + x[1]/10
		g[1] = 2*(x[1]+3) + x[0]/10
		return (x[0]-3)*(x[0]-3) + (x[1]+3)*(x[1]+3) + x[0]*x[1]/10, nil
	}
	res := lbMustMinimize(t, LBFGSB{}, Problem{Objective: obj, Lower: []float64{0, -1}, Upper: []float64{1, 0}}, []float64{0.5, -0.5}, Settings{})
	if res.X[0] != 1 || res.X[1] != -1 {
		t.Errorf("x = %v, want exactly [1 -1]", res.X)
	}
	if res.Status != GradientConverged {
		t.Errorf("status %v, want %v", res.Status, GradientConverged)
	}
}

func TestLBFGSBOneSidedBounds(t *testing.T) {
	inf := math.Inf(1)
	c := []float64{0, -2, 3, -1}
	t.Run("lower", func(t *testing.T) {
		lo := []float64{1.5, -inf, -inf, 0}
		res := lbMustMinimize(t, LBFGSB{}, Problem{Objective: lbHalfDist(c), Lower: lo}, []float64{2, 0, 0, 5}, Settings{})
		want := []float64{1.5, -2, 3, 0}
		for i := range want {
			if math.Abs(res.X[i]-want[i]) > 1e-8 {
				t.Errorf("x = %v, want %v", res.X, want)
				break
			}
		}
		if res.X[0] != 1.5 || res.X[3] != 0 {
			t.Errorf("x = %v: active lower bounds not met exactly", res.X)
		}
	})
	t.Run("upper", func(t *testing.T) {
		hi := []float64{inf, -3, inf, -1.5}
		res := lbMustMinimize(t, LBFGSB{}, Problem{Objective: lbHalfDist(c), Upper: hi}, []float64{-4, -4, 0, -2}, Settings{})
		want := []float64{0, -3, 3, -1.5}
		for i := range want {
			if math.Abs(res.X[i]-want[i]) > 1e-8 {
				t.Errorf("x = %v, want %v", res.X, want)
				break
			}
		}
		if res.X[1] != -3 || res.X[3] != -1.5 {
			t.Errorf("x = %v: active upper bounds not met exactly", res.X)
		}
	})
	t.Run("rosenbrock", func(t *testing.T) {
		// x0 ≥ 1.5 alone moves the minimiser off (1, …, 1): at the optimum
		// x0 is at its bound with a positive gradient.
		lo := lbFill(4, -inf)
		lo[0] = 1.5
		res := lbMustMinimize(t, LBFGSB{}, Problem{Objective: tfRosenbrock, Lower: lo}, lbAlternating(4), Settings{})
		g := make([]float64, 4)
		tfRosenbrock(res.X, g)
		if res.X[0] != 1.5 || !(g[0] > 0) {
			t.Errorf("x = %v, g = %v: want x0 = 1.5 with g0 > 0", res.X, g)
		}
		// FunctionTol ends this badly scaled run first (as in SciPy), at
		// |g| ≈ 1e-4 (f ≈ 15).
		for i := 1; i < 4; i++ {
			if math.Abs(g[i]) > 1e-3 {
				t.Errorf("g[%d] = %g at a free variable", i, g[i])
			}
		}
	})
}

func TestLBFGSBFixedVariable(t *testing.T) {
	lo := []float64{-2, 0.5, -2, -2}
	hi := []float64{2, 0.5, 2, 2}
	moved := 0
	obj := func(x, g []float64) (float64, error) {
		if x[1] != 0.5 {
			moved++
		}
		return tfRosenbrock(x, g)
	}
	// x0[1] lies outside [0.5, 0.5]: projection puts it on the value.
	res := lbMustMinimize(t, LBFGSB{}, Problem{Objective: obj, Lower: lo, Upper: hi}, []float64{-1.2, 1, -1.2, 1}, Settings{})
	if moved > 0 || res.X[1] != 0.5 {
		t.Errorf("fixed variable moved in %d evaluations; final %v", moved, res.X[1])
	}
	if !res.Status.Converged() {
		t.Errorf("status %v", res.Status)
	}
	// The other variables are optimal: their gradient vanishes (x0, x2) or
	// points out of the box.
	g := make([]float64, 4)
	tfRosenbrock(res.X, g)
	if st := newLBState(lo, hi, 1); st.projGradNorm(res.X, g) > 1e-6 {
		t.Errorf("projected gradient %g at %v", st.projGradNorm(res.X, g), res.X)
	}
}

func TestLBFGSBProjectsStartingPoint(t *testing.T) {
	c := []float64{0.2, -0.3, 0.9}
	var first []float64
	obj := func(x, g []float64) (float64, error) {
		if first == nil {
			first = append([]float64(nil), x...)
		}
		return lbHalfDist(c)(x, g)
	}
	lo, hi := lbFill(3, -1), lbFill(3, 1)
	res := lbMustMinimize(t, LBFGSB{}, Problem{Objective: obj, Lower: lo, Upper: hi}, []float64{5, -7, 0.5}, Settings{})
	if want := []float64{1, -1, 0.5}; fmt.Sprint(first) != fmt.Sprint(want) {
		t.Errorf("first evaluation at %v, want the projection %v", first, want)
	}
	for i := range c {
		if math.Abs(res.X[i]-c[i]) > 1e-8 {
			t.Errorf("x = %v, want %v", res.X, c)
			break
		}
	}
}

// lbTwoLoopLBFGS is textbook L-BFGS (two-loop recursion, H₀ = (sᵀy/yᵀy)I)
// with the same line search and step rules as LBFGSB, returning the
// iterates.
func lbTwoLoopLBFGS(obj Objective, x0 []float64, m, iters int) [][]float64 {
	n := len(x0)
	x, g := append([]float64(nil), x0...), make([]float64, n)
	xt, gt, d := make([]float64, n), make([]float64, n), make([]float64, n)
	f, _ := obj(x, g)
	var ss, ys [][]float64
	var out [][]float64
	for iter := range iters {
		copy(d, g)
		alpha := make([]float64, len(ss))
		for i := len(ss) - 1; i >= 0; i-- {
			alpha[i] = lbDot(ss[i], d) / lbDot(ss[i], ys[i])
			for k := range d {
				d[k] -= alpha[i] * ys[i][k]
			}
		}
		if k := len(ss) - 1; k >= 0 {
			gamma := lbDot(ss[k], ys[k]) / lbDot(ys[k], ys[k])
			for i := range d {
				d[i] *= gamma
			}
		}
		for i := range ss {
			beta := lbDot(ys[i], d) / lbDot(ss[i], ys[i])
			for k := range d {
				d[k] += (alpha[i] - beta) * ss[i][k]
			}
		}
		for i := range d {
			d[i] = -d[i]
		}
		stp := 1.0
		if iter == 0 {
			stp = 1 / math.Sqrt(lbDot(d, d))
		}
		copy(xt, x)
		copy(gt, g)
		var ls lbLineSearch
		task := ls.start(f, lbDot(g, d), stp, lbStpBig)
		for task == lbLSEvaluate {
			for i := range x {
				x[i] = xt[i] + stp*d[i]
			}
			f, _ = obj(x, g)
			stp, task = ls.next(f, lbDot(g, d), stp)
		}
		s, y := make([]float64, n), make([]float64, n)
		for i := range s {
			s[i], y[i] = stp*d[i], g[i]-gt[i]
		}
		if len(ss) == m {
			ss, ys = ss[1:], ys[1:]
		}
		ss, ys = append(ss, s), append(ys, y)
		out = append(out, append([]float64(nil), x...))
	}
	return out
}

func TestLBFGSBUnbounded(t *testing.T) {
	t.Run("two-loop", func(t *testing.T) {
		// Without bounds the compact-form subspace step is the L-BFGS step:
		// the iterates must follow textbook L-BFGS.
		const iters = 20
		b := make([]float64, 30)
		for i := range b {
			b[i] = math.Cos(float64(i))
		}
		obj := lbQuadTri(2.05, b)
		ref := lbTwoLoopLBFGS(obj, make([]float64, 30), 5, iters)
		k := 0
		worst := 0.0
		s := Settings{MaxIterations: iters, Callback: func(it Iteration) bool {
			for i := range it.X {
				worst = math.Max(worst, math.Abs(it.X[i]-ref[k][i])/math.Max(1, math.Abs(ref[k][i])))
			}
			k++
			return true
		}}
		res := lbMustMinimize(t, LBFGSB{M: 5}, Problem{Objective: obj}, make([]float64, 30), s)
		if k != res.Iterations || k == 0 {
			t.Fatalf("callback saw %d of %d iterations", k, res.Iterations)
		}
		if worst > 1e-9 {
			t.Errorf("iterates differ from two-loop L-BFGS by %g", worst)
		}
		t.Logf("%d iterations, largest relative deviation %.2g", k, worst)
	})
	t.Run("infinite-bounds-equal-nil", func(t *testing.T) {
		inf := math.Inf(1)
		a := lbMustMinimize(t, LBFGSB{}, Problem{Objective: tfRosenbrock}, lbAlternating(10), Settings{})
		b := lbMustMinimize(t, LBFGSB{}, Problem{Objective: tfRosenbrock, Lower: lbFill(10, -inf), Upper: lbFill(10, inf)}, lbAlternating(10), Settings{})
		if fmt.Sprint(a.X) != fmt.Sprint(b.X) || a.FuncEvaluations != b.FuncEvaluations {
			t.Errorf("nil bounds: %d evaluations, x %v; ±Inf bounds: %d, %v", a.FuncEvaluations, a.X, b.FuncEvaluations, b.X)
		}
		if !(a.F < 1e-10) {
			t.Errorf("f = %g", a.F)
		}
	})
	t.Run("far-minimiser", func(t *testing.T) {
		c := []float64{1e3, -2e3, 3e3}
		res := lbMustMinimize(t, LBFGSB{}, Problem{Objective: lbHalfDist(c)}, make([]float64, 3), Settings{})
		for i := range c {
			if math.Abs(res.X[i]-c[i]) > 1e-8*math.Abs(c[i]) {
				t.Errorf("x = %v, want %v", res.X, c)
				break
			}
		}
	})
}

func TestLBFGSBErrors(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	failing := func(x, g []float64) (float64, error) {
		if calls++; calls == 4 {
			return 0, boom
		}
		return tfRosenbrock(x, g)
	}
	if _, err := (LBFGSB{}).Minimize(Problem{Objective: failing}, []float64{-1.2, 1}, Settings{}); !errors.Is(err, boom) {
		t.Errorf("objective error: got %v", err)
	}
	for _, p := range []Problem{
		{Objective: tfRosenbrock, Lower: []float64{0, 0, 0}},
		{Objective: tfRosenbrock, Upper: []float64{1}},
	} {
		if _, err := (LBFGSB{}).Minimize(p, []float64{0, 0}, Settings{}); !errors.Is(err, ErrDimension) {
			t.Errorf("bounds %v/%v: got %v, want ErrDimension", p.Lower, p.Upper, err)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(-1)} {
		obj := func(x, g []float64) (float64, error) {
			f, err := tfSphere(x, g)
			if x[0] != 1 { // after the first step
				g[2] = bad
			}
			return f, err
		}
		_, err := (LBFGSB{}).Minimize(Problem{Objective: obj}, []float64{1, 1, 1}, Settings{})
		if err == nil || !strings.Contains(err.Error(), "gradient component 2") {
			t.Errorf("gradient %g: got %v, want an error naming component 2", bad, err)
		}
	}
	nanF := func(x, g []float64) (float64, error) { g[0] = 1; return math.NaN(), nil }
	if _, err := (LBFGSB{}).Minimize(Problem{Objective: nanF}, []float64{0}, Settings{}); err == nil {
		t.Error("NaN f: no error")
	}
	empty := Problem{Objective: tfSphere, Lower: []float64{math.Inf(1)}, Upper: []float64{math.Inf(1)}}
	if _, err := (LBFGSB{}).Minimize(empty, []float64{0}, Settings{}); err == nil {
		t.Error("bounds [+Inf, +Inf]: no error")
	}
}

func TestLBFGSBLineSearchFailure(t *testing.T) {
	t.Run("wrong-gradient", func(t *testing.T) {
		// The gradient has the wrong sign, so every "descent" direction goes
		// uphill and no step lowers f; with an empty memory that is final.
		obj := func(x, g []float64) (float64, error) {
			g[0], g[1] = -2*x[0], -2*x[1]
			return x[0]*x[0] + x[1]*x[1], nil
		}
		res := lbMustMinimize(t, LBFGSB{}, Problem{Objective: obj}, []float64{1, -2}, Settings{})
		if res.Status != Failure || res.Iterations != 0 || res.Status.Kind() != "failed" {
			t.Errorf("status %v after %d iterations, want %v after 0", res.Status, res.Iterations, Failure)
		}
		if res.X[0] != 1 || res.X[1] != -2 || res.F != 5 {
			t.Errorf("x = %v, f = %g: want the starting point back", res.X, res.F)
		}
	})
	t.Run("reset-then-fail", func(t *testing.T) {
		// After two good iterations every new point costs 100 more: the
		// search fails, the memory is cleared, the steepest-descent search
		// fails too, and the run ends at the last iterate.
		c := []float64{1, -2, 3}
		poisoned := false
		quad := lbQuadratic([][]float64{{2, 1, 0}, {1, 3, 1}, {0, 1, 4}}, c)
		obj := func(x, g []float64) (float64, error) {
			f, err := quad(x, g)
			if poisoned {
				f += 100
			}
			return f, err
		}
		var last []float64
		s := Settings{Callback: func(it Iteration) bool {
			last = append(last[:0], it.X...)
			poisoned = it.Iter == 2
			return true
		}}
		x0 := []float64{0, 0, 0}
		res := lbMustMinimize(t, LBFGSB{}, Problem{Objective: quad}, x0, Settings{MaxIterations: 2})
		if res.Iterations != 2 {
			t.Fatalf("the unpoisoned problem needs %d iterations", res.Iterations)
		}
		res = lbMustMinimize(t, LBFGSB{}, Problem{Objective: obj}, x0, s)
		if res.Status != Stalled || res.Iterations != 2 || res.Status.Converged() || res.Status.Kind() != "stalled" {
			t.Fatalf("status %v after %d iterations, want %v after 2", res.Status, res.Iterations, Stalled)
		}
		if fmt.Sprint(res.X) != fmt.Sprint(last) || res.F != res.Trace[1].F {
			t.Errorf("x = %v, f = %g; want the last iterate %v, f = %g", res.X, res.F, last, res.Trace[1].F)
		}
		// Two searches: at least two trial points, at most lbMaxLineEvals each.
		if extra := res.FuncEvaluations - res.Trace[1].Evaluations; extra < 2 || extra > 2*lbMaxLineEvals {
			t.Errorf("%d evaluations after the last iterate", extra)
		}
	})
}

func TestLBFGSBCallbackAndTrace(t *testing.T) {
	p := Problem{Objective: tfRosenbrock, Lower: lbFill(2, -2), Upper: lbFill(2, 2)}
	t.Run("stop", func(t *testing.T) {
		seen := 0
		s := Settings{Callback: func(it Iteration) bool {
			seen++
			if it.Iter != seen || len(it.X) != 2 {
				t.Errorf("callback %d got iteration %d with %d coordinates", seen, it.Iter, len(it.X))
			}
			return it.Iter < 3
		}}
		res := lbMustMinimize(t, LBFGSB{}, p, []float64{-1.2, 1}, s)
		if res.Status != Stopped || res.Iterations != 3 || seen != 3 || len(res.Trace) != 3 {
			t.Errorf("status %v, %d iterations, %d callbacks, %d trace rows; want stopped after 3", res.Status, res.Iterations, seen, len(res.Trace))
		}
	})
	t.Run("trace", func(t *testing.T) {
		res := lbMustMinimize(t, LBFGSB{}, p, []float64{-1.2, 1}, Settings{})
		if len(res.Trace) != res.Iterations || res.Iterations == 0 {
			t.Fatalf("%d trace rows for %d iterations", len(res.Trace), res.Iterations)
		}
		prev := TracePoint{F: math.Inf(1), Elapsed: -1}
		for i, tp := range res.Trace {
			if tp.Iter != i+1 || tp.Elapsed < prev.Elapsed || tp.F > prev.F || tp.Evaluations < prev.Evaluations {
				t.Fatalf("trace row %d = %+v after %+v", i, tp, prev)
			}
			prev = tp
		}
		if prev.F != res.F || prev.Evaluations != res.FuncEvaluations {
			t.Errorf("last trace row %+v, result f %g after %d evaluations", prev, res.F, res.FuncEvaluations)
		}
	})
	t.Run("limits", func(t *testing.T) {
		res := lbMustMinimize(t, LBFGSB{}, p, []float64{-1.2, 1}, Settings{MaxIterations: 5})
		if res.Status != IterationLimit || res.Iterations != 5 {
			t.Errorf("MaxIterations 5: status %v after %d iterations", res.Status, res.Iterations)
		}
		res = lbMustMinimize(t, LBFGSB{}, p, []float64{-1.2, 1}, Settings{MaxEvaluations: 10})
		if res.Status != EvaluationLimit || res.FuncEvaluations > 10 {
			t.Errorf("MaxEvaluations 10: status %v after %d evaluations", res.Status, res.FuncEvaluations)
		}
		if f, _ := tfRosenbrock(res.X, make([]float64, 2)); f != res.F {
			t.Errorf("result f %g is not f(x) = %g", res.F, f)
		}
	})
}

// TestLBFGSBFormKIncremental checks the incrementally updated subspace
// matrix against one formed from scratch while pairs are added, dropped from
// a full memory, and variables move between the free and active sets.
func TestLBFGSBFormKIncremental(t *testing.T) {
	const n, m = 25, 4
	rng := rand.New(rand.NewPCG(1, 2))
	st := newLBState(lbFill(n, -1), lbFill(n, 1), m)
	for i := range st.where {
		st.where[i] = lbFree
	}
	s, y := make([]float64, n), make([]float64, n)
	for round := range 30 {
		if round%3 != 2 { // sometimes the free set changes with no new pair
			for i := range s {
				s[i] = rng.NormFloat64()
				y[i] = (1+float64(i%5))*s[i] + 0.1*rng.NormFloat64()
			}
			st.push(s, y, lbDot(s, y), lbDot(y, y), lbDot(s, s))
			if !st.formT() {
				t.Fatal("formT failed")
			}
		}
		for range 1 + rng.IntN(6) {
			st.where[rng.IntN(n)] = int8(rng.IntN(3)) // free, at lower or at upper
		}
		// As in run: K is re-formed only if the pairs or the free set changed.
		if changed := st.freeVars(); (changed || st.wnStale) && len(st.free) > 0 && !st.formK() {
			t.Fatalf("round %d: formK failed", round)
		}
		if len(st.free) == 0 {
			continue
		}
		col := st.col
		// K from its definition.
		k := lbMatrix(2*col, 2*col)
		for i := range col {
			for j := range col {
				yzy, sas, szy, say := 0.0, 0.0, 0.0, 0.0
				for v := range n {
					if st.where[v] <= 0 {
						yzy += st.y[i][v] * st.y[j][v]
						szy += st.s[i][v] * st.y[j][v]
					} else {
						sas += st.s[i][v] * st.s[j][v]
						say += st.s[i][v] * st.y[j][v]
					}
				}
				k[i][j] = -yzy / st.theta
				if i == j {
					k[i][j] -= st.sy[i][i]
				}
				k[col+i][col+j] = st.theta * sas
				// (2,1) block: L_a − R_z.
				if i > j {
					k[col+i][j] = say
				} else {
					k[col+i][j] = -szy
				}
				k[j][col+i] = k[col+i][j]
			}
		}
		// K from the factors: Uᵀ E U.
		worst := 0.0
		for i := range 2 * col {
			for j := range 2 * col {
				sum := 0.0
				for l := 0; l <= min(i, j); l++ {
					e := 1.0
					if l < col {
						e = -1
					}
					sum += st.wn[l][i] * e * st.wn[l][j]
				}
				worst = math.Max(worst, math.Abs(sum-k[i][j])/math.Max(1, math.Abs(k[i][j])))
			}
		}
		if worst > 1e-10 {
			t.Fatalf("round %d (col %d, %d free): factors of K off by %g", round, col, len(st.free), worst)
		}
	}
}

// lbInverse inverts a small dense matrix by Gauss–Jordan elimination with
// partial pivoting.
func lbInverse(a [][]float64) [][]float64 {
	n := len(a)
	w := lbMatrix(n, 2*n)
	for i := range n {
		copy(w[i], a[i])
		w[i][n+i] = 1
	}
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(w[r][c]) > math.Abs(w[p][c]) {
				p = r
			}
		}
		w[c], w[p] = w[p], w[c]
		for r := range n {
			if r != c {
				f := w[r][c] / w[c][c]
				for k := range 2 * n {
					w[r][k] -= f * w[c][k]
				}
			}
		}
	}
	inv := lbMatrix(n, n)
	for i := range n {
		for j := range n {
			inv[i][j] = w[i][n+j] / w[i][i]
		}
	}
	return inv
}

// TestLBFGSBCauchyPoint checks the generalized Cauchy point against a dense
// computation: B = θI − W M Wᵀ formed explicitly and the piecewise quadratic
// model minimised segment by segment along the projected gradient path.
func TestLBFGSBCauchyPoint(t *testing.T) {
	const n, m = 8, 3
	inf := math.Inf(1)
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		lo, hi := make([]float64, n), make([]float64, n)
		for i := range n {
			lo[i], hi[i] = -0.1-rng.Float64(), 0.1+rng.Float64()
			switch rng.IntN(6) {
			case 0:
				lo[i] = -inf
			case 1:
				hi[i] = inf
			case 2:
				lo[i], hi[i] = -inf, inf
			}
		}
		st := newLBState(lo, hi, m)
		s, y := make([]float64, n), make([]float64, n)
		for range trial % (m + 2) { // 0 to m+1 pairs: empty and wrapped memory
			for i := range n {
				s[i] = rng.NormFloat64()
				y[i] = (0.5+float64(i%4))*s[i] + 0.2*rng.NormFloat64()
			}
			if lbDot(s, y) <= 0 {
				continue
			}
			st.push(s, y, lbDot(s, y), lbDot(y, y), lbDot(s, s))
			if !st.formT() {
				t.Fatal("formT failed")
			}
		}
		x, g := make([]float64, n), make([]float64, n)
		for i := range n {
			x[i] = 0.8 * rng.NormFloat64()
			if rng.IntN(4) == 0 { // start some variables on a bound
				x[i] = 5 * x[i]
			}
			g[i] = rng.NormFloat64()
		}
		st.clamp(x)
		if !st.cauchy(x, g) {
			t.Fatalf("trial %d: cauchy failed", trial)
		}

		// Dense B.
		col, theta := st.col, st.theta
		b := lbMatrix(n, n)
		for i := range n {
			b[i][i] = theta
		}
		if col > 0 {
			mid := lbMatrix(2*col, 2*col)
			for i := range col {
				mid[i][i] = -st.sy[i][i]
				for j := range col {
					if i > j {
						mid[col+i][j] = st.sy[i][j] // L
						mid[j][col+i] = st.sy[i][j] // Lᵀ
					}
					mid[col+i][col+j] = theta * lbDot(st.s[i], st.s[j])
				}
			}
			mi := lbInverse(mid)
			w := func(k, j int) float64 { // W = [Y θS]
				if j < col {
					return st.y[j][k]
				}
				return theta * st.s[j-col][k]
			}
			for r := range n {
				for c := range n {
					for p := range 2 * col {
						for q := range 2 * col {
							b[r][c] -= w(r, p) * mi[p][q] * w(c, q)
						}
					}
				}
			}
		}
		bv := func(v []float64) []float64 {
			out := make([]float64, n)
			for i := range n {
				out[i] = lbDot(b[i], v)
			}
			return out
		}

		// Breakpoints of P(x − t g), and the path.
		tb := make([]float64, n)
		for i := range n {
			tb[i] = inf
			if g[i] > 0 && lo[i] > -inf {
				tb[i] = (x[i] - lo[i]) / g[i]
			} else if g[i] < 0 && hi[i] < inf {
				tb[i] = (x[i] - hi[i]) / g[i]
			}
		}
		at := func(tt float64) []float64 {
			p := make([]float64, n)
			for i := range n {
				p[i] = math.Min(math.Max(x[i]-tt*g[i], lo[i]), hi[i]) - x[i]
			}
			return p
		}
		sorted := append([]float64{0}, tb...)
		for i := 1; i < len(sorted); i++ {
			for j := i; j > 0 && sorted[j] < sorted[j-1]; j-- {
				sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
			}
		}
		var want []float64
		for k := range sorted {
			t0 := sorted[k]
			if k > 0 && t0 == sorted[k-1] {
				continue
			}
			if math.IsInf(t0, 1) {
				want = at(math.MaxFloat64)
				break
			}
			t1 := inf
			for _, v := range sorted[k+1:] {
				if v > t0 {
					t1 = v
					break
				}
			}
			p0 := at(t0)
			d := make([]float64, n)
			for i := range n {
				if tb[i] > t0 {
					d[i] = -g[i]
				}
			}
			slope := lbDot(g, d) + lbDot(d, bv(p0))
			curv := lbDot(d, bv(d))
			if slope >= 0 {
				want = p0
				break
			}
			if dt := -slope / curv; t0+dt < t1 {
				want = at(t0 + dt)
				break
			}
		}
		worst := 0.0
		for i := range n {
			worst = math.Max(worst, math.Abs(st.z[i]-x[i]-want[i]))
		}
		if worst > 1e-10 {
			t.Fatalf("trial %d (%d pairs): Cauchy point off by %g:\n got  %v\n want %v", trial, col, worst, st.z, want)
		}
		// c = Wᵀ(z − x), which the reduced gradient relies on.
		for j := range col {
			zy, zs := 0.0, 0.0
			for i := range n {
				zy += st.y[j][i] * (st.z[i] - x[i])
				zs += st.s[j][i] * (st.z[i] - x[i])
			}
			if math.Abs(st.c[j]-zy) > 1e-10 || math.Abs(st.c[col+j]-theta*zs) > 1e-10 {
				t.Fatalf("trial %d: c[%d] = %g, %g; want %g, %g", trial, j, st.c[j], st.c[col+j], zy, theta*zs)
			}
		}
	}
}

func ExampleLBFGSB() {
	// Minimise (x−3)² + (y+1)² + (x−y)²/4 over 0 ≤ x ≤ 2, y ≥ 0: both bounds
	// become active and the minimiser is the corner (2, 0).
	obj := func(x, grad []float64) (float64, error) {
		a, b, c := x[0]-3, x[1]+1, x[0]-x[1]
		grad[0] = 2*a + c/2
		grad[1] = 2*b - c/2
		return a*a + b*b + c*c/4, nil
	}
	p := Problem{
		Objective: obj,
		Lower:     []float64{0, 0},
		Upper:     []float64{2, math.Inf(1)},
	}
	res, err := LBFGSB{}.Minimize(p, []float64{1, 1}, Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("x = %.4f, f = %.4f, %v\n", res.X, res.F, res.Status)
	// Output:
	// x = [2.0000 0.0000], f = 3.0000, gradient converged
}

// BenchmarkLBFGSBIteration measures what an iteration costs besides the
// objective, on a 1000-variable bounded, ill-conditioned quadratic whose
// evaluation is O(n): "ns/iter" is the whole iteration, "obj-ns/iter" the
// objective's share of it.
func BenchmarkLBFGSBIteration(b *testing.B) {
	const n = 1000
	c := make([]float64, n)
	for i := range c {
		c[i] = 0.02 * math.Sin(0.1*float64(i))
	}
	inner := lbQuadTri(2+1e-6, c)
	var objTime time.Duration
	obj := func(x, g []float64) (float64, error) {
		t0 := time.Now()
		f, err := inner(x, g)
		objTime += time.Since(t0)
		return f, err
	}
	p := Problem{Objective: obj, Lower: lbFill(n, -0.5), Upper: lbFill(n, 0.5)}
	// Tolerances that cannot be met: each run goes on for 100 iterations or
	// until f stops changing in floating point.
	s := Settings{MaxIterations: 100, GradientTol: 1e-300, FunctionTol: 1e-300}
	iters, evals := 0, 0
	b.ResetTimer()
	for b.Loop() {
		res, err := LBFGSB{}.Minimize(p, make([]float64, n), s)
		if err != nil {
			b.Fatal(err)
		}
		iters += res.Iterations
		evals += res.FuncEvaluations
	}
	el := b.Elapsed()
	b.ReportMetric(float64(el.Nanoseconds())/float64(iters), "ns/iter")
	b.ReportMetric(float64(objTime.Nanoseconds())/float64(iters), "obj-ns/iter")
	b.ReportMetric(float64(evals)/float64(iters), "evals/iter")
}

// TestLBFGSBMemoryCapped: a correction-pair count far beyond the dimension
// is capped (its 2M×2M workspace would need terabytes) and the run is the
// same as with the default.
func TestLBFGSBMemoryCapped(t *testing.T) {
	pr := Problem{Objective: tfRosenbrock, Lower: lbFill(4, -2), Upper: lbFill(4, 2)}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	big := lbMustMinimize(t, LBFGSB{M: 1_000_000}, pr, lbAlternating(4), Settings{})
	runtime.ReadMemStats(&after)
	if a := after.TotalAlloc - before.TotalAlloc; a > 64<<20 {
		t.Errorf("M = 1e6 on 4 parameters allocated %d MB", a>>20)
	}
	def := lbMustMinimize(t, LBFGSB{}, pr, lbAlternating(4), Settings{})
	if big.F != def.F || big.Iterations != def.Iterations {
		t.Errorf("M = 1e6: F %g after %d iterations; default M: F %g after %d", big.F, big.Iterations, def.F, def.Iterations)
	}
}
