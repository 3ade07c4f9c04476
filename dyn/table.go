package dyn

import "fmt"

// checkKnots panics (a programming error of the definition, reported by
// Define) unless knots has at least two strictly increasing finite values.
func checkKnots(op, axis string, knots []float64) {
	if len(knots) < 2 {
		panic(fmt.Sprintf("dyn.%s: %d knots%s, want at least 2", op, len(knots), axis))
	}
	for i := range len(knots) - 1 {
		lo, hi := knots[i], knots[i+1]
		if !(hi > lo) || !finite(lo) || !finite(hi) {
			panic(fmt.Sprintf("dyn.%s: knots%s %v and %v not strictly increasing and finite", op, axis, lo, hi))
		}
	}
}

// segmentFractions returns, per segment i of the knots, where x lies in
// it: tᵢ = (clamp(x, kᵢ, kᵢ₊₁) − kᵢ)/(kᵢ₊₁ − kᵢ) ∈ [0, 1] (1 for the
// segments left of x, 0 for those right of it). At a knot only the segment
// on its left passes gradient to x (Where(x > kᵢ, Min(x, kᵢ₊₁), kᵢ), as in
// Interp1); beyond the ends none does.
func segmentFractions(t *tape, x X, knots []float64) []X {
	out := make([]X, len(knots)-1)
	for i := range out {
		lo, hi := knots[i], knots[i+1]
		klo := t.constant(lo)
		out[i] = Where(Gt(x, klo), Min(x, t.constant(hi)), klo).SubC(lo).MulC(1 / (hi - lo))
	}
	return out
}

// hats returns the piecewise-linear basis of the knots at x (the hat
// functions: 1 − t₀, tᵢ₋₁ − tᵢ, …, tₙ₋₂; they sum to 1), held constant
// beyond the ends.
func hats(t *tape, x X, knots []float64) []X {
	f := segmentFractions(t, x, knots)
	n := len(knots)
	out := make([]X, n)
	out[0] = f[0].RSubC(1)
	for i := 1; i < n-1; i++ {
		out[i] = f[i-1].Sub(f[i])
	}
	out[n-1] = f[n-2]
	return out
}

// Interp2 is the bilinear table look-up of (x, y) in the grid xKnots ×
// yKnots (each strictly increasing constants) whose values are expressions
// (parameters to identify a power or friction map), row major:
// values[i·len(yKnots) + j] is the value at (xKnots[i], yKnots[j]). It is
// the tensor product of Interp1's piecewise-linear bases,
//
//	f(x, y) = Σᵢ Σⱼ vᵢⱼ · φᵢ(x) · ψⱼ(y),
//
// exact at the knots, linear along each axis within a cell, held constant
// beyond the grid along each axis. The gradient reaches x and y (at a
// knot, the cell on its left or below; 0 beyond the grid) and every value
// (its weight φᵢψⱼ). It costs about 2·nx·ny + 6·(nx + ny) instructions.
func Interp2(x, y X, xKnots, yKnots []float64, values []X) X {
	t := x.check(append([]X{y}, values...)...)
	checkKnots("Interp2", " (x)", xKnots)
	checkKnots("Interp2", " (y)", yKnots)
	nx, ny := len(xKnots), len(yKnots)
	if len(values) != nx*ny {
		panic(fmt.Sprintf("dyn.Interp2: %d values for a %d×%d grid", len(values), nx, ny))
	}
	phi, psi := hats(t, x, xKnots), hats(t, y, yKnots)
	var f X
	for i := range nx {
		r := values[i*ny].Mul(psi[0])
		for j := 1; j < ny; j++ {
			r = r.Add(values[i*ny+j].Mul(psi[j]))
		}
		if i == 0 {
			f = phi[0].Mul(r)
		} else {
			f = f.Add(phi[i].Mul(r))
		}
	}
	return f
}

// Hermite1 is the cubic Hermite table look-up of x in the table
// (knots[i], values[i]) with the slopes slopes[i] at the knots (gonum/interp's
// PiecewiseCubic.FitWithDerivatives): on the segment [kᵢ, kᵢ₊₁] of length
// h, with t = (x − kᵢ)/h,
//
//	f = vᵢ + (3t² − 2t³)(vᵢ₊₁ − vᵢ) + h·((t³ − 2t² + t)·mᵢ + (t³ − t²)·mᵢ₊₁),
//
// continuous with its first derivative, held constant beyond the ends (its
// gradient to x is 0 there). slopes nil takes the finite-difference slopes
// mᵢ = ½((vᵢ₊₁ − vᵢ)/hᵢ + (vᵢ − vᵢ₋₁)/hᵢ₋₁), one-sided at the ends: a
// smooth table through the values, linear in them, so that identified
// values get a gradient as simple as Interp1's. The gradient reaches x and
// every value and slope. It costs about 20 instructions per segment.
func Hermite1(x X, knots []float64, values, slopes []X) X {
	t := x.check(append(append([]X(nil), values...), slopes...)...)
	checkKnots("Hermite1", "", knots)
	n := len(knots)
	if len(values) != n || (slopes != nil && len(slopes) != n) {
		panic(fmt.Sprintf("dyn.Hermite1: %d knots, %d values and %d slopes, want the same number", n, len(values), len(slopes)))
	}
	if slopes == nil {
		secant := make([]X, n-1)
		for i := range secant {
			secant[i] = values[i+1].Sub(values[i]).MulC(1 / (knots[i+1] - knots[i]))
		}
		slopes = make([]X, n)
		slopes[0], slopes[n-1] = secant[0], secant[n-2]
		for i := 1; i < n-1; i++ {
			slopes[i] = secant[i-1].Add(secant[i]).MulC(0.5)
		}
	}
	// f = v₀ + Σᵢ (Fᵢ(clamp(x, kᵢ, kᵢ₊₁)) − vᵢ): the segments left of x
	// telescope to v_s − v₀, those right of it add Fᵢ(kᵢ) − vᵢ = 0.
	f := values[0]
	for i, ti := range segmentFractions(t, x, knots) {
		h := knots[i+1] - knots[i]
		t2 := ti.Mul(ti)
		t3 := t2.Mul(ti)
		h01 := t2.MulC(3).Sub(t3.MulC(2))
		h10 := t3.Sub(t2.MulC(2)).Add(ti)
		h11 := t3.Sub(t2)
		d := h01.Mul(values[i+1].Sub(values[i])).Add(h10.Mul(slopes[i]).Add(h11.Mul(slopes[i+1])).MulC(h))
		f = f.Add(d)
	}
	return f
}
