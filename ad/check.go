package ad

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// FiniteDiff returns the central-difference gradient of f at x with the
// per-coordinate step h_i = relStep·max(|x_i|, 1) (relStep ≈ 1e-6 balances
// truncation against round-off for smooth float64 functions).
func FiniteDiff(f func(x []float64) (float64, error), x []float64, relStep float64) ([]float64, error) {
	if relStep <= 0 {
		return nil, fmt.Errorf("ad: relStep %g must be positive", relStep)
	}
	xx := append([]float64(nil), x...)
	g := make([]float64, len(x))
	for i := range x {
		h := relStep * math.Max(math.Abs(x[i]), 1)
		xx[i] = x[i] + h
		fp, err := f(xx)
		if err != nil {
			return nil, err
		}
		xx[i] = x[i] - h
		fm, err := f(xx)
		if err != nil {
			return nil, err
		}
		xx[i] = x[i]
		g[i] = (fp - fm) / (2 * h)
	}
	return g, nil
}

// GradCheck compares a gradient with central differences.
type GradCheck struct {
	Grad, Numeric []float64
	MaxAbsErr     float64 // max_i |grad_i − numeric_i|
	MaxRelErr     float64 // max_i |grad_i − numeric_i| / max(|grad_i|, |numeric_i|, scale)
	Worst         int     // index of MaxRelErr
}

func (c GradCheck) String() string {
	return fmt.Sprintf("max abs err %.3g, max rel err %.3g at x[%d] (grad %.10g, numeric %.10g)",
		c.MaxAbsErr, c.MaxRelErr, c.Worst, c.Grad[c.Worst], c.Numeric[c.Worst])
}

// CheckGrad evaluates grad at x and compares it coordinate by coordinate with
// the central differences of f, which should be the native float64 model (not
// the graph) whenever there is one. The relative error of coordinate i is
// taken against max(|grad_i|, |numeric_i|, 1e-3·‖numeric‖∞), so that
// coordinates whose derivative is nearly zero are judged on the scale of the
// whole gradient rather than on their own round-off.
func CheckGrad(f func(x []float64) (float64, error), grad []float64, x []float64, relStep float64) (GradCheck, error) {
	if len(grad) != len(x) {
		return GradCheck{}, fmt.Errorf("ad: gradient has %d values for %d coordinates", len(grad), len(x))
	}
	num, err := FiniteDiff(f, x, relStep)
	if err != nil {
		return GradCheck{}, err
	}
	c := GradCheck{Grad: append([]float64(nil), grad...), Numeric: num}
	var scale float64
	for _, v := range num {
		scale = math.Max(scale, math.Abs(v))
	}
	scale *= 1e-3
	for i := range grad {
		d := math.Abs(grad[i] - num[i])
		den := math.Max(math.Max(math.Abs(grad[i]), math.Abs(num[i])), scale)
		rel := 0.0
		if den > 0 {
			rel = d / den
		}
		if math.IsNaN(d) {
			rel = math.Inf(1)
		}
		c.MaxAbsErr = math.Max(c.MaxAbsErr, d)
		if rel > c.MaxRelErr || (i == 0 && rel == 0) {
			c.MaxRelErr, c.Worst = rel, i
		}
	}
	return c, nil
}

// DirectionalCheck compares the directional derivative ∇f(x)·d along a
// random unit direction d (drawn from seed) with the central difference
// (f(x+hd) − f(x−hd)) / 2h, h = relStep·max(‖x‖∞, 1), and returns the
// relative error. It costs three evaluations whatever the dimension.
func DirectionalCheck(fg func(x []float64) (float64, []float64, error), x []float64, relStep float64, seed uint64) (float64, error) {
	if len(x) == 0 {
		return 0, errors.New("ad: directional check needs a point")
	}
	_, g, err := fg(x)
	if err != nil {
		return 0, err
	}
	if len(g) != len(x) {
		return 0, fmt.Errorf("ad: directional check at a point of %d values, gradient has %d", len(x), len(g))
	}
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	d := make([]float64, len(x))
	var norm, xmax float64
	for i := range d {
		d[i] = r.NormFloat64()
		norm += d[i] * d[i]
		xmax = math.Max(xmax, math.Abs(x[i]))
	}
	norm = math.Sqrt(norm)
	var gd float64
	for i := range d {
		d[i] /= norm
		gd += g[i] * d[i]
	}
	h := relStep * math.Max(xmax, 1)
	xp := make([]float64, len(x))
	xm := make([]float64, len(x))
	for i := range x {
		xp[i] = x[i] + h*d[i]
		xm[i] = x[i] - h*d[i]
	}
	fp, _, err := fg(xp)
	if err != nil {
		return 0, err
	}
	fm, _, err := fg(xm)
	if err != nil {
		return 0, err
	}
	fd := (fp - fm) / (2 * h)
	den := math.Max(math.Max(math.Abs(gd), math.Abs(fd)), 1e-300)
	return math.Abs(gd-fd) / den, nil
}

// directional4 is the fourth-order central difference of f along a random
// unit direction (seed) with step h·max(‖x‖∞, 1), against g·d; it returns
// the relative error.
func directional4(fg func(x []float64) (float64, []float64, error), x, g []float64, relStep float64, seed uint64) (float64, error) {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	d := make([]float64, len(x))
	var norm, xmax float64
	for i := range d {
		d[i] = r.NormFloat64()
		norm += d[i] * d[i]
		xmax = math.Max(xmax, math.Abs(x[i]))
	}
	norm = math.Sqrt(norm)
	var gd float64
	for i := range d {
		d[i] /= norm
		gd += g[i] * d[i]
	}
	h := relStep * math.Max(xmax, 1)
	xs := make([]float64, len(x))
	at := func(s float64) (float64, error) {
		for i := range x {
			xs[i] = x[i] + s*h*d[i]
		}
		f, _, err := fg(xs)
		return f, err
	}
	var f [4]float64
	for i, s := range [4]float64{1, -1, 2, -2} {
		var err error
		if f[i], err = at(s); err != nil {
			return 0, err
		}
	}
	fd := (8*(f[0]-f[1]) - (f[2] - f[3])) / (12 * h)
	den := math.Max(math.Max(math.Abs(gd), math.Abs(fd)), 1e-300)
	return math.Abs(gd-fd) / den, nil
}
