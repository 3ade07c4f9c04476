package opt

import (
	"math"
	"testing"
)

// A slowly crawling objective: f = 1 + Σ x_i⁴ from far out, which L-BFGS-B
// approaches ever more slowly. The stall rule must stop it once a window of
// iterations gains less than StallTol·|f|, and not before.
func TestStallStopsSlowCrawl(t *testing.T) {
	obj := func(x, g []float64) (float64, error) {
		f := 1.0
		for i, v := range x {
			f += v * v * v * v
			if g != nil {
				g[i] = 4 * v * v * v
			}
		}
		return f, nil
	}
	x0 := []float64{3, -2, 1.5, 2.5}
	full, err := LBFGSB{}.Minimize(Problem{Objective: obj}, x0, Settings{GradientTol: 1e-14, FunctionTol: 1e-300, MaxIterations: 400})
	if err != nil {
		t.Fatal(err)
	}
	st, err := LBFGSB{}.Minimize(Problem{Objective: obj}, x0, Settings{GradientTol: 1e-14, FunctionTol: 1e-300, MaxIterations: 400, StallIterations: 10, StallTol: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != FunctionConverged || st.Iterations >= full.Iterations {
		t.Fatalf("stall rule: %s after %d iterations (without it: %s after %d)", st.Status, st.Iterations, full.Status, full.Iterations)
	}
	tr := st.Trace
	n := len(tr)
	if gain := tr[n-11].F - tr[n-1].F; gain > 1e-6*math.Abs(tr[n-1].F) {
		t.Errorf("stopped although the last 10 iterations gained %g", gain)
	}
	if gain := tr[n-12].F - tr[n-2].F; gain <= 1e-6*math.Abs(tr[n-2].F) {
		t.Errorf("should have stopped one iteration earlier (gain %g)", gain)
	}
	t.Logf("stopped after %d of %d iterations, f %.3g vs %.3g", st.Iterations, full.Iterations, st.F, full.F)
}
