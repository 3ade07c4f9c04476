package mecanum

import (
	"runtime"
	"testing"
	"time"

	"github.com/wheelgrad/wheelgrad/opt"
)

// BenchmarkEq8VsSquared: the default identification (eq. 8, DefaultConfig:
// the two stages of Fit.staged), the same in one stage (L-BFGS-B from
// -init, as before), and the -loss squared one (IdentifySquared), on the
// same three 7-s logs like the demo's, in-process, from the runs to μ.
// Reported: min-ns (the fastest run: on a shared machine the time of the
// code), cpu-ns (the least CPU time of the benchmark's thread in a run, on
// Linux), iterations and evaluations (each stage's summed). "ratio" runs
// the eq. 8 and the squared fits alternately, so that both see the same
// load, and reports eq8/squared of the fastest wall and CPU times;
// "eval-grad" is one Fit.Eval with its gradient along the late iterations
// (two points 0.1 µm apart in μ, the closest points warm-started) and
// "eval-grad-exhaustive" the same with every closest point searched from
// the hierarchy's root, as before ClosestWarm.
//
// Measured on the shared 2-core machine at load ~2, one run: eq8 49
// evaluations, 42 ms (41 ms CPU); squared 7 evaluations, 4.9 ms (4.5 ms
// CPU): 8.6× (9.1× in CPU time; interleaved, where the squared fit runs
// with the caches the eq. 8 fit left, 6.6× wall, 7.6× CPU); eval-grad
// 0.65–0.67 ms, eval-grad-exhaustive 0.79–0.82 ms. The tree before
// ClosestWarm and the first stage's tolerance, same conditions: eq8 58
// evaluations, 55–57 ms CPU, squared 5.2–5.7 ms (≈ 10×). The target was 3×:
// missed. What is left (CPU profile of eq8): the closest points ~40 % (one
// refine per query on the warm path: 5 samples and Newton's method), dyn's
// reverse pass ~26 % and forward ~11 %, the first stage ~22 % of the whole.
func BenchmarkEq8VsSquared(b *testing.B) {
	p := DefaultParams()
	runs := demoLikeRuns()
	init := [4]float64{0.5, 0.5, 0.5, 0.5}
	eq8 := func(oneStage bool) func() (int, int, error) {
		return func() (int, int, error) {
			f, err := NewFit(p, runs, DefaultConfig())
			if err != nil {
				return 0, 0, err
			}
			r, err := Identify(f, IdentifyOptions{Init: init, OneStage: oneStage})
			if err != nil {
				return 0, 0, err
			}
			return r.Opt.Iterations, r.Opt.FuncEvaluations, nil
		}
	}
	squared := func() (int, int, error) {
		_, r, _, err := IdentifySquared(p, runs, init, false, opt.Settings{})
		if err != nil {
			return 0, 0, err
		}
		return r.Opt.Iterations, r.Opt.FuncEvaluations, nil
	}
	// timed runs f and returns its wall and thread CPU time
	timed := func(b *testing.B, f func() (int, int, error)) (wall, cpu time.Duration, it, ev int) {
		c0, ok := threadCPU()
		t0 := time.Now()
		it, ev, err := f()
		if err != nil {
			b.Fatal(err)
		}
		wall = time.Since(t0)
		if c1, ok1 := threadCPU(); ok && ok1 {
			cpu = c1 - c0
		}
		return wall, cpu, it, ev
	}
	for _, c := range []struct {
		name string
		f    func() (int, int, error)
	}{
		{"eq8", eq8(false)},
		{"eq8-one-stage", eq8(true)},
		{"squared", squared},
	} {
		b.Run(c.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			fastest, least := time.Duration(1<<62), time.Duration(1<<62)
			it, ev := 0, 0
			for range b.N {
				var wall, cpu time.Duration
				wall, cpu, it, ev = timed(b, c.f)
				fastest, least = min(fastest, wall), min(least, cpu)
			}
			b.ReportMetric(float64(fastest.Nanoseconds()), "min-ns")
			b.ReportMetric(float64(least.Nanoseconds()), "cpu-ns")
			b.ReportMetric(float64(it), "iterations")
			b.ReportMetric(float64(ev), "evaluations")
		})
	}
	b.Run("ratio", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var w8, c8, wsq, csq = time.Duration(1 << 62), time.Duration(1 << 62), time.Duration(1 << 62), time.Duration(1 << 62)
		for range b.N {
			w, c, _, _ := timed(b, eq8(false))
			w8, c8 = min(w8, w), min(c8, c)
			w, c, _, _ = timed(b, squared)
			wsq, csq = min(wsq, w), min(csq, c)
		}
		b.ReportMetric(float64(w8)/float64(wsq), "eq8/squared-wall")
		if csq > 0 {
			b.ReportMetric(float64(c8)/float64(csq), "eq8/squared-cpu")
		}
	})
	f, err := NewFit(p, runs, DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	r, err := Identify(f, IdentifyOptions{Init: init})
	if err != nil {
		b.Fatal(err)
	}
	for _, exhaustive := range []bool{false, true} {
		name := "eval-grad"
		if exhaustive {
			name += "-exhaustive"
		}
		b.Run(name, func(b *testing.B) {
			d := f.newDynFit()
			d.camera()
			if exhaustive {
				d.warm = nil
			}
			x := append([]float64(nil), r.X...)
			g := make([]float64, len(x))
			for n := range b.N {
				x[0] = r.X[0] + 1e-7*float64(n%2)
				if _, err := d.Eval(x, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEq8Parts splits one default identification of the demo-like
// logs (NewFit, then Identify on DefaultConfig) into its parts, by thread
// CPU time (partMark): newfit, first (the least-squares first stage),
// precondition, second (the second stage), identifiability, and the whole;
// each run is followed by the -loss squared identification (squared), so
// that both see the same load. Reported per part: the least CPU time of a
// run, in ms (-ms), and eq8/squared of the least whole times (x-squared).
//
// at-minimum is the second stage started at the identification's own
// answer, on a fresh Fit linearised there: the one evaluation of its
// model (the closest points searched cold, as the second stage's first
// are) and the subproblem that finds no step. floor-x-squared is what an
// identification whose first stage landed on eq. 8's minimum would cost
// over the squared fit: the parts' least times with at-minimum in place
// of second. At 06:58 (three runs of 40): at-minimum 0.79–0.85 ms,
// floor 2.55–2.69× the squared fit, the whole 6.9–7.4×: every step the
// second stage takes costs most of a squared fit again, and the target
// of issue 22 (3×) leaves room for less than one.
//
// Measured in one sitting (load ~4.5, two runs each), the tree before this
// benchmark's changes against them: first 3.15–3.19 → 1.81 ms,
// identifiability 0.95–1.00 → 0.25, precondition 0.14 → 0.04, newfit
// 0.25–0.27 → 0.22–0.24, second 13.7–14.3 (unchanged); squared 1.67–1.73;
// x-squared 10.9–11.9 → 9.6–10.2. With the L1 Gauss–Newton second stage
// (~7.5 ms): 6.6–6.8 → 6.1–6.5.
func BenchmarkEq8Parts(b *testing.B) {
	p := DefaultParams()
	runs := demoLikeRuns()
	init := [4]float64{0.5, 0.5, 0.5, 0.5}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	parts := []string{"newfit", "first", "precondition", "second", "identifiability"}
	least := map[string]time.Duration{}
	for _, k := range append(parts, "eq8", "squared", "at-minimum") {
		least[k] = time.Duration(1 << 62)
	}
	var last time.Duration
	since := func(name string) {
		c, _ := threadCPU()
		least[name] = min(least[name], c-last)
		last = c
	}
	defer func() { partMark = nil }()
	for range b.N {
		c0, ok := threadCPU()
		if !ok {
			b.Skip("no thread CPU clock")
		}
		last = c0
		partMark = nil
		f, err := NewFit(p, runs, DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		since("newfit")
		partMark = since
		r, err := Identify(f, IdentifyOptions{Init: init})
		if err != nil {
			b.Fatal(err)
		}
		partMark = nil
		c1, _ := threadCPU()
		least["eq8"] = min(least["eq8"], c1-c0)
		if _, _, _, err := IdentifySquared(p, runs, init, false, opt.Settings{}); err != nil {
			b.Fatal(err)
		}
		c2, _ := threadCPU()
		least["squared"] = min(least["squared"], c2-c1)
		// the second stage from eq. 8's own minimum: its model there
		// and the subproblem that finds no step (the linearisation at
		// the point is the precondition part's work, not counted here)
		g, err := NewFit(p, runs, DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		lin, err := g.linearize(r.X, nil)
		if err != nil {
			b.Fatal(err)
		}
		c3, _ := threadCPU()
		res, _, err := g.linearStage(r.X, opt.Settings{FunctionTol: DefaultFunctionTol}, lin)
		if err != nil || res == nil || res.FuncEvaluations != 1 {
			b.Fatalf("the second stage from the minimum: %v, %v", res, err)
		}
		c4, _ := threadCPU()
		least["at-minimum"] = min(least["at-minimum"], c4-c3)
		linPool.Put(lin) // as Identify does, for the next run's
	}
	for _, k := range append(parts, "eq8", "squared", "at-minimum") {
		b.ReportMetric(float64(least[k])/1e6, k+"-ms")
	}
	b.ReportMetric(float64(least["eq8"])/float64(least["squared"]), "x-squared")
	floor := least["at-minimum"]
	for _, k := range parts {
		if k != "second" {
			floor += least[k]
		}
	}
	b.ReportMetric(float64(floor)/float64(least["squared"]), "floor-x-squared")
}

// BenchmarkHessEval is one evaluation of the second stage's model with
// its second-order terms (linEq8.hessEval) on the demo-like logs,
// linearised at μ = (0.6, 0.7, 0.8, 0.9) and the first camera poses,
// alternating between two points 1e-4 apart in every variable (so that
// the closest points are searched again, warm).
func BenchmarkHessEval(b *testing.B) {
	f, err := NewFit(DefaultParams(), demoLikeRuns(), DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	m, err := f.linearize(f.X0([4]float64{0.6, 0.7, 0.8, 0.9}), nil)
	if err != nil {
		b.Fatal(err)
	}
	n := f.Dim()
	st := newSQPState(n, len(m.terms), len(f.segs))
	d := [2][]float64{make([]float64, n), make([]float64, n)}
	for i := range d[1] {
		d[1][i] = 1e-4
	}
	b.ResetTimer()
	for i := range b.N {
		m.hessEval(d[i%2], st)
	}
}
