package dyn

import (
	"fmt"
	"sort"
	"strconv"
)

// Vec names the n lanes of a vector: name0, …, name(n−1), for a Spec list
// (Params: dyn.Vec("w", 99) declares the 99 weights of a network residual).
func Vec(name string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = name + strconv.Itoa(i)
	}
	return out
}

// ParamVec returns the n parameters name0, …, name(n−1) declared with Vec.
func (s *Step) ParamVec(name string, n int) []X { return s.vec(s.Param, name, n) }

// InputVec returns the n inputs name0, …, name(n−1) declared with Vec.
func (s *Step) InputVec(name string, n int) []X { return s.vec(s.Input, name, n) }

func (s *Step) vec(leaf func(string) X, name string, n int) []X {
	out := make([]X, n)
	for i, nm := range Vec(name, n) {
		out[i] = leaf(nm)
	}
	return out
}

// Interp1 is the piecewise-linear table look-up of x in the table
// (knots[i], values[i]) (knots strictly increasing constants, values
// expressions: parameters to identify a motor table), held constant beyond
// the ends, as gonum/interp's PiecewiseLinear inside its range:
//
//	f(x) = v₀ + Σᵢ (vᵢ₊₁ − vᵢ)/(kᵢ₊₁ − kᵢ) · (clamp(x, kᵢ, kᵢ₊₁) − kᵢ).
//
// The gradient reaches x (the segment's slope; at a knot the slope of the
// segment on its left, 0 beyond the ends) and every value (the hat
// functions' weights). It costs about seven instructions per segment (a
// dedicated table op, issue 21 item 5, would cost one).
func Interp1(x X, knots []float64, values []X) X {
	t := x.check(values...)
	if len(knots) != len(values) || len(knots) < 2 {
		panic(fmt.Sprintf("dyn.Interp1: %d knots and %d values, want the same number ≥ 2", len(knots), len(values)))
	}
	if !sort.Float64sAreSorted(knots) {
		panic("dyn.Interp1: knots not increasing")
	}
	f := values[0]
	for i := range len(knots) - 1 {
		lo, hi := knots[i], knots[i+1]
		if !(hi > lo) || !finite(lo) || !finite(hi) {
			panic(fmt.Sprintf("dyn.Interp1: knots %v and %v not strictly increasing and finite", lo, hi))
		}
		// Where(x > lo, Min(x, hi), lo): at a knot only the segment on its
		// left passes gradient to x (Clamp would give both).
		klo := t.constant(lo)
		d := Where(Gt(x, klo), Min(x, t.constant(hi)), klo).SubC(lo)
		f = f.Add(values[i+1].Sub(values[i]).MulC(1 / (hi - lo)).Mul(d))
	}
	return f
}
