package dyn

import "fmt"

// Input dynamics: the pieces a step definition puts in front of a model
// whose inputs are commands (wheel speeds, body velocities) when the robot
// does not follow its commands at once. They are step-building helpers, not
// models: a model calls them inside its own definition, so the lag and the
// dead time are traced, generated and differentiated with the rest of the
// step, and identified jointly with the model's own parameters.

// Lag is a first-order lag τ·ω̇ = u − ω over a step of length dt with the
// command u held (zero-order hold), discretised exactly:
//
//	next = ω + (1 − e^(−dt/τ))·(u − ω)
//	mean = u + (ω − u)·(τ/dt)·(1 − e^(−dt/τ))
//
// next is the lagged value at the end of the step (the state to carry); mean
// is its average over the step, which is what moves a pose integrated with
// the step's held velocity (its integral over the step is exact, where the
// value at either end is off by half a step of the transient). τ > 0 is the
// time constant (s); τ = 0 is no lag (next = mean = u). A step with dt = 0
// (padding) leaves ω unchanged and its mean is ω, with finite gradients:
// the 0/0 of the mean is selected away with Where. 1 − e^(−x), x = dt/τ, is
// computed as 2·tanh(x/2)/(1 + tanh(x/2)) (the step language has no
// expm1), which keeps its relative precision where dt ≪ τ and 1 − e^(−x)
// would cancel; LagValue is the same lag on float64 values.
func Lag(omega, u, dt, tau X) (next, mean X) {
	zero := omega.check().constant(0)
	pos := Gt(dt, zero)
	// x = dt/τ > 0 in every lane: padded lanes divide 1 by τ instead, and
	// take ω; τ = 0 (no lag) gives x = ∞, g = 1, next = mean = u.
	x := Where(pos, dt, zero.AddC(1)).Div(tau)
	th := Tanh(x.MulC(0.5))
	g := th.MulC(2).Div(th.AddC(1)) // 1 − e^(−dt/τ) = −expm1(−dt/τ)
	next = Where(pos, omega.Add(g.Mul(u.Sub(omega))), omega)
	mean = Where(pos, u.Add(omega.Sub(u).Mul(g.Div(x))), omega)
	return next, mean
}

// DeadTimeStates returns the names of the n state lanes that DeadTime keeps
// for an input: prefix1 … prefixn, the input 1 … n steps ago. A model's
// Spec lists them among its states.
func DeadTimeStates(prefix string, n int) []string {
	out := make([]string, n)
	for k := range n {
		out[k] = fmt.Sprintf("%s%d", prefix, k+1)
	}
	return out
}

// DeadTime delays the input u by d seconds (a parameter or setting,
// 0 ≤ d ≤ n·dt), continuously in d so that d has a gradient: the states
// prefix1 … prefixn (DeadTimeStates) hold the last n inputs q_1 … q_n
// (q_0 = u, the current one), and the delayed input is their linear
// interpolation at s = d/dt samples back (s clamped to [0, n]), written in
// increments,
//
//	u(t − d) ≈ q_0 + Σ_{k=1…n} clamp(s − (k−1), 0, 1)·(q_k − q_{k−1}).
//
// Over a step with the command held, it is also the step's average of the
// delayed command (a fraction s − ⌊s⌋ of the step sees the older sample).
// ∂/∂d is piecewise constant (as Ivanjko's whole-sample delay of
// models/pioneer, made continuous); at whole samples, where it jumps, it is
// the right derivative, so a fit starting without dead time sees whether
// one helps.
// DeadTime declares the Next of its states (the shift register); a padded
// step (dt = 0) keeps them and passes q_0. The initial states are the
// inputs before the first step: the caller sets them (the first measured
// speed when the log has one, the first command, or 0 for rest).
func DeadTime(s *Step, prefix string, n int, u, d, dt X) X {
	q, sm, pos := deadTimeRegister(s, prefix, n, u, d, dt)
	zero, one := s.Const(0), s.Const(1)
	out := u
	for k := 1; k <= n; k++ {
		// clamp(s − (k−1), 0, 1) with the right derivative at both ends
		lo, hi := s.Const(float64(k-1)), s.Const(float64(k))
		w := Where(Ge(sm, lo), Where(Lt(sm, hi), sm.Sub(lo), one), zero)
		out = out.Add(w.Mul(q[k].Sub(q[k-1])))
	}
	return Where(pos, out, u)
}

// deadTimeRegister reads the register q_0 = u, q_1 … q_n, declares its
// shift and returns it with s = d/dt clamped to [0, n] and the mask dt > 0.
func deadTimeRegister(s *Step, prefix string, n int, u, d, dt X) (q []X, sm, pos X) {
	if n < 1 {
		panic(fmt.Sprintf("dyn: %s: a dead time with %d states", s.spec.Name, n))
	}
	names := DeadTimeStates(prefix, n)
	q = make([]X, n+1)
	q[0] = u
	for k, name := range names {
		q[k+1] = s.State(name)
	}
	zero, one := s.Const(0), s.Const(1)
	pos = Gt(dt, zero)
	sm = Clamp(d.Div(Where(pos, dt, one)), zero, s.Const(float64(n)))
	for k, name := range names {
		s.Next(name, Where(pos, q[k], q[k+1]))
	}
	return q, sm, pos
}

// LagDeadTime is a first-order lag τ behind a dead time d, both exact over
// a step with the command held: with s = d/dt = j + f samples (j whole,
// 0 ≤ f < 1), the delayed command is q_{j+1} for the first f·dt of the step
// and q_j for the rest (the register of DeadTime), and the lag is
// integrated in closed form over the two parts,
//
//	m = q_{j+1} + (ω − q_{j+1})·e^(−f·dt/τ),   next = q_j + (m − q_j)·e^(−(1−f)·dt/τ),
//
// mean its exact average over the step. Unlike DeadTime followed by Lag
// (which feeds the lag the step's average of the delayed command), the
// result is smooth in d across whole samples up to the Euler step of the
// model it feeds, so a fitted dead time is not drawn to a whole sample.
// τ = 0 is no lag (mean = the step's average of the delayed command). The
// whole part j carries no gradient (it is a mask); ∂/∂d flows through f.
func LagDeadTime(s *Step, prefix string, n int, omega, u, d, dt, tau X) (next, mean X) {
	q, sm, pos := deadTimeRegister(s, prefix, n, u, d, dt)
	zero, one := s.Const(0), s.Const(1)
	qj, qj1, j := q[0], q[0], zero
	for k := 1; k <= n; k++ {
		dq := q[k].Sub(q[k-1])
		ge := Ge(sm, s.Const(float64(k)))
		qj = qj.Add(Where(ge, dq, zero))
		qj1 = qj1.Add(Where(Ge(sm, s.Const(float64(k-1))), dq, zero))
		j = j.Add(Where(ge, one, zero))
	}
	f := sm.Sub(j)
	dts := Where(pos, dt, one)
	h1 := f.Mul(dts)
	h2 := dts.Sub(h1)
	// decay returns e^(−h/τ) and τ·(1 − e^(−h/τ)), with h = 0 selected to
	// 1 and 0 without dividing 0 by τ = 0
	decay := func(h X) (a, b X) {
		hp := Gt(h, zero)
		x := Where(hp, h, one).Div(tau)
		e := Exp(x.Neg())
		return Where(hp, e, one), Where(hp, tau.Mul(e.RSubC(1)), zero)
	}
	a1, b1 := decay(h1)
	a2, b2 := decay(h2)
	m := qj1.Add(omega.Sub(qj1).Mul(a1))
	next = qj.Add(m.Sub(qj).Mul(a2))
	integral := h1.Mul(qj1).Add(omega.Sub(qj1).Mul(b1)).Add(h2.Mul(qj)).Add(m.Sub(qj).Mul(b2))
	next = Where(pos, next, omega)
	mean = Where(pos, integral.Div(dts), omega)
	return next, mean
}
