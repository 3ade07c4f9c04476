package graph

import (
	"fmt"
	"hash"
	"hash/fnv"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// MatVecConst returns A·x for a data matrix A (m×n, row-major, copied) and a
// vector node x [n]: the product of a long design matrix of known data (e.g.
// per-step commands times time steps) with a few parameters. Unlike G.Mul on
// a data node it creates no gradient for A: gorgonia's matrix-vector product
// builds the gradient of both operands and its TapeMachine runs every node
// that exists, so a constant m×n matrix would cost an m×n outer product on
// every evaluation. The gradient with respect to x is Aᵀ·g, the same op
// transposed, so gradients of any order work. MatVecConstFloat is the native
// twin.
func MatVecConst(a []float64, m, n int, x *G.Node) (*G.Node, error) {
	const fn = "MatVecConst"
	if err := checkInput(fn, "x", x); err != nil {
		return nil, err
	}
	if m < 1 || n < 1 || len(a) != m*n {
		return nil, fmt.Errorf("graph.%s: %d values for a %d×%d matrix", fn, len(a), m, n)
	}
	if s := x.Shape(); !sameShape(s, tensor.Shape{n}) {
		return nil, fmt.Errorf("graph.%s: x has shape %v, want [%d]", fn, s, n)
	}
	h := fnv.New64a()
	var b [8]byte
	for _, v := range a {
		u := math.Float64bits(v)
		for k := range b {
			b[k] = byte(u >> (8 * k))
		}
		h.Write(b[:])
	}
	op := matVecConstOp{a: append([]float64(nil), a...), m: m, n: n, sum: h.Sum64()}
	y, err := G.ApplyOp(op, x)
	if err != nil {
		return nil, wrap(fn, err)
	}
	return y, nil
}

// MatVecConstFloat writes A·x (or Aᵀ·x with trans) into y.
func MatVecConstFloat(y, a []float64, m, n int, x []float64, trans bool) {
	if trans {
		clear(y[:n])
		for i := range m {
			xi := x[i]
			row := a[i*n : i*n+n]
			for j, v := range row {
				y[j] += v * xi
			}
		}
		return
	}
	for i := range m {
		var s float64
		for j, v := range a[i*n : i*n+n] {
			s += v * x[j]
		}
		y[i] = s
	}
}

// matVecConstOp holds its matrix; sum is a digest of it for the hash
// (gorgonia merges nodes of equal hash, so different matrices must differ).
type matVecConstOp struct {
	a     []float64
	m, n  int
	trans bool
	sum   uint64
}

// in and out are the lengths of the operand and the result.
func (op matVecConstOp) in() int {
	if op.trans {
		return op.m
	}
	return op.n
}

func (op matVecConstOp) out() int {
	if op.trans {
		return op.n
	}
	return op.m
}

func (matVecConstOp) Arity() int { return 1 }

func (matVecConstOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	v := G.TensorType{Dims: 1, Of: a}
	return hm.NewFnType(v, v)
}

func (op matVecConstOp) InferShape(inputs ...G.DimSizer) (tensor.Shape, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("%v: want 1 input, have %d", op, len(inputs))
	}
	if s, ok := inputs[0].(tensor.Shape); !ok || !sameShape(s, tensor.Shape{op.in()}) {
		return nil, fmt.Errorf("%v: input shape %v, want [%d]", op, inputs[0], op.in())
	}
	return tensor.Shape{op.out()}, nil
}

func (op matVecConstOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("%v: want 1 input, have %d", op, len(inputs))
	}
	x, _, err := denseFloats(op, inputs[0])
	if err != nil {
		return nil, err
	}
	if len(x) != op.in() {
		return nil, fmt.Errorf("%v: input has %d values, want %d", op, len(x), op.in())
	}
	out := tensor.New(tensor.WithShape(op.out()), tensor.Of(tensor.Float64))
	MatVecConstFloat(out.Data().([]float64), op.a, op.m, op.n, x, op.trans)
	return out, nil
}

func (matVecConstOp) ReturnsPtr() bool     { return false }
func (matVecConstOp) CallsExtern() bool    { return false }
func (matVecConstOp) OverwritesInput() int { return -1 }

func (op matVecConstOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "wheelgrad.MatVecConst{%d×%d, trans: %t, data: %x}", op.m, op.n, op.trans, op.sum)
}

func (op matVecConstOp) Hashcode() uint32 { return hashOf(op) }

func (op matVecConstOp) String() string {
	t := ""
	if op.trans {
		t = "ᵀ"
	}
	return fmt.Sprintf("MatVecConst[%d×%d]%s", op.m, op.n, t)
}

func (matVecConstOp) DiffWRT(int) []bool { return []bool{true} }

func (op matVecConstOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("%v: SymDiff: want 1 input, have %d", op, len(inputs))
	}
	adj := op
	adj.trans = !op.trans
	d, err := G.ApplyOp(adj, grad)
	if err != nil {
		return nil, fmt.Errorf("%v: SymDiff: %w", op, err)
	}
	return G.Nodes{d}, nil
}

var _ G.SDOp = matVecConstOp{}
