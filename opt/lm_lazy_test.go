package opt

import (
	"math"
	"slices"
	"testing"
)

// TestLeastSquaresLazyFinalJacobian: with TrialJacobian, LazyFinalJacobian
// takes the same iterates to the same X and F (bit for bit) in the same
// iterations, on the MGH problems free and bounded, through J and through
// the normal equations; where the run ends on a step the model predicted
// to gain less than FunctionTol·F, that point's Jacobian is not computed
// (fewer Jacobian evaluations, and a status of FunctionConverged or
// StepConverged where the gradient there said GradientConverged).
func TestLeastSquaresLazyFinalJacobian(t *testing.T) {
	type tc struct {
		name string
		lp   LSProblem
		x0   []float64
	}
	var cs []tc
	for _, p := range mghProblems {
		cs = append(cs, tc{p.name, LSProblem{Residuals: p.res, M: p.m}, p.x0})
	}
	for _, b := range mghBounded {
		p := mghByName(b.name)
		cs = append(cs, tc{p.name + " bounded", LSProblem{Residuals: p.res, M: p.m, Lower: b.lo, Upper: b.hi}, p.x0})
	}
	p := expFit(500)
	cs = append(cs, tc{"expfit", LSProblem{Residuals: p.res, M: p.m}, p.x0})
	saved := 0
	for _, c := range cs {
		for _, normal := range []bool{false, true} {
			lp := c.lp
			var jc, nc int
			if normal {
				lp = normalOf(lp, &jc, &nc)
			}
			for _, set := range []Settings{{}, {FunctionTol: 1e-8, GradientTol: 1e-12}} {
				ref, err := LeastSquares{TrialJacobian: true}.Solve(lp, c.x0, set)
				if err != nil {
					t.Fatal(err)
				}
				got, err := LeastSquares{TrialJacobian: true, LazyFinalJacobian: true}.Solve(lp, c.x0, set)
				if err != nil {
					t.Fatal(err)
				}
				name := c.name
				if normal {
					name += " (normal equations)"
				}
				t.Logf("%s ftol %g: %v after %d it, %d ev (%d with J); lazy %v after %d, %d (%d)", name, set.FunctionTol,
					ref.Status, ref.Iterations, ref.FuncEvaluations, ref.GradEvaluations, got.Status, got.Iterations, got.FuncEvaluations, got.GradEvaluations)
				if !slices.Equal(got.X, ref.X) || got.F != ref.F && !(math.IsNaN(got.F) && math.IsNaN(ref.F)) || got.Iterations != ref.Iterations {
					t.Errorf("%s: lazy F %.17g after %d iterations at %v; without %.17g after %d at %v", name, got.F, got.Iterations, got.X, ref.F, ref.Iterations, ref.X)
				}
				switch {
				case got.Status == ref.Status:
					if got.GradEvaluations > ref.GradEvaluations {
						t.Errorf("%s: %d Jacobians lazy, %d without", name, got.GradEvaluations, ref.GradEvaluations)
					}
				case ref.Status == GradientConverged && (got.Status == FunctionConverged || got.Status == StepConverged):
					if got.GradEvaluations != ref.GradEvaluations-1 || got.FuncEvaluations != ref.FuncEvaluations {
						t.Errorf("%s: lazy %d evaluations, %d with J; without %d, %d", name, got.FuncEvaluations, got.GradEvaluations, ref.FuncEvaluations, ref.GradEvaluations)
					}
					saved++
				default:
					t.Errorf("%s: lazy %v, without %v", name, got.Status, ref.Status)
				}
				if got.GradEvaluations < ref.GradEvaluations && got.Status == ref.Status {
					saved++
				}
			}
		}
	}
	if saved == 0 {
		t.Error("LazyFinalJacobian saved no Jacobian on any problem")
	}
	t.Logf("%d runs saved their last Jacobian", saved)
}
