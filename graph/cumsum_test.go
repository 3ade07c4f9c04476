package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// cumSumVariant names one of the four ops of cumsum.go.
type cumSumVariant struct{ reverse, exclusive bool }

var cumSumVariants = []cumSumVariant{{false, false}, {false, true}, {true, false}, {true, true}}

func (v cumSumVariant) String() string { return cumSumOp(v).String() }

func (v cumSumVariant) build(x *G.Node) (*G.Node, error) {
	if v.reverse {
		return ReverseCumSum(x, v.exclusive)
	}
	return CumSum(x, v.exclusive)
}

// loop is the plain float64 reference: y[t] = Σ x[j] over j ≤ t (j < t
// exclusive; j ≥ t or j > t in reverse), written as the double loop of the
// definition, independent of CumSumFloat.
func (v cumSumVariant) loop(x []float64, n int) []float64 {
	y := make([]float64, len(x))
	for r := 0; r < len(x); r += n {
		for t := 0; t < n; t++ {
			var s float64
			for j := 0; j < n; j++ {
				in := j <= t
				if v.reverse {
					in = j >= t
				}
				if v.exclusive && j == t {
					in = false
				}
				if in {
					s += x[r+j]
				}
			}
			y[r+t] = s
		}
	}
	return y
}

// native applies CumSumFloat or ReverseCumSumFloat row by row.
func (v cumSumVariant) native(x []float64, n int) []float64 {
	y := make([]float64, len(x))
	for r := 0; r < len(x); r += n {
		if v.reverse {
			ReverseCumSumFloat(y[r:r+n], x[r:r+n], v.exclusive)
		} else {
			CumSumFloat(y[r:r+n], x[r:r+n], v.exclusive)
		}
	}
	return y
}

// primitive is the reference built from gorgonia's own ops: the product
// with a triangular matrix of ones (y = L·x for a vector, Y = X·Lᵀ for rows).
// It costs O(T²) and is feasible only for small T.
func (v cumSumVariant) primitive(x *G.Node) (*G.Node, error) {
	s := x.Shape()
	n := s[len(s)-1]
	l := make([]float64, n*n) // l[i*n+j] = L[i][j]
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			in := j <= i
			if v.reverse {
				in = j >= i
			}
			if v.exclusive && i == j {
				in = false
			}
			if in {
				l[i*n+j] = 1
			}
		}
	}
	transposed := x.Dims() == 2
	if transposed {
		lt := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				lt[j*n+i] = l[i*n+j]
			}
		}
		l = lt
	}
	// Name the constant: gorgonia deduplicates constants by name, and the
	// default name is the printed value, abbreviated for large matrices.
	c := G.NewConstant(tensor.New(tensor.WithShape(n, n), tensor.WithBacking(l)),
		G.WithName(fmt.Sprintf("tri%d_%v_%v_%v", n, v.reverse, v.exclusive, transposed)))
	if transposed {
		return G.Mul(x, c)
	}
	return G.Mul(c, x)
}

func (v cumSumVariant) opCase(x arg) opCase {
	n := x.shape[len(x.shape)-1]
	return opCase{
		name:   fmt.Sprintf("%v%v", v, x.shape),
		args:   []arg{x},
		build:  func(in []*G.Node) (*G.Node, error) { return v.build(in[0]) },
		native: func(in [][]float64) []float64 { return v.native(in[0], n) },
	}
}

func randomValues(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 4*r.Float64() - 2
	}
	return v
}

func TestCumSumKnown(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	want := map[cumSumVariant][]float64{
		{false, false}: {1, 3, 6, 10},
		{false, true}:  {0, 1, 3, 6},
		{true, false}:  {10, 9, 7, 4},
		{true, true}:   {9, 7, 4, 0},
	}
	for _, v := range cumSumVariants {
		r := runGraph(t, v.opCase(vecArg("x", x...)), weights(4))
		for i := range x {
			if r.out[i] != want[v][i] || v.loop(x, 4)[i] != want[v][i] || v.native(x, 4)[i] != want[v][i] {
				t.Errorf("%v: op %v, loop %v, native %v, want %v", v, r.out, v.loop(x, 4), v.native(x, 4), want[v])
				break
			}
		}
	}
}

// TestCumSumFD: values equal the native loop bit for bit and the gradients
// (the reverse sums) equal central finite differences.
func TestCumSumFD(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, v := range cumSumVariants {
		checkOp(t, v.opCase(vecArg("x", randomValues(r, 9)...)), 0, 1e-8)
		checkOp(t, v.opCase(matArg("x", 3, 5, randomValues(r, 15)...)), 0, 1e-8)
		checkOp(t, v.opCase(matArg("x", 4, 1, randomValues(r, 4)...)), 0, 1e-8)
		checkOp(t, v.opCase(vecArg("x", 0.5)), 0, 1e-8)
	}
}

// TestCumSumAgainstReferences compares the custom op with the primitive-op
// version (values and gradients to 1e-12) and with the double loop of the
// definition.
func TestCumSumAgainstReferences(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for _, shape := range [][]int{{1}, {7}, {40}, {3, 5}, {2, 40}} {
		size := 1
		for _, d := range shape {
			size *= d
		}
		x := arg{name: "x", shape: shape, val: randomValues(r, size)}
		n := shape[len(shape)-1]
		for _, v := range cumSumVariants {
			c := v.opCase(x)
			w := weights(size)
			op := runGraph(t, c, w)
			c.build = func(in []*G.Node) (*G.Node, error) { return v.primitive(in[0]) }
			ref := runGraph(t, c, w)
			loop := v.loop(x.val, n)
			// The adjoint of the op is the transposed variant, so the loop
			// of that variant applied to w is the exact gradient.
			gradLoop := cumSumVariant{!v.reverse, v.exclusive}.loop(w, n)
			for i := range loop {
				if !near(op.out[i], ref.out[i], 1e-12) || !near(op.out[i], loop[i], 1e-12) {
					t.Errorf("%v%v: y[%d] = %v, primitive %v, loop %v", v, shape, i, op.out[i], ref.out[i], loop[i])
				}
				if !near(op.grads[0][i], ref.grads[0][i], 1e-12) || !near(op.grads[0][i], gradLoop[i], 1e-12) {
					t.Errorf("%v%v: dx[%d] = %v, primitive %v, loop %v", v, shape, i, op.grads[0][i], ref.grads[0][i], gradLoop[i])
				}
			}
		}
	}
}

// TestCumSumSecondOrder differentiates through ReverseCumSum used as a
// forward op (so through the SymDiff of the adjoint, which applies CumSum)
// inside a nonlinear chain, as a hand-written gradient graph would:
// y = ReverseCumSum(CumSum(x)²) + CumSum(ReverseCumSum(x, excl)³, excl).
func TestCumSumSecondOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	const n = 6
	c := opCase{
		name: "composite",
		args: []arg{matArg("x", 2, n, randomValues(r, 2*n)...)},
		build: func(in []*G.Node) (*G.Node, error) {
			var b builder
			a := b.do(ReverseCumSum(b.do(G.Square(b.do(CumSum(in[0], false)))), false))
			c := b.do(CumSum(b.do(G.Cube(b.do(ReverseCumSum(in[0], true)))), true))
			return b.result("test", b.do(G.Add(a, c)))
		},
		native: func(in [][]float64) []float64 {
			s := cumSumVariant{false, false}.native(in[0], n)
			q := cumSumVariant{true, true}.native(in[0], n)
			for i := range s {
				s[i] *= s[i]
				q[i] = q[i] * q[i] * q[i]
			}
			a := cumSumVariant{true, false}.native(s, n)
			c := cumSumVariant{false, true}.native(q, n)
			for i := range a {
				a[i] += c[i]
			}
			return a
		},
	}
	checkOp(t, c, 1e-14, 1e-7)
}

// TestCumSumTapeMachineReuse is the build-once-run-many pattern: one
// compiled graph with an inclusive and an exclusive CumSum of the same x,
// run with new values bound by G.Let each time, values and gradients
// checked against float64 each run.
func TestCumSumTapeMachineReuse(t *testing.T) {
	const rows, n = 3, 50
	g := G.NewGraph()
	x := G.NewMatrix(g, tensor.Float64, G.WithShape(rows, n), G.WithName("x"))
	yi, err := CumSum(x, false)
	if err != nil {
		t.Fatal(err)
	}
	ye, err := CumSum(x, true)
	if err != nil {
		t.Fatal(err)
	}
	if yi == ye {
		t.Fatal("inclusive and exclusive CumSum of x were merged into one node")
	}
	w := weights(rows * n)
	// loss = Σ w ⊙ yi² + Σ w ⊙ ye
	sq, err := G.Square(yi)
	if err != nil {
		t.Fatal(err)
	}
	l1, err := weightedSum(sq, w)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := weightedSum(ye, w)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := G.Add(l1, l2)
	if err != nil {
		t.Fatal(err)
	}
	grads, err := G.Grad(loss, x)
	if err != nil {
		t.Fatal(err)
	}
	var yiV, yeV G.Value
	G.Read(yi, &yiV)
	G.Read(ye, &yeV)
	m := G.NewTapeMachine(g)
	defer m.Close()

	incl, excl := cumSumVariant{false, false}, cumSumVariant{false, true}
	r := rand.New(rand.NewPCG(4, 4))
	for run := 0; run < 5; run++ {
		xv := randomValues(r, rows*n)
		if err := G.Let(x, tensor.New(tensor.WithShape(rows, n), tensor.WithBacking(append([]float64(nil), xv...)))); err != nil {
			t.Fatal(err)
		}
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
		wantI, wantE := incl.native(xv, n), excl.native(xv, n)
		// d loss/dx = RevCumSum(2 w ⊙ yi) + RevCumSumExcl(w)
		a := make([]float64, len(xv))
		for i := range a {
			a[i] = 2 * w[i] * wantI[i]
		}
		wantG := cumSumVariant{true, false}.native(a, n)
		gE := cumSumVariant{true, true}.native(w, n)
		gotI, gotE, gotG := floats(t, yiV), floats(t, yeV), floats(t, grads[0].Value())
		for i := range xv {
			wantG[i] += gE[i]
			if gotI[i] != wantI[i] || gotE[i] != wantE[i] || !near(gotG[i], wantG[i], 1e-12) {
				t.Fatalf("run %d, element %d: yi %v ye %v dx %v, want %v %v %v", run, i, gotI[i], gotE[i], gotG[i], wantI[i], wantE[i], wantG[i])
			}
		}
		m.Reset()
	}
}

func TestCumSumOpHashes(t *testing.T) {
	seen := map[uint32]cumSumVariant{}
	for _, v := range cumSumVariants {
		h := cumSumOp(v).Hashcode()
		if o, ok := seen[h]; ok {
			t.Errorf("%v and %v have the same hash %x", v, o, h)
		}
		seen[h] = v
	}
}

// TestCumSumLispMachine exercises DoDiff: the LispMachine differentiates
// by calling it instead of building gradient nodes.
func TestCumSumLispMachine(t *testing.T) {
	const rows, n = 2, 5
	r := rand.New(rand.NewPCG(5, 5))
	for _, v := range cumSumVariants {
		xv := randomValues(r, rows*n)
		g := G.NewGraph()
		x := G.NewMatrix(g, tensor.Float64, G.WithShape(rows, n), G.WithName("x"),
			G.WithValue(tensor.New(tensor.WithShape(rows, n), tensor.WithBacking(append([]float64(nil), xv...)))))
		y, err := v.build(x)
		if err != nil {
			t.Fatal(err)
		}
		w := weights(rows * n)
		if _, err := weightedSum(y, w); err != nil {
			t.Fatal(err)
		}
		m := G.NewLispMachine(g)
		if err := m.RunAll(); err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		gv, err := x.Grad()
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		got, want := floats(t, gv), cumSumVariant{!v.reverse, v.exclusive}.loop(w, n)
		gotY, wantY := floats(t, y.Value()), v.loop(xv, n)
		for i := range want {
			if !near(got[i], want[i], 1e-12) || !near(gotY[i], wantY[i], 1e-12) {
				t.Errorf("%v: y %v dx %v, want %v %v", v, gotY, got, wantY, want)
				break
			}
		}
		m.Close()
	}
}

// TestCumSumStridedInput: a transposed node's value may be a strided view;
// the op must read it in logical order.
func TestCumSumStridedInput(t *testing.T) {
	// Do directly on a transposed view.
	d := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float64{1, 2, 3, 4, 5, 6}))
	if err := d.T(); err != nil {
		t.Fatal(err)
	}
	out, err := cumSumOp{}.Do(d) // logical rows: [1 4], [2 5], [3 6]
	if err != nil {
		t.Fatal(err)
	}
	if got, want := floats(t, out), []float64{1, 5, 2, 7, 3, 9}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("CumSum of a transposed view = %v, want %v", got, want)
	}
	if got := floats(t, d.Materialize()); fmt.Sprint(got) != fmt.Sprint([]float64{1, 4, 2, 5, 3, 6}) {
		t.Errorf("input changed: %v", got)
	}

	// And through a graph with G.Transpose.
	c := opCase{
		name: "transposed",
		args: []arg{matArg("x", 3, 2, 1, 2, 3, 4, 5, 6)},
		build: func(in []*G.Node) (*G.Node, error) {
			xt, err := G.Transpose(in[0])
			if err != nil {
				return nil, err
			}
			return CumSum(xt, false)
		},
		native: func(in [][]float64) []float64 {
			xt := []float64{in[0][0], in[0][2], in[0][4], in[0][1], in[0][3], in[0][5]}
			return cumSumVariant{}.native(xt, 3)
		},
	}
	checkOp(t, c, 0, 1e-8)
}

func TestCumSumErrors(t *testing.T) {
	g := G.NewGraph()
	for name, x := range map[string]*G.Node{
		"scalar":  G.NewScalar(g, tensor.Float64, G.WithName("s")),
		"3-D":     G.NewTensor(g, tensor.Float64, 3, G.WithShape(2, 2, 2), G.WithName("t3")),
		"float32": G.NewVector(g, tensor.Float32, G.WithShape(3), G.WithName("f32")),
		"nil":     nil,
	} {
		if _, err := CumSum(x, false); err == nil {
			t.Errorf("CumSum(%s): no error", name)
		}
		if _, err := ReverseCumSum(x, true); err == nil {
			t.Errorf("ReverseCumSum(%s): no error", name)
		}
	}
	for name, v := range map[string]G.Value{
		"scalar":  G.NewF64(1),
		"float32": tensor.New(tensor.WithBacking([]float32{1, 2})),
		"3-D":     tensor.New(tensor.WithShape(1, 1, 2), tensor.WithBacking([]float64{1, 2})),
	} {
		if _, err := (cumSumOp{}).Do(v); err == nil {
			t.Errorf("Do(%s): no error", name)
		}
	}
	if _, err := (cumSumOp{}).Do(); err == nil {
		t.Error("Do(): no error")
	}
}

func TestCumSumFloat(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	CumSumFloat(x, x, true) // in place
	if fmt.Sprint(x) != "[0 1 3 6]" {
		t.Errorf("in-place exclusive CumSumFloat = %v", x)
	}
	ReverseCumSumFloat(x, x, false)
	if fmt.Sprint(x) != "[10 10 9 6]" {
		t.Errorf("in-place ReverseCumSumFloat = %v", x)
	}
	CumSumFloat(nil, nil, false) // empty is fine
	defer func() {
		if recover() == nil {
			t.Error("length mismatch did not panic")
		}
	}()
	CumSumFloat(make([]float64, 2), x, false)
}

// TestCumSumLongHorizon: a long integration in one node; the op's rounding
// is that of the sequential loop (the same as native Simulate), with no
// drift from the primitive O(T²) products.
func TestCumSumLongHorizon(t *testing.T) {
	const n = 100000
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Sin(float64(i) * 1e-3)
	}
	r := runGraph(t, cumSumVariant{}.opCase(vecArg("x", x...)), weights(n))
	want := cumSumVariant{}.native(x, n)
	for i := range want {
		if r.out[i] != want[i] {
			t.Fatalf("y[%d] = %v, native %v", i, r.out[i], want[i])
		}
	}
}
