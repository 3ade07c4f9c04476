package dyn

import (
	"fmt"
	"math"
)

// Sim rolls a model over B lanes and T steps natively (float64, no
// gorgonia) and differentiates the rollout by its generated reverse pass.
// It keeps the T+1 states of the last Forward (the reverse pass recomputes
// each step from its stored state, so memory is the trajectory, not a
// tape), and allocates nothing per call. Not safe for concurrent use: one
// Sim per goroutine.
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
	rk    RolloutKernel // k's whole-rollout form, when it has one
	tape  []float64
	seeds []float64 // FinalJacobian's adjoints
}

// NewSim prepares a rollout of B lanes over T steps with the model's
// fastest kernel.
func (m *Model) NewSim(B, T int) *Sim { return m.NewSimWith(m.NewKernel(), B, T) }

// NewSimWith is NewSim with a given kernel (the interpreter, to compare).
func (m *Model) NewSimWith(k Kernel, B, T int) *Sim {
	S := m.NS()
	s := &Sim{m: m, k: k, B: B, T: T, X: make([]float64, (T+1)*S*B),
		lam: [2][]float64{make([]float64, S*B), make([]float64, S*B)}, au: make([]float64, m.NU()*B)}
	if rk, ok := k.(RolloutKernel); ok {
		s.rk, s.tape = rk, make([]float64, T*rk.TapeLen()*B)
	}
	return s
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
	if len(p) == m.NP() && len(q) == m.NQ() && len(x0) == m.NS()*s.B && len(u) == s.T*m.NU()*s.B {
		return nil // the usual case, without building the table below
	}
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
	if sumZero(p)+sumZero(q)+sumZero(x0)+sumZero(u) == 0 {
		return nil // all finite (the usual case, checked without branches)
	}
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

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// sumZero is 0 when every value is finite (v·0 = 0), NaN otherwise; four
// sums, so that the additions do not wait for each other.
func sumZero(x []float64) float64 {
	var a, b, c, d float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a += x[i] * 0
		b += x[i+1] * 0
		c += x[i+2] * 0
		d += x[i+3] * 0
	}
	for ; i < len(x); i++ {
		a += x[i] * 0
	}
	return a + b + c + d
}

// Forward rolls the model from x0 under u and returns the summed cost; the
// outputs go into y (len NY·T·B, or nil). Non-finite data are an error
// naming where they entered, and so is a rollout that diverges (the state
// and step where it first became non-finite).
func (s *Sim) Forward(p, q, x0, u, y []float64) (float64, error) {
	if err := s.checkLens(p, q, x0, u); err != nil {
		return 0, err
	}
	if y != nil && len(y) != s.m.NY()*s.T*s.B {
		return 0, fmt.Errorf("dyn: %s: %d output values, want %d", s.m.spec.Name, len(y), s.m.NY()*s.T*s.B)
	}
	if err := s.CheckFinite(p, q, x0, u); err != nil {
		return 0, err
	}
	c := s.forward(p, q, x0, u, y)
	if !finite(c) || !allFinite(s.Final()) {
		return c, s.divergence()
	}
	return c, nil
}

func (s *Sim) forward(p, q, x0, u, y []float64) float64 {
	S, U, B := s.m.NS(), s.m.NU(), s.B
	copy(s.X[:S*B], x0)
	if s.rk != nil {
		s.cost = s.rk.ForwardRollout(B, s.T, p, q, s.X, u, s.tape, y)
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
				return fmt.Errorf("dyn: %s: state %s of lane %d became %v at step %d (from finite data: the rollout diverged; a smaller step or other parameters?)",
					s.m.spec.Name, s.m.spec.State[i/B], i%B, v, t-1)
			}
		}
	}
	return fmt.Errorf("dyn: %s: the cost is %v (from finite data and states)", s.m.spec.Name, s.cost)
}

// Backward is the reverse pass of the last Forward (same p, q, u): given the
// adjoints of the outputs ybar ([NY][T][B] or nil), of the cost (cbar) and of
// the final state (xTbar, [S][B] or nil), it writes ∂/∂p into pbar (len NP),
// ∂/∂x0 into x0bar ([S][B], or nil) and ∂/∂u into ubar ([T][U][B], or nil).
func (s *Sim) Backward(p, q, u, ybar []float64, cbar float64, xTbar, pbar, x0bar, ubar []float64) {
	S, U, B := s.m.NS(), s.m.NU(), s.B
	clear(pbar)
	cur, prev := s.lam[0], s.lam[1]
	if xTbar != nil {
		copy(cur, xTbar)
	} else {
		clear(cur)
	}
	if s.rk != nil {
		s.rk.ReverseRollout(B, s.T, p, q, s.X, u, s.tape, ybar, cbar, cur, ubar, pbar)
		if x0bar != nil {
			copy(x0bar, cur)
		}
		return
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
// Jacobian, what an EKF linearising a rollout needs). jx0, when not nil
// (S×S·B), receives its Jacobian with respect to the initial states. It is
// S reverse passes; a generated kernel does them in one sweep that shares
// the recomputed values (RolloutKernel.ReverseRolloutStates).
func (s *Sim) FinalJacobian(p, q, u, jp, jx0 []float64) error {
	S, P, B := s.m.NS(), s.m.NP(), s.B
	if len(jp) != S*P || (jx0 != nil && len(jx0) != S*S*B) {
		return fmt.Errorf("dyn: %s: final Jacobian sizes %d and %d, want %d and %d", s.m.spec.Name, len(jp), len(jx0), S*P, S*S*B)
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
	clear(jp)
	if s.rk != nil {
		s.rk.ReverseRolloutStates(B, s.T, p, q, s.X, u, s.tape, lam, jp)
	} else {
		for k := range S {
			s.Backward(p, q, u, nil, 0, lam[k*S*B:(k+1)*S*B], jp[k*P:(k+1)*P], lam[k*S*B:(k+1)*S*B], nil)
		}
	}
	if jx0 != nil {
		copy(jx0, lam)
	}
	return nil
}
