package main

import (
	"fmt"
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/internal/benchpair"
	"github.com/wheelgrad/wheelgrad/opt"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkOwnModel measures, in one run, at 8 × 150 and 4 × 20,000 steps
// with the generated kernel, each paired with the native rollout
// (Sim.Forward, the reference of every ratio x-native): the value-only rollout
// (Sim.Value with the outputs), the value and gradient of the
// least-squares loss by the reverse pass (Forward + Backward natively, and
// through the gorgonia program the experiment identifies with), and the
// residuals with their full Jacobian with respect to the three parameters
// by the forward mode (Sim.Jacobian; -pass: the rollout with its Jacobian
// alone, without forming the residuals from its outputs).
func BenchmarkOwnModel(b *testing.B) {
	q := []float64{dt}
	for i, sz := range []size{{8, 150, cmdNoise}, {4, 20000, cmdNoise}} {
		d, err := synth(sz.B, sz.T, sz.cmdNoise, uint64(i+1))
		if err != nil {
			b.Fatal(err)
		}
		m := 2 * d.T * d.B
		meas := append(append([]float64(nil), d.xm...), d.ym...)
		y, r := make([]float64, m), make([]float64, m)
		sim := Robot.NewSim(d.B, d.T)
		ref := Robot.NewSim(d.B, d.T)
		native := func() error { _, err := ref.Forward(start, q, d.x0, d.u, nil); return err }
		name := fmt.Sprintf("%dx%d/", d.B, d.T)
		b.Run(name+"native", func(b *testing.B) {
			benchpair.Run(b, native, func() error { _, err := sim.Forward(start, q, d.x0, d.u, nil); return err })
		})
		b.Run(name+"value", func(b *testing.B) {
			benchpair.Run(b, native, func() error { _, err := sim.Value(start, q, d.x0, d.u, y); return err })
		})
		g := make([]float64, 3)
		b.Run(name+"value+grad-reverse", func(b *testing.B) {
			benchpair.Run(b, native, func() error {
				if _, err := sim.Forward(start, q, d.x0, d.u, y); err != nil {
					return err
				}
				for i := range r {
					r[i] = (y[i] - meas[i]) * (1 / (posNoise * posNoise))
				}
				sim.Backward(start, q, d.u, r, 0, nil, g, nil, nil)
				return nil
			})
		})
		prog, err := compile(d, dyn.WithoutSelfCheck())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"value+grad-graph", func(b *testing.B) {
			benchpair.Run(b, native, func() error { _, err := prog.ValueAndGradInto(start, g); return err })
		})
		j, err := sim.NewJac(dyn.Wrt{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"jacobian-forward-pass", func(b *testing.B) {
			benchpair.Run(b, native, func() error { return sim.Jacobian(start, q, d.x0, d.u, j) })
		})
		b.Run(name+"jacobian-forward", func(b *testing.B) {
			benchpair.Run(b, native, func() error {
				if err := sim.Jacobian(start, q, d.x0, d.u, j); err != nil {
					return err
				}
				for i := range r {
					r[i] = (j.Y[i] - meas[i]) * (1 / posNoise)
				}
				return nil
			})
		})
		lp, err := lsProblem(d)
		if err != nil {
			b.Fatal(err)
		}
		jac := mat.NewDense(lp.M, 3, nil)
		b.Run(name+"residuals+jacobian-ls", func(b *testing.B) {
			benchpair.Run(b, native, func() error { return lp.Residuals(start, r, jac) })
		})
	}
}

// BenchmarkOwnModelIdentify times the identification at 4 × 20,000 steps
// with command noise, from the experiment's start values: bounded least
// squares over the residuals with the forward-mode Jacobian (opt's choice,
// the normal equations for this 160,000×3 problem, and its QR path), and L-BFGS-B
// on the same loss through the reverse-mode gradient. It reports the
// iterations, the residual (value) and Jacobian passes, and the final loss
// relative to the lower of the two (0 for the one that found it).
func BenchmarkOwnModelIdentify(b *testing.B) {
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
	solve := map[string]func() (*opt.Result, error){
		"least-squares": func() (*opt.Result, error) {
			return opt.LeastSquares{TrialJacobian: true}.Solve(lp, start, opt.Settings{})
		},
		"least-squares-qr": func() (*opt.Result, error) {
			return opt.LeastSquares{TrialJacobian: true, Solver: opt.QRSolver}.Solve(lp, start, opt.Settings{})
		},
		"lbfgsb": func() (*opt.Result, error) {
			return opt.LBFGSB{}.Minimize(opt.Problem{Objective: prog.Eval, Lower: lower, Upper: upper}, start, opt.Settings{})
		},
	}
	best := math.Inf(1)
	for _, f := range solve {
		res, err := f()
		if err != nil {
			b.Fatal(err)
		}
		best = min(best, res.F)
	}
	for _, name := range []string{"least-squares", "least-squares-qr", "lbfgsb"} {
		b.Run(name, func(b *testing.B) {
			var res *opt.Result
			for range b.N {
				if res, err = solve[name](); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Iterations), "iterations")
			b.ReportMetric(float64(res.FuncEvaluations), "evaluations")
			b.ReportMetric(float64(res.GradEvaluations), "jacobians/gradients")
			b.ReportMetric((res.F-best)/best, "rel-loss-above-best")
		})
	}
}
