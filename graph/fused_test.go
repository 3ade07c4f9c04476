package graph

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func randVals(n int, scale float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	v := make([]float64, n)
	for i := range v {
		v[i] = scale * (2*r.Float64() - 1)
	}
	return v
}

// planarNative is PlanarPath's reference on flattened [3, B, T] steps and
// [3, B] start poses, written out step by step (not through
// PlanarPathFloat).
func planarNative(b, n int) func(in [][]float64) []float64 {
	return func(in [][]float64) []float64 {
		d, p := in[0], in[1]
		N := b * n
		out := make([]float64, 3*N)
		for r := range b {
			x, y, th := p[r], p[b+r], p[2*b+r]
			for t := range n {
				i := r*n + t
				out[i], out[N+i], out[2*N+i] = x, y, th
				dx, dy := d[i], d[N+i]
				x += math.Cos(th)*dx - math.Sin(th)*dy
				y += math.Sin(th)*dx + math.Cos(th)*dy
				th += d[2*N+i]
			}
		}
		return out
	}
}

func TestPlanarPath(t *testing.T) {
	for _, c := range []struct{ b, n int }{{1, 1}, {1, 7}, {3, 5}} {
		N := c.b * c.n
		d := randVals(3*N, 0.8, uint64(N))
		p0 := randVals(3*c.b, 2, uint64(N+1))
		checkOp(t, opCase{
			name:   "PlanarPath",
			args:   []arg{{name: "d", shape: []int{3, c.b, c.n}, val: d}, {name: "p0", shape: []int{3, c.b}, val: p0}},
			build:  func(in []*G.Node) (*G.Node, error) { return PlanarPath(in[0], in[1]) },
			native: planarNative(c.b, c.n),
		}, 1e-14, 1e-8)
	}
}

func TestPlanarPathErrors(t *testing.T) {
	g := G.NewGraph()
	d := newInput(g, arg{name: "d", shape: []int{3, 2, 4}, val: make([]float64, 24)})
	for _, s := range [][]int{{3, 3}, {2, 2}, {3}} {
		n := 1
		for _, k := range s {
			n *= k
		}
		p := newInput(g, arg{name: "p", shape: s, val: make([]float64, n)})
		if _, err := PlanarPath(d, p); err == nil {
			t.Errorf("start poses of shape %v accepted for steps [3 2 4]", s)
		}
	}
	d2 := newInput(g, matArg("d2", 2, 4, make([]float64, 8)...))
	p := newInput(g, matArg("p", 3, 2, make([]float64, 6)...))
	if _, err := PlanarPath(d2, p); err == nil {
		t.Error("steps of shape [2 4] accepted")
	}
}

func TestTakePut(t *testing.T) {
	x := randVals(12, 1, 3)
	idx := []int{11, 0, 5, 5, 7, 2}
	cases := []opCase{
		{name: "Take[3,4]→[2,3]", args: []arg{matArg("x", 3, 4, x...)},
			build: func(in []*G.Node) (*G.Node, error) { return Take(in[0], idx, 2, 3) },
			native: func(in [][]float64) []float64 {
				y := make([]float64, len(idx))
				for k, i := range idx {
					y[k] = in[0][i]
				}
				return y
			}},
		{name: "Put[6]→[3,4] (repeated index adds)", args: []arg{vecArg("x", x[:6]...)},
			build: func(in []*G.Node) (*G.Node, error) { return Put(in[0], idx, 3, 4) },
			native: func(in [][]float64) []float64 {
				y := make([]float64, 12)
				for k, i := range idx {
					y[i] += in[0][k]
				}
				return y
			}},
		{name: "Put(Take) second order", args: []arg{vecArg("x", x...)},
			build: func(in []*G.Node) (*G.Node, error) {
				y, err := Take(in[0], idx, 6)
				if err != nil {
					return nil, err
				}
				return Put(y, idx, 12)
			},
			native: func(in [][]float64) []float64 {
				y := make([]float64, 12)
				for _, i := range idx {
					y[i] += in[0][i]
				}
				return y
			}},
	}
	for _, c := range cases {
		checkOp(t, c, 0, 1e-9)
	}
	g := G.NewGraph()
	xn := newInput(g, vecArg("x", x...))
	if _, err := Take(xn, []int{0, 12}, 2); err == nil {
		t.Error("Take index 12 of 12 accepted")
	}
	if _, err := Take(xn, []int{0, 1}, 3); err == nil {
		t.Error("Take of 2 indices into shape [3] accepted")
	}
	if _, err := Put(xn, idx, 2, 5); err == nil {
		t.Error("Put of 12 values by 6 indices accepted")
	}
	a, _ := Take(xn, []int{0, 1}, 2)
	b, _ := Take(xn, []int{0, 2}, 2)
	if a == b {
		t.Error("two selections merged into one node")
	}
}

func TestSumDist(t *testing.T) {
	k := 6
	p := randVals(2*k, 1, 4)
	q := randVals(2*k, 1, 5)
	checkOp(t, opCase{
		name: "SumDist",
		args: []arg{matArg("p", 2, k, p...), matArg("q", 2, k, q...)},
		build: func(in []*G.Node) (*G.Node, error) {
			return SumDist(in[0], in[1])
		},
		native: func(in [][]float64) []float64 {
			var s float64
			for i := range k {
				s += math.Hypot(in[0][i]-in[1][i], in[0][k+i]-in[1][k+i])
			}
			return []float64{s}
		},
	}, 1e-15, 1e-8)

	// SumDistTo: the same value, the gradient in p only.
	g0 := G.NewGraph()
	pn0 := newInput(g0, matArg("p", 2, k, p...))
	qn0 := newInput(g0, matArg("q", 2, k, q...))
	l0, err := SumDistTo(pn0, qn0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := G.Grad(l0, pn0, qn0); err == nil {
		t.Error("SumDistTo differentiated with respect to its data q")
	}
	gr0, err := G.Grad(l0, pn0)
	if err != nil {
		t.Fatal(err)
	}
	m0 := G.NewTapeMachine(g0, G.TraceExec())
	defer m0.Close()
	if err := m0.RunAll(); err != nil {
		t.Fatal(err)
	}
	want := make([][]float64, 2)
	for i := range want {
		want[i] = make([]float64, k)
	}
	wl := SumDistFloat(p[:k], p[k:], q[:k], q[k:], 1, want[0], want[1])
	if got := floats(t, l0.Value())[0]; math.Abs(got-wl) > 1e-15*wl {
		t.Errorf("SumDistTo = %v, native %v", got, wl)
	}
	for i, v := range floats(t, gr0[0].Value()) {
		if w := want[i/k][i%k]; math.Abs(v-w) > 1e-15 {
			t.Errorf("SumDistTo: ∂/∂p[%d] = %v, native %v", i, v, w)
		}
	}

	// A zero distance gets the subgradient 0, not NaN.
	q[2], q[k+2] = p[2], p[k+2]
	g := G.NewGraph()
	pn := newInput(g, matArg("p", 2, k, p...))
	qn := newInput(g, matArg("q", 2, k, q...))
	l, err := SumDist(pn, qn)
	if err != nil {
		t.Fatal(err)
	}
	grads, err := G.Grad(l, pn, qn)
	if err != nil {
		t.Fatal(err)
	}
	m := G.NewTapeMachine(g, G.TraceExec())
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
	gp, gq := floats(t, grads[0].Value()), floats(t, grads[1].Value())
	if !allFinite(gp) || gp[2] != 0 || gp[k+2] != 0 {
		t.Errorf("gradient at a zero distance: %v", gp)
	}
	for i := range gp {
		if gq[i] != -gp[i] {
			t.Errorf("∂/∂q[%d] = %v, want −∂/∂p = %v", i, gq[i], -gp[i])
		}
	}
	bad := newInput(g, arg{name: "b", shape: []int{3, k}, val: make([]float64, 3*k)})
	if _, err := SumDist(bad, bad); err == nil {
		t.Error("points of shape [3 6] accepted")
	}
	_ = tensor.Float64
}

func TestMatVecConst(t *testing.T) {
	m, n := 7, 3
	a := randVals(m*n, 2, 8)
	x := randVals(n, 1, 9)
	native := func(in [][]float64) []float64 {
		y := make([]float64, m)
		for i := range m {
			for j := range n {
				y[i] += a[i*n+j] * in[0][j]
			}
		}
		return y
	}
	checkOp(t, opCase{name: "MatVecConst", args: []arg{vecArg("x", x...)},
		build:  func(in []*G.Node) (*G.Node, error) { return MatVecConst(a, m, n, in[0]) },
		native: native}, 1e-14, 1e-9)
	g := G.NewGraph()
	xn := newInput(g, vecArg("x", x...))
	if _, err := MatVecConst(a, m, n+1, xn); err == nil {
		t.Error("a 7×4 matrix of 21 values accepted")
	}
	if _, err := MatVecConst(a[:n*n], n, n, newInput(g, vecArg("y", 1, 2))); err == nil {
		t.Error("x of length 2 for a 3×3 matrix accepted")
	}
	b := append([]float64(nil), a...)
	p, _ := MatVecConst(a, m, n, xn)
	q, _ := MatVecConst(b, m, n, xn)
	b[5]++
	r, _ := MatVecConst(b, m, n, xn)
	if p != q || p == r {
		t.Errorf("equal matrices merged: %t (want true), different ones merged: %t (want false)", p == q, p == r)
	}
}
