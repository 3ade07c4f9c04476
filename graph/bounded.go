package graph

import (
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"
)

// Bounded maps an unconstrained z to (lo, hi):
//
//	Bounded(z, lo, hi) = lo + (hi − lo)·sigmoid(z).
//
// It lets an unconstrained optimiser move a physical parameter that must
// stay in a range, as Luo et al. eq. 14 does for the wheel friction
// coefficient (σ(μ) instead of μ, so it stays in [0, 1]). BoundedInverse
// gives the z of a starting value.
//
// The sigmoid is evaluated in the two-sided form
//
//	σ(z) = 1/(1 + q) for z ≥ 0,  q/(1 + q) for z < 0,  q = exp(−|z|),
//
// selected by a mask, rather than with G.Sigmoid: gorgonia 0.9.17 returns
// exactly 1 for z > 19 (its cutoff), which is off by up to 6e-9 and makes
// the gradient exactly zero there, and its derivative σ(1 − σ) loses all
// relative precision in the upper tail. Here exp never overflows and the
// value and the gradient q/(1 + q)² keep full relative precision on both
// sides. |z| is formed as s⊙z with s = ±1 from the same mask (+1 at z = 0),
// so that the slope at 0 is the true 1/4 rather than 0 from sign(0).
// lo < hi must be finite.
func Bounded(z *G.Node, lo, hi float64) (*G.Node, error) {
	const fn = "Bounded"
	if err := checkInput(fn, "z", z); err != nil {
		return nil, err
	}
	if err := checkRange(fn, lo, hi); err != nil {
		return nil, err
	}
	var b builder
	m := b.do(G.Gte(z, G.NewConstant(0.0), true))
	s := b.do(G.Sub(b.do(G.HadamardProd(G.NewConstant(2.0), m)), one()))
	q := b.do(G.Exp(b.do(G.Neg(b.do(G.HadamardProd(s, z))))))
	num := b.do(G.Add(m, b.do(G.HadamardProd(b.do(G.Sub(one(), m)), q))))
	sig := b.do(G.HadamardDiv(num, b.do(G.Add(one(), q))))
	y := b.do(G.Add(G.NewConstant(lo), b.do(G.HadamardProd(G.NewConstant(hi-lo), sig))))
	return b.result(fn, y)
}

// BoundedFloat is the native twin of Bounded.
func BoundedFloat(z, lo, hi float64) float64 {
	q := math.Exp(-math.Abs(z))
	sig := q / (1 + q)
	if z >= 0 {
		sig = 1 / (1 + q)
	}
	return lo + (hi-lo)*sig
}

// BoundedInverse returns the z with Bounded(z, lo, hi) = x, the logit of the
// position of x in (lo, hi): log(p) − log1p(−p) with p = (x − lo)/(hi − lo).
// It turns an initial guess of a physical parameter (e.g. μ from a
// datasheet) into the optimiser's variable. x = lo gives −Inf and x = hi
// gives +Inf; x outside [lo, hi], lo ≥ hi or a NaN gives NaN, so callers
// check their ranges before (the range check of a parameter file is the
// place to report it).
func BoundedInverse(x, lo, hi float64) float64 {
	if !(lo < hi) || !(x >= lo && x <= hi) {
		return math.NaN()
	}
	p := (x - lo) / (hi - lo)
	return math.Log(p) - math.Log1p(-p)
}

func checkRange(fn string, lo, hi float64) error {
	if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return fmt.Errorf("graph.%s: range [%v, %v], want finite lo < hi", fn, lo, hi)
	}
	return nil
}
