package fit

import (
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/opt"
)

// EstimateStart estimates the initial state of a validation rollout, as
// MATLAB's compare does by default (InitialCondition 'e'): the start x0 that
// minimises the prediction error of the model's own rollout over the run,
// instead of the first (noisy) measured sample.
//
// predict rolls the model from the start x0 and returns its channels (the
// measured samples and the predictions, as for a validation); the samples
// must not depend on x0. Each channel's residuals are divided by the spread
// of its measurement ‖y − mean(y)‖ (1 where that is 0), so that the cost is
// Σ NRMSE² over the channels, the quantity compare's fit % reports, and
// channels of different units weigh alike. The minimisation is
// opt.LeastSquares (trust-region reflective) with a numerical Jacobian
// (opt.NumericalJacobian); x0 is the first guess (typically the first
// measured state). The rollout must be deterministic and smooth in x0.
//
// It returns the estimated start and the channels predicted from it. A
// failed or non-converged solve that still lowered the cost is kept; one
// that did not returns x0's channels unchanged.
func EstimateStart(x0 []float64, predict func(x0 []float64) ([]Channel, error)) ([]float64, []Channel, error) {
	first, err := predict(x0)
	if err != nil {
		return nil, nil, err
	}
	scale := make([]float64, len(first))
	m := 0
	for i := range first {
		c := &first[i]
		m += len(c.Meas)
		var mean, sv float64
		for _, v := range c.Meas {
			mean += v
		}
		mean /= float64(max(len(c.Meas), 1))
		for _, v := range c.Meas {
			sv += (v - mean) * (v - mean)
		}
		scale[i] = 1
		if s := math.Sqrt(sv); s > 0 && !math.IsInf(s, 0) {
			scale[i] = 1 / s
		}
	}
	if m == 0 || len(x0) == 0 {
		return append([]float64(nil), x0...), first, nil
	}
	fill := func(chs []Channel, r []float64) error {
		if len(chs) != len(first) {
			return fmt.Errorf("fit.EstimateStart: predict returned %d channels, then %d", len(first), len(chs))
		}
		j := 0
		for i := range chs {
			c := &chs[i]
			if len(c.Meas) != len(first[i].Meas) {
				return fmt.Errorf("fit.EstimateStart: channel %s has %d samples, then %d", c.Name, len(first[i].Meas), len(c.Meas))
			}
			for k := range c.Meas {
				r[j] = scale[i] * c.Residual(k)
				j++
			}
		}
		return nil
	}
	cost := func(chs []Channel) float64 {
		r := make([]float64, m)
		if fill(chs, r) != nil {
			return math.Inf(1)
		}
		var s float64
		for _, v := range r {
			s += v * v
		}
		if math.IsNaN(s) {
			return math.Inf(1)
		}
		return s
	}
	f := func(x, r []float64) error {
		chs, err := predict(x)
		if err != nil {
			return err
		}
		return fill(chs, r)
	}
	res, err := opt.LeastSquares{}.Solve(opt.LSProblem{Residuals: opt.NumericalJacobian(f, m, nil, nil), M: m}, x0, opt.Settings{MaxIterations: 100})
	if res == nil || len(res.X) != len(x0) {
		if err != nil {
			return nil, nil, err
		}
		return append([]float64(nil), x0...), first, nil
	}
	best, err2 := predict(res.X)
	if err2 != nil || !(cost(best) < cost(first)) {
		return append([]float64(nil), x0...), first, nil
	}
	return res.X, best, nil
}
