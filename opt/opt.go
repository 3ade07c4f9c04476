package opt

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Objective evaluates f(x). When grad is non-nil (len(grad) == len(x)) it also
// writes ∇f(x) into grad. Derivative-free methods always pass a nil grad.
// An error aborts the optimisation and is returned by Minimize.
type Objective func(x, grad []float64) (float64, error)

// Problem is a function to minimise over a box. Lower and Upper may be nil
// (unbounded on that side); their entries may be ±Inf. A variable with
// Lower[i] == Upper[i] is fixed.
type Problem struct {
	Objective Objective
	Lower     []float64
	Upper     []float64
}

// Status says why a run ended.
type Status int

const (
	NotTerminated     Status = iota
	GradientConverged        // projected gradient (∞-norm) below Settings.GradientTol
	FunctionConverged        // relative reduction of f below Settings.FunctionTol
	StepConverged            // step or simplex/step size below tolerance
	IterationLimit           // Settings.MaxIterations reached
	EvaluationLimit          // Settings.MaxEvaluations reached
	Stopped                  // the Callback returned false
	Failure                  // the method could not make progress from the start (e.g. the first line search failed), or the objective failed
	// Stalled: after some progress, no step could lower f further (a line
	// search failed on a fresh memory): at a kink of a non-smooth loss, at
	// rounding level, or where the gradient disagrees with f. X is the best
	// point found; the convergence tests were not met.
	Stalled
	// StartStationary: the gradient is exactly zero at the start (every
	// component), and f is not constant around it. Nothing tells a
	// gradient method where to go: the start is returned unchanged. It may
	// be the optimum (noise-free data at the true values) or a saddle; the
	// run cannot tell, so it is not reported as converged.
	StartStationary
	// Flat: the gradient is exactly zero and f does not change when any
	// free parameter is moved a little (Result.Flat lists them): a plateau,
	// such as a bound corner where a stiction model never moves, not a
	// minimum. At the start, or where a step landed (typically the first,
	// far from any stationary point of the problem the user meant).
	Flat
	// NonFinite: the objective (or a residual, or a Jacobian entry)
	// returned NaN or ±Inf at the start or, for a gradient, at an accepted
	// point. The method also returns an error naming the parameter or
	// component; X is the best finite point.
	NonFinite
)

func (s Status) String() string {
	switch s {
	case NotTerminated:
		return "not terminated"
	case GradientConverged:
		return "gradient converged"
	case FunctionConverged:
		return "function converged"
	case StepConverged:
		return "step converged"
	case IterationLimit:
		return "iteration limit"
	case EvaluationLimit:
		return "evaluation limit"
	case Stopped:
		return "stopped by callback"
	case Failure:
		return "failure"
	case Stalled:
		return "stalled (no step lowered f)"
	case StartStationary:
		return "zero gradient at the start"
	case Flat:
		return "flat region (f constant)"
	case NonFinite:
		return "non-finite value"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Kind groups the statuses as a user reads them: "converged" (one of the
// convergence tests), "stalled", "iteration limit", "evaluation limit",
// "stopped" (by the callback) or "failed" (no progress from the start, a
// zero gradient at the start, a flat region, a non-finite value, or an
// error).
func (s Status) Kind() string {
	switch {
	case s.Converged():
		return "converged"
	case s == Stalled:
		return "stalled"
	case s == IterationLimit:
		return "iteration limit"
	case s == EvaluationLimit:
		return "evaluation limit"
	case s == Stopped:
		return "stopped"
	}
	return "failed"
}

// Converged reports whether the status is one of the convergence criteria.
func (s Status) Converged() bool {
	return s == GradientConverged || s == FunctionConverged || s == StepConverged
}

// Iteration is what the Callback sees after each iteration; X must not be
// retained or modified by the callback.
type Iteration struct {
	Iter        int           // 1-based iteration number
	F           float64       // best (or current, for line-search methods) f
	X           []float64     // the corresponding x
	Evaluations int           // function evaluations so far
	Elapsed     time.Duration // wall time since Minimize started
}

// TracePoint is one row of the per-iteration trace: a loss curve.
type TracePoint struct {
	Iter        int
	F           float64
	Evaluations int
	Elapsed     time.Duration
}

// Settings are common to every method. Zero values select the defaults.
type Settings struct {
	MaxIterations  int     // default 1000
	MaxEvaluations int     // default 100000 (counts objective calls)
	GradientTol    float64 // projected-gradient ∞-norm; default 1e-8 (L-BFGS-B's pgtol)
	FunctionTol    float64 // relative f reduction, (f_k - f_{k+1})/max(|f_k|,|f_{k+1}|,1); default 1e-12 (≈ L-BFGS-B's factr·eps)
	StepTol        float64 // default 1e-12: simplex size (Nelder–Mead), σ·max√C (CMA-ES)
	FTarget        float64 // stop as soon as f ≤ FTarget (default -Inf: never)
	// StallIterations and StallTol stop a run whose f improved by less than
	// StallTol·|f| over the last StallIterations iterations (status
	// FunctionConverged). Off when StallIterations is 0. Per-iteration tests
	// cannot see a long, slow crawl: a path-following loss already below
	// a millimetre can creep on for thousands of iterations.
	StallIterations int
	StallTol        float64
	Callback        func(Iteration) bool
	// Names[i], when present and not empty, names parameter i in
	// Result.Reason and in errors ("x[2] (mu)"); otherwise it is "x[2]".
	Names []string
}

// withDefaults fills zero fields.
func (s Settings) withDefaults() Settings {
	if s.MaxIterations <= 0 {
		s.MaxIterations = 1000
	}
	if s.MaxEvaluations <= 0 {
		s.MaxEvaluations = 100000
	}
	if s.GradientTol <= 0 {
		s.GradientTol = 1e-8
	}
	if s.FunctionTol <= 0 {
		s.FunctionTol = 1e-12
	}
	if s.StepTol <= 0 {
		s.StepTol = 1e-12
	}
	if s.FTarget == 0 {
		s.FTarget = math.Inf(-1)
	}
	return s
}

// Result is one run of any method.
type Result struct {
	X               []float64
	F               float64
	Iterations      int
	FuncEvaluations int // objective calls
	GradEvaluations int // objective calls that also computed the gradient
	Trace           []TracePoint
	Status          Status
	Runtime         time.Duration
	// AtLower and AtUpper list the parameters (indices, increasing) that end
	// on their lower or upper bound (within 1e-10 relative, as SciPy's
	// active_mask), fixed parameters (Lower == Upper) excluded. A converged
	// run with parameters on bounds is converged on the box: those values
	// are set by the bound, not by the data, and their σ is not meaningful.
	AtLower, AtUpper []int
	// Flat lists, for status Flat, the parameters along which f did not
	// change.
	Flat []int
	// Reason is one sentence saying what the status means for this run and
	// naming the parameters concerned (on bounds, flat, non-finite).
	Reason string
}

// Method is an optimisation algorithm.
type Method interface {
	Minimize(p Problem, x0 []float64, s Settings) (*Result, error)
}

// ErrDimension is returned (wrapped) when x0 and the bounds disagree in length.
var ErrDimension = errors.New("opt: dimension mismatch")

// validate checks dimensions and bounds and returns full-length lower and
// upper vectors (±Inf where unbounded) and x0 projected onto the box.
func validate(p Problem, x0 []float64) (lo, hi, x []float64, err error) {
	n := len(x0)
	if n == 0 {
		return nil, nil, nil, fmt.Errorf("%w: empty x0", ErrDimension)
	}
	if p.Objective == nil {
		return nil, nil, nil, errors.New("opt: nil objective")
	}
	if p.Lower != nil && len(p.Lower) != n {
		return nil, nil, nil, fmt.Errorf("%w: len(Lower) = %d, len(x0) = %d", ErrDimension, len(p.Lower), n)
	}
	if p.Upper != nil && len(p.Upper) != n {
		return nil, nil, nil, fmt.Errorf("%w: len(Upper) = %d, len(x0) = %d", ErrDimension, len(p.Upper), n)
	}
	lo = make([]float64, n)
	hi = make([]float64, n)
	x = make([]float64, n)
	for i := range n {
		lo[i], hi[i] = math.Inf(-1), math.Inf(1)
		if p.Lower != nil {
			lo[i] = p.Lower[i]
		}
		if p.Upper != nil {
			hi[i] = p.Upper[i]
		}
		if math.IsNaN(lo[i]) || math.IsNaN(hi[i]) || lo[i] > hi[i] {
			return nil, nil, nil, fmt.Errorf("opt: bounds of x[%d] are [%g, %g]", i, lo[i], hi[i])
		}
		if math.IsNaN(x0[i]) || math.IsInf(x0[i], 0) {
			return nil, nil, nil, fmt.Errorf("opt: x0[%d] = %g", i, x0[i])
		}
		x[i] = math.Min(math.Max(x0[i], lo[i]), hi[i])
	}
	return lo, hi, x, nil
}

// recorder does the bookkeeping every method shares: counting evaluations,
// the trace, and the callback.
type recorder struct {
	s      Settings
	start  time.Time
	res    *Result
	lo, hi []float64
	detail string // set by the method: appended to Reason
	// The range of the finite f values seen, over seen evaluations: a run
	// that never saw f change learned nothing (finish reports Flat).
	fLo, fHi float64
	seen     int
}

func newRecorder(s Settings, lo, hi []float64) *recorder {
	return &recorder{s: s, start: time.Now(), res: &Result{X: make([]float64, len(lo)), F: math.Inf(1)}, lo: lo, hi: hi}
}

// eval calls the objective and counts it. A NaN f is returned as an error.
func (r *recorder) eval(obj Objective, x, grad []float64) (float64, error) {
	r.res.FuncEvaluations++
	if grad != nil {
		r.res.GradEvaluations++
	}
	f, err := obj(x, grad)
	if err != nil {
		return f, err
	}
	if math.IsNaN(f) {
		return f, nonFiniteError{fmt.Errorf("opt: objective returned NaN at evaluation %d", r.res.FuncEvaluations)}
	}
	if !math.IsInf(f, 0) {
		if r.seen == 0 || f < r.fLo {
			r.fLo = f
		}
		if r.seen == 0 || f > r.fHi {
			r.fHi = f
		}
		r.seen++
	}
	return f, nil
}

// iterate records iteration k (1-based) with current f and x; it returns a
// non-zero status when the run must stop (callback, limits or target).
func (r *recorder) iterate(k int, f float64, x []float64) Status {
	el := time.Since(r.start)
	r.res.Iterations = k
	r.res.Trace = append(r.res.Trace, TracePoint{Iter: k, F: f, Evaluations: r.res.FuncEvaluations, Elapsed: el})
	if r.s.Callback != nil && !r.s.Callback(Iteration{Iter: k, F: f, X: x, Evaluations: r.res.FuncEvaluations, Elapsed: el}) {
		return Stopped
	}
	if f <= r.s.FTarget {
		return FunctionConverged
	}
	if w := r.s.StallIterations; w > 0 && len(r.res.Trace) > w {
		old := r.res.Trace[len(r.res.Trace)-1-w].F
		if old-f <= r.s.StallTol*math.Abs(f) {
			r.detail = fmt.Sprintf("f improved by %.3g (at most StallTol·|f| = %.3g) over the last %d iterations", old-f, r.s.StallTol*math.Abs(f), w)
			return FunctionConverged
		}
	}
	if k >= r.s.MaxIterations {
		return IterationLimit
	}
	if r.res.FuncEvaluations >= r.s.MaxEvaluations {
		return EvaluationLimit
	}
	return NotTerminated
}

// finish stores the final point and status, the parameters on bounds and
// the reason.
func (r *recorder) finish(x []float64, f float64, st Status) *Result {
	if free := freeIndices(r.lo, r.hi); st.Converged() && r.seen >= 2 && r.fLo == r.fHi && len(free) > 0 {
		// Every point evaluated had the same f: "converged" would pass a
		// plateau off as a minimum (a derivative-free method's simplex or
		// population on it).
		st = Flat
		r.res.Flat = free
	}
	copy(r.res.X, x)
	r.res.F = f
	r.res.Status = st
	r.res.AtLower, r.res.AtUpper = activeBounds(x, r.lo, r.hi)
	r.res.Reason = r.reason()
	r.res.Runtime = time.Since(r.start)
	return r.res
}

// activeBounds lists the parameters on their lower and upper bounds, by
// SciPy's find_active_constraints with rtol 1e-10: within
// 1e-10·max(1, |bound|) of it and not nearer the other one.
func activeBounds(x, lo, hi []float64) (atLo, atHi []int) {
	for i := range min(len(x), len(lo), len(hi)) {
		if lo[i] == hi[i] {
			continue
		}
		dl, du := x[i]-lo[i], hi[i]-x[i]
		switch {
		case !math.IsInf(lo[i], 0) && dl <= math.Min(du, 1e-10*math.Max(1, math.Abs(lo[i]))):
			atLo = append(atLo, i)
		case !math.IsInf(hi[i], 0) && du <= math.Min(dl, 1e-10*math.Max(1, math.Abs(hi[i]))):
			atHi = append(atHi, i)
		}
	}
	return atLo, atHi
}

// name is parameter i as the user knows it: "x[2]", or "x[2] (mu)" when
// Settings.Names names it.
func (s Settings) name(i int) string {
	if len(s.Names) > i && s.Names[i] != "" {
		return fmt.Sprintf("x[%d] (%s)", i, s.Names[i])
	}
	return fmt.Sprintf("x[%d]", i)
}

// names joins the names of the parameters idx.
func (s Settings) names(idx []int) string {
	var b strings.Builder
	for k, i := range idx {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.name(i))
	}
	return b.String()
}

// reason is Result.Reason: the status in words, what the method found,
// and the parameters on bounds.
func (r *recorder) reason() string {
	res := r.res
	msg := fmt.Sprintf("%s after %d iterations", res.Status, res.Iterations)
	switch {
	case res.Status == StartStationary:
		msg += ": every gradient component is exactly zero at the start, which was returned unchanged (an optimum or a saddle: the method cannot tell)"
	case res.Status == Flat:
		msg += ": f does not change along " + r.s.names(res.Flat) + " (a plateau, not a minimum)"
	}
	if res.Status != Flat && len(res.Flat) > 0 {
		msg += "; the gradient is exactly zero and f does not change along " + r.s.names(res.Flat) + " (not determined by f)"
	}
	if r.detail != "" {
		msg += ": " + r.detail
	}
	if len(res.AtLower) > 0 {
		msg += "; on the lower bound: " + r.s.names(res.AtLower)
	}
	if len(res.AtUpper) > 0 {
		msg += "; on the upper bound: " + r.s.names(res.AtUpper)
	}
	return msg
}
