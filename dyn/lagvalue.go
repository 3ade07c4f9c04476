package dyn

import "math"

// The input dynamics of lag.go in plain float64: the one native form of the
// first-order lag (and of the lag behind a dead time) that a model's native
// simulator, reference or preprocessing calls, so that the step language's
// expression (Lag, LagDeadTime) and its float64 value are each written once
// and tested against each other (TestLagValueMatchesLag,
// TestLagDeadTimeValueMatchesLagDeadTime, to 1e-14).

// LagValue is Lag on float64 values: the first-order lag τ·ω̇ = u − ω over
// a step of length dt with the command u held, exact,
//
//	next = u + (ω − u)·e^(−dt/τ)
//	mean = u + (ω − u)·(τ/dt)·(1 − e^(−dt/τ))
//
// next the lagged value at the end of the step, mean its average over the
// step (1 − e^(−x) computed as −expm1(−x), exact for small dt/τ). The
// conventions are Lag's: τ = 0 is no lag (next = mean = u), and a step with
// dt ≤ 0 (padding) leaves ω unchanged with mean ω.
func LagValue(omega, u, dt, tau float64) (next, mean float64) {
	if !(dt > 0) {
		return omega, omega
	}
	if tau == 0 {
		return u, u
	}
	x := dt / tau
	next = u + (omega-u)*math.Exp(-x)
	mean = u + (omega-u)*tau*-math.Expm1(-x)/dt
	return next, mean
}

// LagDeadTimeValue is LagDeadTime on float64 values: a first-order lag τ
// behind a dead time d over one step of length dt, both exact with the
// command held. q(k) is the input k steps before this one: q(0) = u, the
// current input, and q(1) … q(n) what LagDeadTime's register holds (a
// native simulator reads them from its command history; before the first
// step, the values the caller starts the register with). With
// s = d/dt = j + f samples back (clamped to [0, n]; j whole, 0 ≤ f < 1),
// q(j+1) holds for the first f·dt of the step and q(j) for the rest (q(n)
// for both at s = n), and
//
//	m = q(j+1) + (ω − q(j+1))·e^(−f·dt/τ),   next = q(j) + (m − q(j))·e^(−(1−f)·dt/τ),
//
// mean the exact average of the lagged value over the step. τ = 0 is no lag
// (next = q(j), mean the step's average of the delayed input); dt ≤ 0 leaves
// ω unchanged with mean ω, as LagDeadTime; a NaN d gives NaN.
func LagDeadTimeValue(omega float64, q func(k int) float64, n int, d, dt, tau float64) (next, mean float64) {
	if !(dt > 0) {
		return omega, omega
	}
	s := d / dt
	switch {
	case s > float64(n):
		s = float64(n)
	case s > 0:
	case s <= 0:
		s = 0
	default:
		return math.NaN(), math.NaN()
	}
	j := math.Floor(s)
	f := s - j
	k := int(j)
	old, cur := q(min(k+1, n)), q(k)
	h1, h2 := f*dt, (1-f)*dt
	if tau == 0 {
		return cur, (h1*old + h2*cur) / dt
	}
	a1, a2 := math.Exp(-h1/tau), math.Exp(-h2/tau)
	m := old + (omega-old)*a1
	integral := h1*old + (omega-old)*tau*(1-a1) + h2*cur + (m-cur)*tau*(1-a2)
	return cur + (m-cur)*a2, integral / dt
}
