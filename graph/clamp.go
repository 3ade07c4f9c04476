package graph

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// Clamp returns x limited to [lo, hi] elementwise: lo where x < lo, hi where
// x > hi and x itself otherwise. It is the exact (non-smooth) friction clamp
// of the Kikuuwe fixed-step friction model as used by Park, Lee, Kuipers eq. 4:
// the friction acceleration is clamp(μ̄, −μ, μ), so a wheel whose required
// stick force μ̄ (eq. 5) is within the Coulomb limit stops exactly in one step.
//
// lo and hi are each either a scalar node or a node of x's shape, all float64,
// with lo ≤ hi. x must be finite: the selection is built from products with
// 0/1 masks and 0·Inf is NaN.
//
// The output is assembled as mIn⊙x + mLo⊙lo + mHi⊙hi from comparison masks
// mLo = [x < lo], mHi = [x > hi], mIn = 1 − mLo − mHi (G.Lt/G.Gt with retSame,
// so 0/1 in float64). Because exactly one mask is 1 and the others contribute
// exact zeros, the value is bit-for-bit the selected operand, equal to the
// native ClampFloat.
//
// Gradient: dx = mIn (1 inside, 0 outside), dlo = mLo, dhi = mHi, summed over
// the batch when lo or hi is a scalar. So the friction limit μ receives the
// gradient wherever the wheel slips, which is what identifying μ needs. The
// masks carry no gradient: gorgonia 0.9.17 declares comparison ops
// non-differentiable (elemBinOp.DiffWRT is false for them), so
// G.Grad leaves them out of the backward pass instead of failing or
// differentiating a step function. At x == lo or x == hi the identity
// branch is chosen (dx = 1, dlo = dhi = 0), matching the |μ̄| ≤ μ case of
// Park eq. 4.
func Clamp(x, lo, hi *G.Node) (*G.Node, error) {
	const fn = "Clamp"
	if err := checkInput(fn, "x", x); err != nil {
		return nil, err
	}
	if err := checkOperand(fn, "lo", x, lo); err != nil {
		return nil, err
	}
	if err := checkOperand(fn, "hi", x, hi); err != nil {
		return nil, err
	}
	if err := checkOrdered(fn, "lo", "hi", lo, hi); err != nil {
		return nil, err
	}
	var b builder
	y, _, _ := clampMasked(&b, x, lo, hi)
	return b.result(fn, y)
}

// clampMasked builds Clamp and also returns its masks mLo = [x < lo] and
// mHi = [x > hi], which SoftClamp reuses so that its subgradients on the
// limits agree with Clamp's.
func clampMasked(b *builder, x, lo, hi *G.Node) (y, mLo, mHi *G.Node) {
	mLo = b.do(G.Lt(x, lo, true))
	mHi = b.do(G.Gt(x, hi, true))
	mIn := b.do(G.Sub(b.do(G.Sub(one(), mLo)), mHi))
	y = b.do(G.HadamardProd(mIn, x))
	y = b.do(G.Add(y, b.do(G.HadamardProd(mLo, lo))))
	y = b.do(G.Add(y, b.do(G.HadamardProd(mHi, hi))))
	return y, mLo, mHi
}

// ClampSym returns Clamp(x, −mu, mu): the symmetric Coulomb limit of
// Park, Lee, Kuipers eq. 4, where x is the stick acceleration μ̄ of eq. 5 and
// mu ≥ 0 the maximum friction acceleration (scalar or x's shape). The
// gradient reaches mu with sign +1 where x > mu and −1 where x < −mu.
func ClampSym(x, mu *G.Node) (*G.Node, error) {
	const fn = "ClampSym"
	if err := checkInput(fn, "x", x); err != nil {
		return nil, err
	}
	if err := checkOperand(fn, "mu", x, mu); err != nil {
		return nil, err
	}
	for _, v := range knownValues(mu) {
		if !(v >= 0) {
			return nil, fmt.Errorf("graph.%s: mu = %v, want ≥ 0", fn, v)
		}
	}
	neg, err := G.Neg(mu)
	if err != nil {
		return nil, wrap(fn, err)
	}
	return Clamp(x, neg, mu)
}

// ClampFloat is the native twin of Clamp for one value, with the same
// boundary convention (x itself when lo ≤ x ≤ hi). Native Simulate functions
// use it so that graph and native forward values agree bit for bit.
func ClampFloat(x, lo, hi float64) float64 {
	switch {
	case x < lo:
		return lo
	case x > hi:
		return hi
	}
	return x
}
