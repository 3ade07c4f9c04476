package opt_test

import (
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/opt"
	"gonum.org/v1/gonum/mat"
)

// Fit y = a·exp(−b·t) to samples with one gross outlier, b ≥ 0, with a
// soft-L1 loss, and report σ from the Gauss–Newton covariance (with the
// outlier's ρ in s², ten times the inliers' noise would give).
func ExampleLeastSquares() {
	var ts, ys []float64
	for i := range 30 {
		t := 0.1 * float64(i)
		y := 2*math.Exp(-0.7*t) + 0.002*math.Sin(13*float64(i))
		if i == 20 {
			y += 1 // an outlier
		}
		ts, ys = append(ts, t), append(ys, y)
	}
	p := opt.LSProblem{
		M: len(ts),
		Residuals: func(x, r []float64, jac *mat.Dense) error {
			for i, t := range ts {
				e := math.Exp(-x[1] * t)
				r[i] = x[0]*e - ys[i]
				if jac != nil {
					jac.Set(i, 0, e)
					jac.Set(i, 1, -t*x[0]*e)
				}
			}
			return nil
		},
		Lower: []float64{math.Inf(-1), 0},
	}
	ls := opt.LeastSquares{Loss: opt.SoftL1, FScale: 0.01}
	res, err := ls.Solve(p, []float64{1, 0}, opt.Settings{Names: []string{"a", "b"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	cov, err := ls.Covariance(p, res)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: a = %.3f ± %.3f, b = %.3f ± %.3f\n", res.Status.Kind(), res.X[0], cov.Sigma[0], res.X[1], cov.Sigma[1])
	fmt.Println("rank", cov.Rank, "on bounds", res.AtLower, res.AtUpper)
	// Output:
	// converged: a = 2.001 ± 0.014, b = 0.700 ± 0.008
	// rank 2 on bounds [] []
}
