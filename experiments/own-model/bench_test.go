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
// alone, without forming the residuals from its outputs; jacobian-forward:
// the residuals formed in a second loop). The -fit rows hand the rollout a
// dyn.Fit, so that the kernel forms the residuals (and the weighted rows,
// or each lane's JᵀJ and Jᵀr, or only the gradient Jᵀr of ½‖r‖²) in its
// loop; the -ls rows are what the least-squares solver calls
// (lsProblem's Residuals into its matrix, and Normal on its
// normal-equations path, which it takes for this problem).
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
		// The same with a dyn.Fit: the kernel (generated with FitKernel)
		// forms the residuals and the weighted rows in its loop.
		fj, err := sim.NewJac(dyn.Wrt{})
		if err != nil {
			b.Fatal(err)
		}
		fj.Y, fj.JXT, fj.JCost = nil, nil, nil
		fj.Fit = &dyn.Fit{Meas: meas, Weight: []float64{1 / posNoise, 1 / posNoise}, R: r}
		b.Run(name+"residuals+jacobian-fit", func(b *testing.B) {
			benchpair.Run(b, native, func() error { return sim.Jacobian(start, q, d.x0, d.u, fj) })
		})
		// No Jacobian stored: the residuals and each lane's JᵀJ, Jᵀr.
		nj, err := sim.NewJac(dyn.Wrt{})
		if err != nil {
			b.Fatal(err)
		}
		nj.Y, nj.JY, nj.JXT, nj.JCost = nil, nil, nil, nil
		nj.Fit = &dyn.Fit{Meas: meas, Weight: []float64{1 / posNoise, 1 / posNoise}, R: r, JTJ: make([]float64, d.B*9), JTR: make([]float64, d.B*3)}
		b.Run(name+"residuals+normal-fit", func(b *testing.B) {
			benchpair.Run(b, native, func() error { return sim.Jacobian(start, q, d.x0, d.u, nj) })
		})
		// The loss ½‖r‖² and its gradient Jᵀr alone: nothing stored.
		gj, err := sim.NewJac(dyn.Wrt{})
		if err != nil {
			b.Fatal(err)
		}
		gj.Y, gj.JY, gj.JXT, gj.JCost = nil, nil, nil, nil
		gj.Fit = &dyn.Fit{Meas: meas, Weight: []float64{1 / posNoise, 1 / posNoise}, JTR: make([]float64, d.B*3)}
		b.Run(name+"value+grad-fit", func(b *testing.B) {
			benchpair.Run(b, native, func() error { return sim.Jacobian(start, q, d.x0, d.u, gj) })
		})
		lp, err := lsProblem(d)
		if err != nil {
			b.Fatal(err)
		}
		jac := mat.NewDense(lp.M, 3, nil)
		b.Run(name+"residuals+jacobian-ls", func(b *testing.B) {
			benchpair.Run(b, native, func() error { return lp.Residuals(start, r, jac) })
		})
		jtj, jtr := make([]float64, 9), make([]float64, 3)
		b.Run(name+"residuals+normal-ls", func(b *testing.B) {
			benchpair.Run(b, native, func() error { return lp.Normal(start, r, jtj, jtr) })
		})
	}
}

// BenchmarkOwnModelIdentify times the identification at 4 × 20,000 steps
// with command noise, from the experiment's start values: bounded least
// squares over the residuals with the forward-mode Jacobian (opt's choice,
// the normal equations for this 160,000×3 problem, formed in the rollout
// by lsProblem's Normal; the same from J, Normal unset; and its QR path), and L-BFGS-B
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
		"least-squares-j": func() (*opt.Result, error) {
			withJ := lp
			withJ.Normal = nil
			return opt.LeastSquares{TrialJacobian: true}.Solve(withJ, start, opt.Settings{})
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
	for _, name := range []string{"least-squares", "least-squares-j", "least-squares-qr", "lbfgsb"} {
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
