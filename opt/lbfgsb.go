package opt

import (
	"fmt"
	"math"
)

// LBFGSB minimises a smooth function subject to box bounds lo ≤ x ≤ hi with
// the limited-memory BFGS-B method of
//
//	R. H. Byrd, P. Lu, J. Nocedal and C. Zhu, "A limited memory algorithm for
//	bound constrained optimization", SIAM J. Sci. Comput. 16(5):1190–1208, 1995,
//
// with the subspace-minimisation fix of
//
//	J. L. Morales and J. Nocedal, "Remark on 'Algorithm 778: L-BFGS-B: Fortran
//	subroutines for large-scale bound constrained optimization'",
//	ACM Trans. Math. Softw. 38(1):7, 2011,
//
// that is, the algorithm of the L-BFGS-B 3.0 Fortran code that SciPy wraps,
// followed routine by routine. It is written here, in pure Go, because gonum
// has no bounded quasi-Newton method and the Go wrappers of the Fortran code
// are unmaintained cgo.
//
// Each iteration keeps the compact limited-memory form B = θI − W M Wᵀ of the
// Hessian approximation (W = [Y θS], the last M correction pairs) and
//
//  1. finds the generalized Cauchy point: the first local minimiser of the
//     quadratic model along the projected steepest-descent path, walking the
//     sorted breakpoints segment by segment;
//  2. minimises the model over the variables that are free at that point
//     (direct primal method), projects the result onto the box and, if the
//     projection spoils descent, backtracks into the box instead (the 3.0 fix);
//  3. searches along the resulting direction with the Moré–Thuente line
//     search of MINPACK-2 (dcsrch; ftol 1e-3, gtol 0.9), never stepping past
//     the box;
//  4. adds the new correction pair unless its curvature sᵀy is not safely
//     positive.
//
// A run ends with GradientConverged when the ∞-norm of the projected gradient
// is at most Settings.GradientTol, with FunctionConverged when
// (f_k − f_{k+1}) / max(|f_k|, |f_{k+1}|, 1) ≤ Settings.FunctionTol (SciPy's
// factr·eps), or with Failure when a line search fails with an empty memory
// (a failure with a non-empty memory first clears the memory and retries).
// A line search fails after 20 evaluations, on a direction that is not
// downhill, or, unlike the Fortran code, when it gives up without having
// lowered f at all: the Fortran code accepts that null step and then reports
// convergence, which would hide a wrong gradient. Failure thus means that no
// step could lower f: the gradient is inconsistent with f, or the tolerances
// ask for more than rounding allows; X is the best point found either way.
//
// An iteration costs O(n·M + M³) besides the objective, plus O(M²) for each
// variable that moved between the free and the active set.
//
// Errors returned by the objective end the run with that error and a nil
// Result. A NaN or infinite f or gradient component ends it with an error
// naming the component and a Result with status NonFinite at the last
// accepted point (the start, if it is there).
//
// A run never reports convergence where the gradient is exactly zero
// without looking around: an exactly zero gradient at the start is
// StartStationary, and wherever f does not change when any free parameter
// is moved by 1e-3 relative (a plateau, e.g. a bound corner where a
// stiction model never moves) the status is Flat. Parameters ending on a
// bound are listed in Result.AtLower and AtUpper.
type LBFGSB struct {
	// M is the number of correction pairs kept; 0 selects 10.
	M int
}

var _ Method = LBFGSB{}

const (
	lbEps          = 0x1p-52 // machine epsilon, the Fortran code's epsmch
	lbFtol         = 1e-3    // line search: sufficient decrease
	lbGtol         = 0.9     // line search: curvature
	lbXtol         = 0.1     // line search: relative width of the bracket
	lbStpBig       = 1e10    // largest step when no bound limits it
	lbMaxLineEvals = 20      // evaluations before a line search is declared failed
)

// Where a variable stands relative to its bounds on the Cauchy path (the
// Fortran code's iwhere). Values ≤ 0 are free at the Cauchy point.
const (
	lbZeroGrad  int8 = -3 // between its bounds with zero gradient
	lbUnbounded int8 = -1 // no finite bound: always free
	lbFree      int8 = 0
	lbAtLower   int8 = 1
	lbAtUpper   int8 = 2
	lbFixed     int8 = 3 // lo == hi: never moves
)

// Minimize runs L-BFGS-B from x0 (projected onto the box).
func (m LBFGSB) Minimize(p Problem, x0 []float64, s Settings) (*Result, error) {
	lo, hi, x, err := validate(p, x0)
	if err != nil {
		return nil, err
	}
	for i := range lo {
		// validate lets [+Inf, +Inf] through; no finite x lies in such a box.
		if math.IsInf(lo[i], 1) || math.IsInf(hi[i], -1) {
			return nil, fmt.Errorf("opt: bounds of x[%d] are [%g, %g]", i, lo[i], hi[i])
		}
	}
	mem := m.M
	if mem <= 0 {
		mem = 10
	}
	// The workspace grows as M² (the 2M×2M middle matrix): cap M where more
	// pairs cannot help, at the dimension (n independent pairs already fix a
	// quadratic's Hessian), but never below the default (issue 26: M = 1e6
	// died of memory on a 4-parameter problem).
	mem = min(mem, max(len(x), 10))
	return newLBState(lo, hi, mem).run(p.Objective, x, s.withDefaults())
}

// lbState is one run's workspace. Correction pairs are kept oldest first:
// s[j], y[j] for j < col, so the circular "head" bookkeeping of the Fortran
// code becomes a rotation of slice headers.
type lbState struct {
	n, m         int
	lo, hi       []float64
	hasLo, hasHi []bool
	where        []int8
	constrained  bool // some variable has a finite bound
	boxed        bool // every variable has both bounds

	// The limited-memory matrix B = θI − W M Wᵀ, W = [Y θS].
	col   int
	theta float64
	s, y  [][]float64 // m buffers of length n, allocated on first use
	sy    [][]float64 // sy[i][j] = sᵢ·yⱼ for i ≥ j: D and L
	ss    [][]float64 // ss[i][j] = sᵢ·sⱼ for i ≤ j
	wt    [][]float64 // Cholesky factor Jᵀ of T = θSᵀS + L D⁻¹ Lᵀ (upper)

	// The subspace matrix K (formk). wn1 holds, in blocks of stride m,
	//   [YᵀZZᵀY   ·     ]   lower triangle of the (1,1) block,
	//   [L_a+R_z  SᵀAAᵀS]   full (2,1) block, lower triangle of (2,2),
	// where Z (A) selects the free (active) variables, L_a is the strictly
	// lower part of SᵀAAᵀY and R_z the upper part of SᵀZZᵀY. It is kept up to
	// date incrementally: the entries between the first wn1Valid pairs are
	// correct for the free set wn1Free. wn holds the LELᵀ factors of K.
	wn1      [][]float64
	wn       [][]float64
	wn1Valid int
	wn1Free  []bool
	wnStale  bool // the pairs or θ changed since wn was factored

	free, active []int // variables free / active at the Cauchy point
	enter, leave []int

	z     []float64 // Cauchy point, then subspace minimiser
	d     []float64 // Cauchy direction, then search direction
	xp    []float64 // subsm: z before projection
	r     []float64 // reduced gradient, then Newton step, over free
	t     []float64 // x at the start of the line search
	gold  []float64 // g at the start of the line search, then y
	brk   []float64 // breakpoints of the Cauchy path
	order []int     // variable of each breakpoint

	p, c, wbp, v, wv, tmp []float64 // vectors of length 2m
}

func newLBState(lo, hi []float64, m int) *lbState {
	n := len(lo)
	st := &lbState{
		n: n, m: m, lo: lo, hi: hi,
		hasLo: make([]bool, n), hasHi: make([]bool, n), where: make([]int8, n),
		boxed: true, theta: 1,
		s: make([][]float64, m), y: make([][]float64, m),
		sy: lbMatrix(m, m), ss: lbMatrix(m, m), wt: lbMatrix(m, m),
		wn1: lbMatrix(2*m, 2*m), wn: lbMatrix(2*m, 2*m),
		wn1Free: make([]bool, n), wnStale: true,
		free: make([]int, 0, n), active: make([]int, 0, n),
		enter: make([]int, 0, n), leave: make([]int, 0, n),
		z: make([]float64, n), d: make([]float64, n), xp: make([]float64, n),
		r: make([]float64, n), t: make([]float64, n), gold: make([]float64, n),
		brk: make([]float64, n), order: make([]int, n),
		p: make([]float64, 2*m), c: make([]float64, 2*m), wbp: make([]float64, 2*m),
		v: make([]float64, 2*m), wv: make([]float64, 2*m), tmp: make([]float64, 2*m),
	}
	for i := range n {
		st.hasLo[i] = !math.IsInf(lo[i], -1)
		st.hasHi[i] = !math.IsInf(hi[i], 1)
		switch {
		case !st.hasLo[i] && !st.hasHi[i]:
			st.where[i] = lbUnbounded
		case st.hasLo[i] && st.hasHi[i] && hi[i] <= lo[i]:
			st.where[i] = lbFixed
		}
		if st.hasLo[i] || st.hasHi[i] {
			st.constrained = true
		}
		if !st.hasLo[i] || !st.hasHi[i] {
			st.boxed = false
		}
		// Until the first Cauchy point every variable counts as free; the
		// unconstrained path never computes a Cauchy point once it has pairs.
		st.free = append(st.free, i)
	}
	return st
}

func lbMatrix(r, c int) [][]float64 {
	data := make([]float64, r*c)
	a := make([][]float64, r)
	for i := range a {
		a[i] = data[i*c : (i+1)*c : (i+1)*c]
	}
	return a
}

// run is the Fortran mainlb: x is the (projected) starting point.
func (st *lbState) run(obj Objective, x []float64, set Settings) (*Result, error) {
	rec := newRecorder(set, st.lo, st.hi)
	g := make([]float64, st.n)
	evaluate := func() (float64, error) {
		f, err := rec.eval(obj, x, g)
		if err != nil {
			return f, err
		}
		if math.IsInf(f, 0) {
			return f, nonFiniteError{fmt.Errorf("opt: objective returned %g at evaluation %d", f, rec.res.FuncEvaluations)}
		}
		for i, gi := range g {
			if math.IsNaN(gi) || math.IsInf(gi, 0) {
				return f, nonFiniteError{fmt.Errorf("opt: gradient component %d%s is %g at evaluation %d", i, nameSuffix(set, i), gi, rec.res.FuncEvaluations)}
			}
		}
		return f, nil
	}

	f, err := evaluate()
	if err != nil {
		if isNonFinite(err) {
			return rec.finish(x, f, NonFinite), err
		}
		return nil, err
	}
	if zeroGradient(g, st.lo, st.hi) {
		flat, err := probeFlat(rec, obj, x, f)
		if err != nil {
			return nil, err
		}
		if len(flat) == len(freeIndices(st.lo, st.hi)) {
			rec.res.Flat = flat
			return rec.finish(x, f, Flat), nil
		}
		rec.res.Flat = flat
		return rec.finish(x, f, StartStationary), nil
	}
	if st.projGradNorm(x, g) <= set.GradientTol {
		return rec.finish(x, f, GradientConverged), nil
	}

	z, d, t, gold := st.z, st.d, st.t, st.gold
	var ls lbLineSearch
	iter := 0
	for {
		// Generalized Cauchy point. Without bounds the unconstrained L-BFGS
		// step is the subspace step over all variables from z = x, so the
		// Cauchy point is only needed to get going while the memory is empty.
		wrk := st.wnStale
		if !st.constrained && st.col > 0 {
			copy(z, x)
		} else {
			if !st.cauchy(x, g) {
				st.resetMemory()
				continue
			}
			if st.freeVars() {
				wrk = true
			}
		}

		// Subspace minimisation over the free variables.
		if len(st.free) > 0 && st.col > 0 {
			if wrk && !st.formK() {
				st.resetMemory()
				continue
			}
			if !st.reducedGradient(x, g) || !st.subspaceMin(x, g) {
				st.resetMemory()
				continue
			}
		}

		// Line search from x along d = z − x.
		st.clamp(z)
		for i := range d {
			d[i] = z[i] - x[i]
		}
		dtd := lbDot(d, d)
		stpmax := lbStpBig
		if st.constrained {
			if iter == 0 {
				stpmax = 1
			} else {
				stpmax = st.maxStep(x, d)
			}
		}
		stp := 1.0
		if iter == 0 && !st.boxed {
			// The first direction is a raw (projected) gradient: scale it.
			stp = math.Min(1/math.Sqrt(dtd), stpmax)
		}
		stp = math.Min(stp, stpmax)
		copy(t, x)
		copy(gold, g)
		fold := f
		gdold := lbDot(g, d)
		gd := gdold
		task := lbLSError // not a descent direction
		if gdold < 0 {
			task = ls.start(f, gdold, stp, stpmax)
		}
		for evals := 0; task == lbLSEvaluate; evals++ {
			if evals == lbMaxLineEvals {
				task = lbLSError
				break
			}
			if rec.res.FuncEvaluations >= set.MaxEvaluations {
				return rec.finish(t, fold, EvaluationLimit), nil
			}
			if stp == 1 {
				copy(x, z)
			} else {
				for i := range x {
					x[i] = t[i] + stp*d[i]
				}
				st.clamp(x)
			}
			if f, err = evaluate(); err != nil {
				if isNonFinite(err) {
					return rec.finish(t, fold, NonFinite), err
				}
				return nil, err
			}
			gd = lbDot(g, d)
			stp, task = ls.next(f, gd, stp)
			// dcsrch gives up with a warning, accepting its best step, when
			// the bracket can no longer shrink. If that step did not lower f
			// at all (typically stp fell back to 0, or to a step so short
			// that x did not change) the Fortran code still accepts it, and
			// the null step then passes the FunctionTol test: a wrong
			// gradient would look converged. Count it as a failed search.
			if (task == lbLSEvaluate && stp == 0) || (task == lbLSWarning && f >= fold) {
				task = lbLSError
			}
		}
		if task == lbLSError {
			copy(x, t)
			copy(g, gold)
			f = fold
			if st.col == 0 {
				if iter == 0 {
					return rec.finish(x, f, Failure), nil
				}
				return rec.finish(x, f, Stalled), nil
			}
			// The direction may be poor because the memory is: start afresh
			// from a Cauchy step before giving up.
			st.resetMemory()
			continue
		}

		iter++
		conv := NotTerminated
		switch {
		case st.projGradNorm(x, g) <= set.GradientTol:
			conv = GradientConverged
		case fold-f <= set.FunctionTol*math.Max(math.Max(math.Abs(fold), math.Abs(f)), 1):
			conv = FunctionConverged
		}
		// A convergence test met together with a limit reports convergence;
		// a stop asked for by the callback always wins.
		status := rec.iterate(iter, f, x)
		if status == Stopped || (conv == NotTerminated && status != NotTerminated) {
			return rec.finish(x, f, status), nil
		}
		if conv == GradientConverged && zeroGradient(g, st.lo, st.hi) {
			// An exactly zero gradient after a step: a minimum hit exactly
			// (a quadratic's), or a plateau the step fell onto.
			flat, err := probeFlat(rec, obj, x, f)
			if err != nil {
				return nil, err
			}
			rec.res.Flat = flat
			if len(flat) == len(freeIndices(st.lo, st.hi)) {
				conv = Flat
			}
		}
		if conv != NotTerminated {
			return rec.finish(x, f, conv), nil
		}

		// Correction pair s = stp·d, y = g − gold.
		y := gold
		for i := range y {
			y[i] = g[i] - y[i]
		}
		yy := lbDot(y, y)
		sy := (gd - gdold) * stp
		sgOld := -gdold * stp // −sᵀg_k > 0
		if stp != 1 {
			for i := range d {
				d[i] *= stp
			}
		}
		// Drop the pair if its curvature is not safely positive, by the
		// Fortran code's test (sᵀy ≤ ε·(−sᵀg_k)) or the paper's
		// (sᵀy ≤ ε·yᵀy): B would lose positive definiteness or θ = yᵀy/sᵀy
		// would blow up. The memory is kept as it is.
		if sy <= lbEps*sgOld || sy <= lbEps*yy {
			continue
		}
		st.push(d, y, sy, yy, stp*stp*dtd)
		if !st.formT() {
			st.resetMemory()
		}
	}
}

// resetMemory empties the limited memory: B = I.
func (st *lbState) resetMemory() {
	st.col = 0
	st.theta = 1
	st.wn1Valid = 0
	st.wnStale = true
}

// clamp projects x onto the box. Iterates are feasible in exact arithmetic;
// this only removes rounding so that the objective is never called outside.
func (st *lbState) clamp(x []float64) {
	for i, v := range x {
		if v < st.lo[i] {
			x[i] = st.lo[i]
		} else if v > st.hi[i] {
			x[i] = st.hi[i]
		}
	}
}

// projGradNorm is ‖P(x − g) − x‖∞ (projgr): the first-order optimality
// measure for a box.
func (st *lbState) projGradNorm(x, g []float64) float64 {
	norm := 0.0
	for i, gi := range g {
		// The step to the bound, where it is shorter than the gradient.
		if gi < 0 {
			if d := st.hi[i] - x[i]; d < -gi {
				gi = -d
			}
		} else if d := x[i] - st.lo[i]; d < gi {
			gi = d
		}
		if gi < 0 {
			gi = -gi
		}
		if gi > norm {
			norm = gi
		}
	}
	return norm
}

// maxStep is the largest step along d that keeps x in the box (capped at
// lbStpBig).
func (st *lbState) maxStep(x, d []float64) float64 {
	stpmx := lbStpBig
	for i, di := range d {
		if di < 0 && st.hasLo[i] {
			if a := st.lo[i] - x[i]; a >= 0 {
				stpmx = 0
			} else if di*stpmx < a {
				stpmx = a / di
			}
		} else if di > 0 && st.hasHi[i] {
			if a := st.hi[i] - x[i]; a <= 0 {
				stpmx = 0
			} else if di*stpmx > a {
				stpmx = a / di
			}
		}
	}
	return stpmx
}

// cauchy computes the generalized Cauchy point into z: along the path
// x(t) = P(x − t g) the model m(x(t)) is piecewise quadratic with breakpoints
// where variables hit bounds; the segments are visited in order (breakpoints
// taken lazily from a heap, since usually only a few are passed) until the
// model's derivative turns non-negative. It also leaves c = Wᵀ(z − x) for
// reducedGradient and updates where. It returns false if M could not be
// applied (a singular factor).
func (st *lbState) cauchy(x, g []float64) bool {
	n, col, theta := st.n, st.col, st.theta
	lo, hi, where := st.lo, st.hi, st.where
	xcp, d, brk, order := st.z, st.d, st.brk, st.order

	// Bound status, Cauchy direction d = −g on the variables that can move,
	// breakpoints, and f1 = gᵀd, the model's slope at t = 0.
	bounded := true // every moving variable hits a bound eventually
	nbreak, nunbounded := 0, 0
	ibkmin, bkmin := 0, 0.0
	f1 := 0.0
	for i := range n {
		neggi := -g[i]
		w := where[i]
		var tl, tu float64
		if w != lbFixed && w != lbUnbounded {
			if st.hasLo[i] {
				tl = x[i] - lo[i]
			}
			if st.hasHi[i] {
				tu = hi[i] - x[i]
			}
			w = lbFree
			switch {
			case st.hasLo[i] && tl <= 0:
				if neggi <= 0 {
					w = lbAtLower
				}
			case st.hasHi[i] && tu <= 0:
				if neggi >= 0 {
					w = lbAtUpper
				}
			case neggi == 0:
				w = lbZeroGrad
			}
			where[i] = w
		}
		if w != lbFree && w != lbUnbounded {
			d[i] = 0
			continue
		}
		d[i] = neggi
		f1 -= neggi * neggi
		var tb float64
		switch {
		case st.hasLo[i] && neggi < 0:
			tb = tl / -neggi
		case st.hasHi[i] && neggi > 0:
			tb = tu / neggi
		default:
			nunbounded++
			if neggi != 0 {
				bounded = false
			}
			continue
		}
		brk[nbreak], order[nbreak] = tb, i
		if nbreak == 0 || tb < bkmin {
			bkmin, ibkmin = tb, nbreak
		}
		nbreak++
	}

	// p = Wᵀd.
	p, c, v, wbp := st.p[:2*col], st.c[:2*col], st.v[:2*col], st.wbp[:2*col]
	for j := range col {
		p[j] = lbDot(st.y[j], d)
		p[col+j] = theta * lbDot(st.s[j], d)
	}
	copy(xcp, x)
	clear(c)
	if nbreak == 0 && nunbounded == 0 {
		return true // d = 0: x is the Cauchy point
	}

	// f2 = dᵀBd, the model's curvature on the first segment.
	f2 := -theta * f1
	f2org := f2
	if col > 0 {
		if !st.bmv(p, v) {
			return false
		}
		f2 -= lbDot(v, p)
	}
	dtm := -f1 / f2 // minimiser's offset into the current segment
	tsum := 0.0     // start of the current segment

	if nbreak > 0 {
		nleft := nbreak
		tj := 0.0
		for it := 1; ; it++ {
			tj0 := tj
			var ibp int
			if it == 1 {
				// The smallest breakpoint is known; most paths stop within
				// the first segment, so the heap is built only when needed.
				tj, ibp = bkmin, order[ibkmin]
			} else {
				if it == 2 && ibkmin != nbreak-1 {
					brk[ibkmin], order[ibkmin] = brk[nbreak-1], order[nbreak-1]
				}
				lbHeapPop(brk[:nleft], order[:nleft], it == 2)
				tj, ibp = brk[nleft-1], order[nleft-1]
			}
			dt := tj - tj0
			if dtm < dt {
				break // the minimiser lies within this segment
			}

			// Variable ibp hits its bound: fix it there and move on.
			tsum += dt
			nleft--
			dibp := d[ibp]
			d[ibp] = 0
			var zibp float64
			if dibp > 0 {
				zibp = hi[ibp] - x[ibp]
				xcp[ibp] = hi[ibp]
				where[ibp] = lbAtUpper
			} else {
				zibp = lo[ibp] - x[ibp]
				xcp[ibp] = lo[ibp]
				where[ibp] = lbAtLower
			}
			if nleft == 0 && nbreak == n {
				// Every variable is at a bound.
				for j := range c {
					c[j] += dt * p[j]
				}
				return true
			}

			// Slope and curvature on the next segment.
			dibp2 := dibp * dibp
			f1 += dt*f2 + dibp2 - theta*dibp*zibp
			f2 -= theta * dibp2
			if col > 0 {
				for j := range c {
					c[j] += dt * p[j]
				}
				for j := range col {
					wbp[j] = st.y[j][ibp]
					wbp[col+j] = theta * st.s[j][ibp]
				}
				if !st.bmv(wbp, v) {
					return false
				}
				wmc, wmp, wmw := lbDot(c, v), lbDot(p, v), lbDot(wbp, v)
				for j := range p {
					p[j] -= dibp * wbp[j]
				}
				f1 += dibp * wmc
				f2 += 2*dibp*wmp - dibp2*wmw
			}
			// Rounding can make f2 tiny or negative; keep it a curvature.
			f2 = math.Max(lbEps*f2org, f2)
			if nleft > 0 {
				dtm = -f1 / f2
				continue
			}
			if bounded {
				dtm = 0
			} else {
				dtm = -f1 / f2
			}
			break
		}
	}
	if !(dtm > 0) {
		dtm = 0
	}
	tsum += dtm
	for i := range xcp {
		xcp[i] += tsum * d[i]
	}
	for j := range c {
		c[j] += dtm * p[j]
	}
	return true
}

// lbHeapPop keeps t (with order alongside) as a binary min-heap (the Fortran
// hpsolb): with build it first heapifies t; it then moves the least element
// to t[len(t)-1] and restores the heap on the rest.
func lbHeapPop(t []float64, order []int, build bool) {
	n := len(t)
	if build {
		for k := 1; k < n; k++ {
			v, idx := t[k], order[k]
			i := k
			for i > 0 {
				j := (i - 1) / 2
				if !(v < t[j]) {
					break
				}
				t[i], order[i] = t[j], order[j]
				i = j
			}
			t[i], order[i] = v, idx
		}
	}
	if n <= 1 {
		return
	}
	out, outIdx := t[0], order[0]
	v, idx := t[n-1], order[n-1]
	i := 0
	for {
		j := 2*i + 1
		if j >= n-1 {
			break
		}
		if j+1 < n-1 && t[j+1] < t[j] {
			j++
		}
		if !(t[j] < v) {
			break
		}
		t[i], order[i] = t[j], order[j]
		i = j
	}
	t[i], order[i] = v, idx
	t[n-1], order[n-1] = out, outIdx
}

// freeVars collects the variables free (where ≤ 0) and active at the Cauchy
// point and reports whether the free set differs from the one K was last
// formed for.
func (st *lbState) freeVars() bool {
	st.free, st.active = st.free[:0], st.active[:0]
	changed := false
	for i, w := range st.where {
		isFree := w <= 0
		if isFree {
			st.free = append(st.free, i)
		} else {
			st.active = append(st.active, i)
		}
		if isFree != st.wn1Free[i] {
			changed = true
		}
	}
	return changed
}

// bmv computes out = M·in for the middle matrix
// M = [−D Lᵀ; L θSᵀS]⁻¹ of the compact form, using the Cholesky factor of
// T = θSᵀS + L D⁻¹ Lᵀ in wt.
func (st *lbState) bmv(in, out []float64) bool {
	col := st.col
	if col == 0 {
		return true
	}
	sy := st.sy
	out2 := out[col : 2*col]
	// [D^½ 0; −L D^-½ J] [p1; p2] = [v1; v2].
	out2[0] = in[col]
	for i := 1; i < col; i++ {
		sum := 0.0
		for k := range i {
			sum += sy[i][k] * in[k] / sy[k][k]
		}
		out2[i] = in[col+i] + sum
	}
	if !lbSolveUpperT(st.wt, 0, col, out2) {
		return false
	}
	for i := range col {
		out[i] = in[i] / math.Sqrt(sy[i][i])
	}
	// [−D^½ D^-½ Lᵀ; 0 Jᵀ] [p1; p2] = [p1; p2].
	if !lbSolveUpper(st.wt, 0, col, out2) {
		return false
	}
	for i := range col {
		out[i] = -out[i] / math.Sqrt(sy[i][i])
	}
	for i := range col {
		sum := 0.0
		for k := i + 1; k < col; k++ {
			sum += sy[k][i] * out2[k] / sy[i][i]
		}
		out[i] += sum
	}
	return true
}

// push appends the correction pair (s, y) with sᵀy = sy, yᵀy = yy and
// sᵀs = ss, dropping the oldest pair when the memory is full (matupd).
func (st *lbState) push(s, y []float64, sy, yy, ss float64) {
	m := st.m
	if st.col == m {
		// Recycle the oldest buffers and shift every stored inner product
		// one pair back.
		s0, y0 := st.s[0], st.y[0]
		copy(st.s, st.s[1:])
		copy(st.y, st.y[1:])
		st.s[m-1], st.y[m-1] = s0, y0
		for i := 0; i < m-1; i++ {
			copy(st.sy[i][:m-1], st.sy[i+1][1:m])
			copy(st.ss[i][:m-1], st.ss[i+1][1:m])
			copy(st.wn1[i][:m-1], st.wn1[i+1][1:m])
			copy(st.wn1[m+i][:m-1], st.wn1[m+i+1][1:m])
			copy(st.wn1[m+i][m:2*m-1], st.wn1[m+i+1][m+1:2*m])
		}
		st.col--
		if st.wn1Valid > 0 {
			st.wn1Valid--
		}
	}
	c := st.col
	if st.s[c] == nil {
		st.s[c] = make([]float64, st.n)
		st.y[c] = make([]float64, st.n)
	}
	copy(st.s[c], s)
	copy(st.y[c], y)
	st.col++
	for j := range c {
		st.sy[c][j] = lbDot(s, st.y[j])
		st.ss[j][c] = lbDot(st.s[j], s)
	}
	st.ss[c][c] = ss
	st.sy[c][c] = sy
	st.theta = yy / sy
	st.wnStale = true
}

// formT forms T = θSᵀS + L D⁻¹ Lᵀ and factors it as J Jᵀ, Jᵀ in the upper
// triangle of wt (formt).
func (st *lbState) formT() bool {
	col, sy := st.col, st.sy
	for i := range col {
		for j := i; j < col; j++ {
			sum := 0.0
			for k := range i {
				sum += sy[i][k] * sy[j][k] / sy[k][k]
			}
			st.wt[i][j] = sum + st.theta*st.ss[i][j]
		}
	}
	return lbCholUpper(st.wt, 0, col)
}

// formK forms and factors the 2col×2col matrix
//
//	K = [−D − YᵀZZᵀY/θ   L_aᵀ − R_zᵀ]
//	    [L_a − R_z       θSᵀAAᵀS    ]
//
// of the subspace problem as K = L E Lᵀ, E = diag(−I, I) (formk). The inner
// products over the free and active sets are updated incrementally, so the
// cost is O(n·col) for a new pair plus O(col²) per variable that entered or
// left the free set.
func (st *lbState) formK() bool {
	m, col, theta := st.m, st.col, st.theta
	wn1 := st.wn1
	nv := st.wn1Valid

	// Adjust the entries between already-valid pairs for variables that
	// entered (+ in Z sums, − in A sums) or left the free set.
	if nv > 0 {
		st.enter, st.leave = st.enter[:0], st.leave[:0]
		for i, w := range st.where {
			if isFree := w <= 0; isFree != st.wn1Free[i] {
				if isFree {
					st.enter = append(st.enter, i)
				} else {
					st.leave = append(st.leave, i)
				}
			}
		}
		if len(st.enter) > 0 || len(st.leave) > 0 {
			for i := range nv {
				yi, si := st.y[i], st.s[i]
				for j := range nv {
					yj, sj := st.y[j], st.s[j]
					if j <= i {
						dyy := lbDotIdx(yi, yj, st.enter) - lbDotIdx(yi, yj, st.leave)
						dss := lbDotIdx(si, sj, st.enter) - lbDotIdx(si, sj, st.leave)
						wn1[i][j] += dyy
						wn1[m+i][m+j] -= dss
					}
					dsy := lbDotIdx(si, yj, st.enter) - lbDotIdx(si, yj, st.leave)
					if i <= j {
						wn1[m+i][j] += dsy // R_z: a sum over free variables
					} else {
						wn1[m+i][j] -= dsy // L_a: a sum over active ones
					}
				}
			}
		}
	}
	// Entries involving pairs added since: computed afresh.
	for i := range col {
		yi, si := st.y[i], st.s[i]
		for j := range col {
			if i < nv && j < nv {
				continue
			}
			yj, sj := st.y[j], st.s[j]
			if j <= i {
				wn1[i][j] = lbDotIdx(yi, yj, st.free)
				wn1[m+i][m+j] = lbDotIdx(si, sj, st.active)
			}
			if i <= j {
				wn1[m+i][j] = lbDotIdx(si, yj, st.free)
			} else {
				wn1[m+i][j] = lbDotIdx(si, yj, st.active)
			}
		}
	}
	st.wn1Valid = col
	for i := range st.wn1Free {
		st.wn1Free[i] = false
	}
	for _, i := range st.free {
		st.wn1Free[i] = true
	}

	// Upper triangle of [D + YᵀZZᵀY/θ  −L_aᵀ + R_zᵀ; · θSᵀAAᵀS] = −K on the
	// first block row, K on the second.
	wn := st.wn
	for iy := range col {
		is, is1 := col+iy, m+iy
		for jy := 0; jy <= iy; jy++ {
			wn[jy][iy] = wn1[iy][jy] / theta
			wn[col+jy][is] = wn1[is1][m+jy] * theta
		}
		for jy := range iy {
			wn[jy][is] = -wn1[is1][jy]
		}
		for jy := iy; jy < col; jy++ {
			wn[jy][is] = wn1[is1][jy]
		}
		wn[iy][iy] += st.sy[iy][iy]
	}
	// L Lᵀ of the (1,1) block, L⁻¹(−L_aᵀ + R_zᵀ) in the (1,2) block, and the
	// Cholesky factor of θSᵀAAᵀS + (L⁻¹(…))ᵀ L⁻¹(…) in the (2,2) block.
	if !lbCholUpper(wn, 0, col) {
		return false
	}
	tmp := st.tmp[:col]
	for js := col; js < 2*col; js++ {
		for k := range col {
			tmp[k] = wn[k][js]
		}
		if !lbSolveUpperT(wn, 0, col, tmp) {
			return false
		}
		for k := range col {
			wn[k][js] = tmp[k]
		}
	}
	for is := col; is < 2*col; is++ {
		for js := is; js < 2*col; js++ {
			sum := 0.0
			for k := range col {
				sum += wn[k][is] * wn[k][js]
			}
			wn[is][js] += sum
		}
	}
	if !lbCholUpper(wn, col, col) {
		return false
	}
	st.wnStale = false
	return true
}

// reducedGradient sets r = −Zᵀ(B(z − x) + g), the gradient of the model at
// the Cauchy point restricted to the free variables (cmprlb), using
// c = Wᵀ(z − x) from cauchy.
func (st *lbState) reducedGradient(x, g []float64) bool {
	free, z := st.free, st.z
	r := st.r[:len(free)]
	if !st.constrained && st.col > 0 {
		for i, k := range free {
			r[i] = -g[k]
		}
		return true
	}
	col, theta := st.col, st.theta
	for i, k := range free {
		r[i] = -theta*(z[k]-x[k]) - g[k]
	}
	v := st.v[:2*col]
	if !st.bmv(st.c[:2*col], v) {
		return false
	}
	for j := range col {
		a1, a2 := v[j], theta*v[col+j]
		yj, sj := st.y[j], st.s[j]
		for i, k := range free {
			r[i] += yj[k]*a1 + sj[k]*a2
		}
	}
	return true
}

// subspaceMin minimises the model over the free variables from the Cauchy
// point z, unconstrained (subsm). Following L-BFGS-B 3.0 the minimiser is
// projected onto the box, which keeps the faces it reaches; only if that
// projected point is not a descent direction from x does it fall back to the
// 2.1 rule of backtracking along the Newton step to stay in the box.
func (st *lbState) subspaceMin(x, g []float64) bool {
	free, z := st.free, st.z
	col, theta := st.col, st.theta
	du := st.r[:len(free)]
	lo, hi := st.lo, st.hi

	// du = −B̂⁻¹ r on the free subspace, by Sherman–Morrison–Woodbury:
	// B̂⁻¹ = I/θ + ZᵀW K⁻¹ WᵀZ/θ².
	wv := st.wv[:2*col]
	for i := range col {
		yi, si := st.y[i], st.s[i]
		t1, t2 := 0.0, 0.0
		for j, k := range free {
			t1 += yi[k] * du[j]
			t2 += si[k] * du[j]
		}
		wv[i], wv[col+i] = t1, theta*t2
	}
	if !lbSolveUpperT(st.wn, 0, 2*col, wv) {
		return false
	}
	for i := range col {
		wv[i] = -wv[i]
	}
	if !lbSolveUpper(st.wn, 0, 2*col, wv) {
		return false
	}
	for j := range col {
		a1, a2 := wv[j]/theta, wv[col+j]
		yj, sj := st.y[j], st.s[j]
		for i, k := range free {
			du[i] += yj[k]*a1 + sj[k]*a2
		}
	}
	for i := range du {
		du[i] /= theta
	}

	// Project the Newton point onto the box.
	copy(st.xp, z)
	hit := false
	for i, k := range free {
		v := z[k] + du[i]
		if st.hasLo[k] && v <= lo[k] {
			v, hit = lo[k], true
		}
		if st.hasHi[k] && v >= hi[k] {
			v, hit = hi[k], true
		}
		z[k] = v
	}
	if !hit {
		return true
	}
	ddp := 0.0
	for i := range z {
		ddp += (z[i] - x[i]) * g[i]
	}
	if ddp <= 0 {
		return true
	}

	// The projection is uphill from x: take the longest feasible step
	// alpha ≤ 1 along the Newton direction instead.
	copy(z, st.xp)
	alpha, temp1 := 1.0, 1.0
	ibd := -1
	for i, k := range free {
		dk := du[i]
		if dk < 0 && st.hasLo[k] {
			if t2 := lo[k] - z[k]; t2 >= 0 {
				temp1 = 0
			} else if dk*alpha < t2 {
				temp1 = t2 / dk
			}
		} else if dk > 0 && st.hasHi[k] {
			if t2 := hi[k] - z[k]; t2 <= 0 {
				temp1 = 0
			} else if dk*alpha > t2 {
				temp1 = t2 / dk
			}
		}
		if temp1 < alpha {
			alpha, ibd = temp1, i
		}
	}
	if alpha < 1 {
		// Put the blocking variable exactly on its bound.
		k := free[ibd]
		if du[ibd] > 0 {
			z[k], du[ibd] = hi[k], 0
		} else if du[ibd] < 0 {
			z[k], du[ibd] = lo[k], 0
		}
	}
	for i, k := range free {
		z[k] += alpha * du[i]
	}
	return true
}

// lbLineSearch is MINPACK-2's dcsrch (Moré and Thuente, ACM TOMS 20(3), 1994)
// as L-BFGS-B calls it: it asks for evaluations until the step satisfies the
// strong Wolfe conditions with ftol and gtol, or reports why it cannot.
type lbLineSearch struct {
	stpmax        float64
	brackt        bool
	stage2        bool
	finit, ginit  float64
	gtest         float64 // ftol·ginit, the sufficient-decrease slope
	b             lbBracket
	stmin, stmax  float64 // the interval the next step is taken from
	width, width1 float64
}

// lbBracket is the best step (stx) and the other end of the interval of
// uncertainty (sty), with function values and derivatives.
type lbBracket struct{ stx, fx, gx, sty, fy, gy float64 }

type lbLSTask int

const (
	lbLSEvaluate  lbLSTask = iota // evaluate at the returned step
	lbLSConverged                 // strong Wolfe conditions hold
	lbLSWarning                   // no further progress possible; accept the step
	lbLSError                     // the search failed
)

const (
	lbXtrapL = 1.1
	lbXtrapU = 4.0
)

// start begins a search from f(0) = f, f'(0) = g < 0 with first trial stp.
func (ls *lbLineSearch) start(f, g, stp, stpmax float64) lbLSTask {
	if stp < 0 || stp > stpmax || g >= 0 {
		return lbLSError
	}
	*ls = lbLineSearch{
		stpmax: stpmax,
		finit:  f, ginit: g, gtest: lbFtol * g,
		width: stpmax, width1: stpmax / 0.5,
		b:     lbBracket{0, f, g, 0, f, g},
		stmax: stp + lbXtrapU*stp,
	}
	return lbLSEvaluate
}

// next takes f(stp) and f'(stp) and returns the next step and what to do.
func (ls *lbLineSearch) next(f, g, stp float64) (float64, lbLSTask) {
	ftest := ls.finit + stp*ls.gtest
	if !ls.stage2 && f <= ftest && g >= 0 {
		ls.stage2 = true
	}
	task := lbLSEvaluate
	if ls.brackt && (stp <= ls.stmin || stp >= ls.stmax) {
		task = lbLSWarning // rounding errors prevent progress
	}
	if ls.brackt && ls.stmax-ls.stmin <= lbXtol*ls.stmax {
		task = lbLSWarning // xtol test satisfied
	}
	if stp == ls.stpmax && f <= ftest && g <= ls.gtest {
		task = lbLSWarning // stp = stpmax
	}
	if stp == 0 && (f > ftest || g >= ls.gtest) {
		task = lbLSWarning // stp = stpmin
	}
	if f <= ftest && math.Abs(g) <= lbGtol*(-ls.ginit) {
		task = lbLSConverged
	}
	if task != lbLSEvaluate {
		return stp, task
	}

	b := &ls.b
	if !ls.stage2 && f <= b.fx && f > ftest {
		// Lower f but not yet sufficient decrease: step on the modified
		// function ψ(α) = f(α) − f(0) − α·gtest, whose minimiser satisfies
		// the sufficient-decrease condition.
		gt := ls.gtest
		mb := lbBracket{b.stx, b.fx - b.stx*gt, b.gx - gt, b.sty, b.fy - b.sty*gt, b.gy - gt}
		stp = lbStep(&mb, stp, f-stp*gt, g-gt, &ls.brackt, ls.stmin, ls.stmax)
		*b = lbBracket{mb.stx, mb.fx + mb.stx*gt, mb.gx + gt, mb.sty, mb.fy + mb.sty*gt, mb.gy + gt}
	} else {
		stp = lbStep(b, stp, f, g, &ls.brackt, ls.stmin, ls.stmax)
	}

	if ls.brackt {
		// Bisect if the interval did not shrink enough in two steps.
		if math.Abs(b.sty-b.stx) >= 0.66*ls.width1 {
			stp = b.stx + 0.5*(b.sty-b.stx)
		}
		ls.width1 = ls.width
		ls.width = math.Abs(b.sty - b.stx)
		ls.stmin, ls.stmax = math.Min(b.stx, b.sty), math.Max(b.stx, b.sty)
	} else {
		ls.stmin = stp + lbXtrapL*(stp-b.stx)
		ls.stmax = stp + lbXtrapU*(stp-b.stx)
	}
	stp = math.Min(math.Max(stp, 0), ls.stpmax)
	if ls.brackt && (stp <= ls.stmin || stp >= ls.stmax || ls.stmax-ls.stmin <= lbXtol*ls.stmax) {
		stp = b.stx // no further progress: go back to the best step
	}
	return stp, lbLSEvaluate
}

// lbStep is MINPACK-2's dcstep: a safeguarded cubic or quadratic step from
// the bracket and the new point (stp, fp, dp), updating the bracket.
func lbStep(b *lbBracket, stp, fp, dp float64, brackt *bool, stpmin, stpmax float64) float64 {
	stx, fx, dx := b.stx, b.fx, b.gx
	sty, fy, dy := b.sty, b.fy, b.gy
	sgnd := dp * (dx / math.Abs(dx))
	// gammaOf is the root term of the cubic interpolating (a, fa, da) and
	// (stp, fp, dp); clipped at zero against rounding.
	gammaOf := func(theta, da float64) float64 {
		s := math.Max(math.Abs(theta), math.Max(math.Abs(da), math.Abs(dp)))
		return s * math.Sqrt(math.Max(0, (theta/s)*(theta/s)-(da/s)*(dp/s)))
	}
	var stpf float64
	switch {
	case fp > fx:
		// Higher f: a minimiser is bracketed. Take the cubic step if it is
		// closer to stx than the quadratic one, else their average.
		theta := 3*(fx-fp)/(stp-stx) + dx + dp
		gamma := gammaOf(theta, dx)
		if stp < stx {
			gamma = -gamma
		}
		p := (gamma - dx) + theta
		q := ((gamma - dx) + gamma) + dp
		stpc := stx + p/q*(stp-stx)
		stpq := stx + ((dx/((fx-fp)/(stp-stx)+dx))/2)*(stp-stx)
		if math.Abs(stpc-stx) < math.Abs(stpq-stx) {
			stpf = stpc
		} else {
			stpf = stpc + (stpq-stpc)/2
		}
		*brackt = true
	case sgnd < 0:
		// Lower f, derivatives of opposite sign: bracketed. Take the step
		// farther from stp of the cubic and the secant step.
		theta := 3*(fx-fp)/(stp-stx) + dx + dp
		gamma := gammaOf(theta, dx)
		if stp > stx {
			gamma = -gamma
		}
		p := (gamma - dp) + theta
		q := ((gamma - dp) + gamma) + dx
		stpc := stp + p/q*(stx-stp)
		stpq := stp + (dp/(dp-dx))*(stx-stp)
		if math.Abs(stpc-stp) > math.Abs(stpq-stp) {
			stpf = stpc
		} else {
			stpf = stpq
		}
		*brackt = true
	case math.Abs(dp) < math.Abs(dx):
		// Lower f, same sign, derivative decreasing in magnitude. The cubic
		// step is used only if the cubic tends to infinity in the direction
		// of the step or its minimum is beyond stp.
		theta := 3*(fx-fp)/(stp-stx) + dx + dp
		gamma := gammaOf(theta, dx)
		if stp > stx {
			gamma = -gamma
		}
		p := (gamma - dp) + theta
		q := (gamma + (dx - dp)) + gamma
		r := p / q
		var stpc float64
		switch {
		case r < 0 && gamma != 0:
			stpc = stp + r*(stx-stp)
		case stp > stx:
			stpc = stpmax
		default:
			stpc = stpmin
		}
		stpq := stp + (dp/(dp-dx))*(stx-stp)
		if *brackt {
			if math.Abs(stpc-stp) < math.Abs(stpq-stp) {
				stpf = stpc
			} else {
				stpf = stpq
			}
			if stp > stx {
				stpf = math.Min(stp+0.66*(sty-stp), stpf)
			} else {
				stpf = math.Max(stp+0.66*(sty-stp), stpf)
			}
		} else {
			if math.Abs(stpc-stp) > math.Abs(stpq-stp) {
				stpf = stpc
			} else {
				stpf = stpq
			}
			stpf = math.Max(stpmin, math.Min(stpmax, stpf))
		}
	default:
		// Lower f, same sign, derivative not decreasing: extrapolate to the
		// limit, or take the cubic step to the far end if bracketed.
		switch {
		case *brackt:
			theta := 3*(fp-fy)/(sty-stp) + dy + dp
			gamma := gammaOf(theta, dy)
			if stp > sty {
				gamma = -gamma
			}
			p := (gamma - dp) + theta
			q := ((gamma - dp) + gamma) + dy
			stpf = stp + p/q*(sty-stp)
		case stp > stx:
			stpf = stpmax
		default:
			stpf = stpmin
		}
	}
	if fp > fx {
		b.sty, b.fy, b.gy = stp, fp, dp
	} else {
		if sgnd < 0 {
			b.sty, b.fy, b.gy = stx, fx, dx
		}
		b.stx, b.fx, b.gx = stp, fp, dp
	}
	return stpf
}

// lbCholUpper factors the n×n block of a at (off, off) as RᵀR, overwriting
// its upper triangle with R (LINPACK dpofa). It reports false if the block is
// not numerically positive definite.
func lbCholUpper(a [][]float64, off, n int) bool {
	for j := range n {
		s := 0.0
		for k := range j {
			t := a[off+k][off+j]
			for i := range k {
				t -= a[off+i][off+k] * a[off+i][off+j]
			}
			t /= a[off+k][off+k]
			a[off+k][off+j] = t
			s += t * t
		}
		s = a[off+j][off+j] - s
		if !(s > 0) {
			return false
		}
		a[off+j][off+j] = math.Sqrt(s)
	}
	return true
}

// lbSolveUpperT solves Rᵀx = b in place for the upper-triangular n×n block
// R of a at (off, off).
func lbSolveUpperT(a [][]float64, off, n int, b []float64) bool {
	for j := range n {
		t := b[j]
		for k := range j {
			t -= a[off+k][off+j] * b[k]
		}
		if a[off+j][off+j] == 0 {
			return false
		}
		b[j] = t / a[off+j][off+j]
	}
	return true
}

// lbSolveUpper solves Rx = b in place for the upper-triangular n×n block R
// of a at (off, off).
func lbSolveUpper(a [][]float64, off, n int, b []float64) bool {
	for j := n - 1; j >= 0; j-- {
		t := b[j]
		row := a[off+j][off:]
		for k := j + 1; k < n; k++ {
			t -= row[k] * b[k]
		}
		if row[j] == 0 {
			return false
		}
		b[j] = t / row[j]
	}
	return true
}

// lbDot is aᵀb. Four partial sums break the dependency chain of a single
// accumulator, which otherwise bounds the speed of every O(n) product.
func lbDot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// lbDotIdx is Σ a[k]·b[k] over k in idx.
func lbDotIdx(a, b []float64, idx []int) float64 {
	var s0, s1 float64
	i := 0
	for ; i+2 <= len(idx); i += 2 {
		k0, k1 := idx[i], idx[i+1]
		s0 += a[k0] * b[k0]
		s1 += a[k1] * b[k1]
	}
	if i < len(idx) {
		k := idx[i]
		s0 += a[k] * b[k]
	}
	return s0 + s1
}
