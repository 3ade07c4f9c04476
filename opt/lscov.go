package opt

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// Covariance is the Gauss–Newton covariance of a least-squares estimate,
// Cov = (JᵀJ)⁻¹·s², s² = 2·cost/(m − n_free), over the free parameters:
// those neither fixed (Lower == Upper) nor on an active bound. Excluded
// parameters have zero rows and columns and σ = 0 (their value is set by
// the bound, not by the data: the report must say so, see AtBound).
type Covariance struct {
	Cov   *mat.SymDense // n×n
	Sigma []float64     // √diag(Cov); +Inf for a parameter in a null direction
	S2    float64       // residual variance 2·cost/DOF; NaN (and so Cov, Sigma) when DOF ≤ 0
	DOF   int           // m − len(Free)
	Free  []int         // parameters estimated
	// AtBound lists the parameters excluded because they end on a bound
	// (Result.AtLower and AtUpper); Fixed those with Lower == Upper.
	AtBound, Fixed []int
	// Singular are the singular values of J·D over the free parameters,
	// descending, D scaling each column of J to unit norm (so that the
	// rank does not depend on the parameters' units).
	Singular []float64
	// Rank is the number of singular values above max(m, n_free)·ε·s₀.
	// Null holds the free directions with ~zero singular value, in x's
	// coordinates, unit length, zero on excluded parameters: the
	// combinations of parameters the data do not determine. Cov is the
	// pseudo-inverse: it says nothing along them.
	Rank int
	Null [][]float64
}

// Covariance evaluates the residuals and Jacobian at res.X (one call) and
// returns the Gauss–Newton covariance there, for a fit report. With a
// robust loss the Jacobian and residuals are those of the Triggs-corrected
// model the solver used, and the cost is ½ Σ C²ρ: s² then includes the
// outliers' (reduced) share, so σ is conservative. The parameters in
// res.AtLower and res.AtUpper are excluded. res may come from any method
// run on ½‖r‖² (e.g. LBFGSB); only X, AtLower and AtUpper are used.
func (l LeastSquares) Covariance(p LSProblem, res *Result) (*Covariance, error) {
	if res == nil || len(res.X) == 0 {
		return nil, errors.New("opt: Covariance of no result")
	}
	lo, hi, x, err := validate(Problem{Objective: func([]float64, []float64) (float64, error) { return 0, nil }, Lower: p.Lower, Upper: p.Upper}, res.X)
	if err != nil {
		return nil, err
	}
	if p.Residuals == nil || p.M <= 0 {
		return nil, errors.New("opt: Covariance needs residuals and M > 0")
	}
	p.Normal = nil // the SVD below wants J itself
	st := newLSState(l, p, lo, hi, x, Settings{}.withDefaults())
	if err := st.residuals(x, st.r, st.jac); err != nil {
		return nil, err
	}
	if err := st.linearise(); err != nil {
		return nil, err
	}
	n, m := len(x), p.M
	c := &Covariance{Cov: mat.NewSymDense(n, nil), Sigma: make([]float64, n)}
	excluded := make([]bool, n)
	for _, i := range slices.Concat(res.AtLower, res.AtUpper) {
		if i >= 0 && i < n && lo[i] < hi[i] {
			excluded[i] = true
			c.AtBound = append(c.AtBound, i)
		}
	}
	slices.Sort(c.AtBound)
	for i := range n {
		switch {
		case lo[i] == hi[i]:
			c.Fixed = append(c.Fixed, i)
		case !excluded[i]:
			c.Free = append(c.Free, i)
		}
	}
	nf := len(c.Free)
	c.DOF = m - nf
	if c.DOF > 0 {
		c.S2 = 2 * st.cost / float64(c.DOF)
	} else {
		c.S2 = math.NaN()
	}
	if nf == 0 {
		return c, nil
	}
	// J·D over the free parameters (st.jf holds all of st.free's columns).
	pos := make(map[int]int, len(st.free))
	for k, j := range st.free {
		pos[j] = k
	}
	jd := mat.NewDense(m, nf, nil)
	colNorm := make([]float64, nf)
	for i := range m {
		for k, j := range c.Free {
			v := st.jf[i*st.nf+pos[j]]
			jd.Set(i, k, v)
			colNorm[k] += v * v
		}
	}
	for k := range colNorm {
		colNorm[k] = math.Sqrt(colNorm[k])
		if colNorm[k] == 0 {
			colNorm[k] = 1
		}
	}
	for i := range m {
		for k := range nf {
			jd.Set(i, k, jd.At(i, k)/colNorm[k])
		}
	}
	var svd mat.SVD
	if !svd.Factorize(jd, mat.SVDFullV) {
		return nil, errors.New("opt: the SVD of the Jacobian did not converge")
	}
	c.Singular = svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v)
	k := len(c.Singular)
	tol := float64(max(m, nf)) * lsEps * c.Singular[0]
	inNull := make([]bool, n)
	for j := range k {
		if c.Singular[j] > tol {
			c.Rank++
		}
	}
	// Directions beyond min(m, nf) singular values are null too.
	for j := c.Rank; j < nf; j++ {
		dir := make([]float64, n)
		var norm float64
		for q, i := range c.Free {
			dir[i] = v.At(q, j) / colNorm[q]
			norm += dir[i] * dir[i]
		}
		norm = math.Sqrt(norm)
		for i := range dir {
			dir[i] /= norm
			if math.Abs(dir[i]) > 1e-6 {
				inNull[i] = true
			}
		}
		c.Null = append(c.Null, dir)
	}
	// Cov = D V diag(1/s²) Vᵀ D · s² over the rank's directions.
	for a, i := range c.Free {
		for b := a; b < nf; b++ {
			var t float64
			for j := range c.Rank {
				t += v.At(a, j) * v.At(b, j) / (c.Singular[j] * c.Singular[j])
			}
			c.Cov.SetSym(i, c.Free[b], t*c.S2/(colNorm[a]*colNorm[b]))
		}
	}
	for _, i := range c.Free {
		c.Sigma[i] = math.Sqrt(c.Cov.At(i, i))
		if inNull[i] {
			c.Sigma[i] = math.Inf(1)
		}
	}
	return c, nil
}

// NumericalJacobian turns a residual function without a Jacobian into a
// Residuals whose Jacobian is computed by gonum's diff/fd: central
// differences with a step of 6e-6 relative to max(|x_j|, 1), forward or
// backward differences for a parameter whose central step would leave
// [lo_j, hi_j] (lo, hi may be nil: unbounded). No evaluated x is outside
// the box. A Jacobian costs 2n calls of f besides the residuals (n for the
// one-sided parameters). The first error of f is returned.
func NumericalJacobian(f func(x, r []float64) error, m int, lo, hi []float64) Residuals {
	return func(x, r []float64, jac *mat.Dense) error {
		if err := f(x, r); err != nil || jac == nil {
			return err
		}
		n := len(x)
		if lo != nil && len(lo) != n || hi != nil && len(hi) != n {
			return fmt.Errorf("%w: NumericalJacobian bounds for %d parameters, x has %d", ErrDimension, max(len(lo), len(hi)), n)
		}
		// Group the parameters by the formula their bounds allow; fd
		// differentiates each group in scaled coordinates
		// x_j = x0_j + t·max(|x0_j|, 1) around t = 0.
		forms := []fd.Formula{fd.Central, fd.Forward, fd.Backward}
		groups := make([][]int, len(forms))
		scale := make([]float64, n)
		for j := range n {
			scale[j] = math.Max(math.Abs(x[j]), 1)
			h := fd.Central.Step * scale[j]
			l, u := math.Inf(-1), math.Inf(1)
			if lo != nil {
				l = lo[j]
			}
			if hi != nil {
				u = hi[j]
			}
			switch {
			case x[j]-h >= l && x[j]+h <= u:
				groups[0] = append(groups[0], j)
			case x[j]+fd.Forward.Step*scale[j] <= u:
				groups[1] = append(groups[1], j)
			case x[j]-fd.Backward.Step*scale[j] >= l:
				groups[2] = append(groups[2], j)
			default:
				return fmt.Errorf("opt: NumericalJacobian: the box [%g, %g] of x[%d] is too narrow for a difference step", l, u, j)
			}
		}
		xs := make([]float64, n)
		var ferr error
		for g, form := range forms {
			idx := groups[g]
			if len(idx) == 0 {
				continue
			}
			sub := mat.NewDense(m, len(idx), nil)
			fn := func(y, t []float64) {
				copy(xs, x)
				for q, j := range idx {
					xs[j] = x[j] + t[q]*scale[j]
				}
				if err := f(xs, y); err != nil && ferr == nil {
					ferr = err
				}
			}
			fd.Jacobian(sub, fn, make([]float64, len(idx)), &fd.JacobianSettings{Formula: form, OriginValue: r})
			for q, j := range idx {
				for i := range m {
					jac.Set(i, j, sub.At(i, q)/scale[j])
				}
			}
		}
		return ferr
	}
}

// Objective is the scalar cost of p under l's loss, ½ Σ C²ρ(r_i²/C²), with
// its gradient Σ ρ'(r_i²/C²)·r_i·∇r_i: the same problem for the methods
// that minimise a scalar (L-BFGS-B, for comparison or for a start). The
// objective is not safe for concurrent use (it keeps its buffers).
func (l LeastSquares) Objective(p LSProblem) Objective {
	var r []float64
	var jac *mat.Dense
	c := l.FScale
	if c == 0 {
		c = 1
	}
	c2 := c * c
	return func(x, grad []float64) (float64, error) {
		n := len(x)
		if r == nil {
			r = make([]float64, p.M)
			jac = mat.NewDense(p.M, n, nil)
		}
		var j *mat.Dense
		if grad != nil {
			j = jac
		}
		if err := p.Residuals(x, r, j); err != nil {
			return 0, err
		}
		var f float64
		if grad != nil {
			clear(grad)
		}
		for i, v := range r {
			r0, r1, _ := l.Loss.rho(v * v / c2)
			f += c2 * r0
			if grad != nil {
				for k := range n {
					grad[k] += r1 * v * jac.At(i, k)
				}
			}
		}
		return f / 2, nil
	}
}
