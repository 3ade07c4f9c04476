package skidsteer

import (
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/opt"
)

// BatchMethods are the optimisers FitBatch minimises the batch objective
// with: batch (= lbfgsb, L-BFGS-B), lbfgsb, neldermead and cmaes.
var BatchMethods = []string{"batch", "lbfgsb", "neldermead", "cmaes"}

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
	case "batch", "lbfgsb":
		m = opt.LBFGSB{}
	case "neldermead":
		m = opt.NelderMead{}
	case "cmaes":
		m = opt.CMAES{Seed: 1}
	default:
		return nil, nil, fmt.Errorf("skidsteer: unknown batch method %q (one of %v)", method, BatchMethods)
	}
	b, err := NewBatchIntervals(iv, cfg, 0)
	if err != nil {
		return nil, nil, err
	}
	x0 := cfg.A0
	if x0 == nil {
		x0 = make([]float64, NumCoeffs)
	}
	if len(x0) != NumCoeffs {
		return nil, nil, fmt.Errorf("skidsteer: %d start coefficients, want %d", len(x0), NumCoeffs)
	}
	prob := opt.Problem{Objective: b.Eval}
	if held != [NumCoeffs]bool{} {
		prob.Lower, prob.Upper = make([]float64, NumCoeffs), make([]float64, NumCoeffs)
		for k := range NumCoeffs {
			prob.Lower[k], prob.Upper[k] = math.Inf(-1), math.Inf(1)
			if held[k] {
				prob.Lower[k], prob.Upper[k] = x0[k], x0[k]
			}
		}
	}
	res, err := m.Minimize(prob, x0, s.Apply(opt.Settings{Callback: func(it opt.Iteration) bool {
		if progress != nil {
			progress(it.Iter, it.F)
		}
		return true
	}}))
	if err != nil {
		return nil, nil, err
	}
	cal, err := b.Covariance(res.X)
	if err != nil {
		return nil, nil, err
	}
	return res, cal, nil
}
