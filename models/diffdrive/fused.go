package diffdrive

import (
	"fmt"
	"hash"
	"hash/fnv"
	"sync/atomic"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/wheelgrad/wheelgrad/ad"
)

// FusedLoss builds the calibration loss of eq. 22 over the Batch b with one
// custom gorgonia node per step: each step node advances both wheels of all M
// segments (input map eqs. 20–21, Kikuuwe friction eqs. 3–5, exact or
// smoothed) and adds the step's L1 velocity error (eqs. 19, 22), on a packed
// [4M + 7] state vector. Its gradient is a second custom op per step, the
// hand-written adjoint of the step (the same kernel as Adjoint), which also
// carries ∂L/∂ζ in the last six slots of the packed adjoint, so that the
// backward pass is N nodes and only the first step hands the gradient to ζ.
//
// zeta is the [6] parameter node (c1, c2, α, β, γ, μ); smooth is a [2] node
// (T, Eps) read at run time, so a compiled program anneals it with
// ad.Program.SetInput; 0 selects the exact clamp or |·|. The batch data live
// in the ops, not in nodes: they never change and need no gradient.
//
// Every node writes into a buffer it owns instead of allocating its output
// afresh on each run (gorgonia's TapeMachine would), which is safe because
// only these ops read the buffers and a Program is never run concurrently.
// The loss is a scalar node.
func FusedLoss(g *ad.Graph, zeta, smooth *G.Node, b *Batch, l, h float64, cw float64) (*G.Node, error) {
	if err := b.Check(); err != nil {
		return nil, err
	}
	if zeta.Shape().TotalSize() != 6 || smooth.Shape().TotalSize() != 2 {
		return nil, fmt.Errorf("diffdrive.FusedLoss: zeta has shape %v (want [6]) and smooth %v (want [2])", zeta.Shape(), smooth.Shape())
	}
	ws := &workspace{k: kernel{b: b, l: l, h: h, cw: cw}, id: wsCounter.Add(1), size: packedLen(b.M)}
	init := make([]float64, ws.size)
	packInit(b, init)
	s := g.Const(init)
	for n := range b.N {
		var err error
		if s, err = G.ApplyOp(&stepOp{ws: ws, n: n, buf: ws.newBuf()}, s, zeta, smooth); err != nil {
			return nil, fmt.Errorf("diffdrive.FusedLoss: step %d: %w", n, err)
		}
	}
	return G.ApplyOp(readoutOp{ws: ws}, s)
}

var wsCounter atomic.Int64

// workspace is what the ops of one FusedLoss share.
type workspace struct {
	k    kernel
	id   int64 // distinguishes the ops of different batches in gorgonia's hash
	size int
}

func (ws *workspace) newBuf() *tensor.Dense {
	return tensor.New(tensor.WithShape(ws.size), tensor.WithBacking(make([]float64, ws.size)))
}

func vecType() hm.Type { return G.TensorType{Dims: 1, Of: tensor.Float64} }

func f64s(v G.Value) ([]float64, error) {
	d, ok := v.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("diffdrive: value is a %T, want *tensor.Dense", v)
	}
	if d.RequiresIterator() {
		d = d.Materialize().(*tensor.Dense)
	}
	x, ok := d.Data().([]float64)
	if !ok {
		return nil, fmt.Errorf("diffdrive: value holds %T, want []float64", d.Data())
	}
	return x, nil
}

// stepInputs unpacks the three inputs every step op starts with: the
// packed state, ζ and the smoothing.
func stepInputs(in []G.Value) (s []float64, z *[6]float64, sm Smoothing, err error) {
	if s, err = f64s(in[0]); err != nil {
		return
	}
	if z, err = zetaOf(in[1]); err != nil {
		return
	}
	sm, err = smoothOf(in[2])
	return
}

func zetaOf(v G.Value) (*[6]float64, error) {
	x, err := f64s(v)
	if err != nil || len(x) != 6 {
		return nil, fmt.Errorf("diffdrive: ζ: %v (len %d)", err, len(x))
	}
	return (*[6]float64)(x), nil
}

func smoothOf(v G.Value) (Smoothing, error) {
	x, err := f64s(v)
	if err != nil || len(x) != 2 {
		return Smoothing{}, fmt.Errorf("diffdrive: smoothing: %v (len %d)", err, len(x))
	}
	return Smoothing{T: x[0], Eps: x[1]}, nil
}

// stepOp is step n: (packed state, ζ, smoothing) → packed state.
type stepOp struct {
	ws  *workspace
	n   int
	buf *tensor.Dense
}

func (op *stepOp) Arity() int { return 3 }
func (op *stepOp) Type() hm.Type {
	return hm.NewFnType(vecType(), vecType(), vecType(), vecType())
}
func (op *stepOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.ws.size}, nil
}
func (op *stepOp) Do(in ...G.Value) (G.Value, error) {
	if len(in) != 3 {
		return nil, fmt.Errorf("%v: %d inputs", op, len(in))
	}
	s, z, sm, err := stepInputs(in)
	if err != nil {
		return nil, err
	}
	if len(s) != op.ws.size {
		return nil, fmt.Errorf("%v: state of %d values, want %d", op, len(s), op.ws.size)
	}
	op.ws.k.forward(op.n, z, sm, s, op.buf.Data().([]float64))
	return op.buf, nil
}
func (op *stepOp) ReturnsPtr() bool      { return false }
func (op *stepOp) CallsExtern() bool     { return false }
func (op *stepOp) OverwritesInput() int  { return -1 }
func (op *stepOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "diffdrive.step{%d,%d}", op.ws.id, op.n) }
func (op *stepOp) Hashcode() uint32      { return hashOf(op) }
func (op *stepOp) String() string        { return fmt.Sprintf("DiffDriveStep%d", op.n) }

// DiffWRT: the initial state is data; ζ receives its whole gradient from the
// first step (the adjoint carries the later steps' shares), so the later
// steps declare ζ non-differentiable and gorgonia adds no sums for it.
func (op *stepOp) DiffWRT(int) []bool {
	if op.n == 0 {
		return []bool{false, true, false}
	}
	return []bool{true, false, false}
}

func (op *stepOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 3 {
		return nil, fmt.Errorf("%v: SymDiff: %d inputs", op, len(inputs))
	}
	adj, err := G.ApplyOp(&stepGradOp{ws: op.ws, n: op.n, buf: op.ws.newBuf()}, inputs[0], inputs[1], inputs[2], grad)
	if err != nil {
		return nil, err
	}
	if op.n > 0 {
		return G.Nodes{adj, nil, nil}, nil
	}
	dz, err := G.ApplyOp(tailOp{ws: op.ws}, adj)
	if err != nil {
		return nil, err
	}
	return G.Nodes{nil, dz, nil}, nil
}

// stepGradOp is the adjoint of step n: (state before, ζ, smoothing, adjoint
// after) → adjoint before.
type stepGradOp struct {
	ws  *workspace
	n   int
	buf *tensor.Dense
}

func (op *stepGradOp) Arity() int { return 4 }
func (op *stepGradOp) Type() hm.Type {
	return hm.NewFnType(vecType(), vecType(), vecType(), vecType(), vecType())
}
func (op *stepGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.ws.size}, nil
}
func (op *stepGradOp) Do(in ...G.Value) (G.Value, error) {
	if len(in) != 4 {
		return nil, fmt.Errorf("%v: %d inputs", op, len(in))
	}
	s, z, sm, err := stepInputs(in)
	if err != nil {
		return nil, err
	}
	a, err := f64s(in[3])
	if err != nil {
		return nil, err
	}
	if len(s) != op.ws.size || len(a) != op.ws.size {
		return nil, fmt.Errorf("%v: state of %d and adjoint of %d values, want %d", op, len(s), len(a), op.ws.size)
	}
	op.ws.k.backward(op.n, z, sm, s, a, op.buf.Data().([]float64))
	return op.buf, nil
}
func (op *stepGradOp) ReturnsPtr() bool     { return false }
func (op *stepGradOp) CallsExtern() bool    { return false }
func (op *stepGradOp) OverwritesInput() int { return -1 }
func (op *stepGradOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "diffdrive.stepgrad{%d,%d}", op.ws.id, op.n)
}
func (op *stepGradOp) Hashcode() uint32   { return hashOf(op) }
func (op *stepGradOp) String() string     { return fmt.Sprintf("DiffDriveStepGrad%d", op.n) }
func (op *stepGradOp) DiffWRT(int) []bool { return []bool{false, false, false, false} }
func (op *stepGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("%v: second derivatives are not implemented", op)
}

// readoutOp returns the accumulated loss of the last packed state.
type readoutOp struct{ ws *workspace }

func (op readoutOp) Arity() int    { return 1 }
func (op readoutOp) Type() hm.Type { return hm.NewFnType(vecType(), tensor.Float64) }
func (op readoutOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.ScalarShape(), nil
}
func (op readoutOp) Do(in ...G.Value) (G.Value, error) {
	s, err := f64s(in[0])
	if err != nil {
		return nil, err
	}
	return G.NewF64(s[op.ws.size-7]), nil
}
func (op readoutOp) ReturnsPtr() bool      { return false }
func (op readoutOp) CallsExtern() bool     { return false }
func (op readoutOp) OverwritesInput() int  { return -1 }
func (op readoutOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "diffdrive.readout{%d}", op.ws.id) }
func (op readoutOp) Hashcode() uint32      { return hashOf(op) }
func (op readoutOp) String() string        { return "DiffDriveLoss" }
func (op readoutOp) DiffWRT(int) []bool    { return []bool{true} }
func (op readoutOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	d, err := G.ApplyOp(seedOp{ws: op.ws, buf: op.ws.newBuf()}, grad)
	return G.Nodes{d}, err
}

// seedOp starts the backward pass: a packed adjoint that is the incoming
// scalar gradient at the loss slot and zero elsewhere.
type seedOp struct {
	ws  *workspace
	buf *tensor.Dense
}

func (op seedOp) Arity() int    { return 1 }
func (op seedOp) Type() hm.Type { return hm.NewFnType(tensor.Float64, vecType()) }
func (op seedOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.ws.size}, nil
}
func (op seedOp) Do(in ...G.Value) (G.Value, error) {
	var gv float64
	switch v := in[0].Data().(type) {
	case float64:
		gv = v
	case []float64:
		gv = v[0]
	default:
		return nil, fmt.Errorf("%v: gradient is %T", op, v)
	}
	d := op.buf.Data().([]float64)
	clear(d)
	d[op.ws.size-7] = gv
	return op.buf, nil
}
func (op seedOp) ReturnsPtr() bool      { return false }
func (op seedOp) CallsExtern() bool     { return false }
func (op seedOp) OverwritesInput() int  { return -1 }
func (op seedOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "diffdrive.seed{%d}", op.ws.id) }
func (op seedOp) Hashcode() uint32      { return hashOf(op) }
func (op seedOp) String() string        { return "DiffDriveSeed" }
func (op seedOp) DiffWRT(int) []bool    { return []bool{false} }
func (op seedOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("%v: second derivatives are not implemented", op)
}

// tailOp extracts ∂L/∂ζ from the first step's packed adjoint.
type tailOp struct{ ws *workspace }

func (op tailOp) Arity() int    { return 1 }
func (op tailOp) Type() hm.Type { return hm.NewFnType(vecType(), vecType()) }
func (op tailOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{6}, nil
}
func (op tailOp) Do(in ...G.Value) (G.Value, error) {
	a, err := f64s(in[0])
	if err != nil {
		return nil, err
	}
	out := make([]float64, 6)
	copy(out, a[op.ws.size-6:])
	return tensor.New(tensor.WithShape(6), tensor.WithBacking(out)), nil
}
func (op tailOp) ReturnsPtr() bool      { return false }
func (op tailOp) CallsExtern() bool     { return false }
func (op tailOp) OverwritesInput() int  { return -1 }
func (op tailOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "diffdrive.tail{%d}", op.ws.id) }
func (op tailOp) Hashcode() uint32      { return hashOf(op) }
func (op tailOp) String() string        { return "DiffDriveZetaGrad" }
func (op tailOp) DiffWRT(int) []bool    { return []bool{false} }
func (op tailOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("%v: second derivatives are not implemented", op)
}

func hashOf(op interface{ WriteHash(hash.Hash) }) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

var (
	_ G.SDOp = (*stepOp)(nil)
	_ G.SDOp = readoutOp{}
)
