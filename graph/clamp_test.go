package graph

import (
	"math"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func clampNative(in [][]float64) []float64 {
	return elementwise(func(x float64, p []float64) float64 { return ClampFloat(x, p[0], p[1]) })(in)
}

func TestClampFD(t *testing.T) {
	// Points at least 0.05 from the limits: the clamp has kinks there and
	// central differences would straddle them.
	x := []float64{-3, -1.2, -0.45, 0, 0.3, 0.95, 1.7, 42}
	build := func(in []*G.Node) (*G.Node, error) { return Clamp(in[0], in[1], in[2]) }
	cases := []opCase{
		{name: "scalar limits", args: []arg{vecArg("x", x...), scalarArg("lo", -0.5), scalarArg("hi", 1.5)}},
		{name: "per-element limits", args: []arg{
			vecArg("x", x...),
			vecArg("lo", -4, -1, -0.6, -0.2, 0.5, -1, 1, 40),
			vecArg("hi", -2, 1, 0, 0.2, 1, 2, 1.5, 41),
		}},
		{name: "matrix, scalar limits", args: []arg{matArg("x", 2, 4, x...), scalarArg("lo", -0.5), scalarArg("hi", 1.5)}},
	}
	for _, c := range cases {
		c.build, c.native = build, clampNative
		checkOp(t, c, 0, 1e-8) // values: bit for bit
	}
}

func TestClampSymFD(t *testing.T) {
	c := opCase{
		name:   "Kikuuwe friction",
		args:   []arg{vecArg("mubar", -2.5, -0.7, 0.1, 0.69, 3), scalarArg("mu", 0.8)},
		build:  func(in []*G.Node) (*G.Node, error) { return ClampSym(in[0], in[1]) },
		native: elementwise(func(x float64, p []float64) float64 { return ClampFloat(x, -p[0], p[0]) }),
	}
	checkOp(t, c, 0, 1e-8)
}

// TestClampGradient pins the gradient routing of Park eq. 4 exactly,
// including the subgradient chosen on the boundary: at x == lo or x == hi
// the identity branch holds (|μ̄| ≤ μ is stick), so dx = 1, dlo = dhi = 0.
func TestClampGradient(t *testing.T) {
	x := []float64{-2, -1, -0.25, 1, 3}
	w := []float64{1, 2, 4, 8, 16}
	r := runGraph(t, opCase{
		name:  "boundary",
		args:  []arg{vecArg("x", x...), scalarArg("lo", -1), scalarArg("hi", 1)},
		build: func(in []*G.Node) (*G.Node, error) { return Clamp(in[0], in[1], in[2]) },
	}, w)
	wantY := []float64{-1, -1, -0.25, 1, 1}
	wantDx := []float64{0, 2, 4, 8, 0} // inside and on the boundary: w; outside: 0
	for i := range x {
		if r.out[i] != wantY[i] || r.grads[0][i] != wantDx[i] {
			t.Errorf("x = %v: y = %v dx = %v, want %v, %v", x[i], r.out[i], r.grads[0][i], wantY[i], wantDx[i])
		}
	}
	if dlo, dhi := r.grads[1][0], r.grads[2][0]; dlo != 1 || dhi != 16 {
		t.Errorf("dlo = %v, dhi = %v, want 1 (x=−2 only), 16 (x=3 only)", dlo, dhi)
	}

	// ClampSym: μ receives +w where μ̄ > μ and −w where μ̄ < −μ.
	r = runGraph(t, opCase{
		name:  "sym",
		args:  []arg{vecArg("mubar", x...), scalarArg("mu", 1)},
		build: func(in []*G.Node) (*G.Node, error) { return ClampSym(in[0], in[1]) },
	}, w)
	if dmu := r.grads[1][0]; dmu != 16-1 {
		t.Errorf("dmu = %v, want 15", dmu)
	}
}

// TestClampExact: selection by masks returns the limit itself, not
// x + (lo − x), which would round for large |x|.
func TestClampExact(t *testing.T) {
	lo, hi := 0.1, 0.7
	x := []float64{-1e6, 1e6, -1e300, 0.3, math.Nextafter(lo, 0), math.Nextafter(hi, 1)}
	r := runGraph(t, opCase{
		name:  "exact",
		args:  []arg{vecArg("x", x...), scalarArg("lo", lo), scalarArg("hi", hi)},
		build: func(in []*G.Node) (*G.Node, error) { return Clamp(in[0], in[1], in[2]) },
	}, weights(len(x)))
	for i := range x {
		if want := ClampFloat(x[i], lo, hi); r.out[i] != want {
			t.Errorf("Clamp(%v) = %.17g, want %.17g", x[i], r.out[i], want)
		}
	}
}

func TestClampNaNPropagates(t *testing.T) {
	r := runGraph(t, opCase{
		name:  "nan",
		args:  []arg{vecArg("x", math.NaN(), 0.5), scalarArg("lo", 0), scalarArg("hi", 1)},
		build: func(in []*G.Node) (*G.Node, error) { return Clamp(in[0], in[1], in[2]) },
	}, []float64{1, 1})
	if !math.IsNaN(r.out[0]) || r.out[1] != 0.5 {
		t.Errorf("Clamp(NaN, 0.5) = %v, want [NaN 0.5]", r.out)
	}
}

func TestClampErrors(t *testing.T) {
	g := G.NewGraph()
	x := G.NewVector(g, tensor.Float64, G.WithShape(3), G.WithName("x"))
	lo := G.NewScalar(g, tensor.Float64, G.WithName("lo"))
	v2 := G.NewVector(g, tensor.Float64, G.WithShape(2), G.WithName("v2"))
	m := G.NewMatrix(g, tensor.Float64, G.WithShape(3, 1), G.WithName("m"))
	f32 := G.NewScalar(g, tensor.Float32, G.WithName("f32"))
	xs := G.NewScalar(g, tensor.Float64, G.WithName("xs"))
	one := G.NewConstant(1.0)
	negMu := G.NewScalar(g, tensor.Float64, G.WithName("negMu"), G.WithValue(-0.5))
	lov := G.NewVector(g, tensor.Float64, G.WithShape(3), G.WithName("lov"),
		G.WithValue(tensor.New(tensor.WithBacking([]float64{0, 2, 0}))))
	for name, f := range map[string]func() (*G.Node, error){
		"nil x":           func() (*G.Node, error) { return Clamp(nil, lo, lo) },
		"nil hi":          func() (*G.Node, error) { return Clamp(x, lo, nil) },
		"short lo":        func() (*G.Node, error) { return Clamp(x, v2, lo) },
		"matrix hi":       func() (*G.Node, error) { return Clamp(x, lo, m) },
		"float32 hi":      func() (*G.Node, error) { return Clamp(x, lo, f32) },
		"vector on scal":  func() (*G.Node, error) { return Clamp(xs, v2, lo) },
		"sym short mu":    func() (*G.Node, error) { return ClampSym(x, v2) },
		"sym float32 x":   func() (*G.Node, error) { return ClampSym(f32, lo) },
		"sym float32 mu ": func() (*G.Node, error) { return ClampSym(x, f32) },
		"lo > hi":         func() (*G.Node, error) { return Clamp(x, one, negMu) },
		"lo[1] > hi":      func() (*G.Node, error) { return Clamp(x, lov, one) },
		"sym mu < 0":      func() (*G.Node, error) { return ClampSym(x, negMu) },
		"soft lo > hi":    func() (*G.Node, error) { return SoftClamp(x, one, negMu, one) },
	} {
		if n, err := f(); err == nil {
			t.Errorf("%s: no error, node %v", name, n)
		}
	}
}
