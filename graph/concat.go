package graph

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Concat joins vectors end to end in one node, with the gradient sliced
// back to each part. Use it instead of gorgonia's G.Concat, whose gradient
// is wrong for some sizes in 0.9.17 (33 parts of [8], 3 parts of [128]; 3
// of [129] are right: TestGorgoniaConcatGradientIsWrong pins it), which
// silently gave an optimiser a wrong descent direction.
func Concat(parts ...*G.Node) (*G.Node, error) {
	const fn = "Concat"
	if len(parts) == 0 {
		return nil, fmt.Errorf("graph.%s: no parts", fn)
	}
	sizes := make([]int, len(parts))
	for i, p := range parts {
		if err := checkInput(fn, fmt.Sprintf("part %d", i), p); err != nil {
			return nil, err
		}
		if p.Dims() > 1 {
			return nil, fmt.Errorf("graph.%s: part %d has shape %v, want a vector or a scalar", fn, i, p.Shape())
		}
		sizes[i] = p.Shape().TotalSize()
	}
	if len(parts) == 1 && parts[0].Dims() == 1 {
		return parts[0], nil
	}
	return G.ApplyOp(concatOp{sizes: sizes, scalar: scalarParts(parts)}, parts...)
}

// Stack is Concat of scalars: a vector of them.
func Stack(scalars ...*G.Node) (*G.Node, error) {
	for i, s := range scalars {
		if !s.IsScalar() && s.Shape().TotalSize() != 1 {
			return nil, fmt.Errorf("graph.Stack: element %d has shape %v, want a scalar", i, s.Shape())
		}
	}
	return Concat(scalars...)
}

// ConcatFloat is the native twin of Concat.
func ConcatFloat(parts ...[]float64) []float64 {
	var out []float64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func scalarParts(parts []*G.Node) []bool {
	s := make([]bool, len(parts))
	for i, p := range parts {
		s[i] = p.IsScalar()
	}
	return s
}

// concatOp: parts → their concatenation.
type concatOp struct {
	sizes  []int
	scalar []bool
}

func (op concatOp) total() int {
	n := 0
	for _, s := range op.sizes {
		n += s
	}
	return n
}

func (op concatOp) Arity() int { return len(op.sizes) }
func (op concatOp) Type() hm.Type {
	ts := make([]hm.Type, 0, len(op.sizes)+1)
	for _, s := range op.scalar {
		if s {
			ts = append(ts, tensor.Float64)
		} else {
			ts = append(ts, G.TensorType{Dims: 1, Of: tensor.Float64})
		}
	}
	return hm.NewFnType(append(ts, G.TensorType{Dims: 1, Of: tensor.Float64})...)
}
func (op concatOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.total()}, nil
}
func (op concatOp) Do(in ...G.Value) (G.Value, error) {
	if len(in) != len(op.sizes) {
		return nil, fmt.Errorf("%v: %d inputs", op, len(in))
	}
	out := make([]float64, 0, op.total())
	for i, v := range in {
		x, err := floatsOf(v)
		if err != nil {
			return nil, fmt.Errorf("%v: part %d: %w", op, i, err)
		}
		if len(x) != op.sizes[i] {
			return nil, fmt.Errorf("%v: part %d has %d values, want %d", op, i, len(x), op.sizes[i])
		}
		out = append(out, x...)
	}
	return tensor.New(tensor.WithShape(len(out)), tensor.WithBacking(out)), nil
}
func (op concatOp) ReturnsPtr() bool      { return false }
func (op concatOp) CallsExtern() bool     { return false }
func (op concatOp) OverwritesInput() int  { return -1 }
func (op concatOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "graph.concat%v%v", op.sizes, op.scalar) }
func (op concatOp) Hashcode() uint32      { return fnvOf(op) }
func (op concatOp) String() string        { return fmt.Sprintf("Concat%v", op.sizes) }
func (op concatOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = true
	}
	return d
}
func (op concatOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	res := make(G.Nodes, len(inputs))
	off := 0
	for i, n := range op.sizes {
		var err error
		if res[i], err = G.ApplyOp(sliceOp{lo: off, n: n, from: op.total(), scalar: op.scalar[i]}, grad); err != nil {
			return nil, err
		}
		off += n
	}
	return res, nil
}

// sliceOp: a vector of length from → its values [lo, lo+n) (a scalar when
// scalar), the adjoint of concatOp.
type sliceOp struct {
	lo, n, from int
	scalar      bool
}

func (op sliceOp) Arity() int { return 1 }
func (op sliceOp) Type() hm.Type {
	var out hm.Type = G.TensorType{Dims: 1, Of: tensor.Float64}
	if op.scalar {
		out = tensor.Float64
	}
	return hm.NewFnType(G.TensorType{Dims: 1, Of: tensor.Float64}, out)
}
func (op sliceOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	if op.scalar {
		return tensor.ScalarShape(), nil
	}
	return tensor.Shape{op.n}, nil
}
func (op sliceOp) Do(in ...G.Value) (G.Value, error) {
	x, err := floatsOf(in[0])
	if err != nil {
		return nil, err
	}
	if len(x) != op.from {
		return nil, fmt.Errorf("%v: input of %d values, want %d", op, len(x), op.from)
	}
	if op.scalar {
		return G.NewF64(x[op.lo]), nil
	}
	out := append([]float64(nil), x[op.lo:op.lo+op.n]...)
	return tensor.New(tensor.WithShape(op.n), tensor.WithBacking(out)), nil
}
func (op sliceOp) ReturnsPtr() bool     { return false }
func (op sliceOp) CallsExtern() bool    { return false }
func (op sliceOp) OverwritesInput() int { return -1 }
func (op sliceOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "graph.slice{%d,%d,%d,%v}", op.lo, op.n, op.from, op.scalar)
}
func (op sliceOp) Hashcode() uint32   { return fnvOf(op) }
func (op sliceOp) String() string     { return fmt.Sprintf("Slice[%d:%d]", op.lo, op.lo+op.n) }
func (op sliceOp) DiffWRT(int) []bool { return []bool{false} }
func (op sliceOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("%v: second derivatives are not implemented", op)
}

func fnvOf(op interface{ WriteHash(hash.Hash) }) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

// floatsOf reads a float64 scalar or vector value.
func floatsOf(v G.Value) ([]float64, error) {
	switch d := v.(type) {
	case *G.F64:
		return []float64{float64(*d)}, nil
	case *tensor.Dense:
		if d.RequiresIterator() {
			d = d.Materialize().(*tensor.Dense)
		}
		switch x := d.Data().(type) {
		case []float64:
			return x, nil
		case float64:
			return []float64{x}, nil
		}
	}
	return nil, fmt.Errorf("value is a %T, want float64", v)
}

// Reshape returns x's values in a new shape (same number of elements) as a
// copy, with the gradient reshaped back. Use it instead of G.Reshape on a
// node that later ops also read: gorgonia 0.9.17's Reshape returns a view of
// its input's memory, and an op that then works in place on the input
// overwrites the view (a rollout whose loss read a reshaped state gave
// 351.94 instead of 331.38: TestGorgoniaReshapeViewIsOverwritten in ad).
func Reshape(x *G.Node, shape ...int) (*G.Node, error) {
	const fn = "Reshape"
	if err := checkInput(fn, "x", x); err != nil {
		return nil, err
	}
	n := 1
	for _, d := range shape {
		if d <= 0 {
			return nil, fmt.Errorf("graph.%s: shape %v", fn, shape)
		}
		n *= d
	}
	if n != x.Shape().TotalSize() {
		return nil, fmt.Errorf("graph.%s: x has shape %v (%d values), not %d for shape %v", fn, x.Shape(), x.Shape().TotalSize(), n, shape)
	}
	return G.ApplyOp(reshapeOp{from: x.Shape().Clone(), to: tensor.Shape(shape).Clone()}, x)
}

// reshapeOp copies its input into a new shape.
type reshapeOp struct{ from, to tensor.Shape }

func (op reshapeOp) Arity() int { return 1 }
func (op reshapeOp) Type() hm.Type {
	return hm.NewFnType(typeOfShape(op.from), typeOfShape(op.to))
}
func typeOfShape(s tensor.Shape) hm.Type {
	if s.IsScalar() {
		return tensor.Float64
	}
	return G.TensorType{Dims: s.Dims(), Of: tensor.Float64}
}
func (op reshapeOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.to.Clone(), nil }
func (op reshapeOp) Do(in ...G.Value) (G.Value, error) {
	x, err := floatsOf(in[0])
	if err != nil {
		return nil, err
	}
	if op.to.IsScalar() {
		return G.NewF64(x[0]), nil
	}
	return tensor.New(tensor.WithShape(op.to.Clone()...), tensor.WithBacking(append([]float64(nil), x...))), nil
}
func (op reshapeOp) ReturnsPtr() bool      { return false }
func (op reshapeOp) CallsExtern() bool     { return false }
func (op reshapeOp) OverwritesInput() int  { return -1 }
func (op reshapeOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "graph.reshape%v→%v", op.from, op.to) }
func (op reshapeOp) Hashcode() uint32      { return fnvOf(op) }
func (op reshapeOp) String() string        { return fmt.Sprintf("Reshape%v→%v", op.from, op.to) }
func (op reshapeOp) DiffWRT(int) []bool    { return []bool{true} }
func (op reshapeOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	g, err := G.ApplyOp(reshapeOp{from: op.to, to: op.from}, grad)
	return G.Nodes{g}, err
}
