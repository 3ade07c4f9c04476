package mecanum

import (
	"math"
	"testing"
)

// Lagged's step means and the speed it carries to the last row equal a
// fine Euler integration of τ·ω̇ = ω_s − ω from rest; τ = 0 leaves the run.
func TestLagged(t *testing.T) {
	r := Run{T: []float64{0, 0.1, 0.25, 0.3, 0.7}, W: [][4]float64{{10, -5, 0, 3}, {10, 5, 2, 3}, {-4, 0, 2, 3}, {0, 0, 0, 0}, {1, 1, 1, 1}}}
	const tau = 0.2
	l := r.Lagged(tau)
	var w [4]float64
	for i := range r.T {
		if i+1 == len(r.T) {
			for j := range 4 {
				if math.Abs(l.W[i][j]-w[j]) > 1e-4 { // the Euler reference errs by ~(h/n)/τ·|ω|
					t.Errorf("last row, wheel %d: %g, want %g", j, l.W[i][j], w[j])
				}
			}
			break
		}
		h := r.T[i+1] - r.T[i]
		const n = 100000
		var mean [4]float64
		for range n {
			for j := range 4 {
				mean[j] += w[j] / n
				w[j] += h / n * (r.W[i][j] - w[j]) / tau
			}
		}
		for j := range 4 {
			if math.Abs(l.W[i][j]-mean[j]) > 1e-4 {
				t.Errorf("row %d, wheel %d: %g, want %g", i, j, l.W[i][j], mean[j])
			}
		}
	}
	if z := r.Lagged(0); &z.W[0] != &r.W[0] {
		t.Error("τ = 0 copied the commands")
	}
	p := DefaultParams()
	p.Tau = -1
	if err := p.Validate(); err == nil {
		t.Error("tau = -1 validated")
	}
}
