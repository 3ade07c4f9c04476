package pioneer

import (
	"testing"
	"time"

	"github.com/wheelgrad/wheelgrad/internal/benchpair"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkTablePioneer is the Pioneer's rows of docs/performance.md, on
// the sample log (testdata/p3dx.csv: two runs, 1,063 measured rows; the
// physical form's 5-ms internal step makes it 11,980 steps per lane),
// each form with its default free parameters:
//
//   - native: the exact rollout (Sim.Forward at T = 0), x-native = 1;
//   - value+grad: the smoothed loss (T = 0.005) and its gradient by the
//     generated reverse pass (what L-BFGS-B evaluates);
//   - residuals+jacobian: the residuals and their Jacobian with respect to
//     the free parameters by the forward mode (what least squares
//     evaluates);
//   - identify-lbfgsb, identify-lsq: the whole identification (Identify,
//     the default options), with its iterations, evaluations, exact loss
//     and time as x-native (over one native rollout); least squares also
//     as ratios to L-BFGS-B: its loss relative to L-BFGS-B's (negative:
//     lower), its evaluations and its fastest time.
func BenchmarkTablePioneer(b *testing.B) {
	rs, err := ReadLog("testdata/p3dx.csv", LogOptions{NeedMeasured: true})
	if err != nil {
		b.Fatal(err)
	}
	var runs []*Run
	for i := range rs {
		runs = append(runs, &rs[i])
	}
	for _, form := range []string{FormExperimental, FormPhysical} {
		p := Default(form)
		dv, dw := p.Delays()
		names := ExperimentalParamNames
		if form == FormPhysical {
			names = PhysicalParamNames
		}
		x := p.vector()
		var idx []int
		var sc, z []float64
		for _, n := range DefaultFree(form) {
			for k, m := range names {
				if m == n {
					idx = append(idx, k)
					sc = append(sc, scale(n, x[k], p.Ts))
					z = append(z, x[k]/sc[len(sc)-1])
				}
			}
		}
		bt := newBatch(p, runs, dv, dw, 1, 1)
		ref := newBatch(p, runs, dv, dw, 1, 1)
		native := func() error { _, err := ref.run(x, 0, nil); return err }
		g := make([]float64, len(x))
		b.Run(form+"/native", func(b *testing.B) {
			benchpair.Run(b, native, func() error { _, err := bt.run(x, 0, nil); return err })
		})
		b.Run(form+"/value+grad", func(b *testing.B) {
			benchpair.Run(b, native, func() error { _, err := bt.run(x, 0.005, g); return err })
		})
		l, err := newLSQ(bt, idx, sc, x, 1)
		if err != nil {
			b.Fatal(err)
		}
		r := make([]float64, len(l.rows))
		jac := mat.NewDense(len(l.rows), len(idx), nil)
		b.Run(form+"/residuals+jacobian", func(b *testing.B) {
			bt.setT(0.005)
			benchpair.Run(b, native, func() error { return l.residuals(z, r, jac) })
		})
		// L-BFGS-B first: least squares reports its ratios to it
		var lb *Result
		var lbMin time.Duration
		for _, m := range []string{MethodLBFGSB, MethodLSQ} {
			b.Run(form+"/identify-"+m, func(b *testing.B) {
				var res *Result
				fastest := time.Duration(1 << 62)
				benchpair.Run(b, native, func() error {
					t0 := time.Now()
					var err error
					res, err = Identify(p, runs, IdentifyOptions{Method: m})
					fastest = min(fastest, time.Since(t0))
					return err
				})
				b.ReportMetric(float64(res.Iterations), "iterations")
				b.ReportMetric(float64(res.Evaluations), "evaluations")
				b.ReportMetric(res.Loss, "loss")
				if m == MethodLBFGSB {
					lb, lbMin = res, fastest
					return
				}
				b.ReportMetric(res.Loss/lb.Loss-1, "loss-rel-lbfgsb")
				b.ReportMetric(float64(res.Evaluations)/float64(lb.Evaluations), "evals-x-lbfgsb")
				b.ReportMetric(float64(fastest)/float64(lbMin), "time-x-lbfgsb")
			})
		}
	}
}
