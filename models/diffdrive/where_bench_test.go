package diffdrive

import (
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// BenchmarkPoseSwitch times PoseModel's generated rollout (Sim.Forward,
// the Roll kernel) and value-only rollout (Sim.Value, RollFinal) with the
// exact friction (T = 0) and the smoothed one (T = 0.05), one lane of
// 2,000 steps: the Where that switches between them computes only the
// taken branch in these kernels (dyn's code generation), where both were
// computed before (issue 21.6).
func BenchmarkPoseSwitch(b *testing.B) {
	m := PoseModel
	const B, T = 1, 2000
	pp := Paper()
	z := pp.Zeta()
	x0 := make([]float64, m.NS()*B)
	u := make([]float64, T*m.NU()*B)
	for t := range T {
		u[t*2], u[t*2+1] = 0.6+0.4*math.Sin(0.01*float64(t)), 0.5*math.Sin(0.003*float64(t))
	}
	for _, c := range []struct {
		name string
		band float64
	}{{"exact", 0}, {"smoothed", 0.05}} {
		q := []float64{pp.H, pp.L, c.band}
		sim := m.NewSim(B, T, dyn.WithoutSelfCheck())
		b.Run(c.name+"/Forward", func(b *testing.B) {
			for range b.N {
				if _, err := sim.Forward(z[:], q, x0, u, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		y := make([]float64, m.NY()*T*B)
		b.Run(c.name+"/Value", func(b *testing.B) {
			for range b.N {
				if _, err := sim.Value(z[:], q, x0, u, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
