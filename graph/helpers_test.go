package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// arg is one input of an op under test: a scalar (shape nil) or a tensor.
type arg struct {
	name  string
	shape []int
	val   []float64
}

func scalarArg(name string, v float64) arg { return arg{name: name, val: []float64{v}} }

func vecArg(name string, v ...float64) arg {
	return arg{name: name, shape: []int{len(v)}, val: v}
}

func matArg(name string, rows, cols int, v ...float64) arg {
	if len(v) != rows*cols {
		panic(fmt.Sprintf("matArg %s: %d values for %dx%d", name, len(v), rows, cols))
	}
	return arg{name: name, shape: []int{rows, cols}, val: v}
}

// opCase pairs an op's graph form with its native float64 form. native
// returns the output flattened in row-major order.
type opCase struct {
	name   string
	args   []arg
	build  func(in []*G.Node) (*G.Node, error)
	native func(in [][]float64) []float64
}

// newInput adds a as an input node of g with its value bound.
func newInput(g *G.ExprGraph, a arg) *G.Node {
	if a.shape == nil {
		return G.NewScalar(g, tensor.Float64, G.WithName(a.name), G.WithValue(a.val[0]))
	}
	v := tensor.New(tensor.WithShape(a.shape...), tensor.WithBacking(append([]float64(nil), a.val...)))
	return G.NewTensor(g, tensor.Float64, len(a.shape), G.WithShape(a.shape...), G.WithName(a.name), G.WithValue(v))
}

// floats returns the elements of a gorgonia value (scalar or tensor).
func floats(t *testing.T, v G.Value) []float64 {
	t.Helper()
	if v == nil {
		t.Fatal("nil value")
	}
	switch d := v.Data().(type) {
	case float64:
		return []float64{d}
	case []float64:
		return append([]float64(nil), d[:v.Shape().TotalSize()]...)
	}
	t.Fatalf("value of type %T", v.Data())
	return nil
}

// weights returns n fixed pseudo-random weights in [−1, 1] (seeded by n, so
// the loss of a case never changes between runs).
func weights(n int) []float64 {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	w := make([]float64, n)
	for i := range w {
		w[i] = 2*r.Float64() - 1
	}
	return w
}

// weightedSum returns the scalar loss Σ w ⊙ y as a node.
func weightedSum(y *G.Node, w []float64) (*G.Node, error) {
	if y.IsScalar() {
		return G.HadamardProd(y, G.NewConstant(w[0]))
	}
	wn := G.NewConstant(tensor.New(tensor.WithShape(y.Shape()...), tensor.WithBacking(w)), G.WithName(fmt.Sprintf("w%v", y.Shape())))
	p, err := G.HadamardProd(y, wn)
	if err != nil {
		return nil, err
	}
	return G.Sum(p)
}

// graphResult is what one compiled run of an opCase gives.
type graphResult struct {
	out   []float64
	grads [][]float64
}

// runGraph builds c on a fresh graph with the loss Σ w ⊙ op(x), takes G.Grad
// with respect to every input and runs a TapeMachine once. TraceExec keeps
// every node's value: without it gorgonia may reuse the register of an
// intermediate node (here the op's output) for a later result.
func runGraph(t *testing.T, c opCase, w []float64) graphResult {
	t.Helper()
	g := G.NewGraph()
	in := make([]*G.Node, len(c.args))
	for i, a := range c.args {
		in[i] = newInput(g, a)
	}
	y, err := c.build(in)
	if err != nil {
		t.Fatalf("%s: build: %v", c.name, err)
	}
	loss, err := weightedSum(y, w)
	if err != nil {
		t.Fatalf("%s: loss: %v", c.name, err)
	}
	grads, err := G.Grad(loss, in...)
	if err != nil {
		t.Fatalf("%s: Grad: %v", c.name, err)
	}
	m := G.NewTapeMachine(g, G.TraceExec())
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatalf("%s: RunAll: %v", c.name, err)
	}
	r := graphResult{out: floats(t, y.Value())}
	for i, gn := range grads {
		gv := floats(t, gn.Value())
		if len(gv) != len(c.args[i].val) {
			t.Fatalf("%s: gradient of %s has %d values, want %d", c.name, c.args[i].name, len(gv), len(c.args[i].val))
		}
		r.grads = append(r.grads, gv)
	}
	return r
}

// nativeLoss evaluates Σ w ⊙ native(in).
func nativeLoss(c opCase, in [][]float64, w []float64) float64 {
	y := c.native(in)
	var s float64
	for i, v := range y {
		s += w[i] * v
	}
	return s
}

// centralFD returns the gradient of the native loss by gonum's central
// differences (diff/fd) with the relative step h = 1e-6·max(1, |v|).
func centralFD(c opCase, w []float64) [][]float64 {
	in := make([][]float64, len(c.args))
	for i, a := range c.args {
		in[i] = append([]float64(nil), a.val...)
	}
	grad := make([][]float64, len(in))
	for i := range in {
		grad[i] = make([]float64, len(in[i]))
		for j, v := range in[i] {
			grad[i][j] = fd.Derivative(func(t float64) float64 {
				in[i][j] = v + t
				return nativeLoss(c, in, w)
			}, 0, &fd.Settings{Formula: fd.Central, Step: 1e-6 * math.Max(1, math.Abs(v))})
			in[i][j] = v
		}
	}
	return grad
}

// checkOp is the standard test of an op: forward values equal the native
// float64 version to valTol (relative to max(1, |native|)), and the gradient
// of Σ w ⊙ op(x) with respect to every input equals central finite
// differences of the native version to gradTol (relative to max(1, |fd|)).
func checkOp(t *testing.T, c opCase, valTol, gradTol float64) {
	t.Helper()
	in := make([][]float64, len(c.args))
	for i, a := range c.args {
		in[i] = a.val
	}
	want := c.native(in)
	w := weights(len(want))
	r := runGraph(t, c, w)
	if len(r.out) != len(want) {
		t.Fatalf("%s: output has %d values, native %d", c.name, len(r.out), len(want))
	}
	for i := range want {
		if !near(r.out[i], want[i], valTol) {
			t.Errorf("%s: y[%d] = %.17g, native %.17g", c.name, i, r.out[i], want[i])
		}
	}
	fd := centralFD(c, w)
	for i, a := range c.args {
		for j := range fd[i] {
			if !near(r.grads[i][j], fd[i][j], gradTol) {
				t.Errorf("%s: d/d%s[%d] = %.12g, finite differences %.12g", c.name, a.name, j, r.grads[i][j], fd[i][j])
			}
		}
	}
}

// near reports whether |a − b| ≤ tol·max(1, |b|).
func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

func allFinite(v []float64) bool {
	for _, f := range v {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}

// elementwise lifts a native scalar function of (x, p1, p2, …) to flattened
// inputs, where each parameter is either one value or one per element of x.
func elementwise(f func(x float64, p []float64) float64) func(in [][]float64) []float64 {
	return func(in [][]float64) []float64 {
		y := make([]float64, len(in[0]))
		p := make([]float64, len(in)-1)
		for i, x := range in[0] {
			for k, q := range in[1:] {
				if len(q) == 1 {
					p[k] = q[0]
				} else {
					p[k] = q[i]
				}
			}
			y[i] = f(x, p)
		}
		return y
	}
}
