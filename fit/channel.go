package fit

import "math"

// Channel is one measured output of a validation and the model's
// prediction of it, sample by sample.
type Channel struct {
	Name, Unit string
	Angle      bool      // residuals are wrapped to (−π, π]
	T          []float64 // times of the measured samples
	Meas, Pred []float64
	Run        []int // run index of each sample (for colours)
}

// Add appends a sample of run at time t; a NaN measurement (no sample) is
// skipped.
func (c *Channel) Add(run int, t, meas, pred float64) {
	if math.IsNaN(meas) {
		return
	}
	c.T, c.Meas, c.Pred, c.Run = append(c.T, t), append(c.Meas, meas), append(c.Pred, pred), append(c.Run, run)
}

// Residual is measured − predicted at sample k (wrapped for an angle).
func (c *Channel) Residual(k int) float64 {
	e := c.Meas[k] - c.Pred[k]
	if c.Angle {
		e -= 2 * math.Pi * math.Round(e/(2*math.Pi))
	}
	return e
}

// Fit returns MATLAB compare's fit (%), the NRMSE and the RMS error:
//
//	NRMSE = ‖y − ŷ‖ / ‖y − mean(y)‖,   fit = 100·(1 − NRMSE)
//
// (100 % is a perfect prediction, 0 % no better than the mean, negative
// worse). A constant measurement has NRMSE +Inf; no samples give NaN.
func (c *Channel) Fit() (fit, nrmse, rms float64) {
	n := len(c.Meas)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	var mean float64
	for _, v := range c.Meas {
		mean += v
	}
	mean /= float64(n)
	var se, sv float64
	for k := range c.Meas {
		e := c.Residual(k)
		se += e * e
		d := c.Meas[k] - mean
		sv += d * d
	}
	rms = math.Sqrt(se / float64(n))
	nrmse = math.Sqrt(se) / math.Sqrt(sv)
	if sv == 0 {
		nrmse = math.Inf(1)
	}
	return 100 * (1 - nrmse), nrmse, rms
}
