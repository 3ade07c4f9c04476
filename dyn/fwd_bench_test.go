package dyn_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/dyn/internal/testmodels"
	"github.com/wheelgrad/wheelgrad/internal/benchpair"
)

// BenchmarkCrossover measures where the forward mode stops paying: for
// models with P = 1 … 32 parameters (testmodels.Wide: each parameter in
// its own term) at 8 × 150 and 4 × 20,000 steps, the gradient of a
// least-squares loss Σ r², r = y − 1, by the reverse pass (Forward +
// Backward) and by the forward mode (Jacobian, then Jᵀr; it also yields J
// for Gauss–Newton), each paired with the native rollout (x-native).
func BenchmarkCrossover(b *testing.B) {
	for _, m := range []*dyn.Model{testmodels.Wide1, testmodels.Wide2, testmodels.Wide4, testmodels.Wide8, testmodels.Wide16, testmodels.Wide32} {
		for _, sz := range [][2]int{{8, 150}, {4, 20000}} {
			B, T := sz[0], sz[1]
			P := m.NP()
			p, x0, u := make([]float64, P), make([]float64, 2*B), make([]float64, T*B)
			for i := range p {
				p[i] = 0.1 + 0.01*float64(i)
			}
			for i := range u {
				u[i] = math.Sin(0.01*float64(i/B) + float64(i%B))
			}
			q := []float64{0.01}
			sim, ref := m.NewSim(B, T), m.NewSim(B, T)
			native := func() error { _, err := ref.Forward(p, q, x0, u, nil); return err }
			y, r, g := make([]float64, T*B), make([]float64, T*B), make([]float64, P)
			name := fmt.Sprintf("P=%d/%dx%d/", P, B, T)
			b.Run(name+"reverse", func(b *testing.B) {
				benchpair.Run(b, native, func() error {
					if _, err := sim.Forward(p, q, x0, u, y); err != nil {
						return err
					}
					for i := range y {
						r[i] = y[i] - 1
					}
					sim.Backward(p, q, u, r, 0, nil, g, nil, nil)
					return nil
				})
			})
			j, err := sim.NewJac(dyn.Wrt{})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(name+"forward", func(b *testing.B) {
				benchpair.Run(b, native, func() error {
					if err := sim.Jacobian(p, q, x0, u, j); err != nil {
						return err
					}
					clear(g)
					for i, v := range j.Y {
						ri := v - 1
						for d, jd := range j.JY[i*P : (i+1)*P] {
							g[d] += ri * jd
						}
					}
					return nil
				})
			})
		}
	}
}
