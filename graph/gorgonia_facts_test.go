package graph

import (
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The tests in this file pin behaviours of gorgonia 0.9.17 that this
// package and its callers rely on or work around. If one fails after a
// gorgonia upgrade, revisit the doc comment that cites it.

// Comparison ops are non-differentiable: G.Grad does not fail on a graph
// that uses their 0/1 output as a mask and routes no gradient through them.
func TestGorgoniaMasksCarryNoGradient(t *testing.T) {
	g := G.NewGraph()
	x := G.NewVector(g, tensor.Float64, G.WithShape(3), G.WithName("x"),
		G.WithValue(tensor.New(tensor.WithBacking([]float64{-1, 0.5, 2}))))
	mask := G.Must(G.Gt(x, G.NewConstant(0.0), true))
	if op, ok := mask.Op().(G.SDOp); !ok || op.DiffWRT(2)[0] || op.DiffWRT(2)[1] {
		t.Fatalf("Gt with retSame: op %v is differentiable", mask.Op())
	}
	// loss = Σ mask ⊙ x: d/dx = mask, with nothing from d mask/dx.
	grads, err := G.Grad(G.Must(G.Sum(G.Must(G.HadamardProd(mask, x)))), x)
	if err != nil {
		t.Fatal(err)
	}
	m := G.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
	if got := floats(t, grads[0].Value()); got[0] != 0 || got[1] != 1 || got[2] != 1 {
		t.Errorf("d/dx Σ [x>0]⊙x = %v, want [0 1 1]", got)
	}
}

// A TapeMachine may let a later op write in place into the memory of an
// intermediate node, so node.Value() after RunAll can show another node's
// result. G.Read extends the node's life and gives the right value.
func TestGorgoniaIntermediateValueReuse(t *testing.T) {
	g := G.NewGraph()
	x := G.NewVector(g, tensor.Float64, G.WithShape(4), G.WithName("x"),
		G.WithValue(tensor.New(tensor.WithBacking([]float64{1, 2, 3, 4}))))
	y := G.Must(CumSum(x, true))
	w := G.NewConstant(tensor.New(tensor.WithBacking([]float64{1, 10, 100, 1000})), G.WithName("w1000"))
	loss := G.Must(G.Sum(G.Must(G.HadamardProd(G.Must(G.Square(y)), w))))
	if _, err := G.Grad(loss, x); err != nil {
		t.Fatal(err)
	}
	var read G.Value
	G.Read(y, &read)
	m := G.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 1, 3, 6}
	if got := floats(t, read); got[3] != want[3] || got[2] != want[2] {
		t.Errorf("value read with G.Read = %v, want %v", got, want)
	}
	// Without the Read (another graph), node.Value() is overwritten.
	g2 := G.NewGraph()
	x2 := G.NewVector(g2, tensor.Float64, G.WithShape(4), G.WithName("x"),
		G.WithValue(tensor.New(tensor.WithBacking([]float64{1, 2, 3, 4}))))
	y2 := G.Must(CumSum(x2, true))
	loss2 := G.Must(G.Sum(G.Must(G.HadamardProd(G.Must(G.Square(y2)), w))))
	if _, err := G.Grad(loss2, x2); err != nil {
		t.Fatal(err)
	}
	m2 := G.NewTapeMachine(g2)
	defer m2.Close()
	if err := m2.RunAll(); err != nil {
		t.Fatal(err)
	}
	if got := floats(t, y2.Value()); got[3] == want[3] {
		t.Logf("node.Value() of an intermediate node was not overwritten this time: %v", got)
	} else {
		t.Logf("node.Value() of an intermediate node after RunAll: %v (true value %v)", got, want)
	}
}

// Calling G.Grad on a gradient node (for a Hessian-vector product) gives
// wrong results: for L = Σ x³, d/dx Σ v ⊙ ∇L should be 6x ⊙ v.
func TestGorgoniaNestedGradIsWrong(t *testing.T) {
	g := G.NewGraph()
	x := G.NewVector(g, tensor.Float64, G.WithShape(3), G.WithName("x"),
		G.WithValue(tensor.New(tensor.WithBacking([]float64{1, 2, 3}))))
	v := G.NewConstant(tensor.New(tensor.WithBacking([]float64{1, 0, 0})), G.WithName("v100"))
	gr, err := G.Grad(G.Must(G.Sum(G.Must(G.Cube(x)))), x)
	if err != nil {
		t.Fatal(err)
	}
	hv, err := G.Grad(G.Must(G.Sum(G.Must(G.HadamardProd(gr[0], v)))), x)
	if err != nil {
		t.Fatal(err)
	}
	m := G.NewTapeMachine(g, G.TraceExec())
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
	if got := floats(t, hv[0].Value()); got[0] == 6 {
		t.Errorf("nested G.Grad now gives the right Hessian-vector product %v: update the package doc", got)
	} else {
		t.Logf("nested G.Grad: H·v = %v, true [6 0 0]", got)
	}
}

// G.Sigmoid saturates to exactly 1 above 19, which is why Bounded uses its
// own two-sided form.
func TestGorgoniaSigmoidCutoff(t *testing.T) {
	g := G.NewGraph()
	z := G.NewScalar(g, tensor.Float64, G.WithName("z"), G.WithValue(19.5))
	s := G.Must(G.Sigmoid(z))
	m := G.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
	if got := s.Value().Data().(float64); got != 1 {
		t.Errorf("G.Sigmoid(19.5) = %.17g, no longer exactly 1: Bounded could use it", got)
	}
}
