package dyn

import (
	"fmt"
	"hash"
	"hash/fnv"
	"sync/atomic"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// OpOption configures Rollout.
type OpOption func(*opConfig)

type opConfig struct {
	check    bool
	checkTol float64
	seed     uint64
	interp   bool
	dataU    bool
}

func newConfig(opts []OpOption) opConfig {
	cfg := opConfig{check: true, checkTol: DefaultCheckTol, seed: 1}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// InputsAreData declares the inputs u data (commands of a log, step
// lengths): their gradient is then neither computed nor offered to
// gorgonia, which saves the reverse pass a third of its work on a typical
// identification. Leave it out when u holds controls to synthesise.
func InputsAreData() OpOption { return func(c *opConfig) { c.dataU = true } }

// WithoutSelfCheck turns the built-in gradient check off. Use it for hot
// loops that build many graphs of a model whose check has passed once
// (Model.SelfChecked); the check is on by default.
func WithoutSelfCheck() OpOption { return func(c *opConfig) { c.check = false } }

// WithCheckTol sets the tolerance of the built-in check (default
// DefaultCheckTol), for models whose exact kinks make central differences
// noisier.
func WithCheckTol(tol float64) OpOption { return func(c *opConfig) { c.checkTol = tol } }

// WithInterpreter makes the op use the interpreter even when a generated
// kernel is registered (to compare them).
func WithInterpreter() OpOption { return func(c *opConfig) { c.interp = true } }

// Traj is a rollout in a gorgonia graph: one node that advances B lanes over
// T steps, whose backward pass is the model's generated reverse pass.
// Losses are built on its outputs with ordinary gorgonia ops.
type Traj struct {
	m      *Model
	B, T   int
	packed *G.Node
	ws     *workspace
	outs   map[int]*G.Node
}

// Rollout adds the model's rollout to the graph of x0. p holds the NP
// parameters (a vector, or a scalar when NP = 1), q the NQ settings (data;
// nil when NQ = 0), x0 the initial states [S·B] (lane-minor: state k of lane
// j at k·B + j), u the inputs [T·U·B] (input k of lane j at step t at
// (t·U + k)·B + j; nil when U = 0). Gradients reach p, x0 and u; when x0 or
// u are data their gradient is computed and dropped.
//
// On the first backward run of a model (over its graphs and Sims), the
// generated gradient is checked against finite differences of the native
// rollout along a random direction at the actual values (see CheckRollout
// and Sim.Backward), and a disagreement above the tolerance fails the run
// with an error naming the lane, step and kernel or instruction; options
// turn it off or change the tolerance.
func Rollout(m *Model, p, q, x0, u *G.Node, B, T int, opts ...OpOption) (*Traj, error) {
	cfg := newConfig(opts)
	if B < 1 || T < 1 {
		return nil, fmt.Errorf("dyn.Rollout(%s): B = %d lanes and T = %d steps, want ≥ 1", m.spec.Name, B, T)
	}
	ws := &workspace{m: m, B: B, T: T, cfg: cfg, id: opCounter.Add(1)}
	k := m.NewKernel()
	if cfg.interp {
		k = m.NewInterpreter()
	}
	if err := m.accepts(k); err != nil {
		return nil, fmt.Errorf("dyn.Rollout: %w", err)
	}
	ws.sim = m.newSim(k, B, T, cfg)
	ws.ny = m.NY() * T * B
	ws.size = ws.ny + 1 + m.NS()*B
	ws.gsize = m.NP() + m.NS()*B + T*m.NU()*B
	var children G.Nodes
	add := func(r role, n *G.Node, want int, what string) error {
		if want == 0 {
			if n != nil {
				return fmt.Errorf("dyn.Rollout(%s): the model has no %s, got a node", m.spec.Name, what)
			}
			return nil
		}
		if n == nil {
			return fmt.Errorf("dyn.Rollout(%s): %s missing (want %d values)", m.spec.Name, what, want)
		}
		if got := n.Shape().TotalSize(); got != want {
			return fmt.Errorf("dyn.Rollout(%s): %s has shape %v (%d values), want %d", m.spec.Name, what, n.Shape(), got, want)
		}
		if n.Dtype() != tensor.Float64 {
			return fmt.Errorf("dyn.Rollout(%s): %s is %v, want float64", m.spec.Name, what, n.Dtype())
		}
		ws.roles = append(ws.roles, r)
		children = append(children, n)
		return nil
	}
	for _, c := range []struct {
		r    role
		n    *G.Node
		want int
		what string
	}{{roleP, p, m.NP(), "parameters p"}, {roleQ, q, m.NQ(), "settings q"}, {roleX0, x0, m.NS() * B, "initial states x0"},
		{roleU, u, T * m.NU() * B, "inputs u"}} {
		if err := add(c.r, c.n, c.want, c.what); err != nil {
			return nil, err
		}
	}
	for _, c := range children {
		ws.types = append(ws.types, c.Type())
		ws.shapes = append(ws.shapes, c.Shape().Clone())
	}
	ws.buf = vecBuf(ws.size)
	packed, err := G.ApplyOp(&rollOp{ws: ws}, children...)
	if err != nil {
		return nil, fmt.Errorf("dyn.Rollout(%s): %w", m.spec.Name, err)
	}
	return &Traj{m: m, B: B, T: T, packed: packed, ws: ws, outs: map[int]*G.Node{}}, nil
}

var opCounter atomic.Int64

type role uint8

const (
	roleP role = iota
	roleQ
	roleX0
	roleU
)

// workspace is what the ops of one Rollout share: the native simulation
// (whose stored states the backward op reuses: a Program runs the forward
// op before the backward one, and is never run concurrently).
type workspace struct {
	m      *Model
	B, T   int
	cfg    opConfig
	id     int64
	sim    *Sim
	roles  []role
	types  []hm.Type
	shapes []tensor.Shape
	ny     int
	size   int // packed output: y, cost, xT
	gsize  int // packed gradient: p, x0, u
	buf    *tensor.Dense
	runs   int64
}

func vecBuf(n int) *tensor.Dense {
	return tensor.New(tensor.WithShape(n), tensor.WithBacking(make([]float64, n)))
}

func vecType() hm.Type { return G.TensorType{Dims: 1, Of: tensor.Float64} }

func floats(v G.Value) ([]float64, error) {
	switch d := v.(type) {
	case *G.F64:
		x := []float64{float64(*d)}
		return x, nil
	case *tensor.Dense:
		if d.RequiresIterator() {
			d = d.Materialize().(*tensor.Dense)
		}
		x, ok := d.Data().([]float64)
		if !ok {
			if f, ok := d.Data().(float64); ok {
				return []float64{f}, nil
			}
			return nil, fmt.Errorf("dyn: value holds %T, want float64", d.Data())
		}
		return x, nil
	}
	return nil, fmt.Errorf("dyn: value is a %T", v)
}

// unpack sorts the op's inputs into p, q, x0, u.
func (ws *workspace) unpack(in []G.Value) (p, q, x0, u []float64, err error) {
	if len(in) < len(ws.roles) {
		return nil, nil, nil, nil, fmt.Errorf("dyn: %d inputs, want %d", len(in), len(ws.roles))
	}
	for i, r := range ws.roles {
		x, err := floats(in[i])
		if err != nil {
			return nil, nil, nil, nil, err
		}
		switch r {
		case roleP:
			p = x
		case roleQ:
			q = x
		case roleX0:
			x0 = x
		case roleU:
			u = x
		}
	}
	return
}

func hashOf(op interface{ WriteHash(hash.Hash) }) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

// rollOp: (p, q, x0, u) → packed [y | cost | xT].
type rollOp struct{ ws *workspace }

func (op *rollOp) Arity() int { return len(op.ws.roles) }
func (op *rollOp) Type() hm.Type {
	ts := append(append([]hm.Type(nil), op.ws.types...), vecType())
	return hm.NewFnType(ts...)
}
func (op *rollOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.ws.size}, nil
}
func (op *rollOp) ReturnsPtr() bool      { return false }
func (op *rollOp) CallsExtern() bool     { return false }
func (op *rollOp) OverwritesInput() int  { return -1 }
func (op *rollOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "dyn.rollout{%d}", op.ws.id) }
func (op *rollOp) Hashcode() uint32      { return hashOf(op) }
func (op *rollOp) String() string        { return "Rollout(" + op.ws.m.spec.Name + ")" }
func (op *rollOp) Do(in ...G.Value) (G.Value, error) {
	ws := op.ws
	p, q, x0, u, err := ws.unpack(in)
	if err != nil {
		return nil, err
	}
	out := ws.buf.Data().([]float64)
	c, err := ws.sim.Forward(p, q, x0, u, out[:ws.ny])
	if err != nil {
		return nil, err
	}
	out[ws.ny] = c
	copy(out[ws.ny+1:], ws.sim.Final())
	ws.runs++
	return ws.buf, nil
}
func (op *rollOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i, r := range op.ws.roles {
		d[i] = r != roleQ && !(r == roleU && op.ws.cfg.dataU)
	}
	return d
}
func (op *rollOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	ws := op.ws
	args := append(append(G.Nodes(nil), inputs...), grad)
	g, err := G.ApplyOp(&gradOp{ws: ws, buf: vecBuf(ws.gsize)}, args...)
	if err != nil {
		return nil, err
	}
	res := make(G.Nodes, len(inputs))
	off := map[role]int{roleP: 0, roleX0: ws.m.NP(), roleU: ws.m.NP() + ws.m.NS()*ws.B}
	for i, r := range ws.roles {
		if r == roleQ || (r == roleU && ws.cfg.dataU) {
			continue
		}
		n := ws.shapes[i].TotalSize()
		if res[i], err = G.ApplyOp(&sliceOp{id: ws.id, lo: off[r], n: n, from: ws.gsize, shape: ws.shapes[i], typ: ws.types[i]}, g); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// gradOp: (p, q, x0, u, ∂L/∂packed) → packed [∂p | ∂x0 | ∂u].
type gradOp struct {
	ws  *workspace
	buf *tensor.Dense
}

func (op *gradOp) Arity() int { return len(op.ws.roles) + 1 }
func (op *gradOp) Type() hm.Type {
	ts := append(append([]hm.Type(nil), op.ws.types...), vecType(), vecType())
	return hm.NewFnType(ts...)
}
func (op *gradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.ws.gsize}, nil
}
func (op *gradOp) ReturnsPtr() bool      { return false }
func (op *gradOp) CallsExtern() bool     { return false }
func (op *gradOp) OverwritesInput() int  { return -1 }
func (op *gradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "dyn.rolloutgrad{%d}", op.ws.id) }
func (op *gradOp) Hashcode() uint32      { return hashOf(op) }
func (op *gradOp) String() string        { return "RolloutGrad(" + op.ws.m.spec.Name + ")" }
func (op *gradOp) DiffWRT(n int) []bool  { return make([]bool, n) }
func (op *gradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("%v: second derivatives are not implemented", op)
}
func (op *gradOp) Do(in ...G.Value) (G.Value, error) {
	ws := op.ws
	p, q, x0, u, err := ws.unpack(in)
	if err != nil {
		return nil, err
	}
	gb, err := floats(in[len(in)-1])
	if err != nil {
		return nil, err
	}
	if len(gb) != ws.size {
		return nil, fmt.Errorf("%v: upstream gradient of %d values, want %d", op, len(gb), ws.size)
	}
	if ws.runs == 0 {
		// The forward op has not run in this machine (cannot happen in a
		// TapeMachine, which runs it first); roll out now.
		if _, err := ws.sim.Forward(p, q, x0, u, nil); err != nil {
			return nil, err
		}
	}
	ybar, cbar, xTbar := gb[:ws.ny], gb[ws.ny], gb[ws.ny+1:]
	m := ws.m
	out := op.buf.Data().([]float64)
	np, ns := m.NP(), m.NS()*ws.B
	var ubar []float64
	if m.NU() > 0 && !ws.cfg.dataU {
		ubar = out[np+ns:]
	}
	if err := ws.sim.Backward(p, q, u, ybar, cbar, xTbar, out[:np], out[np:np+ns], ubar); err != nil {
		return nil, err
	}
	for i, v := range out[:np] {
		if !finite(v) {
			return nil, fmt.Errorf("dyn: %s: the gradient of parameter %s is %v (the forward values were finite)", m.spec.Name, m.spec.Params[i], v)
		}
	}
	return op.buf, nil
}

// sliceOp copies n values from offset lo of a packed vector (of length
// from) into a node of the given shape; it is the extraction of one block.
type sliceOp struct {
	id        int64
	lo, n     int
	from      int
	shape     tensor.Shape
	typ       hm.Type
	scatterOf bool // the backward of an extraction: no further derivative
	buf       *tensor.Dense
}

func (op *sliceOp) Arity() int { return 1 }
func (op *sliceOp) Type() hm.Type {
	return hm.NewFnType(vecType(), op.typ)
}
func (op *sliceOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape.Clone(), nil }
func (op *sliceOp) ReturnsPtr() bool                               { return false }
func (op *sliceOp) CallsExtern() bool                              { return false }
func (op *sliceOp) OverwritesInput() int                           { return -1 }
func (op *sliceOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "dyn.slice{%d,%d,%d,%d}", op.id, op.lo, op.n, op.from)
}
func (op *sliceOp) Hashcode() uint32 { return hashOf(op) }
func (op *sliceOp) String() string   { return fmt.Sprintf("Slice[%d:%d]", op.lo, op.lo+op.n) }
func (op *sliceOp) Do(in ...G.Value) (G.Value, error) {
	x, err := floats(in[0])
	if err != nil {
		return nil, err
	}
	if len(x) != op.from {
		return nil, fmt.Errorf("%v: input of %d values, want %d", op, len(x), op.from)
	}
	if op.shape.IsScalar() {
		return G.NewF64(x[op.lo]), nil
	}
	// A buffer of its own, rewritten on every run: a later op that works in
	// place on it cannot reach the packed vector or the next run.
	if op.buf == nil {
		op.buf = tensor.New(tensor.WithShape(op.shape.Clone()...), tensor.WithBacking(make([]float64, op.n)))
	}
	copy(op.buf.Data().([]float64), x[op.lo:op.lo+op.n])
	return op.buf, nil
}
func (op *sliceOp) DiffWRT(n int) []bool { return []bool{!op.scatterOf} }
func (op *sliceOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.scatterOf {
		return nil, fmt.Errorf("%v: second derivatives are not implemented", op)
	}
	g, err := G.ApplyOp(&scatterOp{id: op.id, lo: op.lo, n: op.n, to: op.from, typ: op.typ}, grad)
	return G.Nodes{g}, err
}

// scatterOp places a block's gradient at offset lo of a zero packed vector.
type scatterOp struct {
	id     int64
	lo, n  int
	to     int
	typ    hm.Type
	buffer *tensor.Dense
}

func (op *scatterOp) Arity() int                                     { return 1 }
func (op *scatterOp) Type() hm.Type                                  { return hm.NewFnType(op.typ, vecType()) }
func (op *scatterOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return tensor.Shape{op.to}, nil }
func (op *scatterOp) ReturnsPtr() bool                               { return false }
func (op *scatterOp) CallsExtern() bool                              { return false }
func (op *scatterOp) OverwritesInput() int                           { return -1 }
func (op *scatterOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "dyn.scatter{%d,%d,%d,%d}", op.id, op.lo, op.n, op.to)
}
func (op *scatterOp) Hashcode() uint32   { return hashOf(op) }
func (op *scatterOp) String() string     { return fmt.Sprintf("Scatter[%d:%d]", op.lo, op.lo+op.n) }
func (op *scatterOp) DiffWRT(int) []bool { return []bool{false} }
func (op *scatterOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("%v: second derivatives are not implemented", op)
}
func (op *scatterOp) Do(in ...G.Value) (G.Value, error) {
	g, err := floats(in[0])
	if err != nil {
		return nil, err
	}
	if len(g) != op.n {
		return nil, fmt.Errorf("%v: gradient of %d values, want %d", op, len(g), op.n)
	}
	// Cleared on every run: gorgonia sums the scatters of several
	// extractions in place into the first one.
	if op.buffer == nil {
		op.buffer = vecBuf(op.to)
	}
	out := op.buffer.Data().([]float64)
	clear(out)
	copy(out[op.lo:], g)
	return op.buffer, nil
}

// block extracts [lo, lo+n) of the packed output with the given shape.
func (r *Traj) block(key, lo, n int, shape tensor.Shape, typ hm.Type) (*G.Node, error) {
	if nd, ok := r.outs[key]; ok {
		return nd, nil
	}
	nd, err := G.ApplyOp(&sliceOp{id: r.ws.id, lo: lo, n: n, from: r.ws.size, shape: shape, typ: typ}, r.packed)
	if err != nil {
		return nil, err
	}
	r.outs[key] = nd
	return nd, nil
}

// Output is the named output over all steps and lanes, [T·B] with step t of
// lane j at t·B + j: the value after step t.
func (r *Traj) Output(name string) (*G.Node, error) {
	c := r.m.Index("output", name)
	if c < 0 {
		return nil, fmt.Errorf("dyn: %s has no output %q (outputs: %v)", r.m.spec.Name, name, r.m.spec.Outputs)
	}
	n := r.T * r.B
	return r.block(c, c*n, n, tensor.Shape{n}, vecType())
}

// Outputs is every output, [NY·T·B] with output c after step t of lane j at
// (c·T + t)·B + j.
func (r *Traj) Outputs() (*G.Node, error) {
	return r.block(-1, 0, r.ws.ny, tensor.Shape{r.ws.ny}, vecType())
}

// Cost is the step costs summed over steps and lanes (a scalar node).
func (r *Traj) Cost() (*G.Node, error) {
	if !r.m.HasCost() {
		return nil, fmt.Errorf("dyn: %s declares no Cost", r.m.spec.Name)
	}
	return r.block(-2, r.ws.ny, 1, tensor.ScalarShape(), tensor.Float64)
}

// Final is the state after the last step, [S·B] lane-minor: it can be the
// x0 of the next chunk's Rollout, and the gradient flows back through it.
func (r *Traj) Final() (*G.Node, error) {
	n := r.m.NS() * r.B
	return r.block(-3, r.ws.ny+1, n, tensor.Shape{n}, vecType())
}

// Sim is the native simulation behind the op; after a run its states are
// those of the last forward pass.
func (r *Traj) Sim() *Sim { return r.ws.sim }
