package opt

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// expFit is a larger problem of the kind identification gives: m residuals
// y_i − a·exp(−b·t_i)·cos(c·t_i) over 3 parameters.
func expFit(m int) mghProblem {
	ts, ys := make([]float64, m), make([]float64, m)
	for i := range m {
		ts[i] = 10 * float64(i) / float64(m)
		ys[i] = 2*math.Exp(-0.3*ts[i])*math.Cos(1.5*ts[i]) + 0.01*math.Sin(37*float64(i))
	}
	return mghProblem{name: "expfit", m: m, x0: []float64{1, 0.1, 1.2}, res: func(x, r []float64, jac *mat.Dense) error {
		for i, t := range ts {
			e, c, s := math.Exp(-x[1]*t), math.Cos(x[2]*t), math.Sin(x[2]*t)
			r[i] = x[0]*e*c - ys[i]
			setJ(jac, i, e*c, -t*x[0]*e*c, -t*x[0]*e*s)
		}
		return nil
	}}
}

// BenchmarkLeastSquaresVsLBFGSB solves each problem with LeastSquares on r
// and with L-BFGS-B on ½‖r‖² (default settings both), reporting iterations
// and residual evaluations per solve besides the time. Compare the ns/op
// of the lm and lbfgsb lines of one problem in one run.
func BenchmarkLeastSquaresVsLBFGSB(b *testing.B) {
	probs := append(append([]mghProblem(nil), mghProblems...), expFit(2000), expFit(20000))
	for _, p := range probs {
		name := p.name
		var lo, hi []float64
		if p.name == "expfit" {
			// Bounded, both methods: unbounded, L-BFGS-B's first step
			// overflows exp.
			name = "expfit-" + map[int]string{2000: "2k", 20000: "20k"}[p.m]
			lo, hi = []float64{-10, 0, 0}, []float64{10, 5, 5}
		}
		b.Run(name+"/lm", func(b *testing.B) {
			var res *Result
			for b.Loop() {
				var err error
				if res, err = (LeastSquares{}).Solve(LSProblem{Residuals: p.res, M: p.m, Lower: lo, Upper: hi}, p.x0, Settings{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Iterations), "iters")
			b.ReportMetric(float64(res.FuncEvaluations), "evals")
			b.ReportMetric(res.F, "F")
		})
		b.Run(name+"/lbfgsb", func(b *testing.B) {
			var res *Result
			obj := mghObjective(p)
			for b.Loop() {
				var err error
				if res, err = (LBFGSB{}).Minimize(Problem{Objective: obj, Lower: lo, Upper: hi}, p.x0, Settings{}); err != nil {
					b.Skip(err) // Meyer: the first step overflows exp
				}
			}
			b.ReportMetric(float64(res.Iterations), "iters")
			b.ReportMetric(float64(res.FuncEvaluations), "evals")
			b.ReportMetric(res.F, "F")
		})
	}
}

// BenchmarkLeastSquaresVsLBFGSBBounded is the same comparison on the
// bounded MGH problems of TestLeastSquaresMGHBounded.
func BenchmarkLeastSquaresVsLBFGSBBounded(b *testing.B) {
	for _, bp := range mghBounded {
		p := mghByName(bp.name)
		b.Run(p.name+"/lm", func(b *testing.B) {
			var res *Result
			for b.Loop() {
				var err error
				if res, err = (LeastSquares{}).Solve(LSProblem{Residuals: p.res, M: p.m, Lower: bp.lo, Upper: bp.hi}, p.x0, Settings{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Iterations), "iters")
			b.ReportMetric(float64(res.FuncEvaluations), "evals")
			b.ReportMetric(res.F, "F")
		})
		b.Run(p.name+"/lbfgsb", func(b *testing.B) {
			var res *Result
			obj := mghObjective(p)
			for b.Loop() {
				var err error
				if res, err = (LBFGSB{}).Minimize(Problem{Objective: obj, Lower: bp.lo, Upper: bp.hi}, p.x0, Settings{}); err != nil {
					b.Skip(err)
				}
			}
			b.ReportMetric(float64(res.Iterations), "iters")
			b.ReportMetric(float64(res.FuncEvaluations), "evals")
			b.ReportMetric(res.F, "F")
		})
	}
}
