package graph

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Repeat repeats every element of x n times along the last axis: [K] → [K·n],
// [B, K] → [B, K·n]. It turns piecewise-constant commands (one value per
// control segment, Luo et al. §VII-B) into per-step rates for CumSum without
// a node per step. Its gradient is SumBlocks.
func Repeat(x *G.Node, n int) (*G.Node, error) {
	return applyBlock("Repeat", x, blockOp{kind: blockRepeat, n: n})
}

// SumBlocks sums consecutive blocks of n elements along the last axis:
// [K·n] → [K]. It is the adjoint of Repeat (and its gradient is Repeat).
func SumBlocks(x *G.Node, n int) (*G.Node, error) {
	return applyBlock("SumBlocks", x, blockOp{kind: blockSum, n: n})
}

// Pick takes every n-th element along the last axis starting at offset:
// [T] → [⌈(T−offset)/n⌉]. It selects the steps where a slower sensor samples
// (a 60-Hz camera among 240-Hz control rows) or the waypoint times of a path.
// Its gradient is Place.
func Pick(x *G.Node, n, offset int) (*G.Node, error) {
	return applyBlock("Pick", x, blockOp{kind: blockPick, n: n, offset: offset})
}

// Place is the adjoint of Pick: it writes x's elements at positions offset,
// offset+n, … of a zero row of the given length.
func Place(x *G.Node, n, offset, length int) (*G.Node, error) {
	return applyBlock("Place", x, blockOp{kind: blockPlace, n: n, offset: offset, length: length})
}

type blockKind int

const (
	blockRepeat blockKind = iota
	blockSum
	blockPick
	blockPlace
)

var blockNames = [...]string{"Repeat", "SumBlocks", "Pick", "Place"}

// blockOp is the custom op behind Repeat, SumBlocks, Pick and Place: linear
// maps along the last axis whose adjoints are each other, so SymDiff applies
// the partner op and gradients of any order work.
type blockOp struct {
	kind      blockKind
	n, offset int
	length    int // Place: the output row length
}

func applyBlock(fn string, x *G.Node, op blockOp) (*G.Node, error) {
	if err := checkInput(fn, "x", x); err != nil {
		return nil, err
	}
	if op.n < 1 {
		return nil, fmt.Errorf("graph.%s: n = %d, want ≥ 1", fn, op.n)
	}
	if _, err := op.outShape(x.Shape()); err != nil {
		return nil, fmt.Errorf("graph.%s: x: %w", fn, err)
	}
	y, err := G.ApplyOp(op, x)
	if err != nil {
		return nil, wrap(fn, err)
	}
	return y, nil
}

// outLen maps an input row length to the output row length.
func (op blockOp) outLen(in int) (int, error) {
	switch op.kind {
	case blockRepeat:
		return in * op.n, nil
	case blockSum:
		if in%op.n != 0 {
			return 0, fmt.Errorf("row length %d is not a multiple of %d", in, op.n)
		}
		return in / op.n, nil
	case blockPick:
		if op.offset < 0 || op.offset >= in {
			return 0, fmt.Errorf("offset %d outside a row of %d", op.offset, in)
		}
		return (in - op.offset + op.n - 1) / op.n, nil
	default:
		if op.offset < 0 || op.offset >= op.length {
			return 0, fmt.Errorf("offset %d outside a row of %d", op.offset, op.length)
		}
		if want := (op.length - op.offset + op.n - 1) / op.n; in != want {
			return 0, fmt.Errorf("row of %d values, placing every %d-th from %d in %d needs %d", in, op.n, op.offset, op.length, want)
		}
		return op.length, nil
	}
}

func (op blockOp) outShape(s tensor.Shape) (tensor.Shape, error) {
	if err := checkCumSumShape(s); err != nil {
		return nil, err
	}
	out := s.Clone()
	n, err := op.outLen(s[len(s)-1])
	if err != nil {
		return nil, err
	}
	out[len(out)-1] = n
	return out, nil
}

func (op blockOp) Arity() int { return 1 }

func (op blockOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(a, a)
}

func (op blockOp) InferShape(inputs ...G.DimSizer) (tensor.Shape, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("%v: want 1 input, have %d", op, len(inputs))
	}
	s, ok := inputs[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("%v: input shape is a %T, want tensor.Shape", op, inputs[0])
	}
	out, err := op.outShape(s)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	return out, nil
}

func (op blockOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("%v: want 1 input, have %d", op, len(inputs))
	}
	src, shape, err := float64Rows(op, inputs[0])
	if err != nil {
		return nil, err
	}
	oshape, err := op.outShape(shape)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	out := tensor.New(tensor.WithShape(oshape...), tensor.Of(tensor.Float64))
	op.rows(out.Data().([]float64), src, shape[len(shape)-1], oshape[len(oshape)-1])
	return out, nil
}

// rows applies the op row by row; dst is zeroed by the caller (tensor.New).
func (op blockOp) rows(dst, src []float64, in, out int) {
	for r := 0; r*in < len(src); r++ {
		s, d := src[r*in:(r+1)*in], dst[r*out:(r+1)*out]
		switch op.kind {
		case blockRepeat:
			for i, v := range s {
				for j := range op.n {
					d[i*op.n+j] = v
				}
			}
		case blockSum:
			for i := range d {
				var acc float64
				for _, v := range s[i*op.n : (i+1)*op.n] {
					acc += v
				}
				d[i] = acc
			}
		case blockPick:
			for i := range d {
				d[i] = s[op.offset+i*op.n]
			}
		case blockPlace:
			for i, v := range s {
				d[op.offset+i*op.n] = v
			}
		}
	}
}

func (op blockOp) ReturnsPtr() bool     { return false }
func (op blockOp) CallsExtern() bool    { return false }
func (op blockOp) OverwritesInput() int { return -1 }

func (op blockOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "wheelgrad.%s{n: %d, offset: %d, length: %d}", blockNames[op.kind], op.n, op.offset, op.length)
}

func (op blockOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

func (op blockOp) String() string {
	return fmt.Sprintf("%s{n=%d,offset=%d}", blockNames[op.kind], op.n, op.offset)
}

// adjoint returns the transpose map; inLen is the forward op's input row
// length (Place needs it as its output length).
func (op blockOp) adjoint(inLen int) blockOp {
	switch op.kind {
	case blockRepeat:
		return blockOp{kind: blockSum, n: op.n}
	case blockSum:
		return blockOp{kind: blockRepeat, n: op.n}
	case blockPick:
		return blockOp{kind: blockPlace, n: op.n, offset: op.offset, length: inLen}
	default:
		return blockOp{kind: blockPick, n: op.n, offset: op.offset}
	}
}

func (op blockOp) DiffWRT(inputs int) []bool { return []bool{true} }

func (op blockOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	return symDiffAdjoint(op, inputs, grad, func(s tensor.Shape) G.Op { return op.adjoint(s[len(s)-1]) })
}

func (op blockOp) DoDiff(ctx G.ExecutionContext, inputs G.Nodes, output *G.Node) error {
	return addAdjoint(op, inputs, output, func(acc, src []float64, out, in tensor.Shape) {
		op.adjoint(in[len(in)-1]).rows(acc, src, out[len(out)-1], in[len(in)-1])
	})
}

var (
	_ G.SDOp = blockOp{}
	_ G.ADOp = blockOp{}
)
