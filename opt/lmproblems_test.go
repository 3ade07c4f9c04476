package opt

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Moré, Garbow and Hillstrom, "Testing unconstrained optimization software",
// ACM TOMS 7(1):17–41, 1981: residuals, Jacobians, standard starts and the
// known minima of ½‖r‖² (the paper lists ‖r‖²).
type mghProblem struct {
	name  string
	m     int
	x0    []float64
	res   Residuals
	fstar []float64 // known minima of ½‖r‖² (local ones too)
}

func setJ(jac *mat.Dense, i int, row ...float64) {
	if jac != nil {
		for j, v := range row {
			jac.Set(i, j, v)
		}
	}
}

var mghMeyerY = []float64{34780, 28610, 23650, 19630, 16370, 13720, 11540, 9744, 8261, 7030, 6005, 5147, 4427, 3820, 3307, 2872}
var mghBardY = []float64{0.14, 0.18, 0.22, 0.25, 0.29, 0.32, 0.35, 0.39, 0.37, 0.58, 0.73, 0.96, 1.34, 2.10, 4.39}

var mghProblems = []mghProblem{
	{"rosenbrock", 2, []float64{-1.2, 1}, func(x, r []float64, jac *mat.Dense) error {
		r[0] = 10 * (x[1] - x[0]*x[0])
		r[1] = 1 - x[0]
		setJ(jac, 0, -20*x[0], 10)
		setJ(jac, 1, -1, 0)
		return nil
	}, []float64{0}},
	{"freudenstein-roth", 2, []float64{0.5, -2}, func(x, r []float64, jac *mat.Dense) error {
		r[0] = -13 + x[0] + ((5-x[1])*x[1]-2)*x[1]
		r[1] = -29 + x[0] + ((x[1]+1)*x[1]-14)*x[1]
		setJ(jac, 0, 1, 10*x[1]-3*x[1]*x[1]-2)
		setJ(jac, 1, 1, 3*x[1]*x[1]+2*x[1]-14)
		return nil
	}, []float64{0, 48.9842536792400 / 2}},
	{"powell-singular", 4, []float64{3, -1, 0, 1}, func(x, r []float64, jac *mat.Dense) error {
		s5, s10 := math.Sqrt(5), math.Sqrt(10)
		a, b := x[1]-2*x[2], x[0]-x[3]
		r[0] = x[0] + 10*x[1]
		r[1] = s5 * (x[2] - x[3])
		r[2] = a * a
		r[3] = s10 * b * b
		setJ(jac, 0, 1, 10, 0, 0)
		setJ(jac, 1, 0, 0, s5, -s5)
		setJ(jac, 2, 0, 2*a, -4*a, 0)
		setJ(jac, 3, 2*s10*b, 0, 0, -2*s10*b)
		return nil
	}, []float64{0}},
	{"brown-badly-scaled", 3, []float64{1, 1}, func(x, r []float64, jac *mat.Dense) error {
		r[0] = x[0] - 1e6
		r[1] = x[1] - 2e-6
		r[2] = x[0]*x[1] - 2
		setJ(jac, 0, 1, 0)
		setJ(jac, 1, 0, 1)
		setJ(jac, 2, x[1], x[0])
		return nil
	}, []float64{0}},
	{"bard", 15, []float64{1, 1, 1}, func(x, r []float64, jac *mat.Dense) error {
		for i := range 15 {
			u := float64(i + 1)
			v := 16 - u
			w := math.Min(u, v)
			den := v*x[1] + w*x[2]
			r[i] = mghBardY[i] - (x[0] + u/den)
			setJ(jac, i, -1, u*v/(den*den), u*w/(den*den))
		}
		return nil
	}, []float64{8.21487730657897e-3 / 2, 17.4286 / 2}},
	{"box3d", 10, []float64{0, 10, 20}, func(x, r []float64, jac *mat.Dense) error {
		for i := range 10 {
			t := 0.1 * float64(i+1)
			e1, e2 := math.Exp(-t*x[0]), math.Exp(-t*x[1])
			c := math.Exp(-t) - math.Exp(-10*t)
			r[i] = e1 - e2 - x[2]*c
			setJ(jac, i, -t*e1, t*e2, -c)
		}
		return nil
	}, []float64{0}},
	{"meyer", 16, []float64{0.02, 4000, 250}, func(x, r []float64, jac *mat.Dense) error {
		for i := range 16 {
			t := 45 + 5*float64(i+1)
			den := t + x[2]
			e := math.Exp(x[1] / den)
			r[i] = x[0]*e - mghMeyerY[i]
			setJ(jac, i, e, x[0]*e/den, -x[0]*e*x[1]/(den*den))
		}
		return nil
	}, []float64{87.9458551 / 2}},
}

// mghObjective is ½‖r‖² of p with its gradient Jᵀr, for L-BFGS-B.
func mghObjective(p mghProblem) Objective {
	n := len(p.x0)
	r := make([]float64, p.m)
	jac := mat.NewDense(p.m, n, nil)
	return func(x, g []float64) (float64, error) {
		var j *mat.Dense
		if g != nil {
			j = jac
		}
		if err := p.res(x, r, j); err != nil {
			return 0, err
		}
		var f float64
		for _, v := range r {
			f += v * v
		}
		if g != nil {
			for k := range n {
				g[k] = 0
				for i := range p.m {
					g[k] += jac.At(i, k) * r[i]
				}
			}
		}
		return f / 2, nil
	}
}
