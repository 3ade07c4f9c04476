package pioneer

import (
	"math"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/models/pioneer/p3dx"
	"gonum.org/v1/gonum/diff/fd"
)

func toRun(l p3dx.Log) *Run { return &Run{T: l.T, Vref: l.Vref, Wref: l.Wref, V: l.V, W: l.W} }

// testRuns are two short drives of the independent true robot: a reversal
// and a navigation-like stretch.
func testRuns(rows int) []*Run {
	rb := p3dx.Default()
	v1, w1 := p3dx.Cases(1, 3)
	v2, w2 := p3dx.Navigation(float64(rows)*0.1, 4)
	return []*Run{toRun(rb.Drive(v1[:rows], w1[:rows], 1)), toRun(rb.Drive(v2, w2, 2))}
}

func uniformRun(v, w []float64) *Run {
	r := &Run{Vref: v, Wref: w}
	for k := range v {
		r.T = append(r.T, 0.1*float64(k))
	}
	return r
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.12g, want %.12g (±%g)", what, got, want, tol)
	}
}

// The experimental form, exact, against values worked out by hand:
// saturation, the slope limit with the ZOH lag, the integer delay, the
// deceleration limit and the threshold at zero velocity.
func TestExperimentalByHand(t *testing.T) {
	p := Default(FormExperimental)
	*p.DelayV, *p.DelayW = 0, 0
	*p.TauV, *p.TauW = 0.1, 0.1
	*p.Thr0V, *p.Thr1V = 0, 0
	a := math.Exp(-1)
	// slope limit 0.3 m/s² = 0.03 per sample, lag y' = a·y + (1−a)·s
	v, _, err := Simulate(p, uniformRun([]float64{0.3, 0.3, 0.3, 0.3}, make([]float64, 4)))
	if err != nil {
		t.Fatal(err)
	}
	y1 := (1 - a) * 0.03
	y2 := a*y1 + (1-a)*0.06
	y3 := a*y2 + (1-a)*0.09
	near(t, "v[0]", v[0], 0, 0)
	near(t, "v[1]", v[1], y1, 1e-15)
	near(t, "v[2]", v[2], y2, 1e-15)
	near(t, "v[3]", v[3], y3, 1e-15)
	// saturation: a 2-m/s reference ends at vmax
	p2 := p.clone()
	p2.AccV, *p2.TauV = 100, 0.005
	ref := make([]float64, 6)
	for i := range ref {
		ref[i] = 2
	}
	v, _, _ = Simulate(p2, uniformRun(ref, make([]float64, 6)))
	near(t, "saturated v", v[5], p.Vmax, 1e-6)
	// integer delay: a step at row 5 with delay 2 first shows at row 8
	p3 := p.clone()
	*p3.DelayV = 2
	ref = make([]float64, 12)
	for i := 5; i < 12; i++ {
		ref[i] = 0.2
	}
	v, _, _ = Simulate(p3, uniformRun(ref, make([]float64, 12)))
	for k := 0; k <= 7; k++ {
		near(t, "delayed v", v[k], 0, 0)
	}
	near(t, "v[8]", v[8], (1-a)*0.03, 1e-15)
	// deceleration 0.5 m/s² from a measured start of 0.3 m/s towards 0
	p4 := p.clone()
	p4.DecV, *p4.TauV = 0.5, 0.005
	r := uniformRun([]float64{0, 0, 0}, make([]float64, 3))
	r.V, r.W = []float64{0.3, math.NaN(), math.NaN()}, []float64{0, math.NaN(), math.NaN()}
	v, _, _ = Simulate(p4, r)
	near(t, "decelerating v[1]", v[1], 0.25, 1e-8)
	near(t, "decelerating v[2]", v[2], 0.20, 1e-8)
	// threshold 0.1 m/s at a reversal: held at 0 below it, released above
	p5 := p.clone()
	p5.AccV, p5.DecV, *p5.TauV, *p5.Thr0V = 10, 10, 0.005, 0.1
	r = uniformRun([]float64{0.2, 0.05, -0.05, -0.15, -0.15}, make([]float64, 5))
	r.V, r.W = []float64{0.2, math.NaN(), math.NaN(), math.NaN(), math.NaN()}, []float64{0, 0, 0, 0, 0}
	v, _, _ = Simulate(p5, r)
	near(t, "v before reversal", v[2], 0.05, 1e-7)
	near(t, "v held at the reversal", v[3], 0, 0)
	near(t, "v released", v[4], -0.15, 1e-7)
	// the threshold grows with the ramp slope: thr1 = 0.2 s makes it 0.1 + 0.2·1 m/s at 1 m/s²
	*p5.Thr0V, *p5.Thr1V = 0.05, 0.2
	v, _, _ = Simulate(p5, r) // slope −1 m/s² at the crossing: thr = 0.25 > 0.15: held
	near(t, "v held by the slope term", v[4], 0, 0)
}

// The physical form, exact: a steady start stays steady, a long
// over-range reference ends at vmax, a step ramps at the acceleration limit
// and the fractional delay φ postpones the response by φ.
func TestPhysicalByHand(t *testing.T) {
	p := Default(FormPhysical)
	*p.Delay = 0
	n := 40
	ref, zero := make([]float64, n), make([]float64, n)
	for i := range ref {
		ref[i] = 0.2
	}
	r := uniformRun(ref, zero)
	r.V, r.W = make([]float64, n), make([]float64, n)
	for i := range r.V {
		r.V[i], r.W[i] = math.NaN(), math.NaN()
	}
	r.V[0], r.W[0] = 0.2, 0
	v, w, err := Simulate(p, r)
	if err != nil {
		t.Fatal(err)
	}
	for k := range v {
		near(t, "steady v", v[k], 0.2, 1e-4)
		near(t, "steady w", w[k], 0, 1e-9)
	}
	// a step from rest ramps at acc_v (0.03 m/s per sample) once the loop has caught up
	for i := range ref {
		ref[i] = 0.3
	}
	v, _, _ = Simulate(p, uniformRun(ref, zero))
	near(t, "ramp slope", (v[8]-v[4])/0.4, p.AccV, 0.01*p.AccV)
	near(t, "settled", v[20], 0.3, 3e-3)
	// over-range: ends at vmax
	for i := range ref {
		ref[i] = 2
	}
	p.AccV = 5
	v, _, _ = Simulate(p, uniformRun(ref, zero))
	near(t, "saturated", v[n-1], p.Vmax, 0.01*p.Vmax)
	// φ = 50 ms delays the ramp by half a sample
	p.AccV = 0.3
	for i := range ref {
		ref[i] = 0.3
	}
	v0, _, _ := Simulate(p, uniformRun(ref, zero))
	*p.Phi = 0.05
	v1, _, _ := Simulate(p, uniformRun(ref, zero))
	near(t, "ramp delayed by φ", v0[8]-v1[8], 0.05*p.AccV, 0.05*0.05*p.AccV)
	// the whole-sample delay shifts the response by whole rows
	*p.Phi, *p.Delay = 0, 2
	v2, _, _ := Simulate(p, uniformRun(ref, zero))
	for k := 2; k < n; k++ {
		near(t, "shifted by 2 rows", v2[k], v0[k-2], 1e-12)
	}
}

// The generated gradient (parameters, initial states, inputs) against
// fourth-order central differences of the native rollout, for both forms,
// with the surrogates at a fixed temperature, on the generated kernel and
// the interpreter.
func TestGradientFiniteDifferences(t *testing.T) {
	runs := testRuns(120) // a step, a stop and a backwards step: every limit and the threshold act
	for _, form := range []string{FormPhysical, FormExperimental} {
		p := Default(form)
		b := newBatch(p, runs, 2, 2, 20, 3)
		b.q[b.tIdx] = 0.01
		if form == FormPhysical {
			b.q[3] = 0.01
			*p.Phi = 0.03
		}
		x := p.withVector(p.vector()).vector()
		if form == FormPhysical {
			x[6] = 0.03
		}
		for name, k := range map[string]dyn.Kernel{"generated": b.m.NewKernel(), "interpreter": b.m.NewInterpreter()} {
			for seed := range uint64(2) {
				c, err := b.m.CheckRollout(k, x, b.q, b.x0, b.u, b.B, b.T, nil, 0, nil, seed)
				if err != nil {
					t.Fatal(err)
				}
				if c.RelErr > 1e-6 {
					t.Errorf("%s %s seed %d: %v", form, name, seed, c)
				}
			}
			// the identification's own objective: the summed cost alone
			c, err := b.m.CheckRollout(k, x, b.q, b.x0, b.u, b.B, b.T, make([]float64, b.m.NY()*b.T*b.B), 1, nil, 7)
			if err != nil {
				t.Fatal(err)
			}
			if c.RelErr > 1e-6 {
				t.Errorf("%s %s cost: %v", form, name, c)
			}
		}
	}
}

// Each parameter's derivative of the identification loss (smoothed,
// T = 0.01) against its own central difference, so that no parameter's
// adjoint hides in a random direction: every one must be informed and right.
// central4 is the fourth-order central difference of a first derivative,
// (8(f(h) − f(−h)) − (f(2h) − f(−2h)))/(12h), as a diff/fd formula.
var central4 = fd.Formula{Stencil: []fd.Point{{Loc: -2, Coeff: 1.0 / 12}, {Loc: -1, Coeff: -8.0 / 12}, {Loc: 1, Coeff: 8.0 / 12}, {Loc: 2, Coeff: -1.0 / 12}}, Derivative: 1, Step: 1e-3}

func TestLossGradientPerParameter(t *testing.T) {
	runs := testRuns(120)
	for _, form := range []string{FormPhysical, FormExperimental} {
		p := Default(form)
		if form == FormPhysical {
			*p.Phi = 0.03
		}
		b := newBatch(p, runs, 2, 2, 20, 3)
		x := p.vector()
		g := make([]float64, len(x))
		c0, err := b.run(x, 0.01, g)
		if err != nil {
			t.Fatal(err)
		}
		names := b.m.Spec().Params
		for k := range x {
			h := 1e-6 * math.Max(math.Abs(x[k]), 1e-3)
			f := func(d float64) float64 {
				z := append([]float64(nil), x...)
				z[k] += d
				c, err := b.run(z, 0.01, nil)
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			num := fd.Derivative(f, 0, &fd.Settings{Formula: central4, Step: h})
			// relative 1e-5, plus the round-off floor of the differences (1e-13 of the loss over h)
			if math.Abs(num-g[k]) > 1e-5*math.Abs(num)+1e-13*c0/h {
				t.Errorf("%s: ∂loss/∂%s = %.10g, central differences %.10g", form, names[k], g[k], num)
			}
			if form == FormExperimental && names[k] != "vmax" && names[k] != "wmax" && g[k] == 0 {
				t.Errorf("%s: ∂loss/∂%s = 0: the test data do not exercise it", form, names[k])
			}
		}
	}
}

// The rollout as a gorgonia node (dyn.Rollout): its forward values equal the
// native rollout's to 1e-12 and its gradient the native reverse pass's,
// for both forms (the op's built-in self-check runs too).
func TestRolloutGraph(t *testing.T) {
	runs := testRuns(20)
	for _, form := range []string{FormPhysical, FormExperimental} {
		p := Default(form)
		b := newBatch(p, runs, 1, 2, 1, 1)
		b.q[b.tIdx] = 0.01
		if form == FormPhysical {
			b.q[3] = 0.01 * timePerSpeed // as b.run sets it
		}
		x := p.vector()
		ny := b.m.NY() * b.T * b.B
		wts := make([]float64, ny)
		for i := range wts {
			wts[i] = math.Sin(float64(i))
		}
		prog, err := ad.Compile([]ad.Param{{Name: "theta", Shape: []int{len(x)}}}, func(g *ad.Graph, ps []*G.Node) (*G.Node, error) {
			tr, err := dyn.Rollout(b.m, ps[0], g.Const(b.q), g.Const(b.x0), g.Const(b.u), b.B, b.T, dyn.InputsAreData())
			if err != nil {
				return nil, err
			}
			y, err := tr.Outputs()
			if err != nil {
				return nil, err
			}
			g.Watch("y", y)
			return G.Sum(G.Must(G.HadamardProd(y, g.Const(wts))))
		}, ad.WithX0(x))
		if err != nil {
			t.Fatal(err)
		}
		grad := make([]float64, len(x))
		if _, err := prog.ValueAndGradInto(x, grad); err != nil {
			t.Fatal(err)
		}
		y := prog.Output("y")
		if _, err := b.run(x, 0.01, nil); err != nil {
			t.Fatal(err)
		}
		for i := range y {
			if math.Abs(y[i]-b.y[i]) > 1e-12 {
				t.Fatalf("%s: output %d: graph %v, native %v", form, i, y[i], b.y[i])
			}
		}
		pbar := make([]float64, len(x))
		if err := b.sim.Backward(x, b.q, b.u, wts, 0, nil, pbar, nil, nil); err != nil {
			t.Fatal(err)
		}
		for i := range pbar {
			if math.Abs(pbar[i]-grad[i]) > 1e-12*(1+math.Abs(pbar[i])) {
				t.Errorf("%s: ∂/∂%s: graph %v, native %v", form, b.m.Spec().Params[i], grad[i], pbar[i])
			}
		}
	}
}

// At T = 0 the batch is Simulate, lane by lane.
func TestBatchEqualsSimulate(t *testing.T) {
	runs := testRuns(30)
	for _, form := range []string{FormPhysical, FormExperimental} {
		p := Default(form)
		dv, dw := p.Delays()
		b := newBatch(p, runs, dv, dw, 1, 1)
		if _, err := b.run(p.vector(), 0, nil); err != nil {
			t.Fatal(err)
		}
		for j, r := range runs {
			v, w, err := Simulate(p, r)
			if err != nil {
				t.Fatal(err)
			}
			bv, bw := b.predicted(j)
			for k := range v {
				if v[k] != bv[k] || w[k] != bw[k] {
					t.Fatalf("%s run %d row %d: batch (%v, %v), Simulate (%v, %v)", form, j, k, bv[k], bw[k], v[k], w[k])
				}
			}
		}
	}
}

func TestParamsJSON(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"form": "physics"}`, `line 1, column 2, key "form": "physics": want "physical" or "experimental"`},
		{`{"model": "pioneer"}`, `key "form": missing`},
		{"{\"form\": \"experimental\",\n \"KR\": 3}", `line 2, column 2, key "KR": a key of the physical form in a experimental file`},
		{"{\"form\": \"physical\", \"tau_v\": 0.1}", `key "tau_v": a key of the experimental form`},
		{`{"form": "physical", "h": 0.003}`, `key "h": 0.003: Ts/h`},
		{`{"form": "experimental", "acc_v": -1}`, `key "acc_v": -1: want a finite value > 0`},
		{`{"form": "experimental", "delay_v": 1.5}`, `delay_v`},
		{`{"form": "experimental", "mu": 1}`, `key "mu": unknown key`},
		{`{"model": "tire", "form": "physical"}`, `key "model"`},
	} {
		_, err := DecodeParams([]byte(c.json), "p.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "p.json") {
			t.Errorf("%s: error %v, want one with %q", c.json, err, c.want)
		}
	}
	p, err := DecodeParams([]byte(`{"form": "experimental", "tau_v": 0.2, "delay_w": 4}`), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	if *p.TauV != 0.2 || *p.DelayW != 4 || *p.TauW != 0.07 || p.AccV != 0.3 {
		t.Errorf("overrides and defaults: %+v %+v", p, p.Experimental)
	}
}

func TestRunCheck(t *testing.T) {
	for _, c := range []struct {
		r    *Run
		want string
	}{
		{&Run{}, "no rows"},
		{&Run{T: []float64{0, 0.1, 0.1}, Vref: []float64{0, 0, 0}, Wref: []float64{0, 0, 0}}, "row 2, column \"t\": time 0.1 does not increase"},
		{&Run{T: []float64{0, 0.1, 0.5}, Vref: []float64{0, 0, 0}, Wref: []float64{0, 0, 0}}, "row 2, column \"t\": 0.4 s after"},
		{&Run{T: []float64{0, 0.1}, Vref: []float64{0, math.NaN()}, Wref: []float64{0, 0}}, "row 1, column \"v_ref\""},
	} {
		err := c.r.Check(0.1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// Identification on a short drive of the independent true robot recovers
// its slope limits and its communication delay (0.17 s) to within one
// sample; it improves on the defaults.
func TestIdentifyTrueRobot(t *testing.T) {
	rb := p3dx.Default()
	v, w := p3dx.Cases(1, 5)
	r := toRun(rb.Drive(v, w, 9))
	for _, form := range []string{FormExperimental, FormPhysical} {
		o := IdentifyOptions{Delays: []int{1, 2, 3}, Temps: []float64{0.02, 0.002}, MaxIter: 60}
		res, err := Identify(Default(form), []*Run{r}, o)
		if err != nil {
			t.Fatal(err)
		}
		if !(res.Loss < 0.5*res.Start) {
			t.Errorf("%s: loss %v from %v", form, res.Loss, res.Start)
		}
		dv, dw := res.Params.DelaySeconds()
		for _, d := range []float64{dv, dw} {
			if math.Abs(d-rb.Delay) > 0.1 {
				t.Errorf("%s: delay %v s, true %v s", form, d, rb.Delay)
			}
		}
		if math.Abs(res.Params.AccV/rb.AccV-1) > 0.15 || math.Abs(res.Params.DecV/rb.DecV-1) > 0.15 {
			t.Errorf("%s: acc_v %v dec_v %v, true %v %v", form, res.Params.AccV, res.Params.DecV, rb.AccV, rb.DecV)
		}
	}
}
