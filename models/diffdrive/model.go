package diffdrive

import (
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/graph"
)

// Input maps the joystick (uf forward, ul lateral) to the motor inputs of the
// right and left wheel, eqs. 20–21: V = uf ± c1·(1 − c2·|uf|)·ul.
func (p Params) Input(uf, ul float64) (vr, vl float64) {
	gu := p.C1 * (1 - p.C2*math.Abs(uf)) * ul
	return uf + gu, uf - gu
}

// StepWheel advances one load-motor-wheel unit by one step of h, eqs. 3–5
// with the exact Kikuuwe friction: the stick acceleration μ̄ = −ṡ/h − s̈
// (eq. 5) is what would stop the wheel in one step; if |μ̄| ≤ μ friction
// supplies it and the wheel stops at exactly zero (returned as 0, not as the
// rounded sum ṡ + h·s̈ + h·μ̄), otherwise it slips with friction ±μ (eq. 4).
func (p Params) StepWheel(sd, sdd, v float64) (sdNext, sddNext float64, locked bool) {
	h := p.H
	sddNext = -p.Beta*h*sd + (1-p.Gamma*h)*sdd + p.Alpha*h*v
	// |μ̄| ≤ μ tested as |ṡ + h·s̈| ≤ h·μ (times h > 0): no division, and
	// sgn(μ̄) = −sgn(x).
	x, hmu := sd+h*sdd, h*p.Mu
	if math.Abs(x) <= hmu {
		return 0, sddNext, true
	}
	return x - math.Copysign(hmu, x), sddNext, false
}

// StepWheelSmooth is StepWheel with the friction clamp replaced by the
// surrogate graph.TanhClampSymFloat(μ̄, μ, T) (T > 0), the native twin of
// the smoothed graph used while annealing a calibration. No wheel locks
// exactly; T = 0 falls back to StepWheel.
func (p Params) StepWheelSmooth(sd, sdd, v, T float64) (sdNext, sddNext float64) {
	if T <= 0 {
		sdNext, sddNext, _ = p.StepWheel(sd, sdd, v)
		return
	}
	h := p.H
	mubar := -sd/h - sdd
	sddNext = -p.Beta*h*sd + (1-p.Gamma*h)*sdd + p.Alpha*h*v
	return sd + h*sdd + h*graph.TanhClampSymFloat(mubar, p.Mu, T), sddNext
}

// State is the state of both wheels (eq. 1 without the displacements, which
// the velocity model does not need): speeds and motor accelerations.
type State struct {
	SdR, SddR, SdL, SddL float64
}

// Body returns v and ω of eq. 19.
func (p Params) Body(s State) (v, w float64) {
	return (s.SdR + s.SdL) / 2, (s.SdR - s.SdL) / p.L
}

// Step advances both wheels by one step under joystick command (uf, ul).
func (p Params) Step(s State, uf, ul float64) (State, [2]bool) {
	vr, vl := p.Input(uf, ul)
	var n State
	var lock [2]bool
	n.SdR, n.SddR, lock[0] = p.StepWheel(s.SdR, s.SddR, vr)
	n.SdL, n.SddL, lock[1] = p.StepWheel(s.SdL, s.SddL, vl)
	return n, lock
}

// Trajectory is a rollout: row k is the state at time step k, before command
// k acts (so row 0 is the initial state), as in FORMATS.md's simulated CSV.
type Trajectory struct {
	VR, VL, AR, AL []float64 // wheel speeds and motor accelerations
	V, W           []float64 // body velocities (eq. 19)
	LockR, LockL   []bool    // the wheel was stopped by friction in the step that led to row k
}

// Simulate rolls the exact model forward from s0 under the commands uf, ul
// (one per step) and returns len(uf) rows.
func (p Params) Simulate(s0 State, uf, ul []float64) (*Trajectory, error) {
	if len(uf) != len(ul) {
		return nil, fmt.Errorf("diffdrive.Simulate: %d forward and %d lateral commands", len(uf), len(ul))
	}
	n := len(uf)
	tr := &Trajectory{VR: make([]float64, n), VL: make([]float64, n), AR: make([]float64, n), AL: make([]float64, n),
		V: make([]float64, n), W: make([]float64, n), LockR: make([]bool, n), LockL: make([]bool, n)}
	s := s0
	for k := range n {
		tr.VR[k], tr.VL[k], tr.AR[k], tr.AL[k] = s.SdR, s.SdL, s.SddR, s.SddL
		tr.V[k], tr.W[k] = p.Body(s)
		if k+1 < n {
			var lock [2]bool
			s, lock = p.Step(s, uf[k], ul[k])
			tr.LockR[k+1], tr.LockL[k+1] = lock[0], lock[1]
		}
	}
	return tr, nil
}

// SimulateSpeeds is the allocation-free hot path of Simulate: it writes the
// wheel speeds of rows 0..len(uf)−1 into vr, vl (each len(uf)); slices of
// other lengths are an error (issue 26.6: an index panic before).
func (p Params) SimulateSpeeds(s0 State, uf, ul, vr, vl []float64) error {
	if n := len(uf); len(ul) != n || len(vr) != n || len(vl) != n {
		return fmt.Errorf("diffdrive.SimulateSpeeds: %d forward and %d lateral commands, room for %d and %d speeds", n, len(ul), len(vr), len(vl))
	}
	h := p.H
	c1, c2, al, be, ga, hmu := p.C1, p.C2, p.Alpha*h, p.Beta*h, 1-p.Gamma*h, h*p.Mu
	sR, aR, sL, aL := s0.SdR, s0.SddR, s0.SdL, s0.SddL
	for k := range uf {
		vr[k], vl[k] = sR, sL
		f, l := uf[k], ul[k]
		gu := c1 * (1 - c2*math.Abs(f)) * l
		VR, VL := f+gu, f-gu
		// Same operations in the same order as StepWheel, so the results
		// agree bit for bit.
		xR, xL := sR+h*aR, sL+h*aL
		aR, aL = -be*sR+ga*aR+al*VR, -be*sL+ga*aL+al*VL
		if math.Abs(xR) <= hmu {
			sR = 0
		} else {
			sR = xR - math.Copysign(hmu, xR)
		}
		if math.Abs(xL) <= hmu {
			sL = 0
		} else {
			sL = xL - math.Copysign(hmu, xL)
		}
	}
	return nil
}
