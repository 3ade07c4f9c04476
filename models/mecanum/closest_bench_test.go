package mecanum

import (
	"runtime"
	"testing"
	"time"

	"github.com/wheelgrad/wheelgrad/losses"
	"github.com/wheelgrad/wheelgrad/opt"
)

// BenchmarkEq8Closest is the share of the spline term's closest-point
// searches in one eq. 8 evaluation with its gradient (Fit.evalAs, the native
// loss, DefaultConfig) on demoLikeRuns (3 × 7 s, 1,260 camera samples), at
// the identified μ moved by ±0.1 µm between evaluations (the late
// iterations): "warm" with a closest-point memory per sample (as Identify
// runs it), "cold" with every closest point searched from the hierarchy's
// root, "no-spline" the same loss without the spline term (Weights.Spline =
// 0: the rollout, its gradient and the other terms). cpu-ns is the least
// thread CPU time of one evaluation (on Linux: on a shared machine, its own
// work), cpu-ns/search (that less no-spline's)/searches: the searches' cost;
// searches/op is the camera samples.
// The "iterates" ones evaluate, in order, the iterates of a one-stage
// Identify (recorded by its callback) with one fresh memory per pass, so that
// the points move as in a whole identification (centimetres early, less
// than a micrometre late); cpu-ns is the least CPU time of the
// benchmark's thread for a pass (on Linux: on a shared machine, its own
// work), cpu-ns/search (warm − no-spline)/searches.
func BenchmarkEq8Closest(b *testing.B) {
	p := DefaultParams()
	runs := demoLikeRuns()
	f, err := NewFit(p, runs, DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	r, err := Identify(f, IdentifyOptions{Init: [4]float64{0.5, 0.5, 0.5, 0.5}})
	if err != nil {
		b.Fatal(err)
	}
	// the iterates of the one-stage identification (the staged one's
	// callback sees its preconditioned variables)
	var iterates [][]float64
	if _, err := Identify(f, IdentifyOptions{Init: [4]float64{0.5, 0.5, 0.5, 0.5}, OneStage: true, Settings: opt.Settings{Callback: func(it opt.Iteration) bool {
		iterates = append(iterates, append([]float64(nil), it.X...))
		return true
	}}}); err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Weights.Spline = 0
	fNo, err := NewFit(p, runs, cfg)
	if err != nil {
		b.Fatal(err)
	}
	searches := 0
	for _, s := range f.segs {
		searches += len(s.cam)
	}
	var noSplineEval time.Duration
	for _, c := range []struct {
		name string
		f    *Fit
		warm bool
	}{{"no-spline", fNo, false}, {"warm", f, true}, {"cold", f, false}} {
		b.Run(c.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var w [][]losses.Warm
			if c.warm {
				w = c.f.newWarm()
			}
			x := append([]float64(nil), r.X...)
			g := make([]float64, len(x))
			least := time.Duration(1 << 62)
			for n := range b.N {
				x[0] = r.X[0] + 1e-7*float64(n%2)
				clear(g)
				c0, ok0 := threadCPU()
				c.f.evalAs(x, g, nil, false, w)
				if c1, ok1 := threadCPU(); ok0 && ok1 {
					least = min(least, c1-c0)
				}
			}
			refines := 0
			for _, row := range w {
				for _, m := range row {
					refines += m.Refines
				}
			}
			b.ReportMetric(float64(searches), "searches/op")
			b.ReportMetric(float64(least.Nanoseconds()), "cpu-ns")
			if c.warm {
				b.ReportMetric(float64(refines)/float64(b.N*searches), "refines/search")
			}
			if c.f == fNo {
				noSplineEval = least
			} else if noSplineEval > 0 {
				b.ReportMetric(float64((least-noSplineEval).Nanoseconds())/float64(searches), "cpu-ns/search")
			}
		})
	}
	var noSpline time.Duration
	for _, c := range []struct {
		name string
		f    *Fit
	}{{"iterates-no-spline", fNo}, {"iterates-warm", f}} {
		b.Run(c.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			g := make([]float64, len(r.X))
			least := time.Duration(1 << 62)
			for range b.N {
				c0, ok0 := threadCPU()
				w := c.f.newWarm()
				for _, x := range iterates {
					clear(g)
					c.f.evalAs(x, g, nil, false, w)
				}
				if c1, ok1 := threadCPU(); ok0 && ok1 {
					least = min(least, c1-c0)
				}
			}
			b.ReportMetric(float64(len(iterates)), "evals/op")
			b.ReportMetric(float64(least.Nanoseconds()), "cpu-ns")
			if c.f == fNo {
				noSpline = least
			} else if noSpline > 0 {
				b.ReportMetric(float64((least-noSpline).Nanoseconds())/float64(len(iterates)*searches), "cpu-ns/search")
			}
		})
	}
}
