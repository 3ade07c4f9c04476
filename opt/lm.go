package opt

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Residuals evaluates the residual vector r(x) ∈ Rᵐ into r (len m) and, when
// jac is non-nil, its Jacobian ∂r_i/∂x_j into jac (m×n, every entry
// written). An error aborts the run and is returned by Solve.
type Residuals func(x, r []float64, jac *mat.Dense) error

// NormalEquations evaluates the residual vector r(x) into r (len m) and,
// in place of the Jacobian J, the normal equations' JᵀJ into jtj (n×n
// row-major, both triangles, every entry written) and Jᵀr into jtr (len n).
// A problem whose Jacobian has few columns and many rows forms them row by
// row as it computes J's rows, without storing the m×n matrix. An error
// aborts the run and is returned by Solve.
type NormalEquations func(x, r, jtj, jtr []float64) error

// LSProblem is a nonlinear least-squares problem over a box: minimise
// ½ Σ ρ(r_i(x)²) subject to Lower ≤ x ≤ Upper. M is the number of
// residuals. Lower and Upper follow Problem's conventions (nil: unbounded;
// ±Inf entries; Lower[i] == Upper[i] fixes x[i]).
type LSProblem struct {
	Residuals Residuals
	M         int
	Lower     []float64
	Upper     []float64
	// Normal, if non-nil, hands the solver JᵀJ and Jᵀr directly (it
	// must be the normal equations of Residuals' J): when LeastSquares
	// takes the normal-equations path (NormalSolver, or AutoSolver on a
	// tall problem) with the Linear loss, every evaluation that would
	// compute J calls Normal instead and no m×n matrix is allocated.
	// Residuals is still called for value-only trial points, and with a
	// Jacobian in an iteration that falls back to QR (an ill-conditioned
	// JᵀJ) or to name a non-finite entry of JᵀJ: each such call counts as
	// an evaluation. Other losses and QRSolver use Residuals alone.
	Normal NormalEquations
}

// Loss is a robust loss ρ(z) of the squared residual z = (r/C)², as SciPy's
// least_squares defines them (C is LeastSquares.FScale); the cost is
// ½ Σ C²·ρ(r_i²/C²).
type Loss int

const (
	Linear Loss = iota // ρ(z) = z: ordinary least squares
	Huber              // ρ(z) = z for z ≤ 1, 2√z − 1 beyond
	SoftL1             // ρ(z) = 2(√(1+z) − 1): a smooth L1
	Cauchy             // ρ(z) = ln(1+z): gross outliers barely pull
	Arctan             // ρ(z) = arctan z: bounded, as Cauchy only harder
)

func (l Loss) String() string {
	switch l {
	case Linear:
		return "linear"
	case Huber:
		return "huber"
	case SoftL1:
		return "soft_l1"
	case Cauchy:
		return "cauchy"
	case Arctan:
		return "arctan"
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// rho returns ρ(z) and its first and second derivatives.
func (l Loss) rho(z float64) (r0, r1, r2 float64) {
	switch l {
	case Huber:
		if z <= 1 {
			return z, 1, 0
		}
		s := math.Sqrt(z)
		return 2*s - 1, 1 / s, -0.5 / (z * s)
	case SoftL1:
		t := 1 + z
		s := math.Sqrt(t)
		return 2 * (s - 1), 1 / s, -0.5 / (t * s)
	case Cauchy:
		t := 1 + z
		return math.Log1p(z), 1 / t, -1 / (t * t)
	case Arctan:
		t := 1 + z*z
		return math.Atan(z), 1 / t, -2 * z / (t * t)
	}
	return z, 1, 0
}

// LeastSquares minimises ½ Σ ρ(r_i(x)²) over a box by the Trust Region
// Reflective method of SciPy's least_squares(method='trf'), followed routine
// by routine (scipy/optimize/_lsq/trf.py, common.py):
//
//	M. A. Branch, T. F. Coleman and Y. Li, "A Subspace, Interior, and
//	Conjugate Gradient Method for Large-Scale Bound-Constrained Minimization
//	Problems", SIAM J. Sci. Comput. 21(1):1–23, 1999.
//
// Each iteration scales the variables by the Coleman–Li vector v (the
// distance to the bound the gradient g = Jᵀr points at, 1 for a free
// direction), so that the bounds recede as they are approached; solves the
// Levenberg–Marquardt trust-region subproblem exactly in those variables
// (the augmented matrix [J·D; diag(g·dv)^½] by QR and SVD, Moré's iteration on
// the Marquardt parameter α, MINPACK's lmpar in SVD form); and, if the step
// leaves the box, takes the best of three candidates on the quadratic
// model — the step stopped at the bound (stepped back to θ = max(0.995,
// 1 − ‖g·v‖∞) of it), its reflection off the bound, and the scaled gradient
// step. The trust radius Δ grows ×2 when the model predicts well (ρ > 0.75)
// at the radius and shrinks to ¼ of the step when it does not (ρ < 0.25).
// Iterates stay strictly inside the box: no evaluated x is outside it.
//
// Variables are scaled, as in MINPACK's lmder (mode 1) and SciPy's
// x_scale='jac', by the largest column norms of J seen so far, unless
// XScale gives their characteristic sizes.
//
// Robust losses enter as SciPy does: the residuals and the Jacobian rows are
// rescaled so that the Gauss–Newton model of Σρ keeps the second-order term
// of ρ (Triggs et al., "Bundle adjustment — a modern synthesis", 2000, §4.3):
// J_i ← √(ρ′ + 2ρ″r_i²)·J_i, r_i ← ρ′·r_i/√(ρ′ + 2ρ″r_i²).
//
// Convergence (Settings): GradientConverged when ‖g·v‖∞ < GradientTol (the
// first-order optimality of the box problem); FunctionConverged when an
// accepted step lowered the cost F by less than FunctionTol·F with a ratio
// of actual to predicted reduction above ¼; StepConverged when an accepted
// step was shorter than StepTol·(StepTol + ‖x‖). Where SciPy would report
// "xtol satisfied" after trial steps that did not lower the cost, the
// status is FunctionConverged if the model predicted less than
// FunctionTol·F for the iteration's first (largest) trial (MINPACK's ftol
// test on the prediction: nothing was left to gain), and otherwise Stalled
// (Failure at the first iteration): the model promised a reduction that no
// step delivered.
//
// It takes SciPy's steps: on the MGH problems, free and bounded, and on a
// robust line fit with each loss, the counts of residual and Jacobian
// evaluations equal SciPy 1.10.1's (TestLeastSquaresMatchesSciPy,
// TestLeastSquaresRobustMatchesSciPy).
// Result.F is the cost ½ Σ ρ; an iteration is one trust-region solve with
// the evaluations until a step is accepted; FuncEvaluations counts residual
// calls and GradEvaluations those that also computed the Jacobian (at
// accepted points only).
//
// The zero-gradient, plateau and non-finite rules of LBFGSB apply: an exactly
// zero gradient is probed (status StartStationary or Flat), a NaN or
// infinite residual at the start or Jacobian entry ends the run with status
// NonFinite and an error naming it (a non-finite residual at a trial point
// only shrinks the trust region, as in SciPy).
type LeastSquares struct {
	Loss Loss
	// FScale is the residual size C at which the robust loss departs from
	// squares (SciPy's f_scale); 0 selects 1.
	FScale float64
	// XScale, if non-nil, gives the characteristic size of each variable
	// (all positive); nil scales by the Jacobian's column norms.
	XScale []float64
	// TrialJacobian asks for the Jacobian together with the residuals at
	// every trial point. By default a trial point is evaluated without it
	// (jac nil: a value-only pass) and an accepted one evaluated again with
	// it; when the Jacobian costs little more than the residuals (forward-
	// mode sensitivities, one pass) and most steps are accepted, as near
	// the optimum, computing it at once saves one residual pass per
	// iteration, and costs a wasted Jacobian per rejected step.
	TrialJacobian bool
	// LazyFinalJacobian, with TrialJacobian, evaluates a trial point
	// without its Jacobian when the model predicts a reduction below
	// FunctionTol·F there (the step that ends the run if the cost falls
	// as predicted), as Ceres' trust-region minimizer evaluates each
	// candidate's cost and checks its function tolerance before the
	// Jacobian (trust_region_minimizer.cc). If that step ends the run
	// (FunctionConverged or StepConverged) no Jacobian is computed there,
	// saving the last, confirming one; otherwise the accepted point is
	// evaluated again with it, as without TrialJacobian. The iterates and
	// the result's X and F are those without it; the status may be
	// FunctionConverged where the gradient at the last point, which is no
	// longer computed, would have said GradientConverged.
	LazyFinalJacobian bool
	// InitialRadius multiplies the first trust radius, SciPy's ‖x₀‖ in the
	// scaled variables (1 when that is 0); 0 selects 1. MINPACK's lmder
	// uses 100. Larger lets a good Gauss–Newton model take its full step at
	// once (a linear problem from x₀ = 0: 8 iterations at 1, 2 at 100, 1 at
	// 10⁴); over the MGH problems of the tests it changes the total little
	// (439, 432 and 423 iterations), some better, some worse.
	InitialRadius float64
	// Solver chooses the linear algebra of the trust-region subproblem;
	// the zero value picks by shape (see LSSolver).
	Solver LSSolver
	// CholeskyFirst, on the normal-equations path (NormalSolver, or
	// AutoSolver's choice), first solves each iteration's Gauss–Newton
	// step H p = −g_h by a Cholesky factorisation of H = D·JᵀJ·D +
	// diag(g·dv) (n³/6 flops); when H is well conditioned (its condition
	// estimate n·10 times below the eigendecomposition path's limits) and
	// the step lies within the trust radius, it is the subproblem's
	// solution (α = 0, as the SVD form finds it) and H's
	// eigendecomposition (LAPACK's dsyev, several times the work) is not
	// needed; otherwise (a step beyond the radius, as in the first
	// iterations; a rejected step) the eigendecomposition follows as
	// without it. The steps are those without it up to rounding.
	CholeskyFirst bool
}

// LSSolver is the linear algebra with which LeastSquares solves its
// trust-region subproblems. Both give the same steps up to rounding.
type LSSolver int

const (
	// AutoSolver is NormalSolver for tall problems (M ≥ 10·n free
	// variables), QRSolver otherwise.
	AutoSolver LSSolver = iota
	// QRSolver factors the m×n scaled Jacobian, augmented by the
	// Coleman–Li diagonal, by Householder QR and takes the SVD of the n×n
	// factor (SciPy's tr_solver='exact'): O(m·n²) per iteration, accurate
	// for any conditioning.
	QRSolver
	// NormalSolver forms the normal equations once per accepted point:
	// JᵀJ (skipping each row's zeros, so that a block-sparse Jacobian costs
	// its non-zeros) and Jᵀr; each iteration then takes the eigen-
	// decomposition of the n×n matrix H = D·JᵀJ·D + diag(g·dv) — H = V S² Vᵀ
	// gives the singular values S and right vectors V of the augmented
	// matrix, and its left vectors enter only as S·Uᵀ[f; 0] = Vᵀ·D·Jᵀf —
	// and evaluates the quadratic model through JᵀJ, so that no iteration
	// touches the m rows again (Ceres' DENSE_NORMAL_CHOLESKY in Moré's
	// SVD form). Squaring J squares its condition number: an iteration
	// whose H has λ_min < 1e-10·λ_max (cond(J·D) beyond 1e5) falls back to
	// the QR path, so that an ill-conditioned problem gets QRSolver's
	// steps.
	NormalSolver
)

func (s LSSolver) String() string {
	switch s {
	case AutoSolver:
		return "auto"
	case QRSolver:
		return "qr"
	case NormalSolver:
		return "normal"
	}
	return fmt.Sprintf("LSSolver(%d)", int(s))
}

// normalCond is the smallest λ_min/λ_max of H that NormalSolver factors
// itself: its eigenvalues carry an absolute error of about ε·λ_max, so S's
// smallest entry keeps about 6 digits here.
const normalCond = 1e-10

// lsEps is SciPy's EPS, machine epsilon.
const lsEps = 0x1p-52

// Solve runs the method from x0 (projected onto the box, then moved off
// any bound by 1e-10 relative, as SciPy does).
func (l LeastSquares) Solve(p LSProblem, x0 []float64, s Settings) (*Result, error) {
	res, _, err := l.solve(p, x0, s)
	return res, err
}

// solve is Solve, returning the run's state too (for tests: which solver
// its iterations used).
func (l LeastSquares) solve(p LSProblem, x0 []float64, s Settings) (*Result, *lsState, error) {
	lo, hi, x, err := validate(Problem{Objective: func([]float64, []float64) (float64, error) { return 0, nil }, Lower: p.Lower, Upper: p.Upper}, x0)
	if err != nil {
		return nil, nil, err
	}
	if p.Residuals == nil {
		return nil, nil, errors.New("opt: nil residual function")
	}
	if p.M <= 0 {
		return nil, nil, fmt.Errorf("opt: LSProblem.M = %d residuals", p.M)
	}
	if l.Solver < AutoSolver || l.Solver > NormalSolver {
		return nil, nil, fmt.Errorf("opt: unknown LSSolver %d", int(l.Solver))
	}
	if l.Loss < Linear || l.Loss > Arctan {
		return nil, nil, fmt.Errorf("opt: unknown loss %d", int(l.Loss))
	}
	if l.FScale < 0 || math.IsNaN(l.FScale) || math.IsInf(l.FScale, 0) {
		return nil, nil, fmt.Errorf("opt: LeastSquares.FScale = %g", l.FScale)
	}
	if l.InitialRadius < 0 || math.IsNaN(l.InitialRadius) || math.IsInf(l.InitialRadius, 0) {
		return nil, nil, fmt.Errorf("opt: LeastSquares.InitialRadius = %g", l.InitialRadius)
	}
	if l.XScale != nil {
		if len(l.XScale) != len(x) {
			return nil, nil, fmt.Errorf("%w: len(XScale) = %d, len(x0) = %d", ErrDimension, len(l.XScale), len(x))
		}
		for i, v := range l.XScale {
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("opt: XScale[%d] = %g, need a positive finite size", i, v)
			}
		}
	}
	for i := range lo {
		if math.IsInf(lo[i], 1) || math.IsInf(hi[i], -1) {
			return nil, nil, fmt.Errorf("opt: bounds of x[%d] are [%g, %g]", i, lo[i], hi[i])
		}
	}
	strictlyFeasible(x, lo, hi, 1e-10)
	st := newLSState(l, p, lo, hi, x, s.withDefaults())
	res, err := st.run()
	return res, st, err
}

// lsState is one run.
type lsState struct {
	l        LeastSquares
	fscale   float64
	p        LSProblem
	set      Settings
	rec      *recorder
	m, n, nf int
	free     []int
	lo, hi   []float64 // full
	flo, fhi []float64 // free

	x    []float64  // full point
	jac  *mat.Dense // J at x (nil until needed with useNormal)
	r    []float64  // raw residuals at x
	f    []float64  // residuals at x after the robust scaling
	jf   []float64  // m×nf row-major Jacobian of the free variables after the robust scaling (jac's own data when nothing is rescaled or selected)
	jfb  []float64  // jf's storage otherwise
	cost float64
	g    []float64 // Jᵀf over the free variables

	normal bool      // NormalSolver: gram is kept
	gram   []float64 // J_fᵀJ_f, nf×nf row-major (both triangles)
	// useNormal: the problem's NormalEquations replace J (LSProblem.Normal):
	// ne holds its JᵀJ and Jᵀr at x over all n variables, neNew a trial
	// point's; jfOK tells whether jf holds J at x (formed on demand).
	useNormal bool
	ne, neNew *lsNormal
	jfOK      bool
	// iterations whose subproblem the normal equations solved, and those
	// that fell back to QR (ill-conditioned H)
	normalIters, qrIters int
	gnSteps              int // CholeskyFirst: trial steps taken from the Cholesky factors alone
}

func newLSState(l LeastSquares, p LSProblem, lo, hi, x []float64, set Settings) *lsState {
	st := &lsState{l: l, p: p, set: set, m: p.M, n: len(x), lo: lo, hi: hi, x: x, fscale: l.FScale}
	if st.fscale == 0 {
		st.fscale = 1
	}
	st.free = freeIndices(lo, hi)
	st.nf = len(st.free)
	for _, i := range st.free {
		st.flo = append(st.flo, lo[i])
		st.fhi = append(st.fhi, hi[i])
	}
	st.rec = newRecorder(set, lo, hi)
	st.r = make([]float64, st.m)
	st.f = make([]float64, st.m)
	st.g = make([]float64, st.nf)
	switch l.Solver {
	case NormalSolver:
		st.normal = true
	case AutoSolver:
		st.normal = st.nf > 0 && st.m >= 10*st.nf
	}
	if st.normal {
		st.gram = make([]float64, st.nf*st.nf)
	}
	st.useNormal = st.normal && p.Normal != nil && l.Loss == Linear
	if st.useNormal {
		st.ne = newLSNormal(st.n)
	} else {
		st.jac = mat.NewDense(st.m, st.n, nil)
	}
	return st
}

// lsNormal is JᵀJ (n×n) and Jᵀr at one point, from LSProblem.Normal.
type lsNormal struct{ jtj, jtr []float64 }

func newLSNormal(n int) *lsNormal {
	return &lsNormal{jtj: make([]float64, n*n), jtr: make([]float64, n)}
}

// normalEquations evaluates r and the normal equations at x into ne by
// LSProblem.Normal, counting the call as a residual and Jacobian
// evaluation. A non-finite residual is a nonFiniteError naming it; so is a
// non-finite JᵀJ or Jᵀr (named by the Jacobian entry where Residuals can).
func (st *lsState) normalEquations(x, r []float64, ne *lsNormal) error {
	st.rec.res.FuncEvaluations++
	st.rec.res.GradEvaluations++
	if err := st.p.Normal(x, r, ne.jtj, ne.jtr); err != nil {
		return err
	}
	for i, v := range r {
		if v-v != 0 {
			return nonFiniteError{fmt.Errorf("opt: residual %d is %g at evaluation %d", i, v, st.rec.res.FuncEvaluations)}
		}
	}
	if allFinite(ne.jtj) && allFinite(ne.jtr) {
		return nil
	}
	k := st.rec.res.FuncEvaluations
	jac := mat.NewDense(st.m, st.n, nil)
	rr := make([]float64, st.m)
	if err := st.residuals(x, rr, jac); err != nil {
		return err
	}
	return nonFiniteError{fmt.Errorf("opt: the normal equations (JᵀJ, Jᵀr) are not finite at evaluation %d, and the Jacobian of Residuals is: they disagree", k)}
}

// formJacobian evaluates J at the current point by Residuals (useNormal
// keeps none) and sets jf from it, for an iteration the QR path solves.
func (st *lsState) formJacobian() error {
	if st.jac == nil {
		st.jac = mat.NewDense(st.m, st.n, nil)
	}
	if err := st.residuals(st.x, st.r, st.jac); err != nil {
		return err
	}
	raw := st.jac.RawMatrix()
	nf := st.nf
	if nf == st.n && raw.Stride == nf {
		st.jf = raw.Data[:st.m*nf]
	} else {
		if st.jfb == nil {
			st.jfb = make([]float64, st.m*nf)
		}
		st.jf = st.jfb
		for i := range st.m {
			row := raw.Data[i*raw.Stride:]
			for k, j := range st.free {
				st.jf[i*nf+k] = row[j]
			}
		}
	}
	copy(st.f, st.r)
	st.jfOK = true
	return nil
}

// residuals evaluates r at x (and J when jac is non-nil), counting the call
// and checking that r (and J) are finite. A non-finite value is returned as
// a nonFiniteError naming the residual or entry.
func (st *lsState) residuals(x, r []float64, jac *mat.Dense) error {
	st.rec.res.FuncEvaluations++
	if jac != nil {
		st.rec.res.GradEvaluations++
	}
	if err := st.p.Residuals(x, r, jac); err != nil {
		return err
	}
	// v − v is 0 for a finite v and NaN for ±Inf and NaN: one test.
	for i, v := range r {
		if v-v != 0 {
			return nonFiniteError{fmt.Errorf("opt: residual %d is %g at evaluation %d", i, v, st.rec.res.FuncEvaluations)}
		}
	}
	if jac != nil && !(st.normal && jac == st.jac) {
		// With NormalSolver, the linearise that follows an evaluation at
		// the current point checks JᵀJ instead: a non-finite entry makes
		// its diagonal so, and only then are the rows read. A trial
		// point's Jacobian (TrialJacobian) is checked here, so that it only
		// shrinks the trust region.
		return st.checkJacobian(jac)
	}
	return nil
}

// checkJacobian returns a nonFiniteError naming jac's first non-finite
// entry, if any.
func (st *lsState) checkJacobian(jac *mat.Dense) error {
	raw := jac.RawMatrix()
	for i := range st.m {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+st.n] {
			if v-v != 0 {
				return nonFiniteError{fmt.Errorf("opt: Jacobian entry (%d, %d) d r[%d]/d %s is %g at evaluation %d", i, j, i, st.set.name(j), v, st.rec.res.FuncEvaluations)}
			}
		}
	}
	return nil
}

// costOf is ½ Σ C²ρ(r_i²/C²).
func (st *lsState) costOf(r []float64) float64 {
	var c float64
	if st.l.Loss == Linear {
		for _, v := range r {
			c += v * v
		}
		return c / 2
	}
	c2 := st.fscale * st.fscale
	for _, v := range r {
		r0, _, _ := st.l.Loss.rho(v * v / c2)
		c += r0
	}
	return c2 * c / 2
}

// linearise fills f, jf (robust-scaled, free columns), cost and g (and
// with NormalSolver JᵀJ) from r and jac at the current point (SciPy's
// scale_for_robust_loss_function). With NormalSolver it returns the
// nonFiniteError residuals left to it.
func (st *lsState) linearise() error {
	if st.useNormal {
		// The linear loss: f = r; JᵀJ and Jᵀr of the free variables.
		st.cost = st.costOf(st.r)
		copy(st.f, st.r)
		st.jfOK = false
		n, nf := st.n, st.nf
		for a, ja := range st.free {
			st.g[a] = st.ne.jtr[ja]
			row := st.ne.jtj[ja*n : (ja+1)*n]
			for b, jb := range st.free {
				st.gram[a*nf+b] = row[jb]
			}
		}
		return nil
	}
	st.scale()
	if st.normal && (!allFinite(st.gram) || !allFinite(st.g)) {
		if err := st.checkJacobian(st.jac); err != nil {
			return err
		}
	}
	return nil
}

func (st *lsState) scale() {
	raw := st.jac.RawMatrix()
	nf := st.nf
	c2 := st.fscale * st.fscale
	st.cost = st.costOf(st.r)
	if st.l.Loss == Linear && nf == st.n && raw.Stride == nf {
		// Nothing to rescale or select: J and r as they are.
		copy(st.f, st.r)
		st.jf = raw.Data[:st.m*nf]
		st.gradient()
		return
	}
	if st.jfb == nil {
		st.jfb = make([]float64, st.m*nf)
	}
	st.jf = st.jfb
	for i := range st.m {
		row := raw.Data[i*raw.Stride:]
		out := st.jf[i*nf : (i+1)*nf]
		w := 1.0
		st.f[i] = st.r[i]
		if st.l.Loss != Linear {
			z := st.r[i] * st.r[i] / c2
			_, r1, r2 := st.l.Loss.rho(z)
			r2 /= c2
			js := r1 + 2*r2*st.r[i]*st.r[i]
			if js < lsEps {
				js = lsEps
			}
			w = math.Sqrt(js)
			st.f[i] = st.r[i] * r1 / w
		}
		for k, j := range st.free {
			out[k] = w * row[j]
		}
	}
	st.gradient()
}

// gradient is g = J_fᵀ f, and with NormalSolver also J_fᵀJ_f, in one
// pass over the rows.
func (st *lsState) gradient() {
	nf := st.nf
	clear(st.g)
	if st.normal {
		gramAndGradient(st.jf, st.f, st.m, nf, st.gram, st.g)
		return
	}
	for i := range st.m {
		fi := st.f[i]
		row := st.jf[i*nf : (i+1)*nf]
		for k := range nf {
			st.g[k] += row[k] * fi
		}
	}
}

// gramAndGradient sets gram = JᵀJ (n×n, both triangles) and adds Jᵀf to g,
// for J m×n row-major. Each row's products are taken over its non-zero
// entries only: a Jacobian whose rows each involve k of the n variables
// (start states of one run, say) costs m·k²/2, not m·n²/2. Runs of up to
// four consecutive rows with the same non-zeros are summed before gram is
// updated: its loads and stores, not the products, bound this loop.
func gramAndGradient(jf, f []float64, m, n int, gram, g []float64) {
	clear(gram)
	nz := make([]int, 0, n)
	for i := 0; i < m; {
		r0 := jf[i*n : (i+1)*n]
		nz = nz[:0]
		for k, v := range r0 {
			if v != 0 {
				nz = append(nz, k)
			}
		}
		e := i + 1
		for e < m && e < i+4 && samePattern(jf[e*n:(e+1)*n], nz) {
			e++
		}
		if e-i == 4 {
			r1, r2, r3 := jf[(i+1)*n:(i+2)*n], jf[(i+2)*n:(i+3)*n], jf[(i+3)*n:(i+4)*n]
			f0, f1, f2, f3 := f[i], f[i+1], f[i+2], f[i+3]
			for a, ka := range nz {
				a0, a1, a2, a3 := r0[ka], r1[ka], r2[ka], r3[ka]
				g[ka] += a0*f0 + a1*f1 + a2*f2 + a3*f3
				out := gram[ka*n : (ka+1)*n]
				for _, kb := range nz[a:] {
					out[kb] += a0*r0[kb] + a1*r1[kb] + a2*r2[kb] + a3*r3[kb]
				}
			}
		} else {
			for j := i; j < e; j++ {
				row, fj := jf[j*n:(j+1)*n], f[j]
				for a, ka := range nz {
					va := row[ka]
					g[ka] += va * fj
					out := gram[ka*n : (ka+1)*n]
					for _, kb := range nz[a:] {
						out[kb] += va * row[kb]
					}
				}
			}
		}
		i = e
	}
	// nz is ascending: the upper triangle was summed; mirror it.
	for a := range n {
		for b := a + 1; b < n; b++ {
			gram[b*n+a] = gram[a*n+b]
		}
	}
}

// samePattern reports whether row's non-zero entries are exactly at nz
// (ascending).
func samePattern(row []float64, nz []int) bool {
	c := 0
	for k, v := range row {
		if v != 0 {
			if c == len(nz) || nz[c] != k {
				return false
			}
			c++
		}
	}
	return c == len(nz)
}

func (st *lsState) run() (*Result, error) {
	rec, set := st.rec, st.set
	m, nf := st.m, st.nf
	var err error
	if st.useNormal {
		err = st.normalEquations(st.x, st.r, st.ne)
	} else {
		err = st.residuals(st.x, st.r, st.jac)
	}
	if err != nil {
		if isNonFinite(err) {
			return rec.finish(st.x, math.Inf(1), NonFinite), err
		}
		return nil, err
	}
	if err := st.linearise(); err != nil {
		return rec.finish(st.x, math.Inf(1), NonFinite), err
	}
	if nf == 0 {
		return rec.finish(st.x, st.cost, StepConverged), nil
	}
	// Finite residuals whose squares overflow (entries beyond ~1e154) give
	// an infinite cost or gradient: no step can be judged, and LAPACK's SVD
	// loops on what follows. A non-finite start, named.
	if math.IsInf(st.cost, 0) || math.IsNaN(st.cost) || !allFinite(st.g) {
		return rec.finish(st.x, math.Inf(1), NonFinite), nonFiniteError{fmt.Errorf("opt: the cost overflows float64 at the start (residuals or Jacobian entries beyond about 1e154: an input or scale out of range?)")}
	}
	costObj := func(x, _ []float64) (float64, error) {
		r := make([]float64, m)
		if err := st.p.Residuals(x, r, nil); err != nil {
			return 0, err
		}
		c := st.costOf(r)
		if math.IsNaN(c) {
			return c, nonFiniteError{errors.New("opt: NaN residual")}
		}
		return c, nil
	}
	// All residuals zero: the global minimum of a sum of non-negative
	// terms, whatever the gradient.
	if st.cost == 0 {
		rec.detail = "every residual is zero at the start"
		return rec.finish(st.x, st.cost, FunctionConverged), nil
	}
	// An exactly zero gradient at the start: a stationary point or a plateau.
	if allZero(st.g) {
		flat, err := probeFlat(rec, costObj, st.x, st.cost)
		if err != nil {
			return nil, err
		}
		rec.res.Flat = flat
		if len(flat) == nf {
			return rec.finish(st.x, st.cost, Flat), nil
		}
		return rec.finish(st.x, st.cost, StartStationary), nil
	}

	xf := make([]float64, nf)
	for k, j := range st.free {
		xf[k] = st.x[j]
	}
	scale, scaleInv := make([]float64, nf), make([]float64, nf)
	jacScale := st.l.XScale == nil
	if jacScale {
		st.columnNorms(scaleInv)
		for k := range scaleInv {
			if scaleInv[k] == 0 {
				scaleInv[k] = 1
			}
			scale[k] = 1 / scaleInv[k]
		}
	} else {
		for k, j := range st.free {
			scale[k] = st.l.XScale[j]
			scaleInv[k] = 1 / scale[k]
		}
	}
	v, dv := make([]float64, nf), make([]float64, nf)
	clScaling(xf, st.g, st.flo, st.fhi, v, dv)
	var delta float64
	for k := range nf {
		if dv[k] != 0 {
			v[k] *= scaleInv[k]
		}
		t := xf[k] * scaleInv[k] / math.Sqrt(v[k])
		delta += t * t
	}
	delta = math.Sqrt(delta)
	if delta == 0 || math.IsNaN(delta) || math.IsInf(delta, 0) {
		delta = 1
	}
	if st.l.InitialRadius > 0 {
		delta *= st.l.InitialRadius
	}

	w := newLSWork(m, nf)
	w.cholFirst = st.l.CholeskyFirst
	var jacNew *mat.Dense
	trialJ := st.l.TrialJacobian
	if trialJ && st.useNormal {
		st.neNew = newLSNormal(st.n)
	} else if trialJ {
		jacNew = mat.NewDense(m, st.n, nil)
	}
	xNew := make([]float64, st.n)
	xfNew := make([]float64, nf)
	rNew := make([]float64, m)
	alpha := 0.0
	iter := 0
	for {
		gnorm := clScaling(xf, st.g, st.flo, st.fhi, v, dv)
		if gnorm < set.GradientTol {
			// Checked after each accepted step below; here only at the start.
			return rec.finish(st.x, st.cost, GradientConverged), nil
		}
		if rec.res.FuncEvaluations >= set.MaxEvaluations {
			return rec.finish(st.x, st.cost, EvaluationLimit), nil
		}
		for k := range nf {
			if dv[k] != 0 {
				v[k] *= scaleInv[k]
			}
			w.d[k] = math.Sqrt(v[k]) * scale[k]
			w.diagH[k] = st.g[k] * dv[k] * scale[k]
			w.gH[k] = w.d[k] * st.g[k]
		}
		var gram []float64
		if st.normal {
			gram = st.gram
		}
		var jfFor func() ([]float64, error)
		if st.useNormal {
			// QR (an ill-conditioned JᵀJ) needs J, which useNormal keeps
			// none of.
			jfFor = func() ([]float64, error) {
				if !st.jfOK {
					if err := st.formJacobian(); err != nil {
						return nil, err
					}
				}
				return st.jf, nil
			}
		}
		if err := w.factor(st.jf, st.f, gram, m, nf, jfFor); err != nil {
			if isNonFinite(err) {
				return rec.finish(st.x, st.cost, NonFinite), err
			}
			return rec.finish(st.x, st.cost, Failure), err
		}
		if w.normal {
			st.normalIters++
		} else {
			st.qrIters++
		}
		theta := math.Max(0.995, 1-gnorm)

		actualRed := -1.0
		term := NotTerminated
		var costNew, stepNorm float64
		predFirst := math.NaN() // the model's reduction for the first trial step
		trialHasJ := false      // the last trial was evaluated with its Jacobian
		trials := 0
		for actualRed <= 0 && rec.res.FuncEvaluations < set.MaxEvaluations {
			trials++
			if w.gnPending && !(norm2(w.gn) <= delta) {
				// CholeskyFirst's step leaves the trust region: the
				// subproblem needs H's eigendecomposition after all
				if err := w.factorFull(st.jf, st.f, gram, m, nf, jfFor); err != nil {
					if isNonFinite(err) {
						return rec.finish(st.x, st.cost, NonFinite), err
					}
					return rec.finish(st.x, st.cost, Failure), err
				}
			}
			if w.gnPending {
				st.gnSteps++
			}
			alpha = w.solveTR(m, nf, delta, alpha)
			for k := range nf {
				w.p[k] = w.d[k] * w.pH[k]
			}
			step, stepH, predRed := w.selectStep(xf, st.flo, st.fhi, delta, theta)
			if math.IsNaN(predFirst) {
				predFirst = predRed
			}
			for k := range nf {
				xfNew[k] = xf[k] + step[k]
			}
			strictlyFeasible(xfNew, st.flo, st.fhi, 0)
			copy(xNew, st.x)
			for k, j := range st.free {
				xNew[j] = xfNew[k]
			}
			var err error
			trialHasJ = trialJ && !(st.l.LazyFinalJacobian && predRed < set.FunctionTol*st.cost)
			switch {
			case trialHasJ && st.useNormal:
				err = st.normalEquations(xNew, rNew, st.neNew)
			case trialHasJ:
				err = st.residuals(xNew, rNew, jacNew)
			default:
				err = st.residuals(xNew, rNew, nil)
			}
			stepHNorm := norm2(stepH)
			if err != nil {
				if !isNonFinite(err) {
					return nil, err
				}
				// SciPy: a non-finite residual shrinks the trust region.
				delta = 0.25 * stepHNorm
				if delta == 0 {
					term = Stalled
					break
				}
				continue
			}
			costNew = st.costOf(rNew)
			actualRed = st.cost - costNew
			deltaNew, ratio := updateTR(delta, actualRed, predRed, stepHNorm, stepHNorm > 0.95*delta)
			stepNorm = 0
			for k := range nf {
				d := xfNew[k] - xf[k]
				stepNorm += d * d
			}
			stepNorm = math.Sqrt(stepNorm)
			term = checkTermination(actualRed, st.cost, stepNorm, norm2(xf), ratio, set.FunctionTol, set.StepTol)
			if term != NotTerminated {
				break
			}
			if stepHNorm == 0 || deltaNew == 0 {
				// The model offers no step at all: nothing can lower F.
				term = Stalled
				break
			}
			alpha *= delta / deltaNew
			delta = deltaNew
		}
		accepted := actualRed > 0
		if accepted && !trialHasJ && trialJ && (term == FunctionConverged || term == StepConverged) {
			// LazyFinalJacobian: the run ends at this point, where the
			// iterations with the Jacobian would have ended too.
			copy(st.x, xNew)
			copy(st.r, rNew)
			st.cost = costNew
			conv := term
			if costNew == 0 {
				conv = GradientConverged
			}
			iter++
			if trials > 2 {
				rec.detail = fmt.Sprintf("the last iteration needed %d trial steps before the model held (a kink, or an inexact Jacobian: a restart from here may still gain)", trials)
			}
			if status := rec.iterate(iter, st.cost, st.x); status == Stopped {
				return rec.finish(st.x, st.cost, status), nil
			}
			return rec.finish(st.x, st.cost, conv), nil
		}
		if accepted {
			copy(xf, xfNew)
			copy(st.x, xNew)
			switch {
			case trialHasJ && st.useNormal:
				copy(st.r, rNew)
				st.ne, st.neNew = st.neNew, st.ne
			case trialHasJ:
				copy(st.r, rNew)
				st.jac, jacNew = jacNew, st.jac
			case st.useNormal:
				err = st.normalEquations(st.x, st.r, st.ne)
			default:
				err = st.residuals(st.x, st.r, st.jac)
			}
			if err != nil {
				if isNonFinite(err) {
					return rec.finish(st.x, costNew, NonFinite), err
				}
				return nil, err
			}
			if err := st.linearise(); err != nil {
				return rec.finish(st.x, costNew, NonFinite), err
			}
			if jacScale {
				st.columnNorms(w.tmp)
				for k := range nf {
					scaleInv[k] = math.Max(scaleInv[k], w.tmp[k])
					scale[k] = 1 / scaleInv[k]
				}
			}
		}
		iter++
		conv := NotTerminated
		switch {
		case accepted && st.cost == 0:
			// Every residual zero: the global minimum, no probe needed.
			conv = GradientConverged
		case accepted && allZero(st.g):
			flat, err := probeFlat(rec, costObj, st.x, st.cost)
			if err != nil {
				return nil, err
			}
			rec.res.Flat = flat
			conv = GradientConverged
			if len(flat) == nf {
				conv = Flat
			}
		case accepted && clScaling(xf, st.g, st.flo, st.fhi, v, dv) < set.GradientTol:
			conv = GradientConverged
		case accepted && term == Stalled:
			conv = NotTerminated
		case accepted && term != NotTerminated:
			conv = term
			if trials > 2 {
				// The model held only once the radius had shrunk: at a
				// kink, or with an inexact Jacobian, the test can be met
				// short of the minimum.
				rec.detail = fmt.Sprintf("the last iteration needed %d trial steps before the model held (a kink, or an inexact Jacobian: a restart from here may still gain)", trials)
			}
		case !accepted && term != NotTerminated && predFirst <= set.FunctionTol*st.cost:
			// MINPACK's ftol test on the prediction: the model says no
			// step can gain more than FunctionTol·F, and none did.
			conv = FunctionConverged
		case !accepted && term != NotTerminated:
			conv = Stalled
			if iter == 1 {
				conv = Failure
			}
			rec.detail = fmt.Sprintf("no trial step lowered the cost although the model predicted a reduction of %.3g (%.2g of the cost): a kink, or a Jacobian that disagrees with the residuals", predFirst, predFirst/st.cost)
		case !accepted:
			// The evaluation limit ended the search for a lower cost.
			conv = EvaluationLimit
		}
		status := rec.iterate(iter, st.cost, st.x)
		if status == Stopped || (conv == NotTerminated && status != NotTerminated) {
			return rec.finish(st.x, st.cost, status), nil
		}
		if conv != NotTerminated {
			return rec.finish(st.x, st.cost, conv), nil
		}
	}
}

// columnNorms writes the Euclidean norms of the columns of jf into out.
func (st *lsState) columnNorms(out []float64) {
	nf := st.nf
	if st.normal {
		for k := range nf {
			out[k] = math.Sqrt(st.gram[k*nf+k])
		}
		return
	}
	clear(out)
	for i := range st.m {
		row := st.jf[i*nf : (i+1)*nf]
		for k, v := range row {
			out[k] += v * v
		}
	}
	for k := range out {
		out[k] = math.Sqrt(out[k])
	}
}

// lsWork holds one iteration's scaled quantities ("hat" variables).
type lsWork struct {
	d, diagH, gH []float64      // scaling, diagonal of C = diag(g·dv·scale), gradient in hat variables
	jh           []float64      // J·D, m×nf row-major
	qr           blas64.General // the augmented matrix, then its QR factors
	tau, work    []float64
	qf           blas64.General // [f; 0], then Qᵀ[f; 0]
	r            *mat.Dense     // R
	svd          mat.SVD
	u, vt        mat.Dense
	s, uf, suf   []float64
	vv           []float64 // V, nf×nf row-major (columns: right singular vectors)
	p, pH        []float64
	rr, rH       []float64 // reflected step
	ag, agH      []float64 // gradient step
	tmp, tmp2    []float64
	jv, ju       []float64 // J_h·s buffers, length m
	fullRank     bool

	// NormalSolver: this iteration's subproblem was solved from the Gram
	// matrix (normal), which gram holds; H and its eigen-decomposition.
	normal bool
	gram   []float64
	h      *mat.SymDense
	eig    mat.EigenSym
	lam    []float64
	evec   mat.Dense

	// CholeskyFirst: H's Cholesky factors and the Gauss–Newton step in
	// hat variables; gnPending while the eigendecomposition has not been
	// made this iteration (solveTR takes gn, which then fits the radius).
	cholFirst bool
	cl, cli   []float64 // L and L⁻¹, n×n row-major (lower)
	gn        []float64
	gnPending bool
}

func newLSWork(m, nf int) *lsWork {
	mk := func() []float64 { return make([]float64, nf) }
	return &lsWork{
		d: mk(), diagH: mk(), gH: mk(),
		tau: mk(), r: mat.NewDense(nf, nf, nil),
		s: mk(), uf: mk(), suf: mk(), vv: make([]float64, nf*nf),
		p: mk(), pH: mk(), rr: mk(), rH: mk(), ag: mk(), agH: mk(), tmp: mk(), tmp2: mk(),
		h: mat.NewSymDense(max(nf, 1), nil), lam: mk(),
	}
}

// allocQR allocates the m-row buffers of the QR path at its first use
// (NormalSolver may never need them).
func (w *lsWork) allocQR(m, nf int) {
	if w.jh != nil {
		return
	}
	w.jh = make([]float64, m*nf)
	w.qr = blas64.General{Rows: m + nf, Cols: nf, Stride: nf, Data: make([]float64, (m+nf)*nf)}
	w.qf = blas64.General{Rows: m + nf, Cols: 1, Stride: 1, Data: make([]float64, m+nf)}
	w.jv, w.ju = make([]float64, m), make([]float64, m)
}

// factorNormal is factor from the normal equations (see NormalSolver): H =
// D·gram·D + diag(diagH) = V S² Vᵀ, suf = Vᵀ·gH, uf = suf/S. It reports
// false, leaving the QR path to factor, when H is not finite or too
// ill-conditioned for its eigenvalues to give S (λ_min < normalCond·λ_max).
func (w *lsWork) factorNormal(gram []float64, m, nf int) bool {
	if !w.buildH(gram, nf) {
		return false
	}
	return w.eigenNormal(m, nf)
}

// buildH writes H = D·gram·D + diag(diagH) into w.h; false if an entry is
// not finite.
func (w *lsWork) buildH(gram []float64, nf int) bool {
	hr := w.h.RawSymmetric()
	for a := range nf {
		da := w.d[a]
		row := hr.Data[a*hr.Stride:]
		for b := a; b < nf; b++ {
			v := da * gram[a*nf+b] * w.d[b]
			if b == a {
				v += w.diagH[a]
			}
			if v-v != 0 {
				return false
			}
			row[b] = v
		}
	}
	return true
}

// eigenNormal is factorNormal's eigendecomposition of w.h (buildH's).
func (w *lsWork) eigenNormal(m, nf int) bool {
	if !w.eig.Factorize(w.h, true) {
		return false
	}
	w.eig.Values(w.lam)
	lmax := w.lam[nf-1]
	if !(lmax > 0) || !(w.lam[0] >= normalCond*lmax) {
		return false
	}
	w.eig.VectorsTo(&w.evec)
	ev := w.evec.RawMatrix()
	for k := range nf {
		src := nf - 1 - k // descending, as the SVD orders them
		w.s[k] = math.Sqrt(w.lam[src])
		var t float64
		for i := range nf {
			v := ev.Data[i*ev.Stride+src]
			w.vv[i*nf+k] = v
			t += v * w.gH[i]
		}
		w.uf[k] = t / w.s[k]
	}
	w.fullRank = m >= nf && w.s[nf-1] > lsEps*float64(m)*w.s[0]
	return true
}

// gramInner is (J_h a)ᵀ(J_h b) = (D a)ᵀ·gram·(D b), for the normal path.
func (w *lsWork) gramInner(a, b []float64) float64 {
	nf := len(a)
	var t float64
	for i := range nf {
		ai := w.d[i] * a[i]
		if ai == 0 {
			continue
		}
		row := w.gram[i*nf : (i+1)*nf]
		var u float64
		for k, v := range row {
			u += v * w.d[k] * b[k]
		}
		t += ai * u
	}
	return t
}

// factor forms J_h = J·D and the augmented matrix [J_h; diag(diagH)^½],
// and its singular values s, right singular vectors V and uf = Uᵀ[f; 0].
// SciPy takes the SVD of the augmented matrix; here it is reduced first by
// a Householder QR (LAPACK's dgeqrf, with Qᵀ[f; 0] by dormqr, Q never
// formed) and the SVD taken of the n×n factor R = U_R S Vᵀ, so that
// uf = U_Rᵀ (Qᵀ[f; 0])[:n]: the same factors in O(m n²) with a small
// constant (gonum's SVD of the tall matrix forms its m×n U).
//
// With gram (NormalSolver) the factors come from the normal equations
// instead (factorNormal), unless they are too ill-conditioned for it.
//
// jfFor, if non-nil, supplies jf when the QR path needs it.
func (w *lsWork) factor(jf, f, gram []float64, m, nf int, jfFor func() ([]float64, error)) error {
	w.normal, w.gram, w.gnPending = false, gram, false
	if gram != nil && w.cholFirst && w.buildH(gram, nf) && w.choleskyGN(m, nf) {
		w.normal, w.gnPending = true, true
		return nil
	}
	return w.factorFull(jf, f, gram, m, nf, jfFor)
}

// choleskyGN is CholeskyFirst's Gauss–Newton step gn = −H⁻¹·g_h from the
// Cholesky factor H = L·Lᵀ of w.h (buildH's), written out for these small
// matrices (n³/6 flops; LAPACK's calls cost more than the arithmetic at
// n ≈ 10); false when H is not positive definite or the bound
// κ₂(H) ≤ ‖H‖_F·‖L⁻¹‖_F² (‖H⁻¹‖₂ = ‖L⁻¹‖₂² ≤ ‖L⁻¹‖_F²; n³/6 more) is not
// 10 times below the limits of the eigendecomposition path: λ_min ≥
// normalCond·λ_max, and the SVD form's full rank, s_min > ε·m·s_max.
func (w *lsWork) choleskyGN(m, nf int) bool {
	if m < nf {
		return false
	}
	if len(w.gn) != nf {
		w.gn, w.cl, w.cli = make([]float64, nf), make([]float64, nf*nf), make([]float64, nf*nf)
	}
	hr := w.h.RawSymmetric() // upper triangle, row-major
	l, li := w.cl, w.cli
	var hf float64
	for i := range nf {
		for j := 0; j <= i; j++ {
			v := hr.Data[j*hr.Stride+i]
			if i != j {
				hf += 2 * v * v
			} else {
				hf += v * v
			}
			for k := range j {
				v -= l[i*nf+k] * l[j*nf+k]
			}
			if i == j {
				if !(v > 0) {
					return false
				}
				l[i*nf+i] = math.Sqrt(v)
			} else {
				l[i*nf+j] = v / l[j*nf+j]
			}
		}
	}
	// L⁻¹ (lower), column by column, and its squared Frobenius norm
	var lf float64
	for j := range nf {
		li[j*nf+j] = 1 / l[j*nf+j]
		lf += li[j*nf+j] * li[j*nf+j]
		for i := j + 1; i < nf; i++ {
			var t float64
			for k := j; k < i; k++ {
				t += l[i*nf+k] * li[k*nf+j]
			}
			li[i*nf+j] = -t / l[i*nf+i]
			lf += li[i*nf+j] * li[i*nf+j]
		}
	}
	limit := 1 / normalCond
	if r := lsEps * float64(m); r > 0 {
		limit = math.Min(limit, 1/(r*r))
	}
	if !(math.Sqrt(hf)*lf*10 < limit) {
		return false
	}
	// L·y = g_h, Lᵀ·gn = −y by substitution
	y := w.tmp2
	for i := range nf {
		t := w.gH[i]
		for k := range i {
			t -= l[i*nf+k] * y[k]
		}
		y[i] = t / l[i*nf+i]
	}
	for i := nf - 1; i >= 0; i-- {
		t := y[i]
		for k := i + 1; k < nf; k++ {
			t -= l[k*nf+i] * w.gn[k]
		}
		t /= l[i*nf+i]
		if t-t != 0 {
			return false
		}
		w.gn[i] = t
	}
	for i := range w.gn {
		w.gn[i] = -w.gn[i]
	}
	return true
}

// factorFull is factor without CholeskyFirst's shortcut.
func (w *lsWork) factorFull(jf, f, gram []float64, m, nf int, jfFor func() ([]float64, error)) error {
	w.normal, w.gram, w.gnPending = false, gram, false
	if gram != nil && w.factorNormal(gram, m, nf) {
		w.normal = true
		return nil
	}
	if jfFor != nil {
		var err error
		if jf, err = jfFor(); err != nil {
			return err
		}
	}
	w.allocQR(m, nf)
	a := w.qr
	for i := range m {
		src := jf[i*nf : (i+1)*nf]
		dst := w.jh[i*nf : (i+1)*nf]
		row := a.Data[i*nf : (i+1)*nf]
		for k := range nf {
			dst[k] = src[k] * w.d[k]
			row[k] = dst[k]
		}
	}
	for k := range nf {
		row := a.Data[(m+k)*nf : (m+k+1)*nf]
		clear(row)
		row[k] = math.Sqrt(w.diagH[k])
	}
	copy(w.qf.Data, f)
	clear(w.qf.Data[m:])
	if w.work == nil {
		work := []float64{0}
		lapack64.Geqrf(a, w.tau, work, -1)
		n1 := int(work[0])
		lapack64.Ormqr(blas.Left, blas.Trans, a, w.tau, w.qf, work, -1)
		w.work = make([]float64, max(n1, int(work[0]), m+nf))
	}
	lapack64.Geqrf(a, w.tau, w.work, len(w.work))
	lapack64.Ormqr(blas.Left, blas.Trans, a, w.tau, w.qf, w.work, len(w.work))
	for i := range nf {
		for k := range nf {
			v := 0.0
			if k >= i {
				v = a.Data[i*nf+k]
			}
			w.r.Set(i, k, v)
		}
	}
	// An R that overflowed would make the SVD iterate without end.
	for _, v := range w.r.RawMatrix().Data {
		if v-v != 0 {
			return nonFiniteError{errors.New("opt: the scaled Jacobian overflows float64 (entries beyond about 1e154: an input or scale out of range?)")}
		}
	}
	if !w.svd.Factorize(w.r, mat.SVDFull) {
		return errors.New("opt: the SVD of the scaled Jacobian did not converge")
	}
	w.svd.Values(w.s)
	w.svd.UTo(&w.u)
	w.svd.VTo(&w.vt)
	for k := range nf {
		var t float64
		for i := range nf {
			t += w.u.At(i, k) * w.qf.Data[i]
		}
		w.uf[k] = t
	}
	vr := w.vt.RawMatrix()
	for i := range nf {
		copy(w.vv[i*nf:(i+1)*nf], vr.Data[i*vr.Stride:i*vr.Stride+nf])
	}
	w.fullRank = m >= nf && w.s[nf-1] > lsEps*float64(m)*w.s[0]
	return nil
}

// solveTR solves min ‖J_aug p + f_aug‖ subject to ‖p‖ ≤ Δ into w.pH and
// returns the Marquardt parameter α (SciPy's solve_lsq_trust_region: Moré
// 1978, §5, with safeguarding; rtol 0.01, at most 10 iterations).
func (w *lsWork) solveTR(m, nf int, delta, alpha float64) float64 {
	if w.gnPending {
		// CholeskyFirst: the caller made the eigendecomposition unless
		// the Gauss–Newton step fits the radius
		copy(w.pH, w.gn)
		return 0
	}
	s, uf, suf := w.s, w.uf, w.suf
	for k := range nf {
		suf[k] = s[k] * uf[k]
	}
	vdot := func(coef func(k int) float64) {
		for i := range nf {
			var t float64
			for k := range nf {
				t += w.vv[i*nf+k] * coef(k)
			}
			w.pH[i] = -t
		}
	}
	if w.fullRank {
		vdot(func(k int) float64 { return uf[k] / s[k] })
		if norm2(w.pH) <= delta {
			return 0
		}
	}
	phi := func(a float64) (float64, float64) {
		var pn, dp float64
		for k := range nf {
			den := s[k]*s[k] + a
			pn += (suf[k] / den) * (suf[k] / den)
			dp += suf[k] * suf[k] / (den * den * den)
		}
		pn = math.Sqrt(pn)
		return pn - delta, -dp / pn
	}
	sufNorm := norm2(suf)
	if sufNorm == 0 {
		clear(w.pH)
		return alpha
	}
	alphaUpper := sufNorm / delta
	alphaLower := 0.0
	if w.fullRank {
		ph, dph := phi(0)
		alphaLower = -ph / dph
	}
	if !w.fullRank && alpha == 0 {
		alpha = math.Max(0.001*alphaUpper, math.Sqrt(alphaLower*alphaUpper))
	}
	for range 10 {
		if alpha < alphaLower || alpha > alphaUpper {
			alpha = math.Max(0.001*alphaUpper, math.Sqrt(alphaLower*alphaUpper))
		}
		ph, dph := phi(alpha)
		if ph < 0 {
			alphaUpper = alpha
		}
		ratio := ph / dph
		alphaLower = math.Max(alphaLower, alpha-ratio)
		alpha -= (ph + delta) * ratio / delta
		if math.Abs(ph) < 0.01*delta {
			break
		}
	}
	a := alpha
	vdot(func(k int) float64 { return suf[k] / (s[k]*s[k] + a) })
	if pn := norm2(w.pH); pn > 0 {
		for k := range w.pH {
			w.pH[k] *= delta / pn
		}
	}
	return alpha
}

// jhDot writes J_h·s into out.
func (w *lsWork) jhDot(s, out []float64) {
	nf := len(s)
	for i := range out {
		row := w.jh[i*nf : (i+1)*nf]
		var t float64
		for k, v := range row {
			t += v * s[k]
		}
		out[i] = t
	}
}

// quadratic is ½ sᵀ(J_hᵀJ_h + diag(diagH))s + g_hᵀs (evaluate_quadratic).
func (w *lsWork) quadratic(s []float64) float64 {
	var q float64
	if w.normal {
		q = w.gramInner(s, s)
	} else {
		w.jhDot(s, w.jv)
		q = dot(w.jv, w.jv)
	}
	for k, v := range s {
		q += v * w.diagH[k] * v
	}
	return 0.5*q + dot(s, w.gH)
}

// quadratic1D returns a, b, c of q(s0 + t·s) = a t² + b t + c
// (build_quadratic_1d).
func (w *lsWork) quadratic1D(s, s0 []float64) (a, b, c float64) {
	if w.normal {
		a = w.gramInner(s, s)
	} else {
		w.jhDot(s, w.jv)
		a = dot(w.jv, w.jv)
	}
	for k, v := range s {
		a += v * w.diagH[k] * v
	}
	a *= 0.5
	b = dot(w.gH, s)
	if s0 != nil {
		if w.normal {
			b += w.gramInner(s0, s)
			c = 0.5*w.gramInner(s0, s0) + dot(w.gH, s0)
		} else {
			w.jhDot(s0, w.ju)
			b += dot(w.ju, w.jv)
			c = 0.5*dot(w.ju, w.ju) + dot(w.gH, s0)
		}
		for k := range s {
			b += s0[k] * w.diagH[k] * s[k]
			c += 0.5 * s0[k] * w.diagH[k] * s0[k]
		}
	}
	return a, b, c
}

// minimizeQuadratic1D minimises a t² + b t + c over [lb, ub].
func minimizeQuadratic1D(a, b, lb, ub, c float64) (float64, float64) {
	best, bestY := lb, lb*(a*lb+b)+c
	if y := ub*(a*ub+b) + c; y < bestY {
		best, bestY = ub, y
	}
	if a != 0 {
		if e := -0.5 * b / a; lb < e && e < ub {
			if y := e*(a*e+b) + c; y < bestY {
				best, bestY = e, y
			}
		}
	}
	return best, bestY
}

// selectStep is SciPy's select_step: the trust-region step if it stays in
// the box, else the best on the model of the step stopped short of the
// bound, its reflection, and the scaled gradient step. It returns the step
// in x, in hat variables, and the predicted reduction.
func (w *lsWork) selectStep(x, lo, hi []float64, delta, theta float64) (step, stepH []float64, pred float64) {
	nf := len(x)
	p, pH := w.p, w.pH
	inside := true
	for k := range nf {
		if v := x[k] + p[k]; v < lo[k] || v > hi[k] {
			inside = false
			break
		}
	}
	if inside {
		return p, pH, -w.quadratic(pH)
	}
	pStride := stepToBound(x, p, lo, hi, w.tmp2)
	rH, r := w.rH, w.rr
	for k := range nf {
		rH[k] = pH[k]
		if w.tmp2[k] != 0 {
			rH[k] = -rH[k]
		}
		r[k] = w.d[k] * rH[k]
		p[k] *= pStride
		pH[k] *= pStride
		w.tmp[k] = x[k] + p[k]
	}
	_, toTR := intersectTR(pH, rH, delta)
	toBound := stepToBound(w.tmp, r, lo, hi, nil)
	rStride := math.Min(toBound, toTR)
	var rl, ru float64
	if rStride > 0 {
		rl = (1 - theta) * pStride / rStride
		if rStride == toBound {
			ru = theta * toBound
		} else {
			ru = toTR
		}
	} else {
		rl, ru = 0, -1
	}
	rValue := math.Inf(1)
	if rl <= ru {
		a, b, c := w.quadratic1D(rH, pH)
		var t float64
		t, rValue = minimizeQuadratic1D(a, b, rl, ru, c)
		for k := range nf {
			rH[k] = rH[k]*t + pH[k]
			r[k] = rH[k] * w.d[k]
		}
	}
	for k := range nf {
		p[k] *= theta
		pH[k] *= theta
	}
	pValue := w.quadratic(pH)
	agH, ag := w.agH, w.ag
	for k := range nf {
		agH[k] = -w.gH[k]
		ag[k] = w.d[k] * agH[k]
	}
	toTR = delta / norm2(agH)
	toBound = stepToBound(x, ag, lo, hi, nil)
	agStride := toTR
	if toBound < toTR {
		agStride = theta * toBound
	}
	a, b, _ := w.quadratic1D(agH, nil)
	agStride, agValue := minimizeQuadratic1D(a, b, 0, agStride, 0)
	for k := range nf {
		agH[k] *= agStride
		ag[k] *= agStride
	}
	switch {
	case pValue < rValue && pValue < agValue:
		return p, pH, -pValue
	case rValue < pValue && rValue < agValue:
		return r, rH, -rValue
	}
	return ag, agH, -agValue
}

// stepToBound is the largest t with lo ≤ x + t·s ≤ hi (step_size_to_bound);
// hits, if non-nil, gets sign(s_k) for the components that reach a bound at
// that t, 0 for the others.
func stepToBound(x, s, lo, hi, hits []float64) float64 {
	minStep := math.Inf(1)
	for k := range x {
		if s[k] == 0 {
			continue
		}
		t := math.Max((lo[k]-x[k])/s[k], (hi[k]-x[k])/s[k])
		minStep = math.Min(minStep, t)
	}
	if hits != nil {
		for k := range x {
			hits[k] = 0
			if s[k] == 0 {
				continue
			}
			if math.Max((lo[k]-x[k])/s[k], (hi[k]-x[k])/s[k]) == minStep {
				hits[k] = math.Copysign(1, s[k])
			}
		}
	}
	return minStep
}

// intersectTR returns the two t with ‖x + t·s‖ = Δ, smaller first
// (intersect_trust_region; x lies inside).
func intersectTR(x, s []float64, delta float64) (float64, float64) {
	a := dot(s, s)
	if a == 0 {
		return 0, 0
	}
	b := dot(x, s)
	c := dot(x, x) - delta*delta
	d := math.Sqrt(math.Max(b*b-a*c, 0))
	q := -(b + math.Copysign(d, b))
	if q == 0 {
		return 0, 0
	}
	t1, t2 := q/a, c/q
	if t1 < t2 {
		return t1, t2
	}
	return t2, t1
}

// updateTR is update_tr_radius: the new radius and the ratio of actual to
// predicted reduction.
func updateTR(delta, actual, predicted, stepNorm float64, boundHit bool) (float64, float64) {
	var ratio float64
	switch {
	case predicted > 0:
		ratio = actual / predicted
	case predicted == actual && actual == 0:
		ratio = 1
	}
	switch {
	case ratio < 0.25:
		delta = 0.25 * stepNorm
	case ratio > 0.75 && boundHit:
		delta *= 2
	}
	return delta, ratio
}

// checkTermination is SciPy's check_termination: FunctionConverged when
// dF < ftol·F with a ratio above ¼ (also when the step test holds too),
// StepConverged when ‖dx‖ < xtol·(xtol + ‖x‖).
func checkTermination(dF, F, dxNorm, xNorm, ratio, ftol, xtol float64) Status {
	switch {
	case dF < ftol*F && ratio > 0.25:
		return FunctionConverged
	case dxNorm < xtol*(xtol+xNorm):
		return StepConverged
	}
	return NotTerminated
}

// clScaling fills the Coleman–Li scaling vector v and its derivative dv
// (CL_scaling_vector) and returns ‖g·v‖∞, the first-order optimality.
func clScaling(x, g, lo, hi, v, dv []float64) float64 {
	var n float64
	for k := range x {
		v[k], dv[k] = 1, 0
		switch {
		case g[k] < 0 && !math.IsInf(hi[k], 1):
			v[k], dv[k] = hi[k]-x[k], -1
		case g[k] > 0 && !math.IsInf(lo[k], -1):
			v[k], dv[k] = x[k]-lo[k], 1
		}
		n = math.Max(n, math.Abs(g[k]*v[k]))
	}
	return n
}

// strictlyFeasible moves x off its bounds (make_strictly_feasible): by
// rstep·max(1, |bound|), or to the next float inward when rstep is 0; to
// the middle of a box too tight for that.
func strictlyFeasible(x, lo, hi []float64, rstep float64) {
	for k := range x {
		if lo[k] == hi[k] {
			x[k] = lo[k]
			continue
		}
		var atLo, atHi bool
		if rstep == 0 {
			atLo, atHi = x[k] <= lo[k], x[k] >= hi[k]
		} else {
			dl, du := x[k]-lo[k], hi[k]-x[k]
			atLo = !math.IsInf(lo[k], 0) && dl <= math.Min(du, rstep*math.Max(1, math.Abs(lo[k])))
			atHi = !atLo && !math.IsInf(hi[k], 0) && du <= math.Min(dl, rstep*math.Max(1, math.Abs(hi[k])))
		}
		switch {
		case atLo && rstep == 0:
			x[k] = math.Nextafter(lo[k], hi[k])
		case atHi && rstep == 0:
			x[k] = math.Nextafter(hi[k], lo[k])
		case atLo:
			x[k] = lo[k] + rstep*math.Max(1, math.Abs(lo[k]))
		case atHi:
			x[k] = hi[k] - rstep*math.Max(1, math.Abs(hi[k]))
		}
		if x[k] < lo[k] || x[k] > hi[k] {
			x[k] = lo[k] + (hi[k]-lo[k])/2
		}
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func norm2(a []float64) float64 { return math.Sqrt(dot(a, a)) }

func allZero(a []float64) bool {
	for _, v := range a {
		if v != 0 {
			return false
		}
	}
	return len(a) > 0
}

// allFinite reports whether every entry of v is finite.
func allFinite(v []float64) bool {
	for _, x := range v {
		if x-x != 0 {
			return false
		}
	}
	return true
}
