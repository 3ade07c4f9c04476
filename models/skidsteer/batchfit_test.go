package skidsteer

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/fit"
)

// FitBatch on the grass log: every method lowers the batch loss from the
// nominal start, held coefficients stay at their start, and L-BFGS-B finds
// a32 near its true value.
func TestFitBatch(t *testing.T) {
	runs, err := ReadLog("testdata/commands.csv", LogOptions{Sensors: "testdata/vo.csv"})
	if err != nil {
		t.Fatal(err)
	}
	iv, err := runs[0].Intervals(1, 400)
	if err != nil {
		t.Fatal(err)
	}
	grass, _ := SurfaceByName("grass")
	var held [NumCoeffs]bool
	for k := range held {
		held[k] = CoeffNames[k] != "a32" && CoeffNames[k] != "a11"
	}
	iters := 0
	res, cal, err := FitBatch(iv, IPEMConfig{}, "batch", held, fit.Settings{}, func(int, float64) { iters++ })
	if err != nil {
		t.Fatal(err)
	}
	if !res.Status.Converged() || iters == 0 {
		t.Errorf("status %v after %d iterations seen", res.Status, iters)
	}
	for k, v := range cal.A {
		if held[k] && v != 0 {
			t.Errorf("held %s = %g", CoeffNames[k], v)
		}
	}
	if d := math.Abs(cal.A[7] - grass.A[7]); d > 0.15*math.Abs(grass.A[7]) {
		t.Errorf("a32 = %.4f, true %.4f", cal.A[7], grass.A[7])
	}
	b, err := NewBatchIntervals(iv, IPEMConfig{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	f0 := b.Native(make([]float64, NumCoeffs))
	for _, m := range []string{"neldermead", "cmaes"} {
		res, _, err := FitBatch(iv, IPEMConfig{}, m, held, fit.Settings{MaxIter: 30, AllowUnconverged: true}, nil)
		if err != nil {
			t.Errorf("%s: %v", m, err)
		} else if !(res.F < f0) {
			t.Errorf("%s: loss %g from %g", m, res.F, f0)
		}
	}
	if _, _, err := FitBatch(iv, IPEMConfig{}, "newton", held, fit.Settings{}, nil); err == nil || !strings.Contains(err.Error(), "newton") {
		t.Errorf("unknown method: %v", err)
	}
}

// BatchLS: ½‖r‖² is Batch's objective (the gorgonia program and the native
// sum), and its Jacobian equals central differences of the residuals and,
// row by row, JacobianNative's end-pose Jacobian scaled by 1/σ.
func TestBatchLSResidualsAndJacobian(t *testing.T) {
	runs, err := ReadLog("testdata/commands.csv", LogOptions{Sensors: "testdata/vo.csv"})
	if err != nil {
		t.Fatal(err)
	}
	iv, err := runs[0].Intervals(1, 400)
	if err != nil {
		t.Fatal(err)
	}
	cfg := IPEMConfig{}
	ls, err := NewBatchLS(iv, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBatchIntervals(iv, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	a := []float64{0.05, -0.02, 0.01, 0.03, 0.02, -0.01, -0.04, -0.2, 0.02}
	r := make([]float64, ls.M)
	jac := mat.NewDense(ls.M, NumCoeffs, nil)
	if err := ls.Residuals(a, r, jac); err != nil {
		t.Fatal(err)
	}
	var half float64
	for _, v := range r {
		half += v * v / 2
	}
	fg, err := b.Eval(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fn := b.Native(a); math.Abs(half-fg) > 1e-10*fg || math.Abs(half-fn) > 1e-10*fn {
		t.Errorf("½‖r‖² = %.15g, Batch %.15g, native %.15g", half, fg, fn)
	}
	r2 := make([]float64, ls.M)
	if err := ls.Residuals(a, r2, nil); err != nil {
		t.Fatal(err)
	}
	for i := range r {
		if math.Abs(r[i]-r2[i]) > 1e-12*(1+math.Abs(r[i])) {
			t.Fatalf("r[%d] = %g with the Jacobian, %g without", i, r[i], r2[i])
		}
	}
	rp, rm := make([]float64, ls.M), make([]float64, ls.M)
	var worst float64
	for d := range NumCoeffs {
		h := 1e-6
		ap, am := append([]float64(nil), a...), append([]float64(nil), a...)
		ap[d] += h
		am[d] -= h
		if err := ls.Residuals(ap, rp, nil); err != nil {
			t.Fatal(err)
		}
		if err := ls.Residuals(am, rm, nil); err != nil {
			t.Fatal(err)
		}
		for i := range r {
			fd := (rp[i] - rm[i]) / (2 * h)
			worst = math.Max(worst, math.Abs(fd-jac.At(i, d))/(1+math.Abs(fd)))
		}
	}
	t.Logf("Jacobian vs central differences: worst relative error %.2g", worst)
	if worst > 1e-6 {
		t.Errorf("Jacobian vs central differences: %.2g", worst)
	}
	var nj [27]float64
	var vc, wc, dt []float64
	cfg.defaults()
	w := [3]float64{1 / cfg.SigmaPos, 1 / cfg.SigmaPos, 1 / cfg.SigmaPsi}
	for _, k := range []int{0, len(iv.Z) / 2, len(iv.Z) - 1} {
		vc, wc, dt = iv.Window(k, vc, wc, dt)
		JacobianNative(a, vc, wc, dt, &nj)
		for c := range 3 {
			for d := range NumCoeffs {
				if got, want := jac.At(c*len(iv.Z)+k, d), w[c]*nj[9*c+d]; math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
					t.Errorf("interval %d, component %d, d/d%s: %g, JacobianNative %g", k, c, CoeffNames[d], got, want)
				}
			}
		}
	}
}

// FitBatch "batch" (least squares) reaches a loss no higher than
// L-BFGS-B's ("lbfgsb") to 1e-9 relative and the same coefficients, in no
// more iterations, free and with held coefficients (measured: 3 and 3
// iterations against L-BFGS-B's 22 and 4).
func TestFitBatchLeastSquaresVsLBFGSB(t *testing.T) {
	runs, err := ReadLog("testdata/commands.csv", LogOptions{Sensors: "testdata/vo.csv"})
	if err != nil {
		t.Fatal(err)
	}
	iv, err := runs[0].Intervals(1, 400)
	if err != nil {
		t.Fatal(err)
	}
	var someHeld [NumCoeffs]bool
	for k := range someHeld {
		someHeld[k] = CoeffNames[k] != "a32" && CoeffNames[k] != "a11"
	}
	for _, held := range [][NumCoeffs]bool{{}, someHeld} {
		ls, cls, err := FitBatch(iv, IPEMConfig{}, "batch", held, fit.Settings{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		lb, clb, err := FitBatch(iv, IPEMConfig{}, "lbfgsb", held, fit.Settings{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("least squares: %v, %d iterations, %d evaluations, loss %.15g; L-BFGS-B: %v, %d iterations, %d evaluations, loss %.15g",
			ls.Status, ls.Iterations, ls.FuncEvaluations, ls.F, lb.Status, lb.Iterations, lb.FuncEvaluations, lb.F)
		if !ls.Status.Converged() {
			t.Errorf("least squares: %v", ls.Status)
		}
		if ls.Iterations > lb.Iterations {
			t.Errorf("least squares: %d iterations, L-BFGS-B %d", ls.Iterations, lb.Iterations)
		}
		if ls.F > lb.F*(1+1e-9) {
			t.Errorf("least squares loss %.15g above L-BFGS-B's %.15g", ls.F, lb.F)
		}
		for k := range NumCoeffs {
			if math.Abs(cls.A[k]-clb.A[k]) > 1e-3*(1+math.Abs(clb.A[k])) || (held[k] && cls.A[k] != 0) {
				t.Errorf("%s: %g (least squares), %g (L-BFGS-B)", CoeffNames[k], cls.A[k], clb.A[k])
			}
		}
	}
}
