package calibrate

import (
	"testing"

	"github.com/wheelgrad/wheelgrad/internal/benchpair"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
)

// BenchmarkTableDiffdrive is the diffdrive rows of docs/performance.md: the
// calibration of BenchmarkCalibrate (the 2,250-s synthetic wheelchair log,
// 3,745 segments of 50 steps, from the same start), each paired with the
// native rollout of the whole batch with its exact loss (StepLoss.Loss on
// one core, x-native = 1):
//
//   - value+grad: the exact loss of eq. 22 and its gradient by the
//     generated reverse pass, on one core (StepLoss.LossGrad);
//   - value+grad-sharded: the same as the calibration evaluates it, one
//     shard per core;
//   - calibrate: the whole calibration (Calibrate, default options: the
//     step model sharded, L-BFGS-B), with its iterations and evaluations and
//     its time over one native rollout.
func BenchmarkTableDiffdrive(b *testing.B) {
	p := diffdrive.Paper()
	lg := synth(b, p, 2250, 4)
	start := p.WithZeta([6]float64{0.5, 0.005, 0.3, 5, 5, 0.25})
	var o Options
	o.defaults()
	bt, _, err := Segments(lg, p.L, p.H, o)
	if err != nil {
		b.Fatal(err)
	}
	sl, err := diffdrive.NewStepLoss(bt, p.L, p.H, diffdrive.LossSpec{CW: o.CW})
	if err != nil {
		b.Fatal(err)
	}
	ref, err := diffdrive.NewStepLoss(bt, p.L, p.H, diffdrive.LossSpec{CW: o.CW})
	if err != nil {
		b.Fatal(err)
	}
	z := start.Zeta()
	exact := diffdrive.Smoothing{}
	native := func() error { _, err := ref.Loss(z, exact); return err }
	// the first reverse pass of a Sim runs dyn's self-check: not timed
	if _, _, err := sl.LossGrad(z, exact); err != nil {
		b.Fatal(err)
	}
	b.Run("native", func(b *testing.B) {
		benchpair.Run(b, native, func() error { _, err := sl.Loss(z, exact); return err })
	})
	b.Run("value+grad", func(b *testing.B) {
		benchpair.Run(b, native, func() error { _, _, err := sl.LossGrad(z, exact); return err })
	})
	ob, err := newStepObjective(bt, p, o)
	if err != nil {
		b.Fatal(err)
	}
	g := make([]float64, 6)
	if _, err := ob.eval(z, g); err != nil {
		b.Fatal(err)
	}
	b.Run("value+grad-sharded", func(b *testing.B) {
		benchpair.Run(b, native, func() error { _, err := ob.eval(z, g); return err })
	})
	b.Run("calibrate", func(b *testing.B) {
		var r *Result
		benchpair.Run(b, native, func() error {
			var err error
			r, err = Calibrate(lg, start, Options{})
			return err
		})
		b.ReportMetric(float64(r.Iterations), "iterations")
		b.ReportMetric(float64(r.Evaluations), "evaluations")
	})
}
