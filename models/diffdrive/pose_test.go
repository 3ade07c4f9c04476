package diffdrive

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// PoseModel equals Params.Step (exact friction, T = 0) and StepWheelSmooth
// (T > 0), and its pose is the unicycle Euler step from Params.Body, to
// 1e-12 over rollouts that lock and unlock the wheels (commands around the
// deadband, stops), for the generated kernel and the interpreter.
func TestPoseModelMatchesNative(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
	p := Paper()
	rng := rand.New(rand.NewPCG(1, 2))
	for name, k := range map[string]dyn.Kernel{"generated": PoseModel.NewKernel(), "interpreter": PoseModel.NewInterpreter()} {
		st, err := PoseModel.NewStepperWith(k)
		if err != nil {
			t.Fatal(err)
		}
		for _, band := range []float64{0, 0.05} {
			q := []float64{p.H, p.L, band}
			z := p.Zeta()
			var s State
			px, py, pth := 0.2, -0.1, 0.5
			locked := 0
			for step := range 3000 {
				uf, ul := 0.0, 0.0
				switch (step / 100) % 4 {
				case 0:
					uf, ul = 4*rng.NormFloat64(), 4*rng.NormFloat64() // around the deadband (≈ 3)
				case 1:
					uf, ul = 20+10*rng.Float64(), 15*rng.NormFloat64()
				case 2: // stop
				case 3:
					uf, ul = -30*rng.Float64(), 40*rng.NormFloat64()
				}
				x := []float64{s.SdR, s.SddR, s.SdL, s.SddL, px, py, pth}
				xn := make([]float64, 7)
				y := make([]float64, 3)
				if _, err := st.Step(z[:], q, x, []float64{uf, ul}, xn, y); err != nil {
					t.Fatal(err)
				}
				var want State
				if band == 0 {
					var lock [2]bool
					want, lock = p.Step(s, uf, ul)
					if lock[0] {
						locked++
					}
				} else {
					vr, vl := p.Input(uf, ul)
					want.SdR, want.SddR = p.StepWheelSmooth(s.SdR, s.SddR, vr, band)
					want.SdL, want.SddL = p.StepWheelSmooth(s.SdL, s.SddL, vl, band)
				}
				v, w := p.Body(s)
				nx, ny, nth := px+p.H*v*math.Cos(pth), py+p.H*v*math.Sin(pth), pth+p.H*w
				got := []float64{want.SdR, want.SddR, want.SdL, want.SddL, nx, ny, nth}
				for i := range got {
					if !near(xn[i], got[i]) {
						t.Fatalf("%s, T = %g, step %d: state %s = %.17g, native %.17g", name, band, step, PoseModel.Spec().State[i], xn[i], got[i])
					}
				}
				if y[0] != xn[4] || y[1] != xn[5] || y[2] != xn[6] {
					t.Fatalf("%s: outputs %v are not the next pose %v", name, y, xn[4:])
				}
				s = want
				px, py, pth = nx, ny, nth
			}
			if band == 0 && locked < 50 {
				t.Errorf("%s: the right wheel locked on %d steps only: the test does not reach the clamp", name, locked)
			}
		}
	}
}
