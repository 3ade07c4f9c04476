package tire

import (
	"errors"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/opt"
)

// The joint problem's change of variables (issue 25.4). L(θ, z) = |r|² +
// |z|² has the Gauss–Newton matrix
//
//	[ JθᵀJθ   JθᵀJz ]
//	[ JzᵀJθ   A     ],   A = I + JzᵀJz,
//
// whose z block spans eigenvalues from 1 (the wheel-speed noise the poses
// do not see) to ~10⁴ (its low-frequency part, which the poses fix), and
// whose θ block is coupled to z: L-BFGS-B on (θ, z) crawls along them and
// stopped at its iteration limit every time. The linearised variable
// projection at the plain fit (θ₀, z₀) removes both:
//
//	θ = θ₀ + D·v,    z = z₀ + S·w + C·D·v,
//	S = A^(−1/2),    C = −A⁻¹ JzᵀJθ,
//
// makes the z block I and the coupling 0 (C is the first-order optimal z
// for a change of θ), and leaves for θ the Schur complement H = JθᵀJθ −
// JθᵀJz A⁻¹ JzᵀJθ (the information on θ once the poses have paid for the
// wheel speeds, as in eivFit.std), whose diagonal D = diag(H)^(−1/2)
// scales to 1; D keeps θ's bounds a box. A is taken in the low-rank form
// I + U·Λ·Uᵀ of a randomized range finder (as std), so that S = I +
// U·((1+Λ)^(−1/2) − 1)·Uᵀ and A⁻¹ = I − U·(Λ/(1+Λ))·Uᵀ cost O(nz·K).
type eivPrecond struct {
	P  int
	x0 []float64
	d  []float64  // θ scales D
	U  *mat.Dense // nz × K, orthonormal
	s  []float64  // (1+λ)^(−1/2) − 1
	ai []float64  // λ/(1+λ)
	C  *mat.Dense // nz × P
}

// eivPrecondRank is the rank of A's low-rank form in the change of
// variables (the eigenvalues beyond it were below 0.02 on the Table I
// maneuvers at rank 200, eivFit.std's).
const eivPrecondRank = 120

// newPrecond builds the change of variables at x0 (θ coordinates, then z).
func (e *eivFit) newPrecond(x0 []float64, K int) (*eivPrecond, error) {
	P := len(e.f.free)
	nz := len(x0) - P
	r0, err := e.forward(x0)
	if err != nil {
		return nil, err
	}
	N := len(r0)
	K = min(K, nz, N)
	rng := rand.New(rand.NewPCG(3, 4))
	Y := mat.NewDense(N, K, nil)
	for k := range K {
		w := make([]float64, nz)
		for i := range w {
			w[i] = rng.NormFloat64()
		}
		y, err := e.jvp(x0, w)
		if err != nil {
			return nil, err
		}
		Y.SetCol(k, y)
	}
	Q := orthonormal(Y)
	Bt := mat.NewDense(nz, K, nil)
	for k := range K {
		g, err := e.vjp(x0, mat.Col(nil, k, Q))
		if err != nil {
			return nil, err
		}
		Bt.SetCol(k, g[P:])
	}
	// JzᵀJz ≈ Bt·Btᵀ = U·Λ·Uᵀ with BtᵀBt = V·Λ·Vᵀ, U = Bt·V·Λ^(−1/2)
	var G mat.SymDense
	G.SymOuterK(1, Bt.T())
	var eig mat.EigenSym
	if !eig.Factorize(&G, true) {
		return nil, errors.New("tire: errors in variables: the eigen-decomposition of the preconditioner failed")
	}
	lam := eig.Values(nil)
	var V mat.Dense
	eig.VectorsTo(&V)
	var U mat.Dense
	U.Mul(Bt, &V)
	c := &eivPrecond{P: P, x0: append([]float64(nil), x0...), s: make([]float64, K), ai: make([]float64, K)}
	lmax := 0.0
	for _, l := range lam {
		lmax = math.Max(lmax, l)
	}
	for k, l := range lam {
		if !(l > 1e-12*lmax) {
			for i := range nz {
				U.Set(i, k, 0)
			}
			continue
		}
		for i := range nz {
			U.Set(i, k, U.At(i, k)/math.Sqrt(l))
		}
		c.s[k] = 1/math.Sqrt(1+l) - 1
		c.ai[k] = l / (1 + l)
	}
	c.U = &U
	// Jθ by central differences; JzᵀJθ by reverse passes; C = −A⁻¹JzᵀJθ
	Jt := make([][]float64, P)
	for k := range P {
		h := 1e-6 * math.Max(math.Abs(x0[k]), 1)
		xp := append([]float64(nil), x0...)
		xp[k] += h
		rp, err := e.forward(xp)
		if err != nil {
			return nil, err
		}
		xp[k] -= 2 * h
		rm, err := e.forward(xp)
		if err != nil {
			return nil, err
		}
		for i := range rp {
			rp[i] = (rp[i] - rm[i]) / (2 * h)
		}
		Jt[k] = rp
	}
	c.C = mat.NewDense(nz, P, nil)
	ztj := make([][]float64, P)
	for k := range P {
		g, err := e.vjp(x0, Jt[k])
		if err != nil {
			return nil, err
		}
		ztj[k] = g[P:]
		ainv := c.lowRank(g[P:], c.ai)
		for i := range nz {
			c.C.Set(i, k, -(g[P+i] - ainv[i]))
		}
	}
	c.d = make([]float64, P)
	for k := range P {
		var h float64
		for _, v := range Jt[k] {
			h += v * v
		}
		full := h
		for i := range nz {
			h += ztj[k][i] * c.C.At(i, k)
		}
		if !(h > 1e-12*full) {
			h = full
		}
		c.d[k] = 1 / math.Sqrt(math.Max(h, 1e-300))
	}
	return c, nil
}

// lowRank is U·diag(a)·Uᵀ·y.
func (c *eivPrecond) lowRank(y, a []float64) []float64 {
	nz, K := c.U.Dims()
	t := make([]float64, K)
	for k := range K {
		if a[k] == 0 {
			continue
		}
		var s float64
		for i := range nz {
			s += c.U.At(i, k) * y[i]
		}
		t[k] = a[k] * s
	}
	out := make([]float64, nz)
	for k := range K {
		if t[k] == 0 {
			continue
		}
		for i := range nz {
			out[i] += c.U.At(i, k) * t[k]
		}
	}
	return out
}

// x maps v = (vθ, w) to the joint problem's coordinates.
func (c *eivPrecond) x(v []float64) []float64 {
	P := c.P
	x := append([]float64(nil), c.x0...)
	dv := make([]float64, P)
	for k := range P {
		dv[k] = c.d[k] * v[k]
		x[k] += dv[k]
	}
	w := v[P:]
	sw := c.lowRank(w, c.s)
	nz := len(w)
	for i := range nz {
		z := w[i] + sw[i]
		for k := range P {
			z += c.C.At(i, k) * dv[k]
		}
		x[P+i] += z
	}
	return x
}

// grad maps the gradient gx at x(v) to v: gθ' = D·(gθ + Cᵀgz), gw = S·gz.
func (c *eivPrecond) grad(gx, gv []float64) {
	P := c.P
	gz := gx[P:]
	for k := range P {
		s := gx[k]
		for i, g := range gz {
			s += c.C.At(i, k) * g
		}
		gv[k] = c.d[k] * s
	}
	sg := c.lowRank(gz, c.s)
	for i, g := range gz {
		gv[P+i] = g + sg[i]
	}
}

// solvePrecond minimises L over v from v = 0 (the plain fit), θ within
// [lo, hi], and returns the result in the joint coordinates.
func (e *eivFit) solvePrecond(c *eivPrecond, lo, hi []float64, s opt.Settings) (*opt.Result, error) {
	P := c.P
	n := len(c.x0)
	L, U := make([]float64, n), make([]float64, n)
	for k := range n {
		L[k], U[k] = math.Inf(-1), math.Inf(1)
	}
	for k := range P {
		L[k], U[k] = (lo[k]-c.x0[k])/c.d[k], (hi[k]-c.x0[k])/c.d[k]
	}
	gx := make([]float64, n)
	obj := func(v, gv []float64) (float64, error) {
		x := c.x(v)
		if gv == nil {
			return e.eval(x, nil)
		}
		f, err := e.eval(x, gx)
		if err != nil {
			return 0, err
		}
		c.grad(gx, gv)
		return f, nil
	}
	res, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: obj, Lower: L, Upper: U}, make([]float64, n), s)
	if err != nil {
		return nil, err
	}
	out := *res
	out.X = c.x(res.X)
	return &out, nil
}
