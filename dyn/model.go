package dyn

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"sync/atomic"
)

// Spec names the lanes of a model. Every name is an identifier that is
// unique within its list; a model needs at least one state.
//
//   - State: the state carried from step to step (each needs a Next).
//   - Input: per-step data of each lane: controls, the step length dt of a
//     log row, measurements a Cost compares with. Gradients reach inputs,
//     so controls can be synthesised.
//   - Params: physical parameters shared by the whole batch; gradients reach
//     them.
//   - Settings: shared scalars that are never differentiated: temperatures
//     of friction surrogates to anneal, known constants (axle length, step h).
//   - Outputs: what the rollout records after every step (each needs an
//     Output). Without Outputs a model records its next states.
type Spec struct {
	Name     string
	State    []string
	Input    []string
	Params   []string
	Settings []string
	Outputs  []string

	// AllowUnused accepts parameters and inputs that reach no result
	// (they are listed by Model.Unused); without it they are an error of
	// the definition.
	AllowUnused bool
}

// Step is what a definition receives: the lanes of the step as
// expressions, and the methods that declare its results.
type Step struct {
	t      *tape
	spec   *Spec
	next   []X
	out    []X
	cost   X
	hasC   bool
	index  map[string]map[string]int
	leaves map[opcode][]X
}

func (s *Step) leaf(kind opcode, list, name string) X {
	k, ok := s.index[list][name]
	if !ok {
		panic(fmt.Sprintf("dyn: %s: no %s named %q (declared: %s)", s.spec.Name, list, name, strings.Join(s.names(list), ", ")))
	}
	return s.leaves[kind][k]
}

func (s *Step) names(list string) []string {
	switch list {
	case "state":
		return s.spec.State
	case "input":
		return s.spec.Input
	case "param":
		return s.spec.Params
	case "setting":
		return s.spec.Settings
	}
	return s.spec.Outputs
}

// State is the value of a state lane at the start of the step.
func (s *Step) State(name string) X { return s.leaf(opState, "state", name) }

// Input is this step's value of an input lane.
func (s *Step) Input(name string) X { return s.leaf(opInput, "input", name) }

// Param is a parameter.
func (s *Step) Param(name string) X { return s.leaf(opParam, "param", name) }

// Setting is a setting (never differentiated).
func (s *Step) Setting(name string) X { return s.leaf(opSetting, "setting", name) }

// Const is a constant.
func (s *Step) Const(v float64) X { return s.t.constant(v) }

// Next declares the value of a state lane after the step.
func (s *Step) Next(name string, v X) {
	k, ok := s.index["state"][name]
	if !ok {
		panic(fmt.Sprintf("dyn: %s: Next of %q, which is not a state (declared: %s)", s.spec.Name, name, strings.Join(s.spec.State, ", ")))
	}
	v.check(s.leaves[opState][0])
	if s.next[k].t != nil {
		panic(fmt.Sprintf("dyn: %s: Next(%q) declared twice", s.spec.Name, name))
	}
	s.next[k] = v
}

// Output declares an output recorded after the step.
func (s *Step) Output(name string, v X) {
	k, ok := s.index["output"][name]
	if !ok {
		panic(fmt.Sprintf("dyn: %s: Output(%q), which is not a declared output (declared: %s)", s.spec.Name, name, strings.Join(s.spec.Outputs, ", ")))
	}
	v.check(s.leaves[opState][0])
	if s.out[k].t != nil {
		panic(fmt.Sprintf("dyn: %s: Output(%q) declared twice", s.spec.Name, name))
	}
	s.out[k] = v
}

// Cost adds v to the step's running cost, which a rollout sums over steps
// and lanes (a quadrature, as in CasADi's integrators). A loss that is a
// sum over steps of a per-step error is cheapest written here: the data
// it compares with come in as inputs.
func (s *Step) Cost(v X) {
	v.check(s.leaves[opState][0])
	if s.hasC {
		s.cost = s.cost.Add(v)
		return
	}
	s.cost, s.hasC = v, true
}

// Model is a compiled step definition: the native step and rollout, the
// generated reverse pass and Jacobians, and the gorgonia op all come from
// it. A Model is immutable and safe for concurrent use; the objects made
// from it (Sim, Stepper, the graph ops) are not, make one per goroutine.
type Model struct {
	spec Spec
	prog *program
	hash string
	gen  atomic.Pointer[genKernel]

	unused       []string
	stale        atomic.Pointer[error] // a refused generated kernel (UseGenerated)
	checkOnce    sync.Mutex
	inconclusive int // self-checks that found switches on both sides (under checkOnce)
	last         atomic.Pointer[Check]
	checked      atomic.Bool
	lastCheck    atomic.Uint64 // math.Float64bits of the last self-check error
}

// program is the tape after dead-code elimination: nodes in topological
// order, leaves first in the order they were used.
type program struct {
	nodes   []node
	next    []int32 // per state
	out     []int32 // per output
	cost    int32   // −1: no cost
	leafOf  [opSetting + 1][]int32
	firstOp int32
}

// Define traces def once and compiles the step. The errors are about the
// definition (unknown names, a state without Next, an output declared twice).
func Define(spec Spec, def func(s *Step)) (m *Model, err error) {
	if spec.Name == "" {
		spec.Name = "model"
	}
	if len(spec.State) == 0 {
		return nil, fmt.Errorf("dyn: %s: a model needs at least one state", spec.Name)
	}
	if len(spec.Outputs) == 0 {
		spec.Outputs = append([]string(nil), spec.State...)
	}
	s := &Step{t: newTape(), spec: &spec, index: map[string]map[string]int{}, leaves: map[opcode][]X{}}
	for _, l := range []struct {
		kind  opcode
		list  string
		names []string
	}{{opState, "state", spec.State}, {opInput, "input", spec.Input}, {opParam, "param", spec.Params},
		{opSetting, "setting", spec.Settings}, {numOps, "output", spec.Outputs}} {
		s.index[l.list] = map[string]int{}
		for k, n := range l.names {
			if !isIdent(n) {
				return nil, fmt.Errorf("dyn: %s: %s name %q is not an identifier", spec.Name, l.list, n)
			}
			if _, dup := s.index[l.list][n]; dup {
				return nil, fmt.Errorf("dyn: %s: %s %q declared twice", spec.Name, l.list, n)
			}
			s.index[l.list][n] = k
			if l.kind != numOps {
				// Leaves are recorded eagerly so that their node is theirs
				// alone (an unused leaf is dropped by dead-code elimination).
				s.leaves[l.kind] = append(s.leaves[l.kind], s.t.add(node{op: l.kind, k: float64(k)}))
			}
		}
	}
	s.next = make([]X, len(spec.State))
	s.out = make([]X, len(spec.Outputs))
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("%v", r)
		}
	}()
	def(s)
	if len(spec.Outputs) == len(spec.State) && sameNames(spec.Outputs, spec.State) {
		for k := range s.out {
			if s.out[k].t == nil {
				s.out[k] = s.next[k]
			}
		}
	}
	for k, v := range s.next {
		if v.t == nil {
			return nil, fmt.Errorf("dyn: %s: state %q has no Next", spec.Name, spec.State[k])
		}
	}
	for k, v := range s.out {
		if v.t == nil {
			return nil, fmt.Errorf("dyn: %s: output %q is never set with Output", spec.Name, spec.Outputs[k])
		}
	}
	m = &Model{spec: spec}
	m.prog = compile(s)
	m.hash = m.prog.hash(&spec)
	m.unused = m.findUnused()
	if len(m.unused) > 0 && !spec.AllowUnused {
		return nil, fmt.Errorf("dyn: %s: %s never reach a result (Next, Output or Cost): a typo, or a parameter the optimiser could move without effect; Spec.AllowUnused accepts them (Model.Unused lists them)", spec.Name, strings.Join(m.unused, ", "))
	}
	return m, nil
}

// MustDefine is Define for package-level models; it panics on an error in
// the definition (a programming error, caught by the package's tests).
func MustDefine(spec Spec, def func(s *Step)) *Model {
	m, err := Define(spec, def)
	if err != nil {
		panic(err)
	}
	return m
}

func sameNames(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9') {
			continue
		}
		return false
	}
	return true
}

// compile keeps the nodes that reach a result and renumbers them.
func compile(s *Step) *program {
	t := s.t
	live := make([]bool, len(t.nodes))
	var mark func(i int32)
	mark = func(i int32) {
		if live[i] {
			return
		}
		live[i] = true
		n := t.nodes[i]
		ops := [3]int32{n.a, n.b, n.c}
		for j := range n.op.arity() {
			mark(ops[j])
		}
	}
	for _, v := range s.next {
		mark(v.i)
	}
	for _, v := range s.out {
		mark(v.i)
	}
	if s.hasC {
		mark(s.cost.i)
	}
	// Leaves first, then constants, then ops in tape order (which is
	// topological: an op only refers to earlier nodes).
	newID := make([]int32, len(t.nodes))
	p := &program{cost: -1}
	for pass := 0; pass < 3; pass++ {
		for i, n := range t.nodes {
			if !live[i] {
				continue
			}
			isLeaf, isConst := n.op.isLeaf() && n.op != opConst, n.op == opConst
			if (pass == 0) != isLeaf || (pass == 1) != isConst {
				continue
			}
			newID[i] = int32(len(p.nodes))
			m := n
			ops := [3]*int32{&m.a, &m.b, &m.c}
			for j := range n.op.arity() {
				*ops[j] = newID[*ops[j]]
			}
			p.nodes = append(p.nodes, m)
		}
		if pass == 1 {
			p.firstOp = int32(len(p.nodes))
		}
	}
	counts := [opSetting + 1]int{opState: len(s.spec.State), opInput: len(s.spec.Input), opParam: len(s.spec.Params), opSetting: len(s.spec.Settings)}
	for kind := opState; kind <= opSetting; kind++ {
		p.leafOf[kind] = make([]int32, counts[kind])
		for k := range p.leafOf[kind] {
			p.leafOf[kind][k] = -1
		}
	}
	for i, n := range p.nodes[:p.firstOp] {
		if n.op != opConst {
			p.leafOf[n.op][int(n.k)] = int32(i)
		}
	}
	for _, v := range s.next {
		p.next = append(p.next, newID[v.i])
	}
	for _, v := range s.out {
		p.out = append(p.out, newID[v.i])
	}
	if s.hasC {
		p.cost = newID[s.cost.i]
	}
	return p
}

func (p *program) hash(spec *Spec) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%q|%q|%q|%q|%q|", spec.Name, spec.State, spec.Input, spec.Params, spec.Settings, spec.Outputs)
	for _, n := range p.nodes {
		fmt.Fprintf(h, "%d,%d,%d,%d,%x;", n.op, n.a, n.b, n.c, math.Float64bits(n.k))
	}
	fmt.Fprintf(h, "%v|%v|%d", p.next, p.out, p.cost)
	return fmt.Sprintf("%016x", h.Sum64())
}

// findUnused names the parameters and inputs that reach no result.
func (m *Model) findUnused() []string {
	var out []string
	for k, id := range m.prog.leafOf[opParam] {
		if id < 0 {
			out = append(out, "parameter "+m.spec.Params[k])
		}
	}
	for k, id := range m.prog.leafOf[opInput] {
		if id < 0 {
			out = append(out, "input "+m.spec.Input[k])
		}
	}
	return out
}

// Unused lists the parameters and inputs that reach no result ("parameter
// mu", "input dt"), accepted because the Spec says AllowUnused: their
// gradient is always zero.
func (m *Model) Unused() []string { return append([]string(nil), m.unused...) }

// Name is the model's name.
func (m *Model) Name() string { return m.spec.Name }

// Spec returns a copy of the model's lane names.
func (m *Model) Spec() Spec {
	s := m.spec
	for _, l := range []*[]string{&s.State, &s.Input, &s.Params, &s.Settings, &s.Outputs} {
		*l = append([]string(nil), (*l)...)
	}
	return s
}

// NS, NU, NP, NQ and NY are the numbers of states, inputs, parameters,
// settings and outputs.
func (m *Model) NS() int { return len(m.spec.State) }
func (m *Model) NU() int { return len(m.spec.Input) }
func (m *Model) NP() int { return len(m.spec.Params) }
func (m *Model) NQ() int { return len(m.spec.Settings) }
func (m *Model) NY() int { return len(m.spec.Outputs) }

// HasCost reports whether the step declares a Cost.
func (m *Model) HasCost() bool { return m.prog.cost >= 0 }

// Ops is the number of instructions of the compiled step (after common
// subexpressions are shared, constants folded and dead code removed).
func (m *Model) Ops() int { return len(m.prog.nodes) - int(m.prog.firstOp) }

// Hash identifies the compiled step; generated kernels carry it so that a
// stale one is refused.
func (m *Model) Hash() string { return m.hash }

// Index returns the position of a name in one of the lists "state",
// "input", "param", "setting", "output", or −1.
func (m *Model) Index(list, name string) int {
	var names []string
	switch list {
	case "state":
		names = m.spec.State
	case "input":
		names = m.spec.Input
	case "param":
		names = m.spec.Params
	case "setting":
		names = m.spec.Settings
	case "output":
		names = m.spec.Outputs
	}
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// Kernel evaluates the step over a batch of n lanes at one time step. The
// layouts are lane-minor: state k of lane j at x[k·n + j], input k at
// u[k·n + j], output c at y[c·ys + j]. Forward writes the next state into xn
// and the outputs into y (y may be nil) and returns the step's cost summed
// over the lanes. Reverse recomputes the step and, given the adjoints of
// the next state (axn), of the outputs (ay, may be nil) and of the cost
// (ac), writes the adjoints of x into ax and of u into au and adds those of
// the parameters into ap.
//
// Two implementations exist: the interpreter of the traced step (always),
// and Go code generated from it by Generate (when a package registers it).
type Kernel interface {
	Forward(n int, p, q, x, u, xn, y []float64, ys int) float64
	Reverse(n int, p, q, x, u, axn, ay []float64, ys int, ac float64, ax, au, ap []float64)
}

// Roller is implemented by generated kernels: a whole rollout of n lanes
// over T steps with the time loop inside each lane's loop, the state kept
// in registers. X is [T+1][S][n] with X[:S·n] the initial state on entry;
// u is [T][U][n]; y is [NY][T][n] or nil. It returns the summed cost.
type Roller interface {
	Roll(n, T int, p, q, X, u, y []float64) float64
}

// RollBacker is implemented by generated kernels: Sim.Backward's whole
// reverse sweep (same arguments, X the states of the forward pass) with the
// time loop inside each lane's loop, the state adjoint kept in registers.
// It adds into pbar and writes x0bar and ubar when they are not nil.
type RollBacker interface {
	RollBack(n, T int, p, q, X, u, ybar []float64, cbar float64, xTbar, pbar, x0bar, ubar []float64)
}

// genKernel is a registered generated kernel.
type genKernel struct {
	k    Kernel
	hash string
}

// ErrStaleKernel is returned by UseGenerated when the generated code no
// longer matches the definition, and then by every Sim, Stepper and Rollout
// of the model that does not opt into the interpreter.
var ErrStaleKernel = errors.New("dyn: generated kernel is stale")

// StepHasher is implemented by the kernels that know the compiled step they
// compute: generated kernels (Generate writes the method) and the
// interpreter. A kernel of another step is refused where a kernel is given
// to a model (NewSimWith, NewStepperWith).
type StepHasher interface {
	StepHash() string
}

// UseGenerated registers a kernel generated by Generate for this model. It
// is refused unless hash equals the model's Hash, so editing a definition
// without regenerating cannot make the fast path silently compute an older
// model; the refusal is recorded (Stale), and from then on NewSim, NewStepper
// and Rollout of the model fail with it unless the caller opts into the
// interpreter (WithInterpreter, NewInterpreter): a stale kernel is never
// replaced by the slower interpreter without a word.
func (m *Model) UseGenerated(k Kernel, hash string) error {
	if hash != m.hash {
		err := fmt.Errorf("%w: %s was generated from step %s, the definition is now step %s; regenerate it (DYN_UPDATE=1 go test -run Generated), or opt into the interpreter (WithInterpreter, NewInterpreter)", ErrStaleKernel, m.spec.Name, hash, m.hash)
		m.stale.Store(&err)
		return err
	}
	m.gen.Store(&genKernel{k: k, hash: hash})
	m.stale.Store(nil)
	return nil
}

// Stale is the error of a generated kernel refused by UseGenerated, or nil.
func (m *Model) Stale() error {
	if e := m.stale.Load(); e != nil {
		return *e
	}
	return nil
}

// Generated reports whether a generated kernel is in use.
func (m *Model) Generated() bool { return m.gen.Load() != nil }

// NewKernel returns the fastest kernel available: the generated one if
// registered, else a new interpreter (which holds scratch memory: one per
// goroutine). When a generated kernel was refused as stale, the interpreter
// returned carries that error: NewSimWith and NewStepperWith refuse it
// (NewInterpreter is the explicit choice of the interpreter).
func (m *Model) NewKernel() Kernel {
	if g := m.gen.Load(); g != nil {
		return g.k
	}
	return &interp{p: m.prog, hash: m.hash, stale: m.Stale()}
}

// NewInterpreter returns an interpreter of the traced step, whatever else is
// registered (the reference the generated kernel is tested against).
func (m *Model) NewInterpreter() Kernel { return &interp{p: m.prog, hash: m.hash} }

// accepts returns an error if k computes another step than m's, or is the
// stand-in for m's stale generated kernel.
func (m *Model) accepts(k Kernel) error {
	if k == nil {
		return fmt.Errorf("dyn: %s: nil kernel", m.spec.Name)
	}
	if in, ok := k.(*interp); ok && in.stale != nil {
		return in.stale
	}
	h, ok := k.(StepHasher)
	if !ok || h.StepHash() == m.hash {
		return nil
	}
	if err := m.Stale(); err != nil {
		return err
	}
	return fmt.Errorf("dyn: %s: the kernel %T computes step %s, not this model's step %s (a kernel of another model?)", m.spec.Name, k, h.StepHash(), m.hash)
}
