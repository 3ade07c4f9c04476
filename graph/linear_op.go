package graph

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// addAdjoint is the LispMachine backward step shared by this package's
// linear custom ops (CumSum, Repeat, Pick and their adjoints): it applies the
// op's adjoint to the output's gradient and adds the result to the input's
// gradient in place, as gorgonia's own ops do. adj writes the adjoint of src
// (shaped like the output) into acc (shaped like the input, zeroed).
func addAdjoint(op fmt.Stringer, inputs G.Nodes, output *G.Node, adj func(acc, src []float64, out, in tensor.Shape)) error {
	if len(inputs) != 1 {
		return fmt.Errorf("%v: DoDiff: want 1 input, have %d", op, len(inputs))
	}
	dy, err := output.Grad()
	if err != nil {
		return fmt.Errorf("%v: DoDiff: output gradient: %w", op, err)
	}
	dx, err := inputs[0].Grad()
	if err != nil {
		return fmt.Errorf("%v: DoDiff: input gradient: %w", op, err)
	}
	src, shape, err := float64Rows(op, dy)
	if err != nil {
		return fmt.Errorf("DoDiff: output gradient: %w", err)
	}
	in := inputs[0].Shape()
	dst, ok := dx.(*tensor.Dense)
	if !ok || dst.Dtype() != tensor.Float64 || !dst.Shape().Eq(in) || dst.RequiresIterator() {
		return fmt.Errorf("%v: DoDiff: input gradient %T is not a contiguous float64 tensor of shape %v", op, dx, in)
	}
	acc := make([]float64, in.TotalSize())
	adj(acc, src, shape, in)
	xs := dst.Data().([]float64)[:len(acc)]
	for i, v := range acc {
		xs[i] += v
	}
	return nil
}

// symDiffAdjoint is SymDiff for this package's one-input linear ops: the
// gradient is the adjoint op applied to the output gradient (again a linear
// op of this package, so gradients of any order work).
func symDiffAdjoint(op fmt.Stringer, inputs G.Nodes, grad *G.Node, adjoint func(in tensor.Shape) G.Op) (G.Nodes, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("%v: SymDiff: want 1 input, have %d", op, len(inputs))
	}
	d, err := G.ApplyOp(adjoint(inputs[0].Shape()), grad)
	if err != nil {
		return nil, fmt.Errorf("%v: SymDiff: %w", op, err)
	}
	return G.Nodes{d}, nil
}
