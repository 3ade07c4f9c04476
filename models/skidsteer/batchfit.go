package skidsteer

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/opt"
)

// BatchMethods are the optimisers FitBatch minimises the batch objective
// with: batch (bounded least squares, opt.LeastSquares, over BatchLS's
// residuals and forward-mode Jacobian), lbfgsb (L-BFGS-B on the scalar
// objective, Batch), neldermead and cmaes.
var BatchMethods = []string{"batch", "lbfgsb", "neldermead", "cmaes"}

// BatchLS is the batch objective of Batch as least squares: one residual
// per interval and pose component, r = (pred − z)/σ (σ = SigmaPos for x
// and y, SigmaPsi for ψ), so that ½‖r‖² is Batch's objective. pred is the
// end pose of the interval's window rolled by Model from (0, 0, 0), the
// windows as lanes; the Jacobian with respect to the nine coefficients is
// the final state's from one forward-mode rollout (dyn.Sim.Jacobian: nine
// tangents carried beside the pose, no outputs stored). Residuals without
// a Jacobian are a value-only rollout. Not safe for concurrent use.
type BatchLS struct {
	M    int // 3 residuals per interval: x of every interval, then y, then ψ
	w    int
	sim  *dyn.Sim
	j    *dyn.Jac
	x0   []float64 // zeros, [3][W]
	u    []float64 // [S][3][W]
	z    []float64 // [3][W]
	wt   [3]float64
	cols int
}

// NewBatchLS prepares the least-squares form of the batch objective over
// the intervals.
func NewBatchLS(iv *Intervals, cfg IPEMConfig) (*BatchLS, error) {
	cfg.defaults()
	ws := iv.Windows
	if ws == nil || ws.W == 0 || ws.S == 0 || len(iv.Z) != ws.W {
		return nil, fmt.Errorf("skidsteer: no intervals to fit")
	}
	W := ws.W
	b := &BatchLS{M: 3 * W, w: W, x0: make([]float64, 3*W), u: make([]float64, ws.S*3*W), z: make([]float64, 3*W),
		wt: [3]float64{1 / cfg.SigmaPos, 1 / cfg.SigmaPos, 1 / cfg.SigmaPsi}}
	for s := range ws.S {
		for k := range W {
			i := s*W + k
			b.u[(s*3)*W+k], b.u[(s*3+1)*W+k], b.u[(s*3+2)*W+k] = ws.Vc[i], ws.Wc[i], ws.Dt[i]
		}
	}
	for k, z := range iv.Z {
		b.z[k], b.z[W+k], b.z[2*W+k] = z.X, z.Y, z.Psi
	}
	b.sim = Model.NewSim(W, ws.S)
	j, err := b.sim.NewJac(dyn.Wrt{})
	if err != nil {
		return nil, err
	}
	j.Y, j.JY, j.JCost = nil, nil, nil
	b.j, b.cols = j, j.D
	return b, nil
}

// Residuals has the signature of opt.Residuals over the nine coefficients.
func (b *BatchLS) Residuals(a, r []float64, jac *mat.Dense) error {
	if len(a) != NumCoeffs || len(r) != b.M {
		return fmt.Errorf("skidsteer: BatchLS: %d coefficients and %d residuals, want %d and %d", len(a), len(r), NumCoeffs, b.M)
	}
	var end []float64
	if jac == nil {
		if _, err := b.sim.Value(a, nil, b.x0, b.u, nil); err != nil {
			return err
		}
		end = b.sim.Final()
	} else {
		if rr, cc := jac.Dims(); rr != b.M || cc != NumCoeffs {
			return fmt.Errorf("skidsteer: BatchLS: Jacobian %d×%d, want %d×%d", rr, cc, b.M, NumCoeffs)
		}
		if err := b.sim.Jacobian(a, nil, b.x0, b.u, b.j); err != nil {
			return err
		}
		end = b.j.XT
	}
	for c := range 3 {
		w := b.wt[c]
		for k := range b.w {
			i := c*b.w + k
			r[i] = w * (end[i] - b.z[i])
			if jac == nil {
				continue
			}
			row := jac.RawRowView(i)
			src := b.j.JXT[i*b.cols : (i+1)*b.cols]
			for d := range NumCoeffs {
				row[d] = w * src[d]
			}
		}
	}
	return nil
}

// FitBatch calibrates the slip coefficients in batch: it minimises the
// integrated prediction errors of all intervals (Batch, the objective IPEM
// filters online) by method (one of BatchMethods), the coefficients held
// (by index) fixed at the start cfg.A0 (zero when nil), within the limits
// of s, and returns the optimiser's result and the calibration with its
// Gauss–Newton covariance (Batch.Covariance). progress, when not nil, sees
// every iteration.
func FitBatch(iv *Intervals, cfg IPEMConfig, method string, held [NumCoeffs]bool, s fit.Settings, progress func(iter int, loss float64)) (*opt.Result, *Calibration, error) {
	var m opt.Method
	switch method {
	case "batch":
	case "lbfgsb":
		m = opt.LBFGSB{}
	case "neldermead":
		m = opt.NelderMead{}
	case "cmaes":
		m = opt.CMAES{Seed: 1}
	default:
		return nil, nil, fmt.Errorf("skidsteer: unknown batch method %q (one of %v)", method, BatchMethods)
	}
	x0 := cfg.A0
	if x0 == nil {
		x0 = make([]float64, NumCoeffs)
	}
	if len(x0) != NumCoeffs {
		return nil, nil, fmt.Errorf("skidsteer: %d start coefficients, want %d", len(x0), NumCoeffs)
	}
	var prob opt.Problem
	if held != [NumCoeffs]bool{} {
		prob.Lower, prob.Upper = make([]float64, NumCoeffs), make([]float64, NumCoeffs)
		for k := range NumCoeffs {
			prob.Lower[k], prob.Upper[k] = math.Inf(-1), math.Inf(1)
			if held[k] {
				prob.Lower[k], prob.Upper[k] = x0[k], x0[k]
			}
		}
	}
	set := s.Apply(opt.Settings{Callback: func(it opt.Iteration) bool {
		if progress != nil {
			progress(it.Iter, it.F)
		}
		return true
	}})
	var res *opt.Result
	if m == nil {
		ls, err := NewBatchLS(iv, cfg)
		if err != nil {
			return nil, nil, err
		}
		// The start is usually a = 0, where SciPy's first radius ‖x₀‖
		// degenerates to 1; the model is nearly linear in a, so MINPACK's
		// factor 100 lets the first Gauss–Newton step through (3 iterations
		// instead of 9 on the test log).
		res, err = opt.LeastSquares{TrialJacobian: true, InitialRadius: 100}.Solve(opt.LSProblem{Residuals: ls.Residuals, M: ls.M, Lower: prob.Lower, Upper: prob.Upper}, x0, set)
		if err != nil {
			return nil, nil, err
		}
	} else {
		b, err := NewBatchIntervals(iv, cfg, 0)
		if err != nil {
			return nil, nil, err
		}
		prob.Objective = b.Eval
		if res, err = m.Minimize(prob, x0, set); err != nil {
			return nil, nil, err
		}
	}
	cal, err := GaussNewtonCovariance(iv, res.X, cfg)
	if err != nil {
		return nil, nil, err
	}
	return res, cal, nil
}
