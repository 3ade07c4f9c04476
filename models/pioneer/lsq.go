package pioneer

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/opt"
)

// lsq is Identify's loss at one temperature as least squares over a batch:
// one residual per measured row and channel, r = √(2·norm·sv)·(v − vm) and
// √(2·norm·sw)·(ω − wm), so that ½‖r‖² is the loss L-BFGS-B minimises
// (the batch's summed cost × norm). The Jacobian with respect to the free
// parameters comes from one forward-mode rollout (dyn.Sim.Jacobian), the
// residuals alone from a value-only rollout (dyn.Sim.Value).
type lsq struct {
	b     *batch
	idx   []int     // free parameters' indices in the model's vector
	sc    []float64 // their scales: the solver's variables are x[idx[i]]/sc[i]
	x     []float64 // the full parameter vector (the free entries overwritten)
	rows  []int     // index into the outputs Y of each residual
	meas  []float64 // the measured value of each residual
	wt    []float64 // the weight √(2·norm·s) of each residual
	j     *dyn.Jac
	evals int
}

// newLSQ lays out the residuals of b's measured rows (the v residuals of
// every run, then the ω residuals).
func newLSQ(b *batch, idx []int, sc []float64, x []float64, norm float64) (*lsq, error) {
	l := &lsq{b: b, idx: idx, sc: sc, x: append([]float64(nil), x...)}
	sv, sw := b.q[len(b.q)-2], b.q[len(b.q)-1]
	for c, s := range []float64{sv, sw} {
		w := math.Sqrt(2 * norm * s)
		for j, r := range b.runs {
			for k := 0; k+1 < len(r.T); k++ {
				vm, wm, wt := r.measured(k + 1)
				if wt == 0 {
					continue
				}
				t := k*b.N + b.N - 1
				l.rows = append(l.rows, (c*b.T+t)*b.B+j)
				l.meas = append(l.meas, []float64{vm, wm}[c])
				l.wt = append(l.wt, w)
			}
		}
	}
	var err error
	if l.j, err = b.sim.NewJac(dyn.Wrt{Params: idx}); err != nil {
		return nil, err
	}
	l.j.JXT, l.j.JCost = nil, nil
	return l, nil
}

// residuals has the signature of opt.Residuals over the scaled free
// parameters z at the batch's current temperature (set by setT).
func (l *lsq) residuals(z, r []float64, jac *mat.Dense) error {
	if len(z) != len(l.idx) || len(r) != len(l.rows) {
		return fmt.Errorf("pioneer: least squares: %d variables and %d residuals, want %d and %d", len(z), len(r), len(l.idx), len(l.rows))
	}
	for i, k := range l.idx {
		l.x[k] = z[i] * l.sc[i]
	}
	l.evals++
	b := l.b
	y := b.y
	if jac == nil {
		if _, err := b.sim.Value(l.x, b.q, b.x0, b.u, b.y); err != nil {
			return err
		}
	} else {
		if err := b.sim.Jacobian(l.x, b.q, b.x0, b.u, l.j); err != nil {
			return err
		}
		y = l.j.Y
	}
	D := l.j.D
	for i, row := range l.rows {
		r[i] = l.wt[i] * (y[row] - l.meas[i])
		if jac == nil {
			continue
		}
		dst, src := jac.RawRowView(i), l.j.JY[row*D:(row+1)*D]
		for d := range dst {
			dst[d] = l.wt[i] * src[d] * l.sc[d]
		}
	}
	return nil
}

// setT sets the batch's surrogate temperature as batch.run does.
func (b *batch) setT(T float64) {
	b.q[b.tIdx] = T
	if b.p.Form == FormPhysical {
		b.q[3] = T * timePerSpeed
	}
}

// The least-squares stages' settings (measured on the tests' drives and
// the sample log: docs/performance.md).
const (
	// lsqStageTol is the FunctionTol of the smoothed stages: each only
	// hands a start to the next, cooler one.
	lsqStageTol = 1e-5
	// lsqExactTol is the FunctionTol of the final stage on the exact
	// model, whose loss Identify reports.
	lsqExactTol = 1e-6
	// lsqRadius is the first trust radius as a fraction of SciPy's ‖x₀‖
	// (in the Coleman–Li scaled variables, where a parameter near a bound
	// counts large): every stage but the first starts at the previous
	// stage's optimum, and a first step across the box lands in another
	// valley of the rough, cooler loss.
	lsqRadius = 0.01
	// snapTol is how close (in the scaled variables) to a bound a
	// stage's solution must be for stageLSQ to try it on the bound.
	snapTol = 1e-6
)

// stageLSQ is one annealing stage at temperature T by least squares from
// the scaled free parameters z (x the full vector, norm the loss's factor,
// lo and hi the scaled bounds). The variables are scaled already
// (XScale 1).
//
// The solver's iterates stay strictly inside the box (Coleman–Li), so a
// parameter whose optimum is on a bound only approaches it, while the exact
// model can jump right at the bound: φ = 0 makes the reference arrive at
// the sample's first internal step, φ = 1e-14 one step h later; a zero
// threshold releases at s = 0 where a positive one holds. So, as L-BFGS-B's
// projection would have them, parameters within snapTol of a bound at the
// end are put on it when that does not raise the stage's loss beyond
// rounding (all together, else one by one; held parameters too, which the
// solver's strictly feasible start moved off a bound), and at T = 0 (the
// exact stage) parameters that start on a bound are held there.
func stageLSQ(b *batch, T float64, idx []int, sc, x []float64, norm float64, z, lo, hi []float64, set opt.Settings) (*opt.Result, error) {
	l, err := newLSQ(b, idx, sc, x, norm)
	if err != nil {
		return nil, err
	}
	b.setT(T)
	n := len(z)
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	flo, fhi := slices.Clone(lo), slices.Clone(hi)
	held := make([]bool, n)
	if T == 0 {
		for i := range z {
			if z[i] == lo[i] || z[i] == hi[i] {
				held[i] = true
				flo[i], fhi[i] = z[i], z[i]
			}
		}
	}
	// Parameters the stage's loss barely depends on at its start (the
	// test of Result.Undetermined: a gradient below 1e-9 of the loss per
	// unit of the scaled parameter; e.g. a saturation never reached) are
	// held: least squares would take long steps along them (the loss
	// does not mind), where L-BFGS-B, whose steps follow the gradient,
	// leaves them near the start.
	{
		res := make([]float64, len(l.rows))
		jac := mat.NewDense(len(l.rows), n, nil)
		if err := l.residuals(z, res, jac); err != nil {
			return nil, err
		}
		var c float64
		for _, v := range res {
			c += v * v / 2
		}
		for i := range n {
			if held[i] {
				continue
			}
			var g float64
			for k, v := range res {
				g += v * jac.At(k, i)
			}
			if math.Abs(g) < 1e-9*math.Max(c, 1e-12) {
				held[i] = true
				flo[i], fhi[i] = z[i], z[i]
			}
		}
	}
	r, err := opt.LeastSquares{TrialJacobian: true, XScale: ones, InitialRadius: lsqRadius}.Solve(
		opt.LSProblem{Residuals: l.residuals, M: len(l.rows), Lower: flo, Upper: fhi}, z, set)
	if err != nil {
		return r, err
	}
	r.FuncEvaluations++
	r.GradEvaluations++
	var near []int
	for i := range n {
		if r.X[i] != lo[i] && r.X[i] != hi[i] && (r.X[i]-lo[i] <= snapTol || hi[i]-r.X[i] <= snapTol) {
			near = append(near, i)
		}
	}
	res := make([]float64, len(l.rows))
	try := func(set []int) (bool, error) {
		zz := slices.Clone(r.X)
		for _, i := range set {
			if zz[i]-lo[i] <= snapTol {
				zz[i] = lo[i]
			} else {
				zz[i] = hi[i]
			}
		}
		r.FuncEvaluations++
		if err := l.residuals(zz, res, nil); err != nil {
			return false, err
		}
		var c float64
		for _, v := range res {
			c += v * v
		}
		// (at T > 0 a move of 1e-10 changes the loss by rounding only)
		if !(c/2 <= r.F*(1+1e-12)) {
			return false, nil
		}
		copy(r.X, zz)
		r.F = c / 2
		return true, nil
	}
	if len(near) == 0 {
		return r, nil
	}
	if ok, err := try(near); err != nil || ok || len(near) == 1 {
		return r, err
	}
	for _, i := range near {
		if _, err := try([]int{i}); err != nil {
			return r, err
		}
	}
	return r, nil
}
