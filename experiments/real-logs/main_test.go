package main

import (
	"io"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/opt"
)

func trainRuns(tb testing.TB) []mecanum.Run {
	dir := tb.TempDir()
	recs, err := Generate(dir, 1)
	if err != nil {
		tb.Fatal(err)
	}
	var runs []mecanum.Run
	for _, rec := range recs {
		if rec.Train && rec.Repeat == 0 {
			r, _, err := Load(rec, mecanum.DefaultParams())
			if err != nil {
				tb.Fatal(err)
			}
			runs = append(runs, r)
		}
	}
	return runs
}

// BenchmarkJointIdentify is item 6 of issue 10: one constant μ and free start
// poses over 8 six-second real-like runs (the library part; the CLI
// benchmark in cmd/wheelgrad adds reading the files).
func BenchmarkJointIdentify(b *testing.B) {
	runs := trainRuns(b)
	p := mecanum.DefaultParams()
	b.ResetTimer()
	for range b.N {
		f, err := mecanum.NewFit(p, runs, mecanum.DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		id, err := mecanum.Identify(f, mecanum.IdentifyOptions{Init: [4]float64{0.5, 0.5, 0.5, 0.5}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(id.Opt.Iterations), "iterations")
		b.ReportMetric(float64(id.Opt.FuncEvaluations), "evaluations")
	}
}

var _ = io.Discard

// BenchmarkJointLeastSquares: the same problem with NetFit's squared-error
// loss and the network frozen to a constant μ (only the output biases and
// the start poses free).
func BenchmarkJointLeastSquares(b *testing.B) {
	runs := trainRuns(b)
	p := mecanum.DefaultParams()
	b.ResetTimer()
	for range b.N {
		f, err := mecanum.NewNetFit(p, runs, 1, 0)
		if err != nil {
			b.Fatal(err)
		}
		x0 := f.X0([4]float64{0.5, 0.5, 0.5, 0.5}, 1)
		free := make([]bool, f.Dim())
		for i := 9; i < len(free); i++ {
			free[i] = true
		}
		for i := 5; i < 9; i++ {
			x0[i] = 0
		}
		r, err := f.Train(x0, free, opt.Settings{FunctionTol: mecanum.DefaultFunctionTol, GradientTol: mecanum.DefaultGradientTol})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(r.Opt.Iterations), "iterations")
		b.ReportMetric(float64(r.Opt.FuncEvaluations), "evaluations")
		mu := r.Net.Predict([4]float64{})
		b.ReportMetric(mu[0], "mu1")
	}
}
