package graph

import (
	"math"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// concatGrad builds loss = Σ w ⊙ concat(c_1·x, …, c_k·x) with gorgonia's
// G.Concat or graph.Concat, and returns ∂loss/∂x and its exact value
// Σ_j c_j·w_j.
func concatGrad(t *testing.T, k, n int, ours bool) (got, want []float64) {
	t.Helper()
	g := G.NewGraph()
	xv := make([]float64, n)
	for i := range xv {
		xv[i] = 0.1 * float64(i+1)
	}
	x := G.NewVector(g, tensor.Float64, G.WithShape(n), G.WithName("x"), G.WithValue(tensor.New(tensor.WithShape(n), tensor.WithBacking(xv))))
	var parts G.Nodes
	for j := range k {
		parts = append(parts, G.Must(G.Mul(x, G.NewConstant(float64(j+1)))))
	}
	var cat *G.Node
	var err error
	if ours {
		cat, err = Concat(parts...)
	} else {
		cat, err = G.Concat(0, parts...)
	}
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, k*n)
	for i := range w {
		w[i] = math.Sin(float64(i))
	}
	wn := G.NewVector(g, tensor.Float64, G.WithShape(k*n), G.WithName("w"), G.WithValue(tensor.New(tensor.WithShape(k*n), tensor.WithBacking(w))))
	grads, err := G.Grad(G.Must(G.Sum(G.Must(G.HadamardProd(cat, wn)))), x)
	if err != nil {
		t.Fatal(err)
	}
	var gv G.Value
	G.Read(grads[0], &gv)
	m := G.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
	if ours && k >= 2 { // forward values too
		if c := floats(t, cat.Value()); len(c) != k*n || c[n] != 2*xv[0] {
			t.Errorf("Concat forward: %v", c[:min(len(c), 2*n)])
		}
	}
	got = append([]float64(nil), floats(t, gv)...)
	want = make([]float64, n)
	for j := range k {
		for i := range n {
			want[i] += float64(j+1) * w[j*n+i]
		}
	}
	return got, want
}

func maxDiff(a, b []float64) float64 {
	var e float64
	for i := range a {
		e = math.Max(e, math.Abs(a[i]-b[i]))
	}
	return e
}

// Gorgonia 0.9.17's G.Concat returns a wrong gradient for some sizes (33
// parts of [8], 3 parts of [128]) and a right one for others (3 of [129]).
// If this fails after an upgrade, gorgonia fixed it: revisit graph.Concat's
// doc comment.
func TestGorgoniaConcatGradientIsWrong(t *testing.T) {
	for _, c := range []struct {
		k, n  int
		wrong bool
	}{{33, 8, true}, {3, 128, true}, {3, 129, false}} {
		got, want := concatGrad(t, c.k, c.n, false)
		if e := maxDiff(got, want); (e > 1e-9) != c.wrong {
			t.Errorf("G.Concat of %d × [%d]: gradient error %g, expected wrong: %v", c.k, c.n, e, c.wrong)
		}
	}
}

// graph.Concat is right at the sizes where G.Concat is wrong.
func TestConcatGradient(t *testing.T) {
	for _, c := range [][2]int{{33, 8}, {3, 128}, {3, 129}, {1, 5}, {2, 1}} {
		got, want := concatGrad(t, c[0], c[1], true)
		if e := maxDiff(got, want); e > 1e-12 {
			t.Errorf("graph.Concat of %d × [%d]: gradient error %g", c[0], c[1], e)
		}
	}
}

// Stack of scalars, with the gradient reaching each scalar; ConcatFloat.
func TestStackScalars(t *testing.T) {
	g := G.NewGraph()
	a := G.NewScalar(g, tensor.Float64, G.WithName("a"), G.WithValue(2.0))
	b := G.NewScalar(g, tensor.Float64, G.WithName("b"), G.WithValue(3.0))
	s, err := Stack(a, G.Must(G.Mul(a, b)), b)
	if err != nil {
		t.Fatal(err)
	}
	w := G.NewConstant(tensor.New(tensor.WithShape(3), tensor.WithBacking([]float64{1, 10, 100})))
	grads, err := G.Grad(G.Must(G.Sum(G.Must(G.HadamardProd(s, w)))), a, b)
	if err != nil {
		t.Fatal(err)
	}
	m := G.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
	if v := floats(t, s.Value()); v[0] != 2 || v[1] != 6 || v[2] != 3 {
		t.Errorf("Stack = %v", v)
	}
	// d/da (a + 10ab + 100b) = 1 + 10b = 31, d/db = 10a + 100 = 120
	if ga, gb := floats(t, grads[0].Value())[0], floats(t, grads[1].Value())[0]; ga != 31 || gb != 120 {
		t.Errorf("gradients %v, %v, want 31, 120", ga, gb)
	}
	if c := ConcatFloat([]float64{1}, []float64{2, 3}); len(c) != 3 || c[2] != 3 {
		t.Errorf("ConcatFloat = %v", c)
	}
	if _, err := Stack(G.NewVector(g, tensor.Float64, G.WithShape(2), G.WithName("v"))); err == nil {
		t.Error("Stack of a vector accepted")
	}
}
