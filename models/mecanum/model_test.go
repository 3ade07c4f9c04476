package mecanum

import (
	"fmt"
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/losses"
)

// The FORMATS.md model written out step by step.
func TestSimulateIsExplicitEuler(t *testing.T) {
	p := testParams()
	r, _ := Synthesize(p, SynthSpec{Command: [4]float64{3, 9, 7, 2}, Duration: 1, Pose0: [3]float64{1, 2, 0.5}})
	x, y, th := Simulate(p, &r)
	k := p.M * p.G * p.R / (4 * p.Ts)
	c := p.R / (4 * p.Lab)
	X, Y, TH := r.X[0], r.Y[0], r.Theta[0]
	for i := range r.Len() {
		if math.Abs(x[i]-X) > 1e-12 || math.Abs(y[i]-Y) > 1e-12 || math.Abs(th[i]-TH) > 1e-12 {
			t.Fatalf("row %d: (%v %v %v), by hand (%v %v %v)", i, x[i], y[i], th[i], X, Y, TH)
		}
		if i+1 == r.Len() {
			break
		}
		var om [4]float64
		for j := range 4 {
			om[j] = r.W[i][j] * (1 - trueMu[j]*k)
		}
		vx := c * p.Lab * (-om[0] + om[1] - om[2] + om[3])
		vy := c * p.Lab * (om[0] + om[1] + om[2] + om[3])
		wz := c * (om[0] - om[1] - om[2] + om[3])
		dt := r.T[i+1] - r.T[i]
		X, Y, TH = X+dt*(math.Cos(TH)*vx-math.Sin(TH)*vy), Y+dt*(math.Sin(TH)*vx+math.Cos(TH)*vy), TH+dt*wz
	}
	// Forward axis: a pure forward command at θ = 0 moves along +y.
	p.Mu = []float64{0, 0, 0, 0}
	f, _ := Synthesize(p, SynthSpec{Command: [4]float64{5, 5, 5, 5}, Duration: 1})
	fx, fy, _ := Simulate(p, &f)
	if n := f.Len() - 1; !(fy[n] > 0.1) || math.Abs(fx[n]) > 1e-12 {
		t.Errorf("forward command ends at (%v, %v), want on +y", fx[n], fy[n])
	}
}

// A run whose first camera pose is not on its first row is anchored there;
// the earlier rows are the Euler steps backwards, so rolling forward from the
// computed first row reproduces the trajectory.
func TestSimulateAnchorsAtFirstCameraPose(t *testing.T) {
	p := testParams()
	r, _ := Synthesize(p, SynthSpec{Command: [4]float64{3, 9, 7, 2}, Duration: 1, Pose0: [3]float64{1, 2, 0.5}, Noise: 0.003, Seed: 1})
	for _, k0 := range []int{0, 4, 8} {
		q := r
		q.X, q.Y, q.Theta = nanSlice(r.Len()), nanSlice(r.Len()), nanSlice(r.Len())
		copy(q.X[k0:], r.X[k0:])
		copy(q.Y[k0:], r.Y[k0:])
		copy(q.Theta[k0:], r.Theta[k0:])
		x, y, th := Simulate(p, &q)
		if x[k0] != r.X[k0] || y[k0] != r.Y[k0] || th[k0] != r.Theta[k0] {
			t.Fatalf("k0 = %d: not anchored", k0)
		}
		s := q
		s.X, s.Y, s.Theta = nanSlice(r.Len()), nanSlice(r.Len()), nanSlice(r.Len())
		s.X[0], s.Y[0], s.Theta[0] = x[0], y[0], th[0]
		x2, y2, th2 := Simulate(p, &s)
		for i := range x {
			if math.Abs(x2[i]-x[i]) > 1e-12 || math.Abs(y2[i]-y[i]) > 1e-12 || math.Abs(th2[i]-th[i]) > 1e-12 {
				t.Fatalf("k0 = %d, row %d: forward from row 0 gives (%v %v %v), anchored (%v %v %v)", k0, i, x2[i], y2[i], th2[i], x[i], y[i], th[i])
			}
		}
	}
	// no camera: from the origin
	q := r
	q.X, q.Y, q.Theta = nil, nil, nil
	x, y, th := Simulate(p, &q)
	if x[0] != 0 || y[0] != 0 || th[0] != 0 {
		t.Errorf("without camera the run starts at (%v, %v, %v)", x[0], y[0], th[0])
	}
}

func configs() map[string]Config {
	implicit := DefaultConfig()
	implicit.Mode = losses.ImplicitClosest
	prior := DefaultConfig()
	prior.Prior, prior.PriorMu = 3, [4]float64{0.5, 0.5, 0.5, 0.5}
	paperImplicit := PaperConfig()
	paperImplicit.Mode = losses.ImplicitClosest
	paperImplicit.SplineEvery = 6
	return map[string]Config{"paper": PaperConfig(), "paper implicit": paperImplicit, "default": DefaultConfig(), "implicit": implicit, "prior": prior}
}

// compilers are the two graph forms of a Fit's loss: the fused graph of
// Compile and its primitive reference.
var compilers = []struct {
	name    string
	compile func(*Fit) (*graphFit, error)
}{
	{"fused", func(f *Fit) (*graphFit, error) { return f.compile() }},
	{"primitive", func(f *Fit) (*graphFit, error) { return f.compilePrimitive() }},
}

// The batched graph's forward values equal the native Simulate, runs of
// different lengths padded into one [B, T] graph.
func TestGraphMatchesSimulate(t *testing.T) {
	runs := testRuns(3, 0.003, 1)
	for cname, cfg := range configs() {
		for _, cc := range compilers {
			name := cname + ", " + cc.name
			f, err := NewFit(testParams(), runs, cfg)
			if err != nil {
				t.Fatal(err)
			}
			gf, err := cc.compile(f)
			if err != nil {
				t.Fatal(err)
			}
			x := f.X0([4]float64{0.3, 0.7, 0.5, 0.6})
			if cfg.Pose == PoseFree {
				x[4] += 0.01
				x[len(x)-1] -= 0.02
			}
			v, err := gf.Eval(x, nil)
			if err != nil {
				t.Fatal(err)
			}
			if nv := f.Loss(x); relErr(v, nv) > 1e-12 {
				t.Errorf("%s: graph loss %v, native %v", name, v, nv)
			}
			for i := range runs {
				gx, gy, gth := gf.Poses(i)
				nx, ny, nth := f.Predict(x, i)
				k0 := f.segs[i].k0
				for k := range gx {
					if math.Abs(gx[k]-nx[k0+k]) > 1e-12 || math.Abs(gy[k]-ny[k0+k]) > 1e-12 || math.Abs(gth[k]-nth[k0+k]) > 1e-12 {
						t.Fatalf("%s run %d row %d: graph (%v %v %v), Simulate (%v %v %v)", name, i, k, gx[k], gy[k], gth[k], nx[k0+k], ny[k0+k], nth[k0+k])
					}
				}
			}
		}
	}
}

// Three gradients that agree: gorgonia autodiff of the batched graph, the
// analytic forward recursion (Algorithm 2, eqs. 9–13), and central
// differences of the native loss — on several runs, for every loss variant.
func TestThreeGradientsAgree(t *testing.T) {
	runs := testRuns(4, 0.003, 2)
	for cname, cfg := range configs() {
		for _, sub := range [][]Run{runs[:1], runs} {
			for _, cc := range compilers {
				name := cname + ", " + cc.name
				f, err := NewFit(testParams(), sub, cfg)
				if err != nil {
					t.Fatal(err)
				}
				gf, err := cc.compile(f)
				if err != nil {
					t.Fatal(err)
				}
				for _, at := range []string{"start", "moved"} {
					x := f.X0([4]float64{0.3, 0.7, 0.5, 0.6})
					if at == "moved" {
						for i := 4; i < len(x); i++ {
							x[i] += 0.01 * float64(i%3-1)
						}
					}
					// at the start the free poses are the first camera poses, where
					// the first row's distances are exactly zero (subgradient 0)
					tag := fmt.Sprintf("%s, %d runs, %s", name, len(sub), at)
					ga := make([]float64, f.Dim())
					la := f.AnalyticGrad(x, ga)
					gg := make([]float64, f.Dim())
					lg, err := gf.Eval(x, gg)
					if err != nil {
						t.Fatal(err)
					}
					if relErr(la, lg) > 1e-12 {
						t.Errorf("%s: loss analytic %v, graph %v", tag, la, lg)
					}
					chk, err := ad.CheckGrad(func(x []float64) (float64, error) { return f.Loss(x), nil }, ga, x, 1e-6)
					if err != nil {
						t.Fatal(err)
					}
					if chk.MaxRelErr > 1e-6 {
						t.Errorf("%s: analytic vs central differences: %v", tag, chk)
					}
					chk, err = ad.CheckGrad(func(x []float64) (float64, error) { return f.Loss(x), nil }, gg, x, 1e-6)
					if err != nil {
						t.Fatal(err)
					}
					if chk.MaxRelErr > 1e-6 {
						t.Errorf("%s: autodiff vs central differences: %v", tag, chk)
					}
					for i := range ga {
						if math.Abs(ga[i]-gg[i]) > 1e-9*(1+math.Abs(ga[i])) {
							t.Errorf("%s: ∂L/∂x[%d]: analytic %v, autodiff %v", tag, i, ga[i], gg[i])
						}
					}
				}
			}
		}
	}
}
