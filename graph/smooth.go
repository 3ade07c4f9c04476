package graph

import (
	"math"

	G "gorgonia.org/gorgonia"
)

// Softplus returns the softplus at temperature T, softplus_T(z) =
// T·log(1 + exp(z/T)), a smooth max(z, 0) that lies above it by at most
// T·log 2 (at z = 0) and tends to it as T → 0. It is the building block of
// SoftClamp; on its own it is a smooth one-sided limit (e.g. a force that can
// push but not pull).
//
// It is evaluated in the overflow-safe form
//
//	softplus_T(z) = max(z, 0) + T·log1p(exp(−|z|/T)),
//
// with max(z, 0) = (z + |z|)/2, which is exact in floating point. The
// argument of exp is never positive, so neither the value nor any
// gradient (with respect to z or T) overflows for any T > 0 and finite z;
// dz = sigmoid(z/T) ∈ [0, 1] everywhere, including 1/2 at z = 0.
//
// T is a node (scalar or z's shape) rather than a number so that a compiled
// program can anneal it with G.Let between runs. It must be > 0 (checked
// here when its value is already bound) and not so small that T² underflows
// (T ≳ 1e-150), since the gradient with respect to T divides by T².
func Softplus(z, T *G.Node) (*G.Node, error) {
	const fn = "Softplus"
	if err := checkInput(fn, "z", z); err != nil {
		return nil, err
	}
	if err := checkOperand(fn, "T", z, T); err != nil {
		return nil, err
	}
	if err := checkPositive(fn, "T", T); err != nil {
		return nil, err
	}
	var b builder
	return b.result(fn, softplusT(&b, z, T))
}

// softplusT builds max(z, 0) + T·log1p(exp(−|z|/T)). Gorgonia's own
// Softplus is used for log1p(exp(·)) (its stabiliser would rewrite
// Log1p(Exp(·)) into it anyway); its derivative, sigmoid, is finite for any
// argument. At z = 0 the derivative of |z| is sign(0) = 0 in gorgonia, so
// the two halves give 1/2 + 0: the true slope.
func softplusT(b *builder, z, T *G.Node) *G.Node {
	a := b.do(G.Abs(z))
	relu := b.do(G.HadamardProd(b.do(G.Add(z, a)), half()))
	return b.do(G.Add(relu, softplusTail(b, a, T)))
}

// SoftplusFloat is the native twin of Softplus.
func SoftplusFloat(z, T float64) float64 {
	return math.Max(z, 0) + T*math.Log1p(math.Exp(-math.Abs(z)/T))
}

// SoftClamp is a smooth surrogate of Clamp(x, lo, hi) at temperature T > 0:
//
//	SoftClamp(x, lo, hi, T) = lo + softplus_T(x − lo) − softplus_T(x − hi).
//
// It replaces the Kikuuwe friction clamp of Park, Lee, Kuipers eq. 4 where a
// gradient is wanted on both sides of the stick/slip boundary: the exact
// clamp gives dx = 0 on the slip side, so a model that is slipping gets no
// signal about the stick regime; the surrogate leaks a little gradient,
// controlled by T.
//
// For lo ≤ hi it is increasing in x, stays within [lo, hi], and differs from
// the exact clamp by less than T·log 2 everywhere (the worst case is at the
// corners x = lo and x = hi), so it tends to Clamp as T → 0. Its gradients
// (dx = σ((x−lo)/T) − σ((x−hi)/T), dlo, dhi, dT) are finite for every finite
// x and every T > 0 (see Softplus). lo, hi and T are each a scalar or x's
// shape; T is a node so that it can be annealed without rebuilding the
// graph. Choose T in the units of x: it is the width of the rounded corner.
//
// Splitting each softplus_T(z) into max(z, 0) + e(|z|), with
// e(a) = T·log1p(exp(−a/T)), the formula is evaluated as
//
//	SoftClamp = Clamp(x, lo, hi) + e(|x − lo|) − e(|x − hi|),
//
// which is algebraically the same but exact where it matters: far outside
// the limits the corrections underflow to 0 and the result is lo or hi
// exactly (the textbook form computes (x − lo) − (x − hi) and is off by
// ~1e-10 at |x| = 1e6), and it reuses Clamp's masks for |·| so that the
// gradient on x = lo or x = hi is the true derivative, not a mix of
// conflicting subgradients.
func SoftClamp(x, lo, hi, T *G.Node) (*G.Node, error) {
	const fn = "SoftClamp"
	if err := checkInput(fn, "x", x); err != nil {
		return nil, err
	}
	for _, p := range []struct {
		name string
		n    *G.Node
	}{{"lo", lo}, {"hi", hi}, {"T", T}} {
		if err := checkOperand(fn, p.name, x, p.n); err != nil {
			return nil, err
		}
	}
	if err := checkPositive(fn, "T", T); err != nil {
		return nil, err
	}
	if err := checkOrdered(fn, "lo", "hi", lo, hi); err != nil {
		return nil, err
	}
	var b builder
	y, mLo, mHi := clampMasked(&b, x, lo, hi)
	two := G.NewConstant(2.0)
	// |x − lo| = sLo⊙(x − lo) with sLo = +1 unless x < lo, and
	// |x − hi| = sHi⊙(x − hi) with sHi = −1 unless x > hi: on a limit the
	// sign matches the branch Clamp chose there, so the derivative of the
	// correction completes Clamp's to σ((x−lo)/T) − σ((x−hi)/T) exactly.
	sLo := b.do(G.Sub(one(), b.do(G.HadamardProd(two, mLo))))
	sHi := b.do(G.Sub(b.do(G.HadamardProd(two, mHi)), one()))
	eLo := softplusTail(&b, b.do(G.HadamardProd(sLo, b.do(G.Sub(x, lo)))), T)
	eHi := softplusTail(&b, b.do(G.HadamardProd(sHi, b.do(G.Sub(x, hi)))), T)
	y = b.do(G.Add(y, b.do(G.Sub(eLo, eHi))))
	return b.result(fn, y)
}

// softplusTail builds e(a) = T·log1p(exp(−a/T)) for a ≥ 0: the amount by
// which softplus_T(z) exceeds max(z, 0) at |z| = a, in (0, T·log 2].
func softplusTail(b *builder, a, T *G.Node) *G.Node {
	u := b.do(G.HadamardDiv(b.do(G.Neg(a)), T))
	return b.do(G.HadamardProd(T, b.do(G.Softplus(u))))
}

// SoftClampFloat is the native twin of SoftClamp, evaluated the same way.
func SoftClampFloat(x, lo, hi, T float64) float64 {
	e := func(a float64) float64 { return T * math.Log1p(math.Exp(-a/T)) }
	return ClampFloat(x, lo, hi) + (e(math.Abs(x-lo)) - e(math.Abs(x-hi)))
}

// TanhClampSym is a bounded tanh saturation of x to (−mu, mu) with a
// transition band of width T; it tends to ClampSym(x, mu) as T → 0 and is
// the classic mu·tanh(x/mu) for T ≥ mu. With k = max(mu − T, 0) (the knee)
// and w = mu − k = min(T, mu) (the band):
//
//	TanhClampSym(x, mu, T) = x                                 if |x| ≤ k,
//	                         sign(x)·(k + w·tanh((|x| − k)/w))  otherwise.
//
// It is a friction surrogate for Park, Lee, Kuipers eq. 4 that, unlike
// SoftClamp, keeps the stick regime |μ̄| ≤ mu − T exact (identity, dx = 1)
// and never reaches the Coulomb limit: |y| < mu strictly, approached with
// a tanh tail, as in the tanh-smoothed Coulomb friction models. The two
// pieces meet with equal value, slope and curvature at |x| = k (the
// function is C²). The error against the exact clamp is at most
// (1 − tanh 1)·min(T, mu) ≈ 0.238·T, largest at |x| = mu.
//
// mu and T are each a scalar or x's shape, both > 0 (mu = 0 divides by
// zero). The gradient flows to x (sech² of the tail argument, 1 in the
// core), to mu and to T; the piece selection uses 0/1 masks, which carry no
// gradient, as in Clamp. Values and gradients are finite for every finite x
// and T > 0 with T² not underflowing.
func TanhClampSym(x, mu, T *G.Node) (*G.Node, error) {
	const fn = "TanhClampSym"
	if err := checkInput(fn, "x", x); err != nil {
		return nil, err
	}
	if err := checkOperand(fn, "mu", x, mu); err != nil {
		return nil, err
	}
	if err := checkOperand(fn, "T", x, T); err != nil {
		return nil, err
	}
	if err := checkPositive(fn, "mu", mu); err != nil {
		return nil, err
	}
	if err := checkPositive(fn, "T", T); err != nil {
		return nil, err
	}
	var b builder
	a := b.do(G.Abs(x))
	// k = max(mu − T, 0) from a mask, so that dk/dmu is 1 or 0, not a kink
	// that the backward pass would have to guess.
	mCore := b.do(G.Gt(mu, T, true))
	k := b.do(G.HadamardProd(mCore, b.do(G.Sub(mu, T))))
	w := b.do(G.Sub(mu, k))
	tail := b.do(G.Add(k, b.do(G.HadamardProd(w, b.do(G.Tanh(b.do(G.HadamardDiv(b.do(G.Sub(a, k)), w))))))))
	// Select by masks; in the core the tail is finite, so 0·tail adds an
	// exact zero and the identity branch is exact.
	mIn := b.do(G.Lte(a, k, true))
	mOut := b.do(G.Gt(a, k, true))
	sgn := b.do(G.Sign(x))
	y := b.do(G.Add(b.do(G.HadamardProd(mIn, x)), b.do(G.HadamardProd(mOut, b.do(G.HadamardProd(sgn, tail))))))
	return b.result(fn, y)
}

// TanhClampSymFloat is the native twin of TanhClampSym.
func TanhClampSymFloat(x, mu, T float64) float64 {
	k := 0.0
	if mu > T {
		k = mu - T
	}
	w := mu - k
	a := math.Abs(x)
	if a <= k {
		return x
	}
	return math.Copysign(k+w*math.Tanh((a-k)/w), x)
}

// SmoothAbs is a smooth |x| with width eps > 0:
//
//	SmoothAbs(x, eps) = sqrt(x² + eps²) − eps = x² / (sqrt(x² + eps²) + eps).
//
// Robot losses and friction laws use |·| on quantities that cross zero (a
// wheel's slip velocity, a tracking error, the velocity L1 loss of Park eq.
// 22); at zero the gradient of |x| jumps from −1 to 1. This surrogate is C∞,
// convex, exactly 0 at x = 0 with zero slope, and below |x| by at most eps
// (the gap tends to eps for |x| ≫ eps), so it tends to |x| as eps → 0. The
// square-root form was chosen over eps·log cosh(x/eps) because it has no
// exponential to overflow and its slope x/sqrt(x² + eps²) is bounded by 1.
// The second, algebraically equal form is the one evaluated: it avoids the
// cancellation of sqrt(x² + eps²) − eps when |x| ≪ eps, so small values keep
// full relative precision. eps is a node (scalar or x's shape) so that it
// can be annealed; |x| must stay below about 1e154 (x² overflows).
func SmoothAbs(x, eps *G.Node) (*G.Node, error) {
	const fn = "SmoothAbs"
	if err := checkInput(fn, "x", x); err != nil {
		return nil, err
	}
	if err := checkOperand(fn, "eps", x, eps); err != nil {
		return nil, err
	}
	if err := checkPositive(fn, "eps", eps); err != nil {
		return nil, err
	}
	var b builder
	x2 := b.do(G.Square(x))
	r := b.do(G.Sqrt(b.do(G.Add(x2, b.do(G.Square(eps))))))
	y := b.do(G.HadamardDiv(x2, b.do(G.Add(r, eps))))
	return b.result(fn, y)
}

// SmoothAbsFloat is the native twin of SmoothAbs.
func SmoothAbsFloat(x, eps float64) float64 {
	x2 := x * x
	return x2 / (math.Sqrt(x2+eps*eps) + eps)
}
