package diffdrive

import (
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/internal/benchpair"
)

// BenchmarkCalibrationSensitivities: the calibration step (eq. 22's L1
// loss as the step cost) over the paper's 3,800 segments × 50 steps, each
// paired with the native rollout (Sim.Forward, x-native = 1): value only,
// value and gradient by the reverse pass (StepLoss.LossGrad's work), the
// gradient of the loss by the forward mode (6 tangents, only the cost's
// kept), and the forward Jacobian of the outputs v, ω of every step.
func BenchmarkCalibrationSensitivities(b *testing.B) {
	p := Paper()
	bt := benchBatch(b)
	x0, u := bt.StepData()
	m := CalibModel(Smoothing{})
	q := calibSettings(p.L, p.H, 1, Smoothing{})
	z := perturbed(p)
	sim, ref := m.NewSim(bt.M, bt.N), m.NewSim(bt.M, bt.N)
	native := func() error { _, err := ref.Forward(z[:], q, x0, u, nil); return err }
	g := make([]float64, 6)
	b.Run("native", func(b *testing.B) {
		benchpair.Run(b, native, func() error { _, err := sim.Forward(z[:], q, x0, u, nil); return err })
	})
	b.Run("value", func(b *testing.B) {
		benchpair.Run(b, native, func() error { _, err := sim.Value(z[:], q, x0, u, nil); return err })
	})
	b.Run("value+grad-reverse", func(b *testing.B) {
		benchpair.Run(b, native, func() error {
			if _, err := sim.Forward(z[:], q, x0, u, nil); err != nil {
				return err
			}
			sim.Backward(z[:], q, u, nil, 1, nil, g, nil, nil)
			return nil
		})
	})
	jc, err := sim.NewJac(dyn.Wrt{})
	if err != nil {
		b.Fatal(err)
	}
	jc.Y, jc.JY, jc.JXT = nil, nil, nil
	b.Run("value+grad-forward", func(b *testing.B) {
		benchpair.Run(b, native, func() error {
			if err := sim.Jacobian(z[:], q, x0, u, jc); err != nil {
				return err
			}
			clear(g)
			for r := range bt.M {
				for d := range 6 {
					g[d] += jc.JCost[r*6+d]
				}
			}
			return nil
		})
	})
	j, err := sim.NewJac(dyn.Wrt{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("jacobian-forward", func(b *testing.B) {
		benchpair.Run(b, native, func() error { return sim.Jacobian(z[:], q, x0, u, j) })
	})
}
