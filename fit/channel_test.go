package fit

import (
	"math"
	"testing"
)

// NRMSE and fit % against hand-computed values.
func TestChannelFit(t *testing.T) {
	var c Channel
	for k, v := range []float64{1, 2, 3, 4} {
		p := v
		if k == 3 {
			p = 5
		}
		c.Add(0, float64(k), v, p)
	}
	c.Add(0, 9, math.NaN(), 1) // no sample
	f, nrmse, rms := c.Fit()
	// ‖y − ŷ‖ = 1, ‖y − mean‖ = sqrt(2.25+0.25+0.25+2.25) = √5
	if want := 1 / math.Sqrt(5); math.Abs(nrmse-want) > 1e-15 || math.Abs(f-100*(1-want)) > 1e-12 || math.Abs(rms-0.5) > 1e-15 || len(c.T) != 4 {
		t.Errorf("fit %g %%, NRMSE %g, RMS %g over %d; want %g %%, %g, 0.5 over 4", f, nrmse, rms, len(c.T), 100*(1-want), want)
	}
	// a heading wraps: 3.1 measured, −3.1 predicted is 0.0832 rad apart
	a := Channel{Angle: true}
	a.Add(0, 0, 3.1, -3.1)
	a.Add(0, 1, 2.9, 2.9)
	if e := a.Residual(0); math.Abs(e-(6.2-2*math.Pi)) > 1e-12 {
		t.Errorf("wrapped residual %g", e)
	}
	// mean 3.0, ‖y − mean‖ = √0.02, ‖e‖ = 2π − 6.2
	if f, n, _ := a.Fit(); math.Abs(n-(2*math.Pi-6.2)/math.Sqrt(0.02)) > 1e-9 || math.Abs(f-100*(1-n)) > 1e-9 {
		t.Errorf("angle: fit %g, NRMSE %g", f, n)
	}
	var k Channel
	k.Add(0, 0, 1, 1)
	k.Add(0, 1, 1, 2)
	if f, n, _ := k.Fit(); !math.IsInf(n, 1) || !math.IsInf(f, -1) {
		t.Errorf("constant measurement: fit %g, NRMSE %g; want −Inf, +Inf", f, n)
	}
	var e Channel
	if f, n, r := e.Fit(); !math.IsNaN(f) || !math.IsNaN(n) || !math.IsNaN(r) {
		t.Errorf("empty: %g %g %g", f, n, r)
	}
}
