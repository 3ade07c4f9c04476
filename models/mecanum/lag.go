package mecanum

import "github.com/wheelgrad/wheelgrad/dyn"

// MaxTau bounds Params.Tau (s).
const MaxTau = 10.0

// Lagged returns a copy of r whose commands are each wheel's speed
// following its command through a first-order lag τ·ω̇ = ω_s − ω (issue 25:
// the input dynamics of a real robot's motor controllers), from rest at
// the first row: row i's command becomes the mean of ω over the row's step,
//
//	ω̄_i = u + (ω_i − u)·τ·(1 − e^(−h/τ))/h,   ω_{i+1} = u + (ω_i − u)·e^(−h/τ),
//
// exact with the command u held for the step h (dyn.LagValue, the float64
// form of dyn.Lag). Eq. 3 is linear in ω_s per wheel, so lagging the
// commands is lagging the wheel speeds under friction; with the step's mean speed the Euler pose update of eq. 5
// integrates the lagged motion. The last row (no step) carries ω there.
// τ ≤ 0 returns r unchanged.
func (r Run) Lagged(tau float64) Run {
	if !(tau > 0) {
		return r
	}
	out := r
	out.W = make([][4]float64, len(r.W))
	var w [4]float64
	for i := range r.W {
		if i+1 == len(r.W) {
			out.W[i] = w
			break
		}
		h := r.T[i+1] - r.T[i]
		for j, u := range r.W[i] {
			w[j], out.W[i][j] = dyn.LagValue(w[j], u, h, tau)
		}
	}
	return out
}
