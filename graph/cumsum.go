package graph

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// CumSum returns the cumulative sum of x along its last axis: for a vector
// [T] and, row by row, for a matrix [B, T] (a batch of B trajectories of T
// steps). Inclusive: y[t] = x[0] + … + x[t]. Exclusive: y[t] = x[0] + … +
// x[t−1], with y[0] = 0.
//
// It is how a model integrates over time in one node instead of T: explicit
// Euler integration of a rate sampled at fixed steps, such as the heading
// θ[k+1] = θ[k] + Δt·ω[k] and the positions of Luo et al. eq. 5 or the wheel
// speed of Park, Lee, Kuipers eq. 14, is θ = θ0 + Δt·CumSum(ω, true) — the
// exclusive form gives the state at the start of each step, the inclusive
// form the state at its end.
//
// CumSum is a custom gorgonia op. Its gradient is the reverse cumulative sum
// of the incoming gradient (inclusive ↔ reverse-inclusive, exclusive ↔
// reverse-exclusive), built symbolically with ReverseCumSum, whose own
// gradient is CumSum again; the op also implements DoDiff for the
// LispMachine. x must be float64 with 1 or 2 dimensions; note that a
// column [T, 1] is T rows of one step each, so make time the last axis.
func CumSum(x *G.Node, exclusive bool) (*G.Node, error) {
	return applyCumSum("CumSum", x, cumSumOp{exclusive: exclusive})
}

// ReverseCumSum returns the cumulative sum of x along its last axis taken
// from the end: inclusive y[t] = x[t] + … + x[T−1]; exclusive y[t] =
// x[t+1] + … + x[T−1], with y[T−1] = 0. It is the adjoint (transpose) of
// CumSum and so the backward pass of every time integration: the gradient
// of a trajectory loss with respect to a rate at step t collects the loss
// gradients of all later states. Same shapes and dtype rules as CumSum.
func ReverseCumSum(x *G.Node, exclusive bool) (*G.Node, error) {
	return applyCumSum("ReverseCumSum", x, cumSumOp{reverse: true, exclusive: exclusive})
}

func applyCumSum(fn string, x *G.Node, op cumSumOp) (*G.Node, error) {
	if err := checkInput(fn, "x", x); err != nil {
		return nil, err
	}
	if err := checkCumSumShape(x.Shape()); err != nil {
		return nil, fmt.Errorf("graph.%s: x: %w", fn, err)
	}
	y, err := G.ApplyOp(op, x)
	if err != nil {
		return nil, wrap(fn, err)
	}
	return y, nil
}

func checkCumSumShape(s tensor.Shape) error {
	if d := s.Dims(); d != 1 && d != 2 {
		return fmt.Errorf("shape %v has %d dimensions, want a vector [T] or a matrix [B, T]", s, d)
	}
	for _, n := range s {
		if n < 1 {
			return fmt.Errorf("shape %v has an empty dimension", s)
		}
	}
	return nil
}

// CumSumFloat writes the cumulative sum of src into dst (same length; dst
// may be src): the native twin of CumSum on one row, for Simulate functions
// and hand-written adjoints. The summation order is the same as the op's, so
// results agree bit for bit. It panics if the lengths differ: that is a
// programming error, not bad input.
func CumSumFloat(dst, src []float64, exclusive bool) {
	if len(dst) != len(src) {
		panic(fmt.Sprintf("graph.CumSumFloat: len(dst) = %d, len(src) = %d", len(dst), len(src)))
	}
	var acc float64
	if exclusive {
		for i, v := range src {
			dst[i] = acc
			acc += v
		}
		return
	}
	for i, v := range src {
		acc += v
		dst[i] = acc
	}
}

// ReverseCumSumFloat is the native twin of ReverseCumSum on one row (dst may
// be src). It panics if the lengths differ.
func ReverseCumSumFloat(dst, src []float64, exclusive bool) {
	if len(dst) != len(src) {
		panic(fmt.Sprintf("graph.ReverseCumSumFloat: len(dst) = %d, len(src) = %d", len(dst), len(src)))
	}
	var acc float64
	if exclusive {
		for i := len(src) - 1; i >= 0; i-- {
			v := src[i]
			dst[i] = acc
			acc += v
		}
		return
	}
	for i := len(src) - 1; i >= 0; i-- {
		acc += src[i]
		dst[i] = acc
	}
}

// cumSumOp is the gorgonia op behind CumSum and ReverseCumSum. It is a value
// type with two flags; both enter the hash, because gorgonia deduplicates
// nodes by hash: an inclusive and an exclusive sum of the same x must stay
// two nodes.
type cumSumOp struct {
	reverse   bool // sum from the end of the row (the adjoint of the forward sum)
	exclusive bool // leave the element itself out of its own sum
}

// The op always works on the last axis; the axis is written into the hash so
// that a later op on another axis cannot collide with this one.
const cumSumAxis = -1

func (op cumSumOp) Arity() int { return 1 }

// Type is a → a: same tensor type in and out.
func (op cumSumOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(a, a)
}

func (op cumSumOp) InferShape(inputs ...G.DimSizer) (tensor.Shape, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("%v: want 1 input, have %d", op, len(inputs))
	}
	s, ok := inputs[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("%v: input shape is a %T, want tensor.Shape", op, inputs[0])
	}
	if err := checkCumSumShape(s); err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	return s.Clone(), nil
}

// Do returns a new *tensor.Dense; the input is never written to, so gorgonia
// may keep using it (OverwritesInput is −1, ReturnsPtr false).
func (op cumSumOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("%v: want 1 input, have %d", op, len(inputs))
	}
	src, shape, err := float64Rows(op, inputs[0])
	if err != nil {
		return nil, err
	}
	out := tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float64))
	op.rows(out.Data().([]float64), src, shape[len(shape)-1])
	return out, nil
}

// rows applies the op to each row of length n of src, writing dst.
func (op cumSumOp) rows(dst, src []float64, n int) {
	for i := 0; i < len(src); i += n {
		if op.reverse {
			ReverseCumSumFloat(dst[i:i+n], src[i:i+n], op.exclusive)
		} else {
			CumSumFloat(dst[i:i+n], src[i:i+n], op.exclusive)
		}
	}
}

// float64Rows returns the elements of v in row-major order and its shape.
// Values from transposes or slices may be strided views; those are copied
// into a contiguous tensor first.
func float64Rows(op fmt.Stringer, v G.Value) ([]float64, tensor.Shape, error) {
	d, ok := v.(*tensor.Dense)
	if !ok {
		return nil, nil, fmt.Errorf("%v: input is a %T, want a *tensor.Dense", op, v)
	}
	if d.Dtype() != tensor.Float64 {
		return nil, nil, fmt.Errorf("%v: input has dtype %v, want float64", op, d.Dtype())
	}
	shape := d.Shape().Clone()
	if err := checkCumSumShape(shape); err != nil {
		return nil, nil, fmt.Errorf("%v: input: %w", op, err)
	}
	if d.RequiresIterator() {
		d = d.Materialize().(*tensor.Dense)
	}
	data, ok := d.Data().([]float64)
	if !ok {
		return nil, nil, fmt.Errorf("%v: input data is a %T, want []float64", op, d.Data())
	}
	n := shape.TotalSize()
	if len(data) < n {
		return nil, nil, fmt.Errorf("%v: input holds %d values, shape %v needs %d", op, len(data), shape, n)
	}
	return data[:n], shape, nil
}

func (op cumSumOp) ReturnsPtr() bool     { return false }
func (op cumSumOp) CallsExtern() bool    { return false }
func (op cumSumOp) OverwritesInput() int { return -1 }

func (op cumSumOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "wheelgrad.CumSum{reverse: %t, exclusive: %t, axis: %d}", op.reverse, op.exclusive, cumSumAxis)
}

func (op cumSumOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

func (op cumSumOp) String() string {
	name := "CumSum"
	if op.reverse {
		name = "ReverseCumSum"
	}
	if op.exclusive {
		return name + "{exclusive}"
	}
	return name + "{inclusive}"
}

// adjoint is the op whose application to the output gradient gives the input
// gradient: the sum in the other direction, with the same exclusivity
// (the transpose of a strictly lower triangular matrix of ones is strictly
// upper triangular).
func (op cumSumOp) adjoint() cumSumOp {
	return cumSumOp{reverse: !op.reverse, exclusive: op.exclusive}
}

func (op cumSumOp) DiffWRT(inputs int) []bool { return []bool{true} }

// SymDiff returns the gradient as a node: the adjoint op applied to grad.
// Since the adjoint is again a cumSumOp, gradients of gradients work too.
func (op cumSumOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	return symDiffAdjoint(op, inputs, grad, func(tensor.Shape) G.Op { return op.adjoint() })
}

// DoDiff is the LispMachine's backward step: it adds the adjoint of the
// output's gradient to the input's gradient, in place, as gorgonia's own ops
// do.
func (op cumSumOp) DoDiff(ctx G.ExecutionContext, inputs G.Nodes, output *G.Node) error {
	return addAdjoint(op, inputs, output, func(acc, src []float64, out, _ tensor.Shape) {
		op.adjoint().rows(acc, src, out[len(out)-1])
	})
}

// Compile-time checks that cumSumOp is usable with both of gorgonia's
// differentiation modes.
var (
	_ G.SDOp = cumSumOp{}
	_ G.ADOp = cumSumOp{}
)
