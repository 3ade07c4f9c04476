package diffdrive

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGeneratedForwardPose: the generated value-only and forward-mode
// kernels of PoseModel (the step control drives) equal the interpreter on
// random bounded controls (moved from control with the model).
func TestGeneratedForwardPose(t *testing.T) {
	m := PoseModel
	rng := rand.New(rand.NewPCG(3, 3))
	const B, T = 3, 200
	p, q, x0, u := make([]float64, m.NP()), make([]float64, m.NQ()), make([]float64, m.NS()*B), make([]float64, T*m.NU()*B)
	for _, s := range [][]float64{p, q} {
		for i := range s {
			s[i] = 0.05 + 0.5*rng.Float64()
		}
	}
	for i := range x0 {
		x0[i] = rng.NormFloat64()
	}
	for i := range u {
		u[i] = math.Sin(0.05*float64(i) + rng.Float64())
	}
	if _, err := m.CheckGeneratedForward(p, q, x0, u, B, T, 1e-10); err != nil {
		t.Error(err)
	}
}
