package diffdrive

import (
	"fmt"
	"math"
)

// Deadband is the half-width μγ/α of the friction deadband of eq. 18: a
// constant motor input |V| ≤ Deadband leaves a wheel locked.
func (p Params) Deadband() float64 { return p.Mu * p.Gamma / p.Alpha }

// SteadySpeed is the steady wheel speed under a constant motor input V, eq.
// 18: (α/β)·V ∓ μγ/β beyond the deadband, 0 inside it.
func (p Params) SteadySpeed(V float64) float64 {
	switch db := p.Deadband(); {
	case V > db:
		return (p.Alpha*V - p.Mu*p.Gamma) / p.Beta
	case V < -db:
		return (p.Alpha*V + p.Mu*p.Gamma) / p.Beta
	}
	return 0
}

// SteadyBody is the steady (v, ω) under a constant joystick command: eqs.
// 20–21, 18 per wheel and 19.
func (p Params) SteadyBody(uf, ul float64) (v, w float64) {
	vr, vl := p.Input(uf, ul)
	return p.Body(State{SdR: p.SteadySpeed(vr), SdL: p.SteadySpeed(vl)})
}

// InputFor is the inverse of SteadySpeed with the null space collapsed
// (footnote 1): the motor input whose steady speed is sd, and 0 for sd = 0
// rather than any input in the deadband.
func (p Params) InputFor(sd float64) float64 {
	if sd == 0 {
		return 0
	}
	return (p.Beta*sd + math.Copysign(p.Mu*p.Gamma, sd)) / p.Alpha
}

// Feedforward is the model-based feed-forward control of footnote 1: the
// joystick command (uf, ul) whose steady state is the body velocity (v, ω).
// It inverts eq. 19 to wheel speeds, eq. 18 to motor inputs (a wheel meant
// to stand still gets V = 0) and eqs. 20–21 to the joystick. It fails when
// the lateral gain c1·(1 − c2·|uf|) of eq. 21 is not positive at the needed
// uf, where no joystick command reaches (v, ω).
func (p Params) Feedforward(v, w float64) (uf, ul float64, err error) {
	vr := p.InputFor(v + w*p.L/2)
	vl := p.InputFor(v - w*p.L/2)
	uf = (vr + vl) / 2
	gain := p.C1 * (1 - p.C2*math.Abs(uf))
	if !(gain > 0) {
		return 0, 0, fmt.Errorf("diffdrive.Feedforward: v = %g, ω = %g needs uf = %g, where the lateral gain c1·(1 − c2·|uf|) = %g is not positive", v, w, uf, gain)
	}
	return uf, (vr - vl) / (2 * gain), nil
}
