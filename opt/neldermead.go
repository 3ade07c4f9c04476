package opt

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/optimize"
)

// NelderMead is gonum's Nelder–Mead simplex method (optimize.NelderMead,
// with its dimension-dependent coefficients) run on an unconstrained
// reparametrisation x = T(z) of the box, one coordinate at a time:
//
//	lo, hi finite:   x = lo + (hi − lo)·sigmoid(z)   (Luo et al. eq. 14)
//	only lo finite:  x = lo + softplus(z)
//	only hi finite:  x = hi − softplus(−z)
//	unbounded:       x = z
//	lo == hi:        fixed, removed from the search
//
// Every point evaluated is therefore feasible. softplus(z) = ln(1 + eᶻ)
// rather than eᶻ keeps a one-sided variable behaving like an unbounded one
// (x ≈ z) away from its bound, so a simplex step means the same there as for
// an unbounded variable. The price of the reparametrisation is that a bound
// is reached only in the limit z → ±∞: a minimiser on a bound is approached
// from inside until the convergence tests below stop the run (or the sigmoid
// rounds to exactly 0 or 1), so do not expect the result to sit exactly on the
// bound. An x0 closer to a bound than 1e-3 of the box width (or 1e-3 for a
// one-sided bound) is moved that far inside, so that z0 is finite.
//
// Iterations are gonum's major iterations after the starting point: first
// the construction of the initial simplex, then each reflection, expansion,
// contraction or shrink step. Convergence is tested on the current simplex,
// which gonum keeps private and this method reconstructs from the sequence of
// evaluations: StepConverged when every vertex is within Settings.StepTol of
// the best one in each coordinate of x, FunctionConverged when the f values
// of the vertices span at most Settings.FunctionTol·max(1, |f|).
// MaxEvaluations is a hard cap. Result.X, Result.F and the trace are the best
// point evaluated (which is always the best vertex), in the original
// coordinates.
type NelderMead struct {
	// InitialStep is the edge length of gonum's initial simplex, which is
	// axis-aligned at z0, in the search coordinates z. For an unbounded
	// variable that is a step in x; for a box variable, a step of s moves x
	// by about s·(hi − lo)/4 near the middle of the box; for a one-sided
	// variable, by s far from the bound. Zero selects gonum's default, 0.05.
	InitialStep float64
}

var _ Method = NelderMead{}

// errNMStop is returned by the gonum Recorder to end a run that our
// recorder or convergence test has stopped; the status is kept in nmRun.stop.
var errNMStop = errors.New("opt: Nelder–Mead stopped")

// Minimize minimises p.Objective from x0 (projected onto the box). If the
// objective fails, the error is returned together with the best point found
// so far (Status Failure); so is gonum's error if the objective is not finite
// at x0.
func (m NelderMead) Minimize(p Problem, x0 []float64, s Settings) (*Result, error) {
	lo, hi, x, err := validate(p, x0)
	if err != nil {
		return nil, err
	}
	if m.InitialStep < 0 || math.IsNaN(m.InitialStep) || math.IsInf(m.InitialStep, 0) {
		return nil, errors.New("opt: NelderMead.InitialStep must be finite and non-negative")
	}
	s = s.withDefaults()
	r := newRecorder(s, lo, hi)
	free := dfFreeCoords(lo, hi)
	if len(free) == 0 {
		return dfMinimizeFixed(p.Objective, r, x)
	}

	run := &nmRun{
		r:     r,
		s:     s,
		obj:   p.Objective,
		t:     newNMBoxMap(lo, hi, x, free),
		x:     slices.Clone(x),
		bestX: slices.Clone(x),
		bestF: math.Inf(1),
	}
	run.simplex.n = len(free)
	z0 := run.t.toZ(x)

	prob := optimize.Problem{Func: run.f, Status: run.status}
	settings := &optimize.Settings{
		// Convergence is decided in Record, after our recorder has seen the
		// iteration: gonum calls the Recorder only while its Converger says
		// NotTerminated, so a Converger that stopped the run would hide the
		// final iteration from the trace and the callback.
		Converger: optimize.NeverTerminate{},
		Recorder:  run,
	}
	res, err := optimize.Minimize(prob, z0, settings, &optimize.NelderMead{SimplexSize: m.InitialStep})

	switch {
	case run.objErr != nil:
		return r.finish(run.bestX, run.bestF, Failure), run.objErr
	case errors.Is(err, errNMStop):
		return r.finish(run.bestX, run.bestF, run.stop), nil
	case err != nil:
		return r.finish(run.bestX, run.bestF, Failure), err
	case res.Status == optimize.FunctionEvaluationLimit:
		// Stopped by run.status at MaxEvaluations, in general in the middle
		// of an iteration: record that partial iteration so the trace ends
		// at the final evaluation count.
		st := r.iterate(run.iter+1, run.bestF, run.bestX)
		if st == NotTerminated {
			st = EvaluationLimit
		}
		return r.finish(run.bestX, run.bestF, st), nil
	case res.Status == optimize.FunctionNegativeInfinity:
		return r.finish(run.bestX, run.bestF, FunctionConverged), nil
	default:
		// Unreachable with NeverTerminate and no gonum limits set.
		return r.finish(run.bestX, run.bestF, Failure), nil
	}
}

// nmRun connects one gonum run to our recorder: it is the objective in z, the
// Problem.Status hook and the optimize.Recorder.
type nmRun struct {
	r     *recorder
	s     Settings
	obj   Objective
	t     *nmBoxMap
	x     []float64 // T(z) for the objective; fixed variables preset
	bestX []float64
	bestF float64

	objErr  error  // the objective's error, which ends the run
	stop    Status // why Record stopped the run
	started bool   // gonum's initial major iteration (the start point) seen
	iter    int
	simplex nmSimplex
}

func (run *nmRun) f(z []float64) float64 {
	run.t.toX(run.x, z)
	f, err := run.r.eval(run.obj, run.x, nil)
	if err != nil {
		// gonum's Func cannot fail: remember the error, let status() end the
		// run right after this evaluation, and give gonum a harmless value.
		run.objErr = err
		return math.Inf(1)
	}
	if f < run.bestF {
		run.bestF = f
		copy(run.bestX, run.x)
	}
	return f
}

// status is gonum's Problem.Status, checked after every evaluation; it
// enforces the objective's errors and MaxEvaluations exactly.
func (run *nmRun) status() (optimize.Status, error) {
	if run.objErr != nil {
		return optimize.Failure, run.objErr
	}
	if run.r.res.FuncEvaluations >= run.s.MaxEvaluations {
		return optimize.FunctionEvaluationLimit, nil
	}
	return optimize.NotTerminated, nil
}

// Init implements optimize.Recorder.
func (run *nmRun) Init() error { return nil }

// Record implements optimize.Recorder. gonum calls it after every evaluation
// and major iteration. The objective runs in a gonum worker goroutine and
// Record in the caller's, but gonum hands each evaluation over a channel
// before recording it, so accesses to run's fields are ordered.
func (run *nmRun) Record(loc *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	switch op {
	case optimize.FuncEvaluation:
		run.simplex.add(loc.X, loc.F)
		return nil
	case optimize.MajorIteration:
	default:
		return nil
	}
	run.simplex.major()
	if !run.started {
		// The first major iteration is gonum's report of the start point,
		// before any simplex exists: iteration 0.
		run.started = true
		return nil
	}
	run.iter++
	// The best vertex is the best point evaluated (any point better than it
	// is accepted into the simplex), so report our copy in x coordinates.
	if st := run.r.iterate(run.iter, run.bestF, run.bestX); st != NotTerminated {
		run.stop = st
		return errNMStop
	}
	if run.simplex.size(run.t) <= run.s.StepTol {
		run.stop = StepConverged
		return errNMStop
	}
	if dfFlat(run.simplex.f, run.s.FunctionTol) {
		run.stop = FunctionConverged
		return errNMStop
	}
	return nil
}

// nmSimplex mirrors the simplex of gonum's NelderMead, which is not exported,
// from the evaluations between major iterations. gonum's update is
// deterministic given the f values: while the initial simplex is built every
// evaluation is a vertex; afterwards an iteration makes one evaluation
// (accepted reflection), two (reflection then expansion or contraction, the
// better of which replaces the worst vertex if it is an improvement), or
// 2 + n (a failed contraction followed by shrinking all but the best vertex,
// which the last n evaluations replace). Only ties between f values can make
// the mirror pick a different vertex than gonum; the convergence tests are
// insensitive to that.
type nmSimplex struct {
	n      int         // free dimension; the simplex has n+1 vertices
	z      [][]float64 // vertices, search coordinates
	f      []float64
	pendZ  [][]float64 // evaluations since the last major iteration
	pendF  []float64
	xa, xb []float64 // scratch for size
}

func (sx *nmSimplex) add(z []float64, f float64) {
	sx.pendZ = append(sx.pendZ, slices.Clone(z))
	sx.pendF = append(sx.pendF, f)
}

// major folds the pending evaluations into the simplex.
func (sx *nmSimplex) major() {
	defer func() {
		clear(sx.pendZ)
		sx.pendZ, sx.pendF = sx.pendZ[:0], sx.pendF[:0]
	}()
	k := len(sx.pendF)
	switch {
	case k == 0:
	case len(sx.f) < sx.n+1:
		sx.z = append(sx.z, sx.pendZ...)
		sx.f = append(sx.f, sx.pendF...)
	case k <= 2:
		b := nmArgMin(sx.pendF)
		w := nmArgMax(sx.f)
		if sx.pendF[b] < sx.f[w] {
			sx.z[w], sx.f[w] = sx.pendZ[b], sx.pendF[b]
		}
	default:
		b := nmArgMin(sx.f)
		j := k - sx.n
		for i := range sx.f {
			if i != b {
				sx.z[i], sx.f[i] = sx.pendZ[j], sx.pendF[j]
				j++
			}
		}
	}
}

// size is the largest distance, per coordinate of x, of a vertex from the
// best one. It is measured in x rather than z so that StepTol has the units
// of the problem, and a coordinate creeping towards a bound converges.
func (sx *nmSimplex) size(t *nmBoxMap) float64 {
	if len(sx.f) < sx.n+1 {
		return math.Inf(1)
	}
	if sx.xa == nil {
		sx.xa = make([]float64, len(t.lo))
		sx.xb = make([]float64, len(t.lo))
	}
	t.toX(sx.xa, sx.z[nmArgMin(sx.f)])
	var d float64
	for _, z := range sx.z {
		t.toX(sx.xb, z)
		for _, i := range t.free {
			d = math.Max(d, math.Abs(sx.xb[i]-sx.xa[i]))
		}
	}
	return d
}

func nmArgMin(v []float64) int {
	k := 0
	for i, x := range v {
		if x < v[k] {
			k = i
		}
	}
	return k
}

func nmArgMax(v []float64) int {
	k := 0
	for i, x := range v {
		if x > v[k] {
			k = i
		}
	}
	return k
}

// nmBoxMap is the coordinate-wise map x = T(z) from the free search variables
// to the box (see NelderMead).
type nmBoxMap struct {
	lo, hi []float64 // full length
	fixed  []float64 // full-length x holding the fixed variables' values
	free   []int
}

// nmInset is how far inside the box x0 is moved, relative to the width of a
// finite box and absolutely for a one-sided bound, when it lies closer to a
// bound: far enough that the simplex does not start in the flat tail of the
// sigmoid or softplus, close enough not to matter as a starting guess.
const nmInset = 1e-3

func newNMBoxMap(lo, hi, x []float64, free []int) *nmBoxMap {
	return &nmBoxMap{lo: lo, hi: hi, fixed: slices.Clone(x), free: free}
}

// toX writes T(z) into the full-length x.
func (t *nmBoxMap) toX(x, z []float64) {
	copy(x, t.fixed)
	for j, i := range t.free {
		lo, hi := t.lo[i], t.hi[i]
		var v float64
		switch loInf, hiInf := math.IsInf(lo, -1), math.IsInf(hi, 1); {
		case !loInf && !hiInf:
			v = lo + (hi-lo)*nmSigmoid(z[j])
		case !loInf:
			v = lo + nmSoftplus(z[j])
		case !hiInf:
			v = hi - nmSoftplus(-z[j])
		default:
			v = z[j]
		}
		// Rounding in lo + (hi−lo)·σ can land an ulp outside the box.
		x[i] = math.Min(math.Max(v, lo), hi)
	}
}

// toZ returns T⁻¹(x) for the free variables, moving x inside by nmInset
// where needed.
func (t *nmBoxMap) toZ(x []float64) []float64 {
	z := make([]float64, len(t.free))
	for j, i := range t.free {
		lo, hi := t.lo[i], t.hi[i]
		switch loInf, hiInf := math.IsInf(lo, -1), math.IsInf(hi, 1); {
		case !loInf && !hiInf:
			u := (x[i] - lo) / (hi - lo)
			u = math.Min(math.Max(u, nmInset), 1-nmInset)
			z[j] = math.Log(u / (1 - u))
		case !loInf:
			z[j] = nmSoftplusInv(math.Max(x[i]-lo, nmInset))
		case !hiInf:
			z[j] = -nmSoftplusInv(math.Max(hi-x[i], nmInset))
		default:
			z[j] = x[i]
		}
	}
	return z
}

func nmSigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// nmSoftplus is ln(1 + eᶻ), computed without overflow.
func nmSoftplus(z float64) float64 {
	return math.Max(z, 0) + math.Log1p(math.Exp(-math.Abs(z)))
}

// nmSoftplusInv is ln(eʸ − 1) for y > 0, computed without overflow.
func nmSoftplusInv(y float64) float64 {
	return y + math.Log(-math.Expm1(-y))
}
