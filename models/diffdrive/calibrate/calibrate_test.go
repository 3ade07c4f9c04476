package calibrate

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/opt"
)

func synth(t testing.TB, p diffdrive.Params, seconds float64, seed uint64) Log {
	t.Helper()
	lg, err := diffdrive.Synthesize(p, diffdrive.SynthConfig{Drive: diffdrive.Training, Seconds: seconds, Noise: 0.01, HangupEvery: 60, SpikeRate: 0.002, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return Log{UF: lg.UF, UL: lg.UL, VR: lg.VR, VL: lg.VL}
}

// The chain rule through the coordinates against central differences of
// L(ζ(x)) with the native loss.
func TestCoordinateGradients(t *testing.T) {
	p := diffdrive.Paper()
	lg := synth(t, p, 60, 2)
	b, _, err := Segments(lg, p.L, p.H, Options{N: 20, Stride: 7})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := diffdrive.NewAdjoint(b, p.L, p.H, diffdrive.LossSpec{CW: 1})
	sm := diffdrive.Smoothing{T: 0.05, Eps: 0.01}
	start := p.WithZeta([6]float64{0.5, 0.005, 0.3, 5, 5, 0.25})
	for _, kind := range []Coords{Steady, Scaled, Raw} {
		c := newCoordinate(kind, start)
		x := c.x0()
		for i := range x {
			x[i] *= 1 + 0.03*float64(i)
		}
		z := c.zeta(x)
		_, gz := a.LossGrad(z, sm)
		gx := make([]float64, 6)
		c.grad(x, gz[:], gx)
		f := func(x []float64) (float64, error) { return a.Loss(c.zeta(x), sm), nil }
		chk, err := ad.CheckGrad(f, gx, x, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if chk.MaxRelErr > 1e-6 {
			t.Errorf("%v: %v", kind, chk)
		}
	}
	// Steady coordinates at the start are all 1 and map back to the start.
	c := newCoordinate(Steady, start)
	z := c.zeta(c.x0())
	for i, v := range start.Zeta() {
		if math.Abs(z[i]-v) > 1e-14*v {
			t.Errorf("%s: %v, want %v", diffdrive.ZetaNames[i], z[i], v)
		}
	}
}

// Calibration from a perturbed start recovers ζ* on a corrupted synthetic
// log (castor hang-ups, spikes, noise), with the step language (default),
// the fused graph and natively, all to the same optimum.
func TestCalibrateRecoversParameters(t *testing.T) {
	p := diffdrive.Paper()
	lg := synth(t, p, 900, 4)
	start := p.WithZeta([6]float64{0.5, 0.005, 0.3, 5, 5, 0.25})
	var fused [6]float64
	for _, g := range []Graph{Fused, Native, Step} {
		r, err := Calibrate(lg, start, Options{Graph: g})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range r.Params.Zeta() {
			if e := math.Abs(v/p.Zeta()[i] - 1); e > 0.10 {
				t.Errorf("graph %d: %s = %v, truth %v (%.1f %%)", g, diffdrive.ZetaNames[i], v, p.Zeta()[i], 100*e)
			}
		}
		if g == Fused {
			fused = r.Params.Zeta()
		} else {
			for i, v := range r.Params.Zeta() {
				if math.Abs(v-fused[i]) > 1e-6*math.Abs(v) {
					t.Errorf("%s: native %v, fused %v", diffdrive.ZetaNames[i], v, fused[i])
				}
			}
		}
		if r.Segments < 1000 || r.Params.L != p.L || r.Params.H != p.H {
			t.Errorf("result %+v", r)
		}
	}
}

// BenchmarkCalibrate: a whole calibration of the 2,250-s synthetic
// wheelchair log (3,745 segments of 50 steps) with each gradient source,
// in one run so that their times compare.
func BenchmarkCalibrate(b *testing.B) {
	p := diffdrive.Paper()
	lg := synth(b, p, 2250, 4)
	start := p.WithZeta([6]float64{0.5, 0.005, 0.3, 5, 5, 0.25})
	for _, g := range []struct {
		name string
		g    Graph
	}{{"step", Step}, {"fused", Fused}, {"native-adjoint", Native}} {
		b.Run(g.name, func(b *testing.B) {
			var r *Result
			for range b.N {
				var err error
				if r, err = Calibrate(lg, start, Options{Graph: g.g}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.Evaluations), "evals")
		})
	}
}

func TestMethodNamed(t *testing.T) {
	for _, c := range []struct {
		name string
		want opt.Method
	}{{"", nil}, {"lbfgsb", nil}, {"neldermead", opt.NelderMead{}}, {"cmaes", opt.CMAES{Seed: 1}}} {
		m, err := MethodNamed(c.name)
		if err != nil || m != c.want {
			t.Errorf("MethodNamed(%q) = %#v, %v; want %#v", c.name, m, err, c.want)
		}
	}
	if _, err := MethodNamed("ipem"); err == nil {
		t.Error("MethodNamed(\"ipem\") gave no error")
	}
	var line string
	ProgressLine(func(format string, a ...any) { line = fmt.Sprintf(format, a...) })(0, opt.Iteration{Iter: 3, F: 12.5, Elapsed: 1234567 * time.Microsecond})
	if want := "diffdrive: iteration 3, loss 12.5, 1.235s"; line != want {
		t.Errorf("ProgressLine: %q, want %q", line, want)
	}
}

// OnIteration sees every iteration Progress sees, with its loss.
func TestOnIteration(t *testing.T) {
	p := diffdrive.Paper()
	lg := synth(t, p, 120, 5)
	start := p.WithZeta([6]float64{0.5, 0.005, 0.3, 5, 5, 0.25})
	var viaProgress, viaOn []string
	_, err := Calibrate(lg, start, Options{
		Progress:    func(stage int, it opt.Iteration) { viaProgress = append(viaProgress, fmt.Sprint(stage, it.Iter, it.F)) },
		OnIteration: func(stage, iter int, loss float64) { viaOn = append(viaOn, fmt.Sprint(stage, iter, loss)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(viaOn) == 0 || fmt.Sprint(viaOn) != fmt.Sprint(viaProgress) {
		t.Errorf("OnIteration saw %d iterations, Progress %d:\n%v\n%v", len(viaOn), len(viaProgress), viaOn, viaProgress)
	}
}
