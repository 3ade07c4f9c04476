package graph

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// SumDist returns the scalar Σ_k |p_k − q_k| for planar points stored as
// [2, K] (row 0 the x, row 1 the y coordinates): the form of the
// ground-truth and spline losses of Luo et al. eqs. 6–7. Fused into one node
// instead of the seven elementwise nodes of sqrt(Δx² + Δy²) and their
// backward passes. The gradient with respect to p is (p_k − q_k)/|p_k − q_k|
// and the opposite with respect to q; where a distance is exactly zero it is
// the subgradient 0 (the primitive form would give 0·∞ = NaN there). The
// gradient is a SumDistVJP node, itself not differentiable: first
// derivatives only. SumDistFloat is the native twin.
func SumDist(p, q *G.Node) (*G.Node, error) {
	return applySumDist("SumDist", p, q, sumDistOp{})
}

// SumDistTo is SumDist to data points q (measurements, or closest points
// found outside the graph): the same value, differentiated in p only. Use
// it whenever q is data: gorgonia runs every gradient node SymDiff creates,
// wanted or not, and q's would be a [2, K] array computed for nothing.
func SumDistTo(p, q *G.Node) (*G.Node, error) {
	return applySumDist("SumDistTo", p, q, sumDistOp{data: true})
}

func applySumDist(fn string, p, q *G.Node, op sumDistOp) (*G.Node, error) {
	if err := checkInput(fn, "p", p); err != nil {
		return nil, err
	}
	if err := checkInput(fn, "q", q); err != nil {
		return nil, err
	}
	if _, err := op.InferShape(p.Shape(), q.Shape()); err != nil {
		return nil, fmt.Errorf("graph.%s: %w", fn, err)
	}
	y, err := G.ApplyOp(op, p, q)
	if err != nil {
		return nil, wrap(fn, err)
	}
	return y, nil
}

// SumDistFloat is the native twin of SumDist on points (px, py), (qx, qy).
// When dpx is non-nil, w·(p − q)/|p − q| is added to dpx, dpy (0 where the
// distance is 0).
func SumDistFloat(px, py, qx, qy []float64, w float64, dpx, dpy []float64) float64 {
	var l float64
	for k := range px {
		dx, dy := px[k]-qx[k], py[k]-qy[k]
		d := math.Hypot(dx, dy)
		l += d
		if dpx != nil && d > 0 {
			dpx[k] += w * dx / d
			dpy[k] += w * dy / d
		}
	}
	return l
}

// sumDistOp is the op of SumDist and, with data, of SumDistTo.
type sumDistOp struct{ data bool }

func (sumDistOp) Arity() int { return 2 }

func (sumDistOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	m := G.TensorType{Dims: 2, Of: a}
	return hm.NewFnType(m, m, a)
}

func (op sumDistOp) InferShape(inputs ...G.DimSizer) (tensor.Shape, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("%v: want 2 inputs, have %d", op, len(inputs))
	}
	p, ok1 := inputs[0].(tensor.Shape)
	q, ok2 := inputs[1].(tensor.Shape)
	if !ok1 || !ok2 || len(p) != 2 || p[0] != 2 || p[1] < 1 || !sameShape(p, q) {
		return nil, fmt.Errorf("shapes %v and %v, want two equal [2, K]", inputs[0], inputs[1])
	}
	return tensor.ScalarShape(), nil
}

func (op sumDistOp) Do(inputs ...G.Value) (G.Value, error) {
	p, q, k, err := twoPlanar(op, inputs)
	if err != nil {
		return nil, err
	}
	return G.NewF64(SumDistFloat(p[:k], p[k:], q[:k], q[k:], 0, nil, nil)), nil
}

// twoPlanar returns the data of two [2, K] inputs and K.
func twoPlanar(op fmt.Stringer, inputs []G.Value) (p, q []float64, k int, err error) {
	if len(inputs) < 2 {
		return nil, nil, 0, fmt.Errorf("%v: want at least 2 inputs, have %d", op, len(inputs))
	}
	p, ps, err := denseFloats(op, inputs[0])
	if err != nil {
		return nil, nil, 0, err
	}
	q, qs, err := denseFloats(op, inputs[1])
	if err != nil {
		return nil, nil, 0, err
	}
	if _, err := (sumDistOp{}).InferShape(ps, qs); err != nil {
		return nil, nil, 0, fmt.Errorf("%v: %w", op, err)
	}
	return p, q, ps[1], nil
}

func (sumDistOp) ReturnsPtr() bool     { return false }
func (sumDistOp) CallsExtern() bool    { return false }
func (sumDistOp) OverwritesInput() int { return -1 }
func (op sumDistOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "wheelgrad.SumDist{data: %t}", op.data)
}
func (op sumDistOp) Hashcode() uint32 { return hashOf(op) }
func (op sumDistOp) String() string {
	if op.data {
		return "SumDistTo"
	}
	return "SumDist"
}

func (op sumDistOp) DiffWRT(int) []bool { return []bool{true, !op.data} }

func (op sumDistOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("%v: SymDiff: want 2 inputs, have %d", op, len(inputs))
	}
	r := G.Nodes{nil, nil}
	for i, sign := range []float64{1, -1} {
		if i == 1 && op.data {
			break
		}
		d, err := G.ApplyOp(sumDistVJPOp{sign: sign}, inputs[0], inputs[1], grad)
		if err != nil {
			return nil, fmt.Errorf("%v: SymDiff: %w", op, err)
		}
		r[i] = d
	}
	return r, nil
}

// sumDistVJPOp is the backward op of SumDist: from p, q and the scalar
// output gradient g it gives sign·g·(p − q)/|p − q| ([2, K]).
type sumDistVJPOp struct{ sign float64 }

func (sumDistVJPOp) Arity() int { return 3 }

func (sumDistVJPOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	m := G.TensorType{Dims: 2, Of: a}
	return hm.NewFnType(m, m, a, m)
}

func (op sumDistVJPOp) InferShape(inputs ...G.DimSizer) (tensor.Shape, error) {
	if len(inputs) != 3 {
		return nil, fmt.Errorf("%v: want 3 inputs, have %d", op, len(inputs))
	}
	if _, err := (sumDistOp{}).InferShape(inputs[:2]...); err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	return inputs[0].(tensor.Shape).Clone(), nil
}

func (op sumDistVJPOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 3 {
		return nil, fmt.Errorf("%v: want 3 inputs, have %d", op, len(inputs))
	}
	p, q, k, err := twoPlanar(op, inputs)
	if err != nil {
		return nil, err
	}
	g, _, err := denseFloats(op, inputs[2])
	if err != nil || len(g) != 1 {
		return nil, fmt.Errorf("%v: output gradient %v is not a scalar (%v)", op, inputs[2], err)
	}
	out := tensor.New(tensor.WithShape(2, k), tensor.Of(tensor.Float64))
	r := out.Data().([]float64)
	SumDistFloat(p[:k], p[k:], q[:k], q[k:], op.sign*g[0], r[:k], r[k:])
	return out, nil
}

func (sumDistVJPOp) ReturnsPtr() bool     { return false }
func (sumDistVJPOp) CallsExtern() bool    { return false }
func (sumDistVJPOp) OverwritesInput() int { return -1 }
func (op sumDistVJPOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "wheelgrad.SumDistVJP{sign: %v}", op.sign)
}
func (op sumDistVJPOp) Hashcode() uint32 { return hashOf(op) }
func (op sumDistVJPOp) String() string   { return fmt.Sprintf("SumDistVJP{%+g}", op.sign) }

var (
	_ G.SDOp = sumDistOp{}
	_ G.Op   = sumDistVJPOp{}
)
