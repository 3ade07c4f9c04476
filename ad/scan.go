package ad

import (
	"errors"
	"fmt"
	"sync/atomic"

	G "gorgonia.org/gorgonia"
)

// StepFunc builds one step of a rollout: from the state vectors and this
// step's input vectors to the next state and this step's loss term (nil when
// the step adds none). It is a pure function of (params, state, input), as a
// Brax or JAX step is; per-step data goes through input, never through
// constants, because the same chunk graph serves every chunk.
type StepFunc func(g *Graph, params, state, input []*G.Node) (next []*G.Node, loss *G.Node, err error)

// TerminalFunc builds a loss on the final state (optional).
type TerminalFunc func(g *Graph, params, state []*G.Node) (*G.Node, error)

// ScanSpec describes a rollout to differentiate.
type ScanSpec struct {
	Params   []Param
	State    []int // length of each state vector
	Inputs   []int // length of each per-step input vector (none: nil)
	Chunk    int   // steps per chunk graph; default 100
	Step     StepFunc
	Terminal TerminalFunc
}

// Rollout is one evaluation's data: the initial state and the per-step
// inputs. Inputs[j] holds input j for every step, step k at
// Inputs[j][k·n_j:(k+1)·n_j] (n_j = ScanSpec.Inputs[j]). Steps is the number
// of steps; with inputs it must equal len(Inputs[j])/n_j.
type Rollout struct {
	State0 [][]float64
	Inputs [][]float64
	Steps  int
}

// Scan rolls a step function over any number of steps through chunk graphs
// of bounded size and returns the loss and its gradient with respect to the
// parameters and the initial state.
//
// The forward sweep runs a forward-only chunk graph chunk by chunk and keeps
// the state at each chunk boundary (the checkpoints). The backward sweep
// visits the chunks from the last: chunk c's graph computes
// J_c = L_c + Σ_j ⟨a_j, s_j(end of c)⟩ with the adjoint a = ∂L/∂s(end of c)
// fed in as data, so ∂J_c/∂s(start of c) is the adjoint for chunk c−1 and
// ∂J_c/∂params is chunk c's share of the parameter gradient. Memory is the
// chunk graph plus one state per chunk, whatever the horizon; the price is one
// extra forward pass.
type Scan struct {
	spec     ScanSpec
	opts     []Option
	nparam   int
	nstate   int
	fwd, bwd map[int]*Program // by chunk length
	term     *Program
	// scratch
	grad []float64
	x    []float64
	busy atomic.Bool
}

// Clone compiles an independent copy of the scan for another goroutine.
// A Scan is not safe for concurrent use: a second concurrent call returns
// ErrConcurrentUse.
func (s *Scan) Clone() (*Scan, error) { return NewScan(s.spec, s.opts...) }

// NewScan compiles the chunk graphs (the full chunk now; a shorter last
// chunk on first use).
func NewScan(spec ScanSpec, opts ...Option) (*Scan, error) {
	if spec.Step == nil {
		return nil, errors.New("ad: scan needs a step function")
	}
	if len(spec.State) == 0 {
		return nil, errors.New("ad: scan needs a state")
	}
	for j, n := range spec.State {
		if n <= 0 {
			return nil, fmt.Errorf("ad: state %d has length %d", j, n)
		}
	}
	for j, n := range spec.Inputs {
		if n <= 0 {
			return nil, fmt.Errorf("ad: input %d has length %d", j, n)
		}
	}
	if spec.Chunk <= 0 {
		spec.Chunk = 100
	}
	s := &Scan{spec: spec, opts: opts, fwd: map[int]*Program{}, bwd: map[int]*Program{}}
	for _, p := range spec.Params {
		s.nparam += p.Size()
	}
	for _, n := range spec.State {
		s.nstate += n
	}
	if _, _, err := s.chunk(spec.Chunk); err != nil {
		return nil, err
	}
	if spec.Terminal != nil {
		params := append(append([]Param(nil), spec.Params...), s.stateParams()...)
		np := len(spec.Params)
		t, err := Compile(params, func(g *Graph, pn []*G.Node) (*G.Node, error) {
			return spec.Terminal(g, pn[:np], pn[np:])
		}, append(append([]Option(nil), opts...), WithUnusedParams())...)
		if err != nil {
			return nil, fmt.Errorf("ad: terminal loss: %w", err)
		}
		s.term = t
	}
	s.grad = make([]float64, s.nparam+s.nstate)
	s.x = make([]float64, s.nparam+s.nstate)
	return s, nil
}

func (s *Scan) stateParams() []Param {
	var ps []Param
	for j, n := range s.spec.State {
		ps = append(ps, Param{Name: fmt.Sprintf("state0·%d", j), Shape: []int{n}})
	}
	return ps
}

func inputName(k, j int) string { return fmt.Sprintf("in·%d·%d", k, j) }
func adjName(j int) string      { return fmt.Sprintf("adj·%d", j) }
func finalName(j int) string    { return fmt.Sprintf("final·%d", j) }

// chunk returns the forward-only and the adjoint programs for n steps.
func (s *Scan) chunk(n int) (fwd, bwd *Program, err error) {
	if p, ok := s.fwd[n]; ok {
		return p, s.bwd[n], nil
	}
	spec := s.spec
	np := len(spec.Params)
	params := append(append([]Param(nil), spec.Params...), s.stateParams()...)
	build := func(adjoint bool) BuildFunc {
		return func(g *Graph, pn []*G.Node) (*G.Node, error) {
			state := pn[np:]
			var loss *G.Node
			for k := range n {
				in := make([]*G.Node, len(spec.Inputs))
				for j, m := range spec.Inputs {
					var err error
					if in[j], err = g.Input(inputName(k, j), make([]float64, m)); err != nil {
						return nil, err
					}
				}
				next, l, err := spec.Step(g, pn[:np], state, in)
				if err != nil {
					return nil, fmt.Errorf("step %d of the chunk: %w", k, err)
				}
				if len(next) != len(state) {
					return nil, fmt.Errorf("step returned %d state vectors, want %d", len(next), len(state))
				}
				state = next
				if l != nil {
					if loss == nil {
						loss = l
					} else if loss, err = G.Add(loss, l); err != nil {
						return nil, err
					}
				}
			}
			for j, sj := range state {
				g.Watch(finalName(j), sj)
				if !adjoint {
					continue
				}
				a, err := g.Input(adjName(j), make([]float64, spec.State[j]))
				if err != nil {
					return nil, err
				}
				dot, err := G.Sum(G.Must(G.HadamardProd(a, sj)))
				if err != nil {
					return nil, err
				}
				if loss == nil {
					loss = dot
				} else if loss, err = G.Add(loss, dot); err != nil {
					return nil, err
				}
			}
			if loss == nil {
				loss = g.Scalar(0)
			}
			return loss, nil
		}
	}
	fwdOpts := append(append([]Option(nil), s.opts...), WithoutGradient())
	if fwd, err = Compile(params, build(false), fwdOpts...); err != nil {
		return nil, nil, fmt.Errorf("ad: scan chunk of %d steps: %w", n, err)
	}
	// The self-check, if asked for, belongs to the stitched gradient, not to
	// each chunk; drop it here.
	var bwdOpts []Option
	for _, o := range s.opts {
		var c config
		o(&c)
		if !c.selfCheck {
			bwdOpts = append(bwdOpts, o)
		}
	}
	// Chunk graphs are checked as part of the stitched gradient, not one by
	// one (their inputs are placeholders at compile time).
	bwdOpts = append(bwdOpts, WithoutSelfCheck())
	if bwd, err = Compile(params, build(true), bwdOpts...); err != nil {
		return nil, nil, fmt.Errorf("ad: scan chunk of %d steps: %w", n, err)
	}
	s.fwd[n], s.bwd[n] = fwd, bwd
	return fwd, bwd, nil
}

// Dim is the number of parameters (the length of x).
func (s *Scan) Dim() int { return s.nparam }

// Nodes is the node count of the largest chunk graph.
func (s *Scan) Nodes() int { return s.bwd[s.spec.Chunk].Nodes() }

func (s *Scan) check(x []float64, r Rollout) error {
	if len(x) != s.nparam {
		return fmt.Errorf("ad: x has %d values, the scan has %d parameters", len(x), s.nparam)
	}
	if r.Steps <= 0 {
		return fmt.Errorf("ad: rollout of %d steps", r.Steps)
	}
	if len(r.State0) != len(s.spec.State) {
		return fmt.Errorf("ad: %d initial state vectors, want %d", len(r.State0), len(s.spec.State))
	}
	for j, v := range r.State0 {
		if len(v) != s.spec.State[j] {
			return fmt.Errorf("ad: initial state %d has %d values, want %d", j, len(v), s.spec.State[j])
		}
	}
	if len(r.Inputs) != len(s.spec.Inputs) {
		return fmt.Errorf("ad: %d input series, want %d", len(r.Inputs), len(s.spec.Inputs))
	}
	for j, v := range r.Inputs {
		if len(v) != r.Steps*s.spec.Inputs[j] {
			return fmt.Errorf("ad: input %d has %d values for %d steps of %d", j, len(v), r.Steps, s.spec.Inputs[j])
		}
	}
	return nil
}

// load sets the parameters and a chunk's initial state into s.x, and the
// chunk's inputs into p.
func (s *Scan) load(p *Program, x []float64, state []float64, r Rollout, first, n int) error {
	copy(s.x, x)
	copy(s.x[s.nparam:], state)
	for k := range n {
		for j, m := range s.spec.Inputs {
			if err := p.SetInput(inputName(k, j), r.Inputs[j][(first+k)*m:(first+k+1)*m]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Value rolls forward and returns the loss (and the final state).
func (s *Scan) Value(x []float64, r Rollout) (float64, [][]float64, error) {
	if !s.busy.CompareAndSwap(false, true) {
		return 0, nil, ErrConcurrentUse
	}
	defer s.busy.Store(false)
	f, _, final, err := s.forward(x, r, false)
	return f, final, err
}

// forward runs the chunks; with keep it returns the checkpoints (the flat
// state at the start of each chunk).
func (s *Scan) forward(x []float64, r Rollout, keep bool) (float64, [][]float64, [][]float64, error) {
	if err := s.check(x, r); err != nil {
		return 0, nil, nil, err
	}
	state := make([]float64, 0, s.nstate)
	for _, v := range r.State0 {
		state = append(state, v...)
	}
	var checkpoints [][]float64
	var f float64
	for first := 0; first < r.Steps; first += s.spec.Chunk {
		n := min(s.spec.Chunk, r.Steps-first)
		fwd, _, err := s.chunk(n)
		if err != nil {
			return 0, nil, nil, err
		}
		if keep {
			checkpoints = append(checkpoints, append([]float64(nil), state...))
		}
		if err := s.load(fwd, x, state, r, first, n); err != nil {
			return 0, nil, nil, err
		}
		l, err := fwd.Value(s.x)
		if err != nil {
			return 0, nil, nil, fmt.Errorf("ad: scan steps %d–%d: %w", first, first+n-1, err)
		}
		f += l
		off := 0
		for j, m := range s.spec.State {
			out := fwd.Output(finalName(j))
			if len(out) != m {
				return 0, nil, nil, fmt.Errorf("ad: scan: final state %d has %d values, want %d", j, len(out), m)
			}
			copy(state[off:off+m], out)
			off += m
		}
	}
	final := make([][]float64, len(s.spec.State))
	off := 0
	for j, m := range s.spec.State {
		final[j] = append([]float64(nil), state[off:off+m]...)
		off += m
	}
	if s.term != nil {
		copy(s.x, x)
		copy(s.x[s.nparam:], state)
		l, err := s.term.Value(s.x)
		if err != nil {
			return 0, nil, nil, fmt.Errorf("ad: terminal loss: %w", err)
		}
		f += l
		checkpoints = append(checkpoints, append([]float64(nil), state...)) // the final state, for the terminal gradient
	}
	return f, checkpoints, final, nil
}

// ValueAndGrad returns the loss, its gradient with respect to x, and its
// gradient with respect to the initial state (one slice per state vector).
func (s *Scan) ValueAndGrad(x []float64, r Rollout) (f float64, grad []float64, dState0 [][]float64, err error) {
	if !s.busy.CompareAndSwap(false, true) {
		return 0, nil, nil, ErrConcurrentUse
	}
	defer s.busy.Store(false)
	f, checkpoints, _, err := s.forward(x, r, true)
	if err != nil {
		return 0, nil, nil, err
	}
	grad = make([]float64, s.nparam)
	adj := make([]float64, s.nstate) // ∂L/∂(state at the end of the current chunk)
	if s.term != nil {
		last := checkpoints[len(checkpoints)-1]
		checkpoints = checkpoints[:len(checkpoints)-1]
		copy(s.x, x)
		copy(s.x[s.nparam:], last)
		if _, err := s.term.ValueAndGradInto(s.x, s.grad); err != nil {
			return 0, nil, nil, fmt.Errorf("ad: terminal loss: %w", err)
		}
		for i := range grad {
			grad[i] += s.grad[i]
		}
		copy(adj, s.grad[s.nparam:])
	}
	for c := len(checkpoints) - 1; c >= 0; c-- {
		first := c * s.spec.Chunk
		n := min(s.spec.Chunk, r.Steps-first)
		_, bwd, err := s.chunk(n)
		if err != nil {
			return 0, nil, nil, err
		}
		if err := s.load(bwd, x, checkpoints[c], r, first, n); err != nil {
			return 0, nil, nil, err
		}
		off := 0
		for j, m := range s.spec.State {
			if err := bwd.SetInput(adjName(j), adj[off:off+m]); err != nil {
				return 0, nil, nil, err
			}
			off += m
		}
		if _, err := bwd.ValueAndGradInto(s.x, s.grad); err != nil {
			return 0, nil, nil, fmt.Errorf("ad: scan steps %d–%d: %w", first, first+n-1, err)
		}
		for i := range grad {
			grad[i] += s.grad[i]
		}
		copy(adj, s.grad[s.nparam:])
	}
	dState0 = make([][]float64, len(s.spec.State))
	off := 0
	for j, m := range s.spec.State {
		dState0[j] = append([]float64(nil), adj[off:off+m]...)
		off += m
	}
	return f, grad, dState0, nil
}
