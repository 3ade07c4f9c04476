package pioneer

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/fit"
)

// Sigma is the Gauss–Newton uncertainty of an identification's free
// parameters.
type Sigma struct {
	// Std is each free parameter's σ (Result.Free order), from the exact
	// model's JᵀJ scaled by the residual variance and by Inflation; +Inf
	// for a parameter in a null direction (e.g. a saturation the
	// references never reach: the exact model does not depend on it).
	Std []float64
	// Null are the combinations of free parameters the logs leave free.
	Null []fit.Direction
	// Inflation is the factor for residuals correlated in time
	// (fit.CorrelationInflation of each run's v and ω residuals), ≥ 1.
	Inflation float64
}

// GaussNewton computes the σ of the free parameters of p (an identified
// Params, e.g. Result.Params) on runs: the Jacobian J of the residuals of
// Identify's loss — (v−vm)/sd(vm) and (ω−wm)/sd(wm) over the measured rows
// — by central differences of the exact Simulate (the delays held at p's),
// then fit.Identifiability(JᵀJ) scaled by the residual variance
// s² = Σr²/(n − len(free)) and by the correlation inflation. The model's
// saturations and slope limits make it piecewise smooth: σ is that of the
// linearisation at p. In the thresholds and φ it is piecewise constant:
// their columns are zero (σ = +Inf), never a difference across a jump.
func GaussNewton(p Params, runs []*Run, free []string) (Sigma, error) {
	names := ExperimentalParamNames
	if p.Form == FormPhysical {
		names = PhysicalParamNames
	}
	var idx []int
	for _, f := range free {
		k := slices.Index(names, f)
		if k < 0 {
			return Sigma{}, fmt.Errorf("pioneer: %q is not a parameter of the %s form (%v)", f, p.Form, names)
		}
		idx = append(idx, k)
	}
	var sv, sw stats
	for _, r := range runs {
		for k := 1; k < len(r.T); k++ {
			if v, w, wt := r.measured(k); wt > 0 {
				sv.add(v)
				sw.add(w)
			}
		}
	}
	nv, nw := math.Sqrt(1/math.Max(sv.variance(), 1e-6)), math.Sqrt(1/math.Max(sw.variance(), 1e-6))
	// residuals at x, and per run and channel as series
	resid := func(x []float64) ([]float64, [][]float64, error) {
		q := p.withVector(x)
		var all []float64
		var series [][]float64
		for _, r := range runs {
			v, w, err := Simulate(q, r)
			if err != nil {
				return nil, nil, err
			}
			var rv, rw []float64
			for k := 1; k < len(r.T); k++ {
				if vm, wm, wt := r.measured(k); wt > 0 {
					rv, rw = append(rv, nv*(v[k]-vm)), append(rw, nw*(w[k]-wm))
				}
			}
			all = append(append(all, rv...), rw...)
			series = append(series, rv, rw)
		}
		return all, series, nil
	}
	x := p.vector()
	r0, series, err := resid(x)
	if err != nil {
		return Sigma{}, err
	}
	n, m := len(r0), len(idx)
	if n <= m {
		return Sigma{}, fmt.Errorf("pioneer: %d residuals for %d free parameters", n, m)
	}
	J := mat.NewDense(n, m, nil)
	lo, hi := make([]float64, m), make([]float64, m)
	for j, k := range idx {
		lo[j], hi[j] = bounds(names[k], p.Ts)
		if piecewiseConstant(names[k]) {
			// a difference across one of its jumps is no derivative
			// (at φ = 0, or a threshold on a bound, every one-sided
			// difference is): its column stays zero, a null direction
			continue
		}
		h := 1e-4 * scale(names[k], x[k], p.Ts)
		// stay inside the bounds (a one-sided difference at a bound)
		a, b := math.Max(x[k]-h, lo[j]), math.Min(x[k]+h, hi[j])
		if !(b > a) {
			return Sigma{}, fmt.Errorf("pioneer: %s = %g has no room for a difference within [%g, %g]", names[k], x[k], lo[j], hi[j])
		}
		xa, xb := slices.Clone(x), slices.Clone(x)
		xa[k], xb[k] = a, b
		ra, _, err := resid(xa)
		if err != nil {
			return Sigma{}, fmt.Errorf("pioneer: σ of %s: %w", names[k], err)
		}
		rb, _, err := resid(xb)
		if err != nil {
			return Sigma{}, fmt.Errorf("pioneer: σ of %s: %w", names[k], err)
		}
		for i := range n {
			J.Set(i, j, (rb[i]-ra[i])/(b-a))
		}
	}
	var jtj mat.SymDense
	jtj.SymOuterK(1, J.T())
	fnames := make([]string, m)
	for j, k := range idx {
		fnames[j] = names[k]
	}
	id, err := fit.Identifiability(fnames, &jtj)
	if err != nil {
		return Sigma{}, err
	}
	var ss float64
	for _, v := range r0 {
		ss += v * v
	}
	s := math.Sqrt(ss / float64(n-m))
	infl, _ := fit.CorrelationInflation(series)
	infl = math.Max(infl, 1)
	out := Sigma{Null: id.Null, Inflation: infl}
	for _, sd := range id.Std {
		out.Std = append(out.Std, sd*s*infl)
	}
	return out, nil
}

// piecewiseConstant reports whether the exact model is piecewise constant
// in a parameter: the thresholds at zero velocity (a Heaviside step in
// thr0 + thr1·|slope|) and φ (the reference arrives at the first internal
// step h at or after φ).
func piecewiseConstant(name string) bool {
	switch name {
	case "thr0_v", "thr1_v", "thr0_w", "thr1_w", "phi":
		return true
	}
	return false
}
