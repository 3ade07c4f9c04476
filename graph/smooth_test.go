package graph

import (
	"math"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

var smoothX = []float64{-2.5, -1.1, -0.3, 0, 0.2, 0.45, 0.9, 1.6, 4}

func TestSoftplusFD(t *testing.T) {
	checkOp(t, opCase{
		name:   "softplus",
		args:   []arg{vecArg("z", smoothX...), scalarArg("T", 0.4)},
		build:  func(in []*G.Node) (*G.Node, error) { return Softplus(in[0], in[1]) },
		native: elementwise(func(z float64, p []float64) float64 { return SoftplusFloat(z, p[0]) }),
	}, 1e-14, 1e-7)
}

func TestSoftClampFD(t *testing.T) {
	native := elementwise(func(x float64, p []float64) float64 { return SoftClampFloat(x, p[0], p[1], p[2]) })
	build := func(in []*G.Node) (*G.Node, error) { return SoftClamp(in[0], in[1], in[2], in[3]) }
	n := len(smoothX)
	lo, hi, T := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range lo {
		lo[i], hi[i], T[i] = -0.5-0.1*float64(i), 0.5+0.2*float64(i), 0.05+0.1*float64(i)
	}
	for _, c := range []opCase{
		{name: "scalar parameters", args: []arg{vecArg("x", smoothX...), scalarArg("lo", -0.5), scalarArg("hi", 1), scalarArg("T", 0.3)}},
		{name: "per-element parameters", args: []arg{vecArg("x", smoothX...), vecArg("lo", lo...), vecArg("hi", hi...), vecArg("T", T...)}},
		{name: "matrix", args: []arg{matArg("x", 3, 3, smoothX...), scalarArg("lo", -1), scalarArg("hi", 0.5), scalarArg("T", 0.1)}},
		// Exactly on the limits, including a wheel at rest against lo = 0:
		// the surrogate is smooth there, so its gradient must be the true
		// derivative, whatever subgradient Clamp picks.
		{name: "on the limits", args: []arg{vecArg("x", 0, 0.45, -0.3, 1e-3), vecArg("lo", 0, -1, -0.3, 0), vecArg("hi", 1, 0.45, 2, 2), scalarArg("T", 0.2)}},
	} {
		c.build, c.native = build, native
		checkOp(t, c, 1e-14, 1e-7)
	}
}

func TestTanhClampSymFD(t *testing.T) {
	native := elementwise(func(x float64, p []float64) float64 { return TanhClampSymFloat(x, p[0], p[1]) })
	build := func(in []*G.Node) (*G.Node, error) { return TanhClampSym(in[0], in[1], in[2]) }
	n := len(smoothX)
	mu, T := make([]float64, n), make([]float64, n)
	for i := range mu {
		mu[i], T[i] = 0.5+0.15*float64(i), 0.1+0.21*float64(i) // T < mu and T > mu both occur, never equal
	}
	for _, c := range []opCase{
		{name: "linear core (T < mu)", args: []arg{vecArg("x", smoothX...), scalarArg("mu", 1), scalarArg("T", 0.35)}},
		{name: "pure tanh (T > mu)", args: []arg{vecArg("x", smoothX...), scalarArg("mu", 0.8), scalarArg("T", 2)}},
		{name: "per-element", args: []arg{vecArg("x", smoothX...), vecArg("mu", mu...), vecArg("T", T...)}},
		{name: "per-element mu, scalar T", args: []arg{vecArg("x", smoothX...), vecArg("mu", mu...), scalarArg("T", 0.6)}},
		{name: "scalar mu, per-element T", args: []arg{vecArg("x", smoothX...), scalarArg("mu", 1.3), vecArg("T", T...)}},
	} {
		c.build, c.native = build, native
		checkOp(t, c, 1e-14, 1e-7)
	}
}

// TestTanhClampSymShape pins the design: exact identity in the core,
// mu·tanh(x/mu) for T ≥ mu, strictly inside (−mu, mu), odd.
func TestTanhClampSymShape(t *testing.T) {
	for _, x := range []float64{-7, -0.6, -0.1, 0, 0.1, 0.6, 0.699, 0.71, 7, 1e6} {
		if y := TanhClampSymFloat(x, 1, 0.3); math.Abs(x) <= 0.7 && y != x {
			t.Errorf("core: TanhClampSymFloat(%v, 1, 0.3) = %v, want x", x, y)
		} else if math.Abs(y) >= 1 && math.Abs(x) < 3 { // beyond, tanh rounds to 1
			t.Errorf("TanhClampSymFloat(%v, 1, 0.3) = %v reaches the limit", x, y)
		}
		if a, b := TanhClampSymFloat(x, 0.5, 0.7), TanhClampSymFloat(-x, 0.5, 0.7); a != -b {
			t.Errorf("not odd at %v: %v, %v", x, a, b)
		}
		for _, T := range []float64{0.5, 3} {
			if y, want := TanhClampSymFloat(x, 0.5, T), 0.5*math.Tanh(x/0.5); math.Abs(y-want) > 1e-15 {
				t.Errorf("T = %v ≥ mu: %v, want mu·tanh(x/mu) = %v", T, y, want)
			}
		}
	}
}

func TestSmoothAbsFD(t *testing.T) {
	build := func(in []*G.Node) (*G.Node, error) { return SmoothAbs(in[0], in[1]) }
	native := elementwise(func(x float64, p []float64) float64 { return SmoothAbsFloat(x, p[0]) })
	for _, c := range []opCase{
		{name: "scalar eps", args: []arg{vecArg("x", smoothX...), scalarArg("eps", 0.2)}},
		{name: "per-element eps", args: []arg{vecArg("x", -1, 0, 0.01, 2), vecArg("eps", 0.1, 1, 0.05, 3)}},
	} {
		c.build, c.native = build, native
		checkOp(t, c, 1e-14, 1e-7)
	}
}

func TestSmoothAbsAccuracy(t *testing.T) {
	for _, eps := range []float64{1e-8, 1e-3, 1, 1e3} {
		for _, x := range []float64{0, 1e-12, -1e-6, 0.5, -3, 1e6} {
			y := SmoothAbsFloat(x, eps)
			// Allow the rounding of y itself (ulp of |x|).
			if gap := math.Abs(x) - y; gap < 0 || gap > eps+4e-16*math.Abs(x) {
				t.Errorf("SmoothAbsFloat(%v, %v) = %v: |x| − y = %v, want in [0, eps]", x, eps, y, gap)
			}
		}
	}
	// The cancellation-free form keeps relative precision where |x| ≪ eps:
	// y ≈ x²/(2 eps).
	if y, want := SmoothAbsFloat(1e-10, 1), 0.5e-20; math.Abs(y-want) > 1e-15*want {
		t.Errorf("SmoothAbsFloat(1e-10, 1) = %v, want %v", y, want)
	}
}

// surrogate is one smooth friction surrogate under the limit and safety
// tests: its graph form on (x, lo, hi, T) scalars-or-vectors, its native
// form, and the bound on |surrogate − clamp| per unit of T.
type surrogate struct {
	name   string
	build  func(x, lo, hi, T *G.Node) (*G.Node, error)
	native func(x, lo, hi, T float64) float64
	bound  float64
}

var surrogates = []surrogate{
	{
		name:   "SoftClamp",
		build:  SoftClamp,
		native: SoftClampFloat,
		bound:  math.Ln2,
	},
	{
		name: "TanhClampSym",
		build: func(x, lo, hi, T *G.Node) (*G.Node, error) {
			return TanhClampSym(x, hi, T) // symmetric: lo = −hi
		},
		native: func(x, lo, hi, T float64) float64 { return TanhClampSymFloat(x, hi, T) },
		bound:  1 - math.Tanh(1),
	},
}

// compiledSurrogate builds s once on a vector x with scalar lo, hi, T
// inputs and returns a function that runs it for new values with G.Let —
// the build-once-run-many pattern of the ad package — giving values and
// the gradients of Σ w ⊙ y with respect to x, lo, hi and T.
func compiledSurrogate(t *testing.T, s surrogate, n int) func(x []float64, lo, hi, T float64) (y, dx []float64, dlo, dhi, dT float64) {
	t.Helper()
	g := G.NewGraph()
	xn := G.NewVector(g, tensor.Float64, G.WithShape(n), G.WithName("x"))
	lon := G.NewScalar(g, tensor.Float64, G.WithName("lo"))
	hin := G.NewScalar(g, tensor.Float64, G.WithName("hi"))
	Tn := G.NewScalar(g, tensor.Float64, G.WithName("T"))
	y, err := s.build(xn, lon, hin, Tn)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := weightedSum(y, weights(n))
	if err != nil {
		t.Fatal(err)
	}
	wrt := []*G.Node{xn, hin, Tn}
	if s.name == "SoftClamp" {
		wrt = append(wrt, lon)
	}
	grads, err := G.Grad(loss, wrt...)
	if err != nil {
		t.Fatal(err)
	}
	var yv G.Value
	G.Read(y, &yv)
	m := G.NewTapeMachine(g)
	t.Cleanup(func() { m.Close() })
	return func(x []float64, lo, hi, T float64) ([]float64, []float64, float64, float64, float64) {
		t.Helper()
		for _, l := range []struct {
			n *G.Node
			v any
		}{{xn, tensor.New(tensor.WithBacking(append([]float64(nil), x...)))}, {lon, lo}, {hin, hi}, {Tn, T}} {
			if err := G.Let(l.n, l.v); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
		defer m.Reset()
		yy, dx := floats(t, yv), floats(t, grads[0].Value())
		dhi, dT := floats(t, grads[1].Value())[0], floats(t, grads[2].Value())[0]
		dlo := math.NaN()
		if len(grads) > 3 {
			dlo = floats(t, grads[3].Value())[0]
		}
		return yy, dx, dlo, dhi, dT
	}
}

// TestSurrogatesSafe: values and gradients stay finite for T from 1e-8 to
// 1e3 and |x| up to 1e6, and values stay within the limits.
func TestSurrogatesSafe(t *testing.T) {
	lo, hi := -0.8, 0.8
	x := []float64{-1e6, -1e3, -1, -0.8, -0.3, -1e-9, 0, 1e-9, 0.5, 0.8, 0.81, 1, 1e3, 1e6}
	for _, s := range surrogates {
		run := compiledSurrogate(t, s, len(x))
		for e := -8; e <= 3; e++ {
			T := math.Pow(10, float64(e))
			y, dx, dlo, dhi, dT := run(x, lo, hi, T)
			if !allFinite(y) || !allFinite(dx) || !allFinite([]float64{dhi, dT}) || (s.name == "SoftClamp" && !allFinite([]float64{dlo})) {
				t.Errorf("%s, T = %g: non-finite y %v dx %v dlo %v dhi %v dT %v", s.name, T, y, dx, dlo, dhi, dT)
				continue
			}
			for i, v := range y {
				if v < lo || v > hi {
					t.Errorf("%s, T = %g: y(%g) = %g outside [%g, %g]", s.name, T, x[i], v, lo, hi)
				}
				if want := s.native(x[i], lo, hi, T); !near(v, want, 1e-14) {
					t.Errorf("%s, T = %g: y(%g) = %.17g, native %.17g", s.name, T, x[i], v, want)
				}
			}
		}
	}
}

// TestSurrogatesLimit: as T → 0 the surrogates tend to the exact clamp, with
// the largest error proportional to T (at most bound·T, and at least half of
// that, since the worst case sits at the limits |x| = mu which are on the
// grid).
func TestSurrogatesLimit(t *testing.T) {
	lo, hi := -0.8, 0.8
	var x []float64
	for i := -300; i <= 300; i++ {
		x = append(x, float64(i)/200) // includes ±0.8
	}
	for _, s := range surrogates {
		run := compiledSurrogate(t, s, len(x))
		prev := math.Inf(1)
		for e := 1; e <= 7; e++ {
			T := math.Pow(10, -float64(e))
			y, _, _, _, _ := run(x, lo, hi, T)
			var worst float64
			for i, v := range y {
				worst = math.Max(worst, math.Abs(v-ClampFloat(x[i], lo, hi)))
			}
			if r := worst / T; r > s.bound*(1+1e-6) || r < s.bound/2 {
				t.Errorf("%s, T = %g: max |y − clamp| = %g = %.4f·T, want ≤ %.4f·T and ∝ T", s.name, T, worst, r, s.bound)
			}
			if worst > prev/5 {
				t.Errorf("%s, T = %g: error %g did not shrink with T (previous %g)", s.name, T, worst, prev)
			}
			prev = worst
		}
	}
}

func TestSmoothErrors(t *testing.T) {
	g := G.NewGraph()
	x := G.NewVector(g, tensor.Float64, G.WithShape(3), G.WithName("x"))
	s := G.NewScalar(g, tensor.Float64, G.WithName("s"))
	v2 := G.NewVector(g, tensor.Float64, G.WithShape(2), G.WithName("v2"))
	zero := G.NewConstant(0.0)
	neg := G.NewScalar(g, tensor.Float64, G.WithName("neg"), G.WithValue(-1.0))
	for name, f := range map[string]func() (*G.Node, error){
		"softplus T = 0":       func() (*G.Node, error) { return Softplus(x, zero) },
		"softplus T short":     func() (*G.Node, error) { return Softplus(x, v2) },
		"softclamp T < 0":      func() (*G.Node, error) { return SoftClamp(x, s, s, neg) },
		"softclamp lo short":   func() (*G.Node, error) { return SoftClamp(x, v2, s, s) },
		"softclamp nil hi":     func() (*G.Node, error) { return SoftClamp(x, s, nil, s) },
		"tanhclamp mu = 0":     func() (*G.Node, error) { return TanhClampSym(x, zero, s) },
		"tanhclamp T short":    func() (*G.Node, error) { return TanhClampSym(x, s, v2) },
		"smoothabs eps < 0":    func() (*G.Node, error) { return SmoothAbs(x, neg) },
		"smoothabs eps short":  func() (*G.Node, error) { return SmoothAbs(x, v2) },
		"smoothabs nil x":      func() (*G.Node, error) { return SmoothAbs(nil, s) },
		"tanhclamp nil x":      func() (*G.Node, error) { return TanhClampSym(nil, s, s) },
		"softclamp vec on scl": func() (*G.Node, error) { return SoftClamp(s, v2, s, s) },
	} {
		if n, err := f(); err == nil {
			t.Errorf("%s: no error, node %v", name, n)
		}
	}
}
