package opt

import (
	"math"
	"testing"
)

func TestLeastSquaresMGH(t *testing.T) {
	for _, p := range mghProblems {
		t.Run(p.name, func(t *testing.T) {
			// The zero-residual problems are solved to a gradient of
			// 1e-15, so that F shows how close the minimum was reached.
			res, err := LeastSquares{}.Solve(LSProblem{Residuals: p.res, M: p.m}, p.x0, Settings{GradientTol: 1e-15})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v after %d iterations, %d+%d evaluations: F = %.12g at %v", res.Status, res.Iterations, res.FuncEvaluations, res.GradEvaluations, res.F, res.X)
			if !res.Status.Converged() {
				t.Errorf("status %v", res.Status)
			}
			ok := false
			for _, f := range p.fstar {
				if f == 0 && res.F < 1e-20 || math.Abs(res.F-f) <= 1e-9*f {
					ok = true
				}
			}
			if !ok {
				t.Errorf("F = %.12g, want one of %v", res.F, p.fstar)
			}
		})
	}
}
