package graph

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Take gathers elements of x by flat (row-major) index into a tensor of the
// given shape (whose size must be len(idx)): y.flat[k] = x.flat[idx[k]]. It
// picks the irregular rows where a sensor sampled out of a batch of control
// steps — the camera rows of padded [B, T] runs — so that a loss is computed
// on those K values only, instead of on every row under a 0/1 mask. Indices
// may repeat. Its gradient is Put.
func Take(x *G.Node, idx []int, shape ...int) (*G.Node, error) {
	if err := checkInput("Take", "x", x); err != nil {
		return nil, err
	}
	return applyIndex("Take", x, indexOp{idx: idx, in: x.Shape().Clone(), out: shape})
}

// Put is the adjoint of Take: it adds x's elements (any shape of len(idx)
// elements) into a zero tensor of the given shape at the flat indices idx,
// y.flat[idx[k]] += x.flat[k]. Its gradient is Take.
func Put(x *G.Node, idx []int, shape ...int) (*G.Node, error) {
	if err := checkInput("Put", "x", x); err != nil {
		return nil, err
	}
	return applyIndex("Put", x, indexOp{put: true, idx: idx, in: x.Shape().Clone(), out: shape})
}

func applyIndex(fn string, x *G.Node, op indexOp) (*G.Node, error) {
	if err := op.check(); err != nil {
		return nil, fmt.Errorf("graph.%s: %w", fn, err)
	}
	y, err := G.ApplyOp(op, x)
	if err != nil {
		return nil, wrap(fn, err)
	}
	return y, nil
}

// indexOp is the op behind Take (gather) and Put (scatter-add), adjoints of
// each other. The indices enter the hash in full: gorgonia merges nodes of
// equal hash, and two selections must stay two nodes.
type indexOp struct {
	put     bool
	idx     []int
	in, out tensor.Shape
}

// check validates the shapes and the indices against the larger side.
func (op indexOp) check() error {
	small, big := op.out, op.in
	if op.put {
		small, big = op.in, op.out
	}
	if len(op.out) == 0 {
		return fmt.Errorf("output shape is empty (want at least one dimension)")
	}
	for _, d := range op.out {
		if d < 1 {
			return fmt.Errorf("output shape %v has an empty dimension", op.out)
		}
	}
	if n := small.TotalSize(); n != len(op.idx) {
		return fmt.Errorf("%d indices for a shape %v of %d elements", len(op.idx), small, n)
	}
	n := big.TotalSize()
	for k, i := range op.idx {
		if i < 0 || i >= n {
			return fmt.Errorf("index %d = %d outside [0, %d) (shape %v)", k, i, n, big)
		}
	}
	return nil
}

func (op indexOp) adjoint() indexOp {
	return indexOp{put: !op.put, idx: op.idx, in: op.out, out: op.in}
}

func (indexOp) Arity() int { return 1 }

func (op indexOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(G.TensorType{Dims: op.in.Dims(), Of: a}, G.TensorType{Dims: op.out.Dims(), Of: a})
}

func (op indexOp) InferShape(inputs ...G.DimSizer) (tensor.Shape, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("%v: want 1 input, have %d", op, len(inputs))
	}
	s, ok := inputs[0].(tensor.Shape)
	if !ok || !sameShape(s, op.in) {
		return nil, fmt.Errorf("%v: input shape %v, want %v", op, inputs[0], op.in)
	}
	return op.out.Clone(), nil
}

func (op indexOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("%v: want 1 input, have %d", op, len(inputs))
	}
	src, s, err := denseFloats(op, inputs[0])
	if err != nil {
		return nil, err
	}
	if s.TotalSize() != op.in.TotalSize() {
		return nil, fmt.Errorf("%v: input shape %v, want %v", op, s, op.in)
	}
	out := tensor.New(tensor.WithShape(op.out...), tensor.Of(tensor.Float64))
	op.apply(out.Data().([]float64), src)
	return out, nil
}

// apply writes the op's result on src into dst (zeroed for Put).
func (op indexOp) apply(dst, src []float64) {
	if op.put {
		for k, i := range op.idx {
			dst[i] += src[k]
		}
		return
	}
	for k, i := range op.idx {
		dst[k] = src[i]
	}
}

func (indexOp) ReturnsPtr() bool     { return false }
func (indexOp) CallsExtern() bool    { return false }
func (indexOp) OverwritesInput() int { return -1 }

func (op indexOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "wheelgrad.Index{put: %t, in: %v, out: %v, idx:", op.put, op.in, op.out)
	var b [8]byte
	for _, i := range op.idx {
		for k := range b {
			b[k] = byte(uint64(i) >> (8 * k))
		}
		h.Write(b[:])
	}
	fmt.Fprint(h, "}")
}

func (op indexOp) Hashcode() uint32 { return hashOf(op) }

func (op indexOp) String() string {
	if op.put {
		return fmt.Sprintf("Put%v(%d)", op.out, len(op.idx))
	}
	return fmt.Sprintf("Take%v(%d)", op.out, len(op.idx))
}

func (indexOp) DiffWRT(int) []bool { return []bool{true} }

// SymDiff applies the adjoint op to the gradient; since that is again an
// indexOp, gradients of any order work.
func (op indexOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	return symDiffAdjoint(op, inputs, grad, func(tensor.Shape) G.Op { return op.adjoint() })
}

var _ G.SDOp = indexOp{}
