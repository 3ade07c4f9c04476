package mecanum

import (
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/opt"
	"gonum.org/v1/gonum/diff/fd"
)

// The network fit's gradient against central differences of its native
// loss, at a point away from the start (random weights, shifted poses), on
// runs whose commands change within the run.
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
	f, err := NewNetFit(testParams(), runs, 5, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	f.Delays = delays
	x := f.X0([4]float64{0.5, 0.6, 0.4, 0.5}, 3)
	for i := range x {
		x[i] += 0.05 * math.Sin(float64(3*i+1))
	}
	g := make([]float64, len(x))
	if _, err := f.Eval(x, g); err != nil {
		t.Fatal(err)
	}
	// differences are relative to the entry, or to 1 % of the largest entry
	// for the small ones (central differences of a loss of order 10³ carry
	// ~1e-7 of rounding)
	gmax := 0.0
	for _, v := range g {
		gmax = math.Max(gmax, math.Abs(v))
	}
	worst := 0.0
	for i := range x {
		num := fd.Derivative(func(d float64) float64 {
			xd := append([]float64(nil), x...)
			xd[i] += d
			l, _ := f.Eval(xd, nil)
			return l
		}, 0, &fd.Settings{Formula: fd.Central, Step: 1e-6 * math.Max(1, math.Abs(x[i]))})
		e := math.Abs(num-g[i]) / math.Max(1e-2*gmax, math.Max(math.Abs(num), math.Abs(g[i])))
		worst = math.Max(worst, e)
		if e > 1e-5 {
			t.Errorf("∂L/∂x[%d]: reverse pass %.10g, central differences %.10g", i, g[i], num)
		}
	}
	t.Logf("worst relative difference %.2g over %d variables", worst, len(x))
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
	r := f.runs[1]
	for _, k := range []int{10, len(r.dt) - 1} {
		if math.Abs(x1[k]-r.px[k]) > 1e-12 || math.Abs(y1[k]-r.py[k]) > 1e-12 {
			t.Errorf("row %d: fit (%v, %v), Simulate (%v, %v)", k, r.px[k], r.py[k], x1[k], y1[k])
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
