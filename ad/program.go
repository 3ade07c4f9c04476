package ad

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// DefaultMaxNodes is the default node budget of one graph, counted after
// differentiation. Gorgonia was seen to return silently wrong gradients or panic
// past roughly 80k nodes (DESIGN.md); the default stays well below that.
const DefaultMaxNodes = 40000

// ErrTooManyNodes is returned (wrapped) when a graph exceeds the node budget.
var ErrTooManyNodes = errors.New("ad: graph too large")

// ErrUnreachable is returned (wrapped) when a parameter cannot reach the loss.
var ErrUnreachable = errors.New("ad: parameter does not reach the loss")

// Param declares one named parameter block of a Program. A nil or empty
// Shape is a scalar. The flat vector x of ValueAndGrad holds the blocks in
// order, each in row-major order.
type Param struct {
	Name  string
	Shape []int
}

// Size is the number of scalars in the block.
func (p Param) Size() int {
	n := 1
	for _, d := range p.Shape {
		n *= d
	}
	return n
}

// Graph is what a BuildFunc builds on: the gorgonia graph plus a registry of
// named data inputs whose values can be changed between runs.
type Graph struct {
	*G.ExprGraph
	inputs map[string]*input
	watch  []watched
	nconst int
}

type watched struct {
	name string
	node *G.Node
	val  *G.Value
}

type input struct {
	node *G.Node
	val  tensor.Tensor
	data []float64
}

// Input adds a data node (not differentiated) holding a copy of value with
// the given shape (a vector of len(value) when shape is empty). Program.SetInput
// changes its value later without rebuilding the graph.
func (g *Graph) Input(name string, value []float64, shape ...int) (*G.Node, error) {
	if _, dup := g.inputs[name]; dup {
		return nil, fmt.Errorf("ad: input %q declared twice", name)
	}
	if len(shape) == 0 {
		shape = []int{len(value)}
	}
	if len(shape) == 1 && shape[0] == 0 {
		return nil, fmt.Errorf("ad: input %q has no values", name)
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	if n != len(value) {
		return nil, fmt.Errorf("ad: input %q has %d values for shape %v", name, len(value), shape)
	}
	if err := finiteData(name, value); err != nil {
		return nil, err
	}
	node, val, data := newLeaf(g.ExprGraph, name, shape)
	copy(data, value)
	if err := G.Let(node, val); err != nil {
		return nil, err
	}
	g.inputs[name] = &input{node: node, val: val, data: data}
	return node, nil
}

// ScalarInput adds a scalar data node (not differentiated), such as the
// temperature of a friction surrogate to anneal; Program.SetInput(name,
// []float64{v}) changes it without rebuilding the graph.
func (g *Graph) ScalarInput(name string, v float64) (*G.Node, error) {
	if _, dup := g.inputs[name]; dup {
		return nil, fmt.Errorf("ad: input %q declared twice", name)
	}
	if err := finiteData(name, []float64{v}); err != nil {
		return nil, err
	}
	node, _, data := newLeaf(g.ExprGraph, name, nil)
	data[0] = v
	if err := G.Let(node, G.NewF64(v)); err != nil {
		return nil, err
	}
	g.inputs[name] = &input{node: node, data: data}
	return node, nil
}

// finiteData names the first NaN or Inf of an input's data.
func finiteData(name string, v []float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("ad: input %q has %v at index %d", name, x, i)
		}
	}
	return nil
}

// Const adds constant data (a copy of value) of the given shape (a vector
// when shape is empty) to the graph.
//
// Use it rather than G.NewConstant for tensors: gorgonia hashes a constant
// tensor by its printed value, which is truncated for long tensors, and merges
// nodes of equal hash, so two different data vectors can silently become one
// node (TestConstLongVectorsStayDistinct). Const makes a uniquely named input
// node instead, which gorgonia hashes by name and never differentiates unless
// asked to.
func (g *Graph) Const(value []float64, shape ...int) *G.Node {
	g.nconst++
	n, err := g.Input(fmt.Sprintf("const·%d", g.nconst), value, shape...)
	if err != nil {
		panic(err) // only a shape mismatch, a programming error; Compile recovers it
	}
	return n
}

// Scalar adds a float64 scalar constant to the graph (scalars print exactly,
// so equal scalars may share one node).
func (g *Graph) Scalar(v float64) *G.Node {
	return G.NewConstant(v, G.In(g.ExprGraph))
}

// newLeaf makes an input node of the given shape with a value whose backing
// slice we own, so that new values are copied in without allocating.
func newLeaf(g *G.ExprGraph, name string, shape []int) (*G.Node, tensor.Tensor, []float64) {
	switch len(shape) {
	case 0:
		// Scalars are bound afresh as *G.F64 on every run (see run).
		return G.NewScalar(g, tensor.Float64, G.WithName(name)), nil, make([]float64, 1)
	case 1:
		data := make([]float64, shape[0])
		return G.NewVector(g, tensor.Float64, G.WithName(name), G.WithShape(shape...)), tensor.New(tensor.WithShape(shape...), tensor.WithBacking(data)), data
	case 2:
		data := make([]float64, shape[0]*shape[1])
		return G.NewMatrix(g, tensor.Float64, G.WithName(name), G.WithShape(shape...)), tensor.New(tensor.WithShape(shape...), tensor.WithBacking(data)), data
	default:
		n := 1
		for _, d := range shape {
			n *= d
		}
		data := make([]float64, n)
		return G.NewTensor(g, tensor.Float64, len(shape), G.WithName(name), G.WithShape(shape...)), tensor.New(tensor.WithShape(shape...), tensor.WithBacking(data)), data
	}
}

// BuildFunc builds the loss from the parameter nodes (one per Param, in
// order). It must return a scalar node.
type BuildFunc func(g *Graph, params []*G.Node) (*G.Node, error)

// Option configures Compile.
type Option func(*config)

type config struct {
	maxNodes    int
	noGrad      bool
	allowUnused bool
	selfCheck   bool
	checkX      []float64
	x0          []float64
	checkTol    float64
	checkSeed   uint64
	checkStep   float64
}

// WithMaxNodes sets the node budget (default DefaultMaxNodes).
func WithMaxNodes(n int) Option { return func(c *config) { c.maxNodes = n } }

// WithoutGradient compiles the forward graph only: ValueAndGrad is then an
// error and Value costs one forward pass. It is for rollouts whose values
// alone are needed (the forward sweep of Scan, predictions).
func WithoutGradient() Option { return func(c *config) { c.noGrad = true } }

// WithUnusedParams lets parameters that do not reach the loss through; their
// gradient is zero. By default such a parameter is an error that names it,
// because it is usually a bug in the model; a terminal loss or one shard of a
// batch may legitimately not use every parameter.
func WithUnusedParams() Option { return func(c *config) { c.allowUnused = true } }

// DefaultSelfCheckTol is the tolerance of the self-check Compile runs by
// default. The check compares the gradient along a random direction with
// fourth-order central differences of the graph's own forward values (step
// 1e-6, 1e-7, 1e-8 relative, until one agrees): a smooth float64 graph
// agrees to 1e-8 or better, and a kink of an exact clamp straddled by the
// stencil (which changes with the step) is the only honest cause of a
// larger error, while the wrong gradients gorgonia was seen to return (its
// Concat, see graph.Concat) are off by percent.
const DefaultSelfCheckTol = 1e-4

// WithSelfCheck sets the point and the tolerance of the self-check (tol ≤ 0:
// report the error in Program.SelfCheck without failing). The self-check
// is on by default: once after compiling, the graph's gradient along a
// random unit direction is compared with central differences of the graph's
// own forward values, and Compile fails when they disagree. It catches
// gorgonia returning wrong gradients on a graph, at the cost of a few
// evaluations.
func WithSelfCheck(x0 []float64, tol float64) Option {
	return func(c *config) {
		c.selfCheck = true
		c.checkX = append([]float64(nil), x0...)
		c.checkTol = tol
	}
}

// WithoutSelfCheck turns the default self-check off: for hot loops that
// compile the same graph many times (a receding horizon) after one has
// passed, and for forward-only programs.
func WithoutSelfCheck() Option { return func(c *config) { c.selfCheck = false } }

// WithX0 gives the parameters' values during graph construction and the
// point of the self-check (default: every parameter 1). Graph ops read the
// values of nodes bound at construction to refuse invalid arguments (a
// friction limit of 0, a negative temperature), so parameter nodes must be
// bound to valid values before the build function runs.
func WithX0(x0 []float64) Option {
	return func(c *config) { c.x0 = append([]float64(nil), x0...) }
}

// Program is a compiled loss-and-gradient graph. Build once, run many.
//
// Not safe for concurrent use: a call made while another runs returns
// ErrConcurrentUse (gorgonia's TapeMachine would otherwise corrupt itself
// and panic where the caller cannot recover); Clone makes one per goroutine.
type Program struct {
	params    []Param
	offsets   []int
	dim       int
	g         *Graph
	paramNode []*G.Node
	paramVal  []tensor.Tensor
	paramData [][]float64
	loss      *G.Node
	lossVal   *G.Value
	grads     []*G.Node
	gradVal   []*G.Value // nil entries: parameters that do not reach the loss (WithUnusedParams)
	vm        G.VM
	nodes     int
	selfCheck float64
	outputs   map[string][]float64
	noGrad    bool
	// selfSkipped says why the self-check did not run ("" if it did).
	selfSkipped string
	build       BuildFunc
	opts        []Option
	busy        atomic.Bool
}

// Compile builds the graph with build, differentiates the loss with respect
// to every parameter and compiles it.
func Compile(params []Param, build BuildFunc, opts ...Option) (p *Program, err error) {
	cfg := config{maxNodes: DefaultMaxNodes, checkSeed: 1, checkStep: 1e-6, selfCheck: true, checkTol: DefaultSelfCheckTol}
	for _, o := range opts {
		o(&cfg)
	}
	// gorgonia reports some graph-construction failures by panicking; a
	// user's model must get an error instead.
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("ad: building graph: %v", r)
		}
	}()
	if len(params) == 0 {
		return nil, errors.New("ad: no parameters")
	}
	seen := map[string]bool{}
	p = &Program{params: params, outputs: map[string][]float64{}}
	eg := G.NewGraph()
	p.g = &Graph{ExprGraph: eg, inputs: map[string]*input{}}
	for _, pr := range params {
		if pr.Name == "" || seen[pr.Name] {
			return nil, fmt.Errorf("ad: parameter name %q empty or repeated", pr.Name)
		}
		for _, d := range pr.Shape {
			if d <= 0 {
				return nil, fmt.Errorf("ad: parameter %q has shape %v", pr.Name, pr.Shape)
			}
		}
		seen[pr.Name] = true
		n, v, data := newLeaf(eg, pr.Name, pr.Shape)
		p.offsets = append(p.offsets, p.dim)
		p.dim += pr.Size()
		p.paramNode = append(p.paramNode, n)
		p.paramVal = append(p.paramVal, v)
		p.paramData = append(p.paramData, data)
	}
	// Bind valid values (x0, or 1) before building: graph ops check the
	// values of bound nodes, and a 0 is no friction limit or temperature.
	if cfg.x0 != nil && len(cfg.x0) != p.dim {
		return nil, fmt.Errorf("ad: WithX0 has %d values, the parameters %d", len(cfg.x0), p.dim)
	}
	x0 := cfg.x0
	if x0 == nil && len(cfg.checkX) == p.dim {
		x0 = cfg.checkX
	}
	if x0 == nil {
		x0 = make([]float64, p.dim)
		for i := range x0 {
			x0[i] = 1
		}
	}
	if err := p.checkX(x0); err != nil {
		return nil, fmt.Errorf("ad: WithX0: %w", err)
	}
	for i, pr := range params {
		seg := x0[p.offsets[i] : p.offsets[i]+pr.Size()]
		var init G.Value
		if p.paramVal[i] == nil {
			init = G.NewF64(seg[0])
		} else {
			copy(p.paramData[i], seg)
			init = p.paramVal[i]
		}
		if err := G.Let(p.paramNode[i], init); err != nil {
			return nil, err
		}
	}
	p.build, p.opts = build, opts
	loss, err := build(p.g, p.paramNode)
	if err != nil {
		return nil, err
	}
	if loss == nil {
		return nil, errors.New("ad: the build function returned no loss")
	}
	if !loss.IsScalar() {
		if loss.Shape().TotalSize() != 1 {
			return nil, fmt.Errorf("ad: the loss must be a scalar (or hold one value), got shape %v: sum or average it", loss.Shape())
		}
		if loss, err = G.Sum(loss); err != nil { // [1] → scalar
			return nil, fmt.Errorf("ad: the loss of shape %v: %w", loss.Shape(), err)
		}
	}
	p.loss = loss
	if n := len(eg.AllNodes()); n > cfg.maxNodes {
		return nil, tooMany(n, cfg.maxNodes, "before differentiation")
	}
	// Values are read by Read nodes, which copy when they execute: reading
	// Node.Value() after the run is wrong whenever the compiler reused the
	// node's register or a later op overwrote it in place (seen here on
	// intermediate states of a rollout).
	p.lossVal = new(G.Value)
	G.Read(loss, p.lossVal)
	if cfg.noGrad {
		p.noGrad = true
		p.nodes = len(eg.AllNodes())
		p.vm = G.NewTapeMachine(eg)
		return p, nil
	}
	reach, err := p.checkReachable(cfg.allowUnused)
	if err != nil {
		return nil, err
	}
	var wrt []*G.Node
	for i, n := range p.paramNode {
		if reach[i] {
			wrt = append(wrt, n)
		}
	}
	if len(wrt) == 0 {
		return nil, fmt.Errorf("%w: none of the parameters does", ErrUnreachable)
	}
	grads, err := G.Grad(loss, wrt...)
	if err != nil {
		var sde G.SymDiffError
		if errors.As(err, &sde) {
			var names []string
			for _, n := range sde.Nodes() {
				names = append(names, n.Name())
			}
			if len(names) > 0 {
				return nil, fmt.Errorf("%w: %s (only through non-differentiable ops): %v", ErrUnreachable, strings.Join(names, ", "), err)
			}
		}
		return nil, fmt.Errorf("ad: differentiating: %w", err)
	}
	p.grads = make([]*G.Node, len(params))
	p.gradVal = make([]*G.Value, len(params))
	k := 0
	for i := range params {
		if !reach[i] {
			continue
		}
		p.grads[i] = grads[k]
		k++
		p.gradVal[i] = new(G.Value)
		G.Read(p.grads[i], p.gradVal[i])
	}
	p.nodes = len(eg.AllNodes())
	if p.nodes > cfg.maxNodes {
		return nil, tooMany(p.nodes, cfg.maxNodes, "after differentiation")
	}
	p.vm = G.NewTapeMachine(eg)
	if cfg.selfCheck {
		at := cfg.checkX
		if at == nil {
			at = x0
		}
		rel, skipped, err := p.runSelfCheck(at, cfg)
		if err != nil {
			return nil, fmt.Errorf("ad: self-check: %w", err)
		}
		p.selfCheck, p.selfSkipped = rel, skipped
		if cfg.checkTol > 0 && rel > cfg.checkTol {
			// The point may sit on a kink of the loss (an exact clamp at
			// its limit, a wheel at rest under stiction), where central
			// differences straddle a one-sided derivative: check again at
			// points moved off it by a relative 1e-5 and 1e-4; a wrong
			// gradient disagrees there too.
			rng := rand.New(rand.NewPCG(cfg.checkSeed, 0x0ff))
			for _, delta := range []float64{1e-5, 1e-4} {
				moved := make([]float64, len(at))
				for i, v := range at {
					moved[i] = v + delta*rng.NormFloat64()*math.Max(math.Abs(v), 1)
				}
				r, sk, err := p.runSelfCheck(moved, cfg)
				if err == nil && sk == "" && r <= cfg.checkTol {
					p.selfCheck = r
					break
				}
			}
		}
		if cfg.checkTol > 0 && p.selfCheck > cfg.checkTol {
			rel := p.selfCheck
			return nil, fmt.Errorf("ad: self-check failed: the gradient disagrees with central differences of the graph's forward values by %.3g (relative) along random directions, tolerance %.3g: %s; WithoutSelfCheck skips the check", rel, cfg.checkTol, suspects(eg))
		}
	}
	return p, nil
}

// suspects says what can make the graph's gradient disagree with its
// forward values, naming only what the graph holds: G.Concat (wrong
// gradients: use graph.Concat), the custom ops (which check themselves, as
// dyn's rollouts do), and kinks of the loss (an exact clamp or |·| that
// central differences straddle at the check point).
func suspects(eg *G.ExprGraph) string {
	var concat bool
	custom := map[string]bool{}
	var names []string
	for _, n := range eg.AllNodes() {
		op := n.Op()
		if op == nil {
			continue
		}
		t := reflect.TypeOf(op)
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case t.PkgPath() == "gorgonia.org/gorgonia" && strings.HasPrefix(op.String(), "Concat"):
			concat = true
		case t.PkgPath() != "gorgonia.org/gorgonia" && !custom[op.String()]:
			custom[op.String()] = true
			names = append(names, op.String())
		}
	}
	var s []string
	if concat {
		s = append(s, "G.Concat, which gorgonia differentiates wrongly (use graph.Concat)")
	}
	if len(names) > 0 {
		if len(names) > 6 {
			names = append(names[:6], "…")
		}
		s = append(s, "a custom op's gradient ("+strings.Join(names, ", ")+")")
	}
	s = append(s, "or a kink of the loss within the check's step (an exact clamp, |·|, a Where switching): then check at another point (WithSelfCheck)")
	return "suspects: " + strings.Join(s, "; ")
}

func tooMany(n, budget int, when string) error {
	return fmt.Errorf("%w: %d nodes %s, above the budget of %d (gorgonia returned wrong gradients past ~80k): "+
		"batch the data into vectors instead of scalar nodes, or roll long horizons with ad.Scan", ErrTooManyNodes, n, when, budget)
}

// checkReachable walks from the loss through operands and names every
// parameter it does not meet (an error unless allowUnused).
func (p *Program) checkReachable(allowUnused bool) ([]bool, error) {
	g := p.g.ExprGraph
	seen := map[int64]bool{}
	stack := []int64{p.loss.ID()}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[id] {
			continue
		}
		seen[id] = true
		it := g.From(id)
		for it.Next() {
			stack = append(stack, it.Node().ID())
		}
	}
	var missing []string
	reach := make([]bool, len(p.paramNode))
	for i, n := range p.paramNode {
		reach[i] = seen[n.ID()]
		if !reach[i] {
			missing = append(missing, n.Name())
		}
	}
	if len(missing) > 0 && !allowUnused {
		return nil, fmt.Errorf("%w: %s", ErrUnreachable, strings.Join(missing, ", "))
	}
	return reach, nil
}

// Dim is the length of x.
func (p *Program) Dim() int { return p.dim }

// Params returns the parameter blocks.
func (p *Program) Params() []Param { return p.params }

// Nodes is the node count of the compiled graph (after differentiation).
func (p *Program) Nodes() int { return p.nodes }

// SelfCheck is the relative error measured by the self-check (0 if not
// run; at a point moved off a kink when the given point sits on one), and
// why it was skipped ("" if it ran): it is skipped, not failed,
// when the graph's value or gradient is not finite at the check point (the
// point is outside the model's domain, which says nothing about its
// gradient; give a valid point with WithX0 or WithSelfCheck).
func (p *Program) SelfCheck() (float64, string) { return p.selfCheck, p.selfSkipped }

// runSelfCheck runs the directional check at x, with up to three step
// sizes (see DefaultSelfCheckTol), and returns the smallest error.
func (p *Program) runSelfCheck(x []float64, cfg config) (float64, string, error) {
	if len(x) != p.dim {
		return 0, "", fmt.Errorf("the check point has %d values, the parameters %d", len(x), p.dim)
	}
	f, g, err := p.ValueAndGrad(x)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Sprintf("the loss at the check point is %v (%v)", f, err), nil
	}
	for _, v := range g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, "the gradient at the check point is not finite", nil
		}
	}
	best := math.Inf(1)
	for i, h := range []float64{cfg.checkStep, cfg.checkStep / 10, cfg.checkStep / 100} {
		rel, err := directional4(p.ValueAndGrad, x, g, h, cfg.checkSeed+uint64(i))
		if err != nil {
			return 0, fmt.Sprintf("an evaluation near the check point failed: %v", err), nil
		}
		best = math.Min(best, rel)
		if cfg.checkTol <= 0 || best <= cfg.checkTol {
			break
		}
	}
	return best, "", nil
}

// SetInput replaces the value of a data input declared with Graph.Input.
func (p *Program) SetInput(name string, value []float64) error {
	in, ok := p.g.inputs[name]
	if !ok {
		return fmt.Errorf("ad: no input %q", name)
	}
	if len(value) != len(in.data) {
		return fmt.Errorf("ad: input %q takes %d values, got %d", name, len(in.data), len(value))
	}
	if err := finiteData(name, value); err != nil {
		return err
	}
	copy(in.data, value)
	return nil
}

// Watch registers a node whose value is read after each run with Output
// (for example predicted trajectories). It must be called from the BuildFunc.
func (g *Graph) Watch(name string, n *G.Node) {
	w := watched{name: name, node: n, val: new(G.Value)}
	G.Read(n, w.val)
	g.watch = append(g.watch, w)
}

// Output returns the value of a node registered with Graph.Watch, as of the
// last run (nil before the first run or for an unknown name). The slice is
// reused by the next run.
func (p *Program) Output(name string) []float64 { return p.outputs[name] }

func (p *Program) readWatched() {
	for _, w := range p.g.watch {
		v := *w.val
		if v == nil {
			continue
		}
		dst := p.outputs[w.name]
		switch d := v.Data().(type) {
		case float64:
			dst = append(dst[:0], d)
		case []float64:
			dst = append(dst[:0], d...)
		}
		p.outputs[w.name] = dst
	}
}

// ValueAndGrad returns f(x) and a new slice holding ∇f(x).
func (p *Program) ValueAndGrad(x []float64) (float64, []float64, error) {
	grad := make([]float64, p.dim)
	f, err := p.ValueAndGradInto(x, grad)
	return f, grad, err
}

// ValueAndGradInto evaluates f(x) and writes ∇f(x) into grad (len Dim).
func (p *Program) ValueAndGradInto(x, grad []float64) (f float64, err error) {
	if p.noGrad {
		return 0, errors.New("ad: program compiled WithoutGradient")
	}
	if len(x) != p.dim || len(grad) != p.dim {
		return 0, fmt.Errorf("ad: x has %d values and grad %d, the program has %d parameters", len(x), len(grad), p.dim)
	}
	if !p.busy.CompareAndSwap(false, true) {
		return 0, ErrConcurrentUse
	}
	defer p.busy.Store(false)
	if err := p.run(x); err != nil {
		return 0, err
	}
	defer p.vm.Reset()
	f, err = scalarOf(*p.lossVal)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f, fmt.Errorf("ad: the loss is %v at finite parameters and data: an op of the graph overflowed or left its domain", f)
	}
	for i, gv := range p.gradVal {
		dst := grad[p.offsets[i] : p.offsets[i]+p.params[i].Size()]
		if gv == nil {
			clear(dst)
			continue
		}
		if err := copyValue(dst, *gv, p.params[i].Name); err != nil {
			return 0, err
		}
		for k, v := range dst {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return f, fmt.Errorf("ad: the gradient of %s[%d] is %v (the loss %v is finite)", p.params[i].Name, k, v, f)
			}
		}
	}
	p.readWatched()
	return f, nil
}

// Value evaluates f(x) only. Unless the Program was compiled WithoutGradient
// the backward part runs too.
func (p *Program) Value(x []float64) (float64, error) {
	if len(x) != p.dim {
		return 0, fmt.Errorf("ad: x has %d values, the program has %d parameters", len(x), p.dim)
	}
	if !p.busy.CompareAndSwap(false, true) {
		return 0, ErrConcurrentUse
	}
	defer p.busy.Store(false)
	if err := p.run(x); err != nil {
		return 0, err
	}
	defer p.vm.Reset()
	p.readWatched()
	f, err := scalarOf(*p.lossVal)
	if err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
		err = fmt.Errorf("ad: the loss is %v at finite parameters and data: an op of the graph overflowed or left its domain", f)
	}
	return f, err
}

// checkX names the first NaN or Inf of x by parameter block and index.
func (p *Program) checkX(x []float64) error {
	for i, pr := range p.params {
		for k, v := range x[p.offsets[i] : p.offsets[i]+pr.Size()] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("ad: parameter %s[%d] = %v", pr.Name, k, v)
			}
		}
	}
	return nil
}

// ErrConcurrentUse is returned when a Program or Scan is called while a call
// on it is running in another goroutine (use Clone: one per goroutine).
var ErrConcurrentUse = errors.New("ad: program used from two goroutines at once (not safe for concurrent use: Clone it, one copy per goroutine)")

// Clone compiles an independent copy of the program (same parameters, build
// function and options, without re-running the self-check), for use in
// another goroutine. Inputs set with SetInput are not copied: the copy
// starts from the values the build function gave them.
func (p *Program) Clone() (*Program, error) {
	opts := append(append([]Option(nil), p.opts...), WithoutSelfCheck())
	if p.noGrad {
		opts = append(opts, WithoutGradient())
	}
	return Compile(p.params, p.build, opts...)
}

func (p *Program) run(x []float64) (err error) {
	if err := p.checkX(x); err != nil {
		return err
	}
	for i := range p.params {
		seg := x[p.offsets[i] : p.offsets[i]+p.params[i].Size()]
		if len(p.params[i].Shape) == 0 {
			if err := G.Let(p.paramNode[i], G.NewF64(seg[0])); err != nil {
				return err
			}
			continue
		}
		copy(p.paramData[i], seg)
		if err := G.Let(p.paramNode[i], p.paramVal[i]); err != nil {
			return err
		}
	}
	for _, in := range p.g.inputs {
		var v G.Value = in.val
		if in.val == nil { // a scalar input
			v = G.NewF64(in.data[0])
		}
		if err := G.Let(in.node, v); err != nil {
			return err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			p.vm.Reset()
			err = fmt.Errorf("ad: running graph: %v", r)
		}
	}()
	if err := p.vm.RunAll(); err != nil {
		p.vm.Reset()
		return fmt.Errorf("ad: running graph: %w", err)
	}
	return nil
}

func scalarOf(v G.Value) (float64, error) {
	if v == nil {
		return 0, errors.New("ad: loss has no value")
	}
	switch d := v.Data().(type) {
	case float64:
		return d, nil
	case []float64:
		if len(d) == 1 {
			return d[0], nil
		}
	}
	return 0, fmt.Errorf("ad: loss value %v is not a float64 scalar", v)
}

func copyValue(dst []float64, v G.Value, name string) error {
	if v == nil {
		return fmt.Errorf("ad: gradient of %s has no value", name)
	}
	switch d := v.Data().(type) {
	case float64:
		if len(dst) != 1 {
			return fmt.Errorf("ad: gradient of %s is a scalar, want %d values", name, len(dst))
		}
		dst[0] = d
	case []float64:
		if len(d) != len(dst) {
			return fmt.Errorf("ad: gradient of %s has %d values, want %d", name, len(d), len(dst))
		}
		copy(dst, d)
	default:
		return fmt.Errorf("ad: gradient of %s is %T", name, d)
	}
	return nil
}

// Eval has the signature of opt.Objective, so a Program can be handed to an
// optimiser as Objective: prog.Eval. With a nil grad only the value is read.
func (p *Program) Eval(x, grad []float64) (float64, error) {
	if grad == nil || p.noGrad {
		if grad != nil {
			return 0, errors.New("ad: program compiled WithoutGradient")
		}
		return p.Value(x)
	}
	return p.ValueAndGradInto(x, grad)
}
