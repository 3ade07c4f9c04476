package fit

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// NullTol is the relative size below which an eigenvalue of the scaled
// JᵀJ counts as zero: a singular value of the scaled Jacobian below 1e-5
// of the largest (JᵀJ squares the condition number, and its eigenvalues
// carry rounding of about 1e-16 of the largest).
const NullTol = 1e-10

// Direction is a combination of parameters the data do not determine:
// moving them together along Coef (one entry per name, unit length, the
// largest entry positive) leaves the residuals unchanged to first order.
type Direction struct {
	Coef []float64
	Text string // e.g. "0.894·a + 0.447·b" (entries under 1e-3 left out)
}

// Ident is the Gauss–Newton picture of a least-squares fit: the standard
// deviation of each parameter and the directions the data leave free.
type Ident struct {
	// Std is each parameter's σ for unit residual variance: multiply by
	// the residual standard deviation s (or pass JᵀJ/s²). +Inf for a
	// parameter with a part in a null direction.
	Std []float64
	// Null are the near-null directions of JᵀJ (after scaling each
	// parameter to unit diagonal, so that units do not decide).
	Null []Direction
	// Eigen are the eigenvalues of the scaled JᵀJ, ascending.
	Eigen []float64
}

// Identifiability analyses JᵀJ (the Gauss–Newton approximation of the
// Hessian of ½‖r‖², with J the Jacobian of the residuals r with respect to
// the parameters called names) at an optimum. The scaled matrix
// S = D·JᵀJ·D, D = diag(JᵀJ)^(−1/2), is decomposed as Q·Λ·Qᵀ; eigenvalues
// below NullTol·λ_max are null directions (mapped back through D), and
// σ_i² = Σ_k (D·Q)_ik²/λ_k over the others (the pseudo-inverse), +Inf where
// a null direction touches parameter i. A parameter the residuals do not
// depend on at all (zero diagonal) is a null direction of its own.
func Identifiability(names []string, jtj mat.Symmetric) (Ident, error) {
	n := jtj.SymmetricDim()
	if n != len(names) {
		return Ident{}, fmt.Errorf("fit: identifiability of %d names with a %d×%d JᵀJ", len(names), n, n)
	}
	if n == 0 {
		return Ident{}, nil
	}
	d := make([]float64, n)
	for i := range n {
		v := jtj.At(i, i)
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return Ident{}, fmt.Errorf("fit: JᵀJ[%s,%s] = %g: want a finite value ≥ 0", names[i], names[i], v)
		}
		d[i] = 1
		if v > 0 {
			d[i] = 1 / math.Sqrt(v)
		}
	}
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := jtj.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Ident{}, fmt.Errorf("fit: JᵀJ[%s,%s] = %g: want a finite value", names[i], names[j], v)
			}
			s.SetSym(i, j, d[i]*v*d[j])
		}
	}
	var es mat.EigenSym
	if !es.Factorize(s, true) {
		return Ident{}, fmt.Errorf("fit: the eigen-decomposition of JᵀJ did not converge")
	}
	lam := es.Values(nil)
	var q mat.Dense
	es.VectorsTo(&q)
	lmax := lam[n-1]
	out := Ident{Std: make([]float64, n), Eigen: lam}
	inNull := make([]bool, n)
	ss := make([]float64, n)
	for k := range n {
		if lmax > 0 && lam[k] > NullTol*lmax {
			for i := range n {
				v := d[i] * q.At(i, k)
				ss[i] += v * v / lam[k]
			}
			continue
		}
		c := make([]float64, n)
		for i := range n {
			c[i] = d[i] * q.At(i, k)
		}
		dir := NewDirection(names, c)
		for i, v := range dir.Coef {
			if math.Abs(v) > 1e-6 {
				inNull[i] = true
			}
		}
		out.Null = append(out.Null, dir)
	}
	for i := range n {
		out.Std[i] = math.Sqrt(ss[i])
		if inNull[i] {
			out.Std[i] = math.Inf(1)
		}
	}
	return out, nil
}

// NewDirection is the direction c over the parameters called names,
// scaled to unit length with its largest entry positive, and named.
func NewDirection(names []string, c []float64) Direction {
	u := make([]float64, len(c))
	var nrm float64
	big := 0
	for i, v := range c {
		nrm += v * v
		if math.Abs(v) > math.Abs(c[big]) {
			big = i
		}
	}
	if nrm = math.Sqrt(nrm); len(c) > 0 && c[big] < 0 {
		nrm = -nrm
	}
	for i, v := range c {
		if nrm != 0 {
			u[i] = v / nrm
		}
	}
	return Direction{Coef: u, Text: combination(names, u)}
}

// combination writes Σ c_i·name_i, leaving out |c_i| < 1e-3.
func combination(names []string, c []float64) string {
	var b strings.Builder
	for i, v := range c {
		if math.Abs(v) < 1e-3 {
			continue
		}
		switch {
		case b.Len() == 0 && v < 0:
			b.WriteString("−")
		case b.Len() > 0 && v < 0:
			b.WriteString(" − ")
		case b.Len() > 0:
			b.WriteString(" + ")
		}
		fmt.Fprintf(&b, "%.3g·%s", math.Abs(v), names[i])
	}
	return b.String()
}
