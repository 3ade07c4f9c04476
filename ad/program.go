package ad

import (
	"errors"
	"fmt"
	"strings"

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
	n := 1
	for _, d := range shape {
		n *= d
	}
	if n != len(value) {
		return nil, fmt.Errorf("ad: input %q has %d values for shape %v", name, len(value), shape)
	}
	node, val, data := newLeaf(g.ExprGraph, name, shape)
	copy(data, value)
	if err := G.Let(node, val); err != nil {
		return nil, err
	}
	g.inputs[name] = &input{node: node, val: val, data: data}
	return node, nil
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

// WithSelfCheck runs, once after compiling, a directional derivative check at
// x0: the graph's gradient along a random unit direction against the central
// difference of the graph's own forward values. The relative error is
// reported by Program.SelfCheck; when tol > 0 and the error exceeds it,
// Compile fails. It catches gorgonia returning wrong gradients on a graph,
// at the cost of three evaluations.
func WithSelfCheck(x0 []float64, tol float64) Option {
	return func(c *config) {
		c.selfCheck = true
		c.checkX = append([]float64(nil), x0...)
		c.checkTol = tol
	}
}

// Program is a compiled loss-and-gradient graph. Build once, run many.
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
}

// Compile builds the graph with build, differentiates the loss with respect
// to every parameter and compiles it.
func Compile(params []Param, build BuildFunc, opts ...Option) (p *Program, err error) {
	cfg := config{maxNodes: DefaultMaxNodes, checkSeed: 1, checkStep: 1e-6}
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
		var init G.Value = G.NewF64(0)
		if v != nil {
			init = v
		}
		if err := G.Let(n, init); err != nil {
			return nil, err
		}
	}
	loss, err := build(p.g, p.paramNode)
	if err != nil {
		return nil, err
	}
	if loss == nil || !loss.IsScalar() {
		return nil, fmt.Errorf("ad: the loss must be a scalar node, got %v", loss)
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
		rel, err := DirectionalCheck(p.ValueAndGrad, cfg.checkX, cfg.checkStep, cfg.checkSeed)
		if err != nil {
			return nil, fmt.Errorf("ad: self-check: %w", err)
		}
		p.selfCheck = rel
		if cfg.checkTol > 0 && rel > cfg.checkTol {
			return nil, fmt.Errorf("ad: self-check failed: the gradient disagrees with central differences by %.3g (relative) along a random direction, tolerance %.3g", rel, cfg.checkTol)
		}
	}
	return p, nil
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

// SelfCheck is the relative error measured by WithSelfCheck (0 if not run).
func (p *Program) SelfCheck() float64 { return p.selfCheck }

// SetInput replaces the value of a data input declared with Graph.Input.
func (p *Program) SetInput(name string, value []float64) error {
	in, ok := p.g.inputs[name]
	if !ok {
		return fmt.Errorf("ad: no input %q", name)
	}
	if len(value) != len(in.data) {
		return fmt.Errorf("ad: input %q takes %d values, got %d", name, len(in.data), len(value))
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
	if err := p.run(x); err != nil {
		return 0, err
	}
	defer p.vm.Reset()
	f, err = scalarOf(*p.lossVal)
	if err != nil {
		return 0, err
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
	if err := p.run(x); err != nil {
		return 0, err
	}
	defer p.vm.Reset()
	p.readWatched()
	return scalarOf(*p.lossVal)
}

func (p *Program) run(x []float64) (err error) {
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
		if err := G.Let(in.node, in.val); err != nil {
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
