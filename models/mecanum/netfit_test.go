package mecanum

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/wheelgrad/wheelgrad/opt"
)

// The network fit's gradient, from NetModel's generated reverse pass,
// against the hand-written adjoint it replaced (evalAdjoint) and against
// central differences of the loss (gonum diff/fd), at a point away from the
// start (random weights, shifted poses), on runs whose commands change
// within the run, with and without camera delays; the loss itself equals
// the reference's.
func TestNetFitGradient(t *testing.T) {
	for _, delays := range []bool{false, true} {
		t.Run(map[bool]string{false: "poses", true: "poses+delays"}[delays], func(t *testing.T) { testNetFitGradient(t, delays) })
	}
}

func testNetFitGradient(t *testing.T, delays bool) {
	runs := testRuns(3, 0.003, 7)
	// a command change half-way through the first run
	for i := len(runs[0].W) / 2; i < len(runs[0].W); i++ {
		runs[0].W[i] = [4]float64{3, -7, 9, 2}
	}
	for _, h := range []int{NetHidden, 5} { // generated kernel, interpreter
		f, err := NewNetFit(testParams(), runs, h, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		f.Delays = delays
		x := f.X0([4]float64{0.5, 0.6, 0.4, 0.5}, 3)
		for i := range x {
			x[i] += 0.05 * math.Sin(float64(3*i+1))
		}
		if delays {
			for i := range runs {
				x[f.NetWeights()+3*len(runs)+i] = 0.01 * float64(i+1)
			}
		}
		g, gr := make([]float64, len(x)), make([]float64, len(x))
		l, err := f.Eval(x, g)
		if err != nil {
			t.Fatal(err)
		}
		lr, err := f.evalAdjoint(x, gr)
		if err != nil {
			t.Fatal(err)
		}
		if relErr(l, lr) > 1e-12 {
			t.Errorf("h = %d: loss %.15g, hand-written %.15g", h, l, lr)
		}
		if lv, _ := f.Eval(x, nil); lv != l {
			t.Errorf("h = %d: value-only loss %.15g, with the gradient %.15g", h, lv, l)
		}
		fdg := fd.Gradient(nil, func(x []float64) float64 {
			v, err := f.evalAdjoint(x, nil)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		// differences are relative to the entry, or to 1 % of the largest
		// entry for the small ones (central differences of a loss of order
		// 10³ carry ~1e-7 of rounding)
		gmax := 0.0
		for _, v := range g {
			gmax = math.Max(gmax, math.Abs(v))
		}
		worstRef, worstFD := 0.0, 0.0
		for i := range x {
			if e := math.Abs(g[i]-gr[i]) / math.Max(1e-9*gmax, math.Abs(gr[i])); e > worstRef {
				worstRef = e
			}
			e := math.Abs(fdg[i]-g[i]) / math.Max(1e-2*gmax, math.Max(math.Abs(fdg[i]), math.Abs(g[i])))
			worstFD = math.Max(worstFD, e)
			if e > 1e-5 {
				t.Errorf("h = %d: ∂L/∂x[%d]: reverse pass %.10g, central differences %.10g", h, i, g[i], fdg[i])
			}
		}
		if worstRef > 1e-9 {
			t.Errorf("h = %d: generated gradient differs from the hand-written adjoint by %.2g (relative)", h, worstRef)
		}
		t.Logf("h = %d: worst relative difference %.2g to the hand-written adjoint, %.2g to central differences, over %d variables", h, worstRef, worstFD, len(x))
	}
}

// The network's μ in the fit equals FrictionNet.Predict, and with W2 = 0
// the rollout equals Simulate with the constant μ of its biases.
func TestNetFitMatchesSimulate(t *testing.T) {
	runs := testRuns(2, 0, 1)
	f, err := NewNetFit(testParams(), runs, NetHidden, 0)
	if err != nil {
		t.Fatal(err)
	}
	x := f.X0(trueMu, 1)
	for o := range 4 {
		for i := range NetHidden {
			x[5*NetHidden+o*NetHidden+i] = 0
		}
	}
	net := f.Net(x)
	mu := net.Predict(runs[0].W[0])
	for j := range 4 {
		if math.Abs(mu[j]-trueMu[j]) > 1e-12 {
			t.Fatalf("μ = %v, want %v", mu, trueMu)
		}
	}
	if l, _ := f.Eval(x, nil); l > 1e-18 {
		t.Errorf("loss %g on noise-free runs with the true μ, want 0", l)
	}
	p := testParams()
	p.Friction = net
	x1, y1, _ := Simulate(p, &runs[1])
	px, py := f.Predict(x, 1)
	for _, k := range []int{10, len(px) - 1} {
		if math.Abs(x1[k]-px[k]) > 1e-12 || math.Abs(y1[k]-py[k]) > 1e-12 {
			t.Errorf("row %d: fit (%v, %v), Simulate (%v, %v)", k, px[k], py[k], x1[k], y1[k])
		}
	}
}

// A camera whose clock runs half a control step late is found by the
// delays: noise-free runs whose camera poses are the true poses dt/2 after
// their rows. The command changes half-way (with one constant command a
// delay is the same as a start pose further along the path).
func TestIdentifySquaredFindsDelay(t *testing.T) {
	p := testParams()
	var runs []Run
	for i := range 3 {
		a, b := testCommands[i], testCommands[i+1]
		r, truth := Synthesize(p, SynthSpec{Duration: 2, Pose0: [3]float64{0, 0, 0.5 * float64(i)},
			Commands: func(t float64) [4]float64 {
				if t < 1 {
					return a
				}
				return b
			}})
		for _, k := range r.Camera() {
			if k+1 < r.Len() {
				r.X[k] = (truth[0][k] + truth[0][k+1]) / 2
				r.Y[k] = (truth[1][k] + truth[1][k+1]) / 2
				r.Theta[k] = (truth[2][k] + truth[2][k+1]) / 2
			}
		}
		runs = append(runs, r)
	}
	mu, res, f, err := IdentifySquared(p, runs, [4]float64{0.5, 0.5, 0.5, 0.5}, true, opt.Settings{GradientTol: 1e-10, FunctionTol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	want := 0.5 / 240
	for i := range runs {
		if d := f.Delay(res.X, i); math.Abs(d-want) > 2e-4 {
			t.Errorf("run %d: delay %.5f s, want %.5f", i, d, want)
		}
	}
	for j := range 4 {
		if math.Abs(mu[j]-trueMu[j]) > 0.01 {
			t.Errorf("μ = %v, want %v", mu, trueMu)
			break
		}
	}
}

// NetModel's rollout (NetFit.Predict) equals the native Simulate with the
// network as the friction, for a network whose μ varies with the command
// (random output layer), on runs whose command changes within the run.
func TestNetModelMatchesSimulate(t *testing.T) {
	runs := testRuns(3, 0.002, 3)
	for i := len(runs[2].W) / 3; i < len(runs[2].W); i++ {
		runs[2].W[i] = [4]float64{-4, 9, 2, -6}
	}
	f, err := NewNetFit(testParams(), runs, NetHidden, 0)
	if err != nil {
		t.Fatal(err)
	}
	x := f.X0(trueMu, 5)
	for i := 5 * NetHidden; i < 9*NetHidden; i++ {
		x[i] = 0.4 * math.Sin(float64(7*i))
	}
	p := testParams()
	p.Friction = f.Net(x)
	w0, w1 := runs[2].W[0], runs[2].W[len(runs[2].W)-1]
	if m0, m1 := p.Friction.Predict(w0), p.Friction.Predict(w1); math.Abs(m0[0]-m1[0]) < 0.01 {
		t.Fatalf("μ %v and %v: the network does not vary with the command", m0, m1)
	}
	for i := range runs {
		sx, sy, _ := Simulate(p, &runs[i])
		px, py := f.Predict(x, i)
		k0 := runs[i].Camera()[0]
		for k := range px {
			if math.Abs(px[k]-sx[k0+k]) > 1e-12 || math.Abs(py[k]-sy[k0+k]) > 1e-12 {
				t.Fatalf("run %d row %d: NetModel (%v, %v), Simulate (%v, %v)", i, k0+k, px[k], py[k], sx[k0+k], sy[k0+k])
			}
		}
	}
}

// BenchmarkNetFitEval: the network fit's loss and gradient over 8 runs of
// 8 s at 240 Hz (60-Hz camera), each with two commands, through the
// generated kernels (dyn) and through the hand-written adjoint (ref); the
// ratio of the two is the cost of training through dyn.
func BenchmarkNetFitEval(b *testing.B) {
	p := testParams()
	var runs []Run
	for i := range 8 {
		a, c := testCommands[i%5], testCommands[(i+2)%5]
		r, _ := Synthesize(p, SynthSpec{Duration: 8, Pose0: [3]float64{0, 0, 0.3 * float64(i)}, Noise: 0.002, Seed: uint64(i),
			Commands: func(t float64) [4]float64 {
				if t < 4 {
					return a
				}
				return c
			}})
		runs = append(runs, r)
	}
	f, err := NewNetFit(p, runs, NetHidden, 0.1)
	if err != nil {
		b.Fatal(err)
	}
	x := f.X0(trueMu, 1)
	g := make([]float64, len(x))
	for _, c := range []struct {
		name string
		eval func(x, g []float64) (float64, error)
	}{{"dyn", f.Eval}, {"ref", f.evalAdjoint}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.eval(x, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
