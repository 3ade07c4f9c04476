package mecanum

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/losses"
	"github.com/wheelgrad/wheelgrad/opt"
)

// linEq8 is eq. 8 with the rollout linearised at a point x̄ and everything
// else exact: each counted camera sample's predicted position p and marker
// point q are p̄ + G_p·δ and q̄ + G_q·δ (their forward sensitivities at x̄
// over μ and the run's own start pose, from Model's generated tangent
// kernel: linearize), and the loss of
// those points is eq. 8's own — the distances to the measured position
// and marker, and the distance to the spline from the closest-point
// search, not a linearisation of it.
//
// Why: on a spline through noisy samples the spline term is far from
// linear along the path (the predicted points slide along the curve,
// which the term does not resist, so those moves are the long ones, and
// the curve bends and wiggles under them: measured on the demo-like logs,
// the distance's tangent-plane model misses the loss change from the
// squares' optimum to eq. 8's by 7e-3, more than the whole change of
// 8e-3), while the rollout is nearly linear over the same step (the
// position and marker terms' linear model missed by 3e-6). So each step
// of the search of a kinked, curved loss is taken on this model, second
// order in the position and marker terms, with the spline term's kinks
// and branches (linEq8.sqp: Gauss–Newton steps that search the closest
// points again at every trial point), and the rollout is linearised again
// at each trial point (Fit.linearStage).
type linEq8 struct {
	f     *Fit
	x     []float64 // x̄
	terms []linTerm
	warm  []losses.Warm
	held  []int // the last sqp subproblem's held terms (its next start)
	// sqp's current and trial models (made at its first call)
	sqpStates [2]*sqpState
	d         []float64 // δ of the current evaluation
	// the forward-mode rollout: Model over the runs (dynFit's inputs and
	// camera lanes, which are the terms), its Jacobian at the camera rows,
	// and each term's row in it
	dyn *dynFit
	jac *dyn.Jac
	row []int
	// rolled: the terms are the rollout's at x (linearize at the same x
	// again makes none); rollouts counts the rollouts made
	rolled   bool
	rollouts int
	// branchR is a quarter of the mean distance from the measured
	// positions at x̄ (the noise's scale): hessEval keeps a spline term's
	// other branches within branchR of its distance (see linEq8.sqp), and
	// brAt is where each term's were last searched (linEq8.branches)
	branchR float64
	brAt    []brMemo
	// first: per row t·B + b of the rollout, the index of its first term
	// in jac.Rows (newLinEq8's buffer)
	first []int32
}

// branchFrac is linEq8.branchR over the mean position error: on four
// sets with runs that pass their own path again (the demo-like logs and
// three more), 1 and 0.3 gave the same evaluations (44 in all), 0.1 one
// more, 0.03 four more (measured with the rollout held over each search,
// before Fit.linearStage linearised at every trial point); the search's
// cost grows with it.
const branchFrac = 0.25

// sqpBranches: linEq8.sqp keeps the spline terms' other branches (tests
// compare with and without).
var sqpBranches = true

// brMemo is where linEq8.branches last searched a term (NaN: not yet)
// and whether it found branches.
type brMemo struct {
	x, y float64
	any  bool
}

// linTerm is one counted camera sample of linEq8.
type linTerm struct {
	run    int
	k      int           // its camera sample in the run
	e, q   [2]float64    // position and marker errors at x̄ (p̄ − p_gt, q̄ − q_gt)
	gp, gq [2][7]float64 // their rows over μ_1..μ_4 and the run's x0, y0, θ0
}

// linearize returns linEq8 at x (PoseFree): one forward-mode rollout of
// Model (the generated tangent kernel over the runs as lanes, with respect
// to μ and each lane's start pose, stored at the camera rows only), without
// the closest-point searches. The marker point's rows add
// −ℓ·(cos θ, sin θ)·∂θ to the position's.
func (f *Fit) linearize(x []float64, old *linEq8) (*linEq8, error) {
	m := old
	if m == nil {
		var err error
		if m, err = f.newLinEq8(); err != nil {
			return nil, err
		}
	}
	d, j := m.dyn, m.jac
	m.f = f // old may be another Fit's over the same runs (other weights)
	if m.rolled && slices.Equal(m.x, x) {
		return m, nil // the rows at x already: the rollout is the same
	}
	m.rolled = false
	m.x = append(m.x[:0], x...)
	B := d.B
	for si := range f.segs {
		p0 := f.pose(x, si)
		for c := range 3 {
			d.x0[c*B+si] = p0[c]
		}
	}
	if err := d.sim.Jacobian(x[:4], d.q, d.x0, d.u, j); err != nil {
		return nil, err
	}
	TB, K, ell := d.T*B, len(j.Rows), f.ell
	var ebar float64
	for k, at := range d.at {
		s := &f.segs[d.seg[k]]
		i := d.sample[k]
		px, py, th := j.Y[at], j.Y[TB+at], j.Y[2*TB+at]
		sn, cs := math.Sincos(th)
		r := m.row[k]
		jx, jy, jt := j.JY[r*7:(r+1)*7], j.JY[(K+r)*7:(K+r+1)*7], j.JY[(2*K+r)*7:(2*K+r+1)*7]
		t := &m.terms[k]
		*t = linTerm{run: d.seg[k], k: i,
			e: [2]float64{px - s.gx[i], py - s.gy[i]},
			q: [2]float64{px - ell*sn - s.qx[i], py + ell*cs - s.qy[i]}}
		for c := range 7 {
			t.gp[0][c], t.gp[1][c] = jx[c], jy[c]
			t.gq[0][c], t.gq[1][c] = jx[c]-ell*cs*jt[c], jy[c]-ell*sn*jt[c]
		}
		ebar += math.Sqrt(t.e[0]*t.e[0] + t.e[1]*t.e[1])
	}
	if m.rollouts == 0 {
		// the branches' radius and memos for the linEq8's life (a search
		// holds whatever the linearisation)
		m.branchR = 0
		if len(d.at) > 0 && sqpBranches {
			m.branchR = branchFrac * ebar / float64(len(d.at))
		}
		for i := range m.brAt {
			m.brAt[i] = brMemo{x: math.NaN()}
		}
	}
	m.rolled = true
	m.rollouts++
	return m, nil
}

// linPool keeps linEq8s that an identification is done with (Identify
// puts its own back), so that the next identification of logs of the
// same shape (runs, steps, camera samples) takes their buffers: the
// rollout's Sim and inputs, its Jacobian, the terms, the closest points'
// memories and sqp's states, about 1.7 MB, which were a fifth of the
// identification's time where it ran again and again (the fresh memory's
// page faults and the collector's work, measured on the demo-like logs);
// SquaredLS keeps its own the same way (squaredPool).
var linPool sync.Pool

// newLinEq8 is linearize's linEq8 for f before its first rollout, in the
// buffers of one from linPool where they fit.
func (f *Fit) newLinEq8() (*linEq8, error) {
	old, _ := linPool.Get().(*linEq8)
	m := &linEq8{f: f}
	var oldDyn *dynFit
	if old != nil {
		oldDyn = old.dyn
	}
	d := f.newDynFitFrom(oldDyn)
	m.dyn = d
	K, n := len(d.at), f.Dim()
	// the rows in order (a counting sort over the T·B rows: each term's
	// row is then its first in rows, with no search)
	if old != nil && len(old.first) == d.T*d.B {
		m.first = old.first
		clear(m.first)
	} else {
		m.first = make([]int32, d.T*d.B)
	}
	first := m.first
	for _, r := range d.at {
		first[r]++
	}
	rows := make([]int, 0, K)
	for r, c := range first {
		first[r] = int32(len(rows))
		for range c {
			rows = append(rows, r)
		}
	}
	if old != nil && d.sim == old.dyn.sim && slices.Equal(rows, old.jac.Rows) {
		m.jac = old.jac // the same rows of the same Sim
	} else {
		j, err := d.sim.NewJac(dyn.Wrt{X0: true, Rows: rows})
		if err != nil {
			return nil, err
		}
		if j.D != 7 {
			return nil, fmt.Errorf("mecanum: %d Jacobian columns per run, want 7", j.D)
		}
		j.JXT, j.JCost = nil, nil
		m.jac = j
	}
	if old != nil && len(old.terms) == K {
		m.terms, m.row, m.warm, m.brAt = old.terms, old.row, old.warm, old.brAt
		for i := range m.warm {
			m.warm[i].Reset()
		}
		m.held = old.held[:0]
		if s := old.sqpStates[0]; s != nil && s.n == n {
			m.sqpStates = old.sqpStates
		}
		m.x = old.x[:0]
	} else {
		m.terms, m.row, m.warm, m.brAt = make([]linTerm, K), make([]int, K), losses.NewWarms(K), make([]brMemo, K)
	}
	for k, r := range d.at {
		m.row[k] = int(first[r])
	}
	if old != nil && len(old.d) == n {
		m.d = old.d
		clear(m.d)
	} else {
		m.d = make([]float64, n)
	}
	return m, nil
}

// sqpTol: the model's minimisation (linEq8.sqp) stops when its step is
// predicted to lower the model by less than sqpTol of itself, or the
// settings' FunctionTol when that is set (Identify sets its default,
// 2.2e-9).
const sqpTol = 1e-9

// sqpNoiseTol: a step of linEq8.sqp predicted to lower the model by less
// than this (relative) that does not lower it ends the search: closest
// points that jump between branches of the curve, which the model does
// not see, move the loss by as much. On four short runs such steps
// predicted 3e-9 and raised the loss by 5e-9 ten times in a row.
const sqpNoiseTol = 1e-8

// sqpMaxIter caps linearStage's iterations.
const sqpMaxIter = 100

// linearStage minimises eq. 8 from x1 by linEq8 (see the type) with
// linEq8.sqp's steps, the rollout linearised again at every trial point
// (so each step's model is exact at its start, and a trial's loss is
// eq. 8's): it stops where a step is predicted to lower the loss by less
// than the settings' FunctionTol of it (sqpTol without one). It returns
// the result (F eq. 8 at X; an evaluation per trial point, each a rollout
// and the model there), the rollouts of m (old's at x1 among them, made
// by the first stage's precondition), or nil if a step was tried and
// none lowered eq. 8 (the caller then searches eq. 8 itself). Where the
// model at x1 predicts no decrease above the tolerance, x1 is eq. 8's
// minimum to first order (the model has eq. 8's value and directional
// derivatives there) and the result is x1 itself, FunctionConverged after
// one evaluation: the first stage had already landed on it. old, if not nil, lends
// its buffers (a linEq8 of a Fit over the same runs). set's Callback sees
// each iteration (X the point in f's layout) and MaxIterations caps them.
//
// The stage before linearised once per sqp and moved the model's δ over
// it, linearising again at its answer until model and eq. 8 agreed there:
// a model evaluation then cost less than a rollout. Since the rollout's
// tangents are stored at the camera rows only (about 0.2 ms for the
// demo-like logs, the model's evaluation 0.3 ms), a rollout per trial
// costs less than the linearisation error's extra steps: on the demo-like
// logs 5 rollouts and 5 evaluations of the model where it took 2 and 8,
// 10 % less time, to the same minimum (losses within 5e-10 relative,
// μ within 0.002 σ, on six sets; measured with 20 passes over the
// branches, see branchPasses).
func (f *Fit) linearStage(x1 []float64, set opt.Settings, old *linEq8) (*opt.Result, int, error) {
	start := time.Now()
	n := f.Dim()
	m, err := f.linearize(x1, old)
	if err != nil {
		return nil, 0, err
	}
	total := &opt.Result{Status: opt.FunctionConverged}
	maxIter := sqpMaxIter
	if set.MaxIterations > 0 {
		maxIter = set.MaxIterations
	}
	tol := sqpTol
	if set.FunctionTol > 0 {
		tol = set.FunctionTol
	}
	x0 := slices.Clone(x1)
	xn := make([]float64, n)
	stopped := false
	evals := 1 // the model at x1, then one per trial point (relin)
	hook := func(Fc float64, d []float64) bool {
		total.Iterations++
		for i := range xn {
			xn[i] = x0[i] + d[i]
		}
		el := time.Since(start)
		total.Trace = append(total.Trace, opt.TracePoint{Iter: total.Iterations, F: Fc, Evaluations: evals, Elapsed: el})
		if set.Callback != nil && !set.Callback(opt.Iteration{Iter: total.Iterations, F: Fc, X: xn, Evaluations: evals, Elapsed: el}) {
			stopped = true
		}
		return !stopped && total.Iterations < maxIter
	}
	xr := make([]float64, n)
	relin := func(d []float64) error {
		evals++
		for i := range xr {
			xr[i] = x0[i] + d[i]
		}
		_, err := f.linearize(xr, m)
		return err
	}
	F, nev, err := m.sqp(m.d, tol, hook, relin)
	if errors.Is(err, errNotPD) {
		return nil, m.rollouts, nil
	}
	if err != nil {
		return nil, m.rollouts, err
	}
	total.FuncEvaluations, total.GradEvaluations = nev, nev
	if total.Iterations <= 1 && !stopped && nev > 1 {
		return nil, m.rollouts, nil
	}
	switch {
	case stopped:
		total.Status = opt.Stopped
	case total.Iterations >= maxIter:
		total.Status = opt.IterationLimit
	}
	total.X = make([]float64, n)
	for i := range n {
		total.X[i] = x0[i] + m.d[i]
	}
	total.F = F
	return total, m.rollouts, nil
}
