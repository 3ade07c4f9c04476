package dyn

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// Sim rolls a model over B lanes and T steps natively (float64, no
// gorgonia) and differentiates the rollout by its generated reverse pass.
// It keeps the T+1 states of the last Forward (the reverse pass recomputes
// each step from its stored state, so memory is the trajectory, not a
// tape), and allocates nothing per call. Not safe for concurrent use: one
// Sim per goroutine; a call made while another runs returns
// ErrConcurrentUse instead of a wrong number.
//
// Layouts (lane-minor, so that a step is contiguous):
//
//	x0   [S][B]      state k of lane j at k·B + j
//	u    [T][U][B]   input k of lane j at step t at (t·U + k)·B + j
//	y    [NY][T][B]  output c of lane j after step t at (c·T + t)·B + j
//	xT   [S][B]      the final state
type Sim struct {
	m     *Model
	k     Kernel
	B, T  int
	X     []float64 // (T+1)·S·B states; X[t·S·B:] is the state before step t
	lam   [2][]float64
	au    []float64
	cost  float64
	seeds []float64 // FinalJacobian's adjoints

	// Value and Jacobian store no trajectory (stale: X holds x0 and the
	// final state only); tin is the forward-mode interpreter, vx Value's
	// two state buffers.
	stale bool
	tin   *fwdInterp
	vx    [2][]float64

	cfg  opConfig
	err  error       // from construction (a stale generated kernel): every call returns it
	busy atomic.Bool // a call is running (see ErrConcurrentUse)
	ran  bool        // Forward has run
}

// ErrConcurrentUse is returned when a Sim or Stepper is called while a call
// on it is running in another goroutine: they hold scratch memory, and two
// goroutines sharing one would compute wrong numbers without it.
var ErrConcurrentUse = errors.New("dyn: Sim or Stepper used from two goroutines at once (not safe for concurrent use: make one per goroutine)")

// NewSim prepares a rollout of B lanes over T steps with the model's
// fastest kernel. The options are Rollout's that apply: WithoutSelfCheck,
// WithCheckTol (the first Backward of a model checks its gradient, as the
// op does) and WithInterpreter. If the model's generated kernel is stale
// (see UseGenerated), every call of the Sim returns that error unless
// WithInterpreter opts into the interpreter.
func (m *Model) NewSim(B, T int, opts ...OpOption) *Sim {
	cfg := newConfig(opts)
	k := m.NewKernel()
	if cfg.interp {
		k = m.NewInterpreter()
	}
	s, err := m.NewSimWith(k, B, T, opts...)
	if err != nil {
		s = m.newSim(k, B, T, cfg)
		s.err = err
	}
	return s
}

// NewSimWith is NewSim with a given kernel (the interpreter, to compare).
// A kernel of another step definition (another model's generated kernel or
// interpreter, or this model's stale generated kernel) is refused.
func (m *Model) NewSimWith(k Kernel, B, T int, opts ...OpOption) (*Sim, error) {
	if err := m.accepts(k); err != nil {
		return nil, err
	}
	if B < 1 || T < 1 {
		return nil, fmt.Errorf("dyn: %s: B = %d lanes and T = %d steps, want ≥ 1", m.spec.Name, B, T)
	}
	return m.newSim(k, B, T, newConfig(opts)), nil
}

func (m *Model) newSim(k Kernel, B, T int, cfg opConfig) *Sim {
	S := m.NS()
	B, T = max(B, 1), max(T, 1)
	return &Sim{m: m, k: k, B: B, T: T, X: make([]float64, (T+1)*S*B), cfg: cfg,
		lam: [2][]float64{make([]float64, S*B), make([]float64, S*B)}, au: make([]float64, m.NU()*B)}
}

// enter marks the Sim busy; it returns the construction error or
// ErrConcurrentUse. A nil error must be followed by s.busy.Store(false).
func (s *Sim) enter() error {
	if s.err != nil {
		return s.err
	}
	if !s.busy.CompareAndSwap(false, true) {
		return ErrConcurrentUse
	}
	return nil
}

// Model is the simulated model.
func (s *Sim) Model() *Model { return s.m }

// Final is the state after the last step of the last Forward, [S][B].
func (s *Sim) Final() []float64 {
	n := s.m.NS() * s.B
	return s.X[s.T*n : (s.T+1)*n]
}

// State is the state before step t (t = T: the final state).
func (s *Sim) State(t int) []float64 {
	n := s.m.NS() * s.B
	return s.X[t*n : (t+1)*n]
}

func (s *Sim) checkLens(p, q, x0, u []float64) error {
	m := s.m
	for _, c := range []struct {
		what string
		got  int
		want int
	}{{"parameters", len(p), m.NP()}, {"settings", len(q), m.NQ()}, {"initial states", len(x0), m.NS() * s.B},
		{"inputs", len(u), s.T * m.NU() * s.B}} {
		if c.got != c.want {
			return fmt.Errorf("dyn: %s: %d %s, want %d", m.spec.Name, c.got, c.what, c.want)
		}
	}
	return nil
}

// CheckFinite returns an error naming the first NaN or Inf among the
// rollout's data: the parameter, setting, initial state or input (with its
// lane and step) where it entered.
func (s *Sim) CheckFinite(p, q, x0, u []float64) error {
	m := s.m
	for k, v := range p {
		if !finite(v) {
			return fmt.Errorf("dyn: %s: parameter %s = %v", m.spec.Name, m.spec.Params[k], v)
		}
	}
	for k, v := range q {
		if !finite(v) {
			return fmt.Errorf("dyn: %s: setting %s = %v", m.spec.Name, m.spec.Settings[k], v)
		}
	}
	for i, v := range x0 {
		if !finite(v) {
			return fmt.Errorf("dyn: %s: initial state %s of lane %d = %v", m.spec.Name, m.spec.State[i/s.B], i%s.B, v)
		}
	}
	U := m.NU()
	for i, v := range u {
		if !finite(v) {
			t, r := i/(U*s.B), i%(U*s.B)
			return fmt.Errorf("dyn: %s: input %s of lane %d at step %d = %v", m.spec.Name, m.spec.Input[r/s.B], r%s.B, t, v)
		}
	}
	return nil
}

// finite is false for NaN and ±Inf (v − v is NaN for both).
func finite(v float64) bool { return v-v == 0 }

// Forward rolls the model from x0 under u and returns the summed cost; the
// outputs go into y (len NY·T·B, or nil). Non-finite data are an error
// naming where they entered, and so is a rollout that diverges (the state
// and step where it first became non-finite).
func (s *Sim) Forward(p, q, x0, u, y []float64) (float64, error) {
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.busy.Store(false)
	s.ran = false
	if err := s.checkLens(p, q, x0, u); err != nil {
		return 0, err
	}
	if y != nil && len(y) != s.m.NY()*s.T*s.B {
		return 0, fmt.Errorf("dyn: %s: %d output values, want %d", s.m.spec.Name, len(y), s.m.NY()*s.T*s.B)
	}
	// The shared data and the initial state are checked every time (they
	// are small); the inputs, as long as the trajectory, only when the
	// rollout ends non-finite, to name where a NaN entered.
	if err := s.CheckFinite(p, q, x0, nil); err != nil {
		return 0, err
	}
	c := s.forward(p, q, x0, u, y)
	if !finite(c) || !allFinite(s.Final()) {
		if err := s.CheckFinite(nil, nil, nil, u); err != nil {
			return c, err
		}
		return c, s.divergence()
	}
	s.ran = true
	return c, nil
}

func (s *Sim) forward(p, q, x0, u, y []float64) float64 {
	S, U, B := s.m.NS(), s.m.NU(), s.B
	copy(s.X[:S*B], x0)
	s.stale = false
	if r, ok := s.k.(Roller); ok {
		s.cost = r.Roll(B, s.T, p, q, s.X, u, y)
		return s.cost
	}
	var cost float64
	ys := s.T * B
	for t := range s.T {
		var yt []float64
		if y != nil {
			yt = y[t*B:]
		}
		cost += s.k.Forward(B, p, q, s.X[t*S*B:(t+1)*S*B], u[t*U*B:(t+1)*U*B], s.X[(t+1)*S*B:(t+2)*S*B], yt, ys)
	}
	s.cost = cost
	return cost
}

func allFinite(x []float64) bool {
	for _, v := range x {
		if !finite(v) {
			return false
		}
	}
	return true
}

func (s *Sim) divergence() error {
	S, B := s.m.NS(), s.B
	for t := 1; t <= s.T; t++ {
		for i, v := range s.X[t*S*B : (t+1)*S*B] {
			if !finite(v) {
				return fmt.Errorf("dyn: %s: state %s of lane %d became %v at step %d (from finite data: the %w; a smaller step or other parameters?)",
					s.m.spec.Name, s.m.spec.State[i/B], i%B, v, t-1, ErrDiverged)
			}
		}
	}
	return fmt.Errorf("dyn: %s: the cost is %v (from finite data and states: %w)", s.m.spec.Name, s.cost, ErrDiverged)
}

// ErrDiverged is wrapped by the error of a rollout that became non-finite
// from finite data.
var ErrDiverged = errors.New("rollout diverged")

// Backward is the reverse pass of the last Forward (same p, q, u): given the
// adjoints of the outputs ybar ([NY][T][B] or nil), of the cost (cbar) and of
// the final state (xTbar, [S][B] or nil), it writes ∂/∂p into pbar (len NP),
// ∂/∂x0 into x0bar ([S][B], or nil) and ∂/∂u into ubar ([T][U][B], or nil).
//
// The first Backward of a model (over all its Sims and ops) checks the
// gradient against central differences of the native rollout at these
// values (see CheckRollout) and returns an error if they disagree, unless
// the Sim was made WithoutSelfCheck. Wrong lengths, a call before Forward
// and concurrent use are errors too. After Value or Jacobian (which store no
// trajectory) it rolls forward first.
func (s *Sim) Backward(p, q, u, ybar []float64, cbar float64, xTbar, pbar, x0bar, ubar []float64) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.busy.Store(false)
	if err := s.checkBackward(p, q, u, ybar, xTbar, pbar, x0bar, ubar); err != nil {
		return err
	}
	if err := s.selfCheck(p, q, u, ybar, cbar, xTbar); err != nil {
		return err
	}
	s.backward(p, q, u, ybar, cbar, xTbar, pbar, x0bar, ubar)
	return nil
}

// selfCheck runs the model's built-in gradient check once (see Backward).
func (s *Sim) selfCheck(p, q, u, ybar []float64, cbar float64, xTbar []float64) error {
	if !s.cfg.check || s.m.checked.Load() {
		return nil
	}
	return s.m.selfCheck(s.k, s.cfg, p, q, s.X[:s.m.NS()*s.B], u, s.B, s.T, ybar, cbar, xTbar)
}

func (s *Sim) checkBackward(p, q, u, ybar, xTbar, pbar, x0bar, ubar []float64) error {
	m := s.m
	if !s.ran {
		return fmt.Errorf("dyn: %s: Backward without a successful Forward before it", m.spec.Name)
	}
	S, B := m.NS(), s.B
	if err := s.checkLens(p, q, s.X[:S*B], u); err != nil {
		return err
	}
	for _, c := range []struct {
		what string
		v    []float64
		want int
	}{{"output adjoints ybar", ybar, m.NY() * s.T * B}, {"final-state adjoints xTbar", xTbar, S * B}, {"parameter gradient pbar", pbar, m.NP()},
		{"initial-state gradient x0bar", x0bar, S * B}, {"input gradient ubar", ubar, s.T * m.NU() * B}} {
		if c.v != nil && len(c.v) != c.want {
			return fmt.Errorf("dyn: %s: Backward: %d values for the %s, want %d (or nil)", m.spec.Name, len(c.v), c.what, c.want)
		}
	}
	if pbar == nil && m.NP() > 0 {
		return fmt.Errorf("dyn: %s: Backward: pbar is nil, want %d values", m.spec.Name, m.NP())
	}
	return nil
}

func (s *Sim) backward(p, q, u, ybar []float64, cbar float64, xTbar, pbar, x0bar, ubar []float64) {
	S, U, B := s.m.NS(), s.m.NU(), s.B
	if s.stale { // after Value or Jacobian: the states are needed now
		s.forward(p, q, s.X[:S*B], u, nil)
	}
	clear(pbar)
	if r, ok := s.k.(RollBacker); ok {
		r.RollBack(B, s.T, p, q, s.X, u, ybar, cbar, xTbar, pbar, x0bar, ubar)
		return
	}
	cur, prev := s.lam[0], s.lam[1]
	if xTbar != nil {
		copy(cur, xTbar)
	} else {
		clear(cur)
	}
	ys := s.T * B
	for t := s.T - 1; t >= 0; t-- {
		var yb []float64
		if ybar != nil {
			yb = ybar[t*B:]
		}
		au := s.au
		if ubar != nil {
			au = ubar[t*U*B : (t+1)*U*B]
		}
		s.k.Reverse(B, p, q, s.X[t*S*B:(t+1)*S*B], u[t*U*B:(t+1)*U*B], cur, yb, ys, cbar, prev, au, pbar)
		cur, prev = prev, cur
	}
	if x0bar != nil {
		copy(x0bar, cur)
	}
}

// FinalJacobian is, after a Forward, the Jacobian of the final state
// summed over the lanes, Σ_b x_T[s][b], with respect to the parameters:
// jp is S×P, row s the gradient of state s (for one lane, the lane's own
// Jacobian: what an EKF linearising a rollout needs, as IPEM does). jx0,
// when not nil (S×S·B), receives its Jacobian with respect to the initial
// states, row s at s·S·B. It costs S reverse passes.
func (s *Sim) FinalJacobian(p, q, u, jp, jx0 []float64) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.busy.Store(false)
	S, P, B := s.m.NS(), s.m.NP(), s.B
	if len(jp) != S*P || (jx0 != nil && len(jx0) != S*S*B) {
		return fmt.Errorf("dyn: %s: final Jacobian sizes %d and %d, want %d and %d", s.m.spec.Name, len(jp), len(jx0), S*P, S*S*B)
	}
	if err := s.checkBackward(p, q, u, nil, nil, jp[:P], nil, nil); err != nil {
		return err
	}
	if len(s.seeds) != S*S*B {
		s.seeds = make([]float64, S*S*B)
	}
	lam := s.seeds
	clear(lam)
	for k := range S {
		for j := range B {
			lam[(k*S+k)*B+j] = 1
		}
	}
	for k := range S {
		row := lam[k*S*B : (k+1)*S*B]
		if err := s.selfCheck(p, q, u, nil, 0, row); err != nil {
			return err
		}
		s.backward(p, q, u, nil, 0, row, jp[k*P:(k+1)*P], row, nil)
	}
	if jx0 != nil {
		copy(jx0, lam)
	}
	return nil
}
