package main

import (
	"testing"
	"time"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/internal/benchpair"
	"github.com/wheelgrad/wheelgrad/opt"
)

// BenchmarkTableOwnModel is the own model's convergence rows of
// docs/performance.md (the evaluation rows are BenchmarkOwnModel): the
// identification at 4 × 20,000 steps with command noise from the
// experiment's start values, by bounded least squares over the
// forward-mode Jacobian and by L-BFGS-B through the reverse-mode gradient
// (as BenchmarkOwnModelIdentify), each paired with the native rollout
// (Sim.Forward). Reported: iterations, evaluations, the time as x-native,
// the final loss, and for least squares its loss relative to L-BFGS-B's
// (negative: lower) and its fastest time over L-BFGS-B's (time-x-lbfgsb).
func BenchmarkTableOwnModel(b *testing.B) {
	d, err := synth(4, 20000, cmdNoise, 3)
	if err != nil {
		b.Fatal(err)
	}
	lp, err := lsProblem(d)
	if err != nil {
		b.Fatal(err)
	}
	prog, err := compile(d, dyn.WithoutSelfCheck())
	if err != nil {
		b.Fatal(err)
	}
	q := []float64{dt}
	ref := Robot.NewSim(d.B, d.T)
	native := func() error { _, err := ref.Forward(start, q, d.x0, d.u, nil); return err }
	var lb *opt.Result
	var lbMin time.Duration
	for _, c := range []struct {
		name  string
		solve func() (*opt.Result, error)
	}{
		{"identify-lbfgsb", func() (*opt.Result, error) {
			return opt.LBFGSB{}.Minimize(opt.Problem{Objective: prog.Eval, Lower: lower, Upper: upper}, start, opt.Settings{})
		}},
		{"identify-lsq", func() (*opt.Result, error) {
			return opt.LeastSquares{TrialJacobian: true}.Solve(lp, start, opt.Settings{})
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var res *opt.Result
			fastest := time.Duration(1 << 62)
			benchpair.Run(b, native, func() error {
				t0 := time.Now()
				var err error
				res, err = c.solve()
				fastest = min(fastest, time.Since(t0))
				return err
			})
			b.ReportMetric(float64(res.Iterations), "iterations")
			b.ReportMetric(float64(res.FuncEvaluations), "evaluations")
			b.ReportMetric(res.F, "loss")
			if lb == nil {
				lb, lbMin = res, fastest
				return
			}
			b.ReportMetric(res.F/lb.F-1, "loss-rel-lbfgsb")
			b.ReportMetric(float64(fastest)/float64(lbMin), "time-x-lbfgsb")
		})
	}
}
