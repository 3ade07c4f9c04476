package robots

import (
	"errors"
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// The control.Robot of each model that synthesis drives along a path: the
// model package's own step (diffdrive.PoseModel, skidsteer.Model,
// mecanum.Model), its parameters laid out in the step's order, the
// commands that are decision variables with their bounds, and a steady-state
// inverse that seeds the optimiser.

// DefaultJoystickMax is the default bound on |uf| and |ul| of a
// differential drive: the ±100 joystick of Park et al.'s deployed robot
// (their calibrated ζ* has a deadband near 3 and reaches 1.5 m/s near 45).
const DefaultJoystickMax = 100

// DefaultSkidSteerVmax and DefaultSkidSteerWmax bound a skid-steer's
// commands |vc| (m/s) and |wc| (rad/s) by default: about twice the fastest
// commands of Ordonez et al.'s diagnostic trajectory.
const (
	DefaultSkidSteerVmax = 1.0
	DefaultSkidSteerWmax = 2.0
)

// DefaultFrictionBand is the band T of the friction surrogate that
// differential-drive synthesis plans with, as a fraction of μ.
const DefaultFrictionBand = 0.25

// NewDiffDriveRobot drives the differential drive p with joystick commands
// |uf|, |ul| ≤ umax, starting at rest. band > 0 plans with the friction
// surrogate of that band T (m/s²), band = 0 with the exact clamp. The robot
// steps at the model's h, which a plan must use.
func NewDiffDriveRobot(p diffdrive.Params, band, umax float64) (control.Robot, error) {
	if err := p.Validate(); err != nil {
		return control.Robot{}, err
	}
	if !(band >= 0) || math.IsInf(band, 0) || !(umax > 0) || math.IsInf(umax, 0) {
		return control.Robot{}, fmt.Errorf("robots: diffdrive: band %g must be ≥ 0 and the joystick bound %g positive, both finite", band, umax)
	}
	z := p.Zeta()
	r := control.Robot{
		Model:    diffdrive.PoseModel,
		Params:   z[:],
		Settings: []float64{p.H, p.L, band},
		State0:   make([]float64, diffdrive.PoseModel.NS()),
		X:        "x", Y: "y", Heading: "th",
		Controls: []control.Control{{Input: "uf", Lo: -umax, Hi: umax, Scale: 1}, {Input: "ul", Lo: -umax, Hi: umax, Scale: 1}},
		Step:     p.H,
		Guess: func(fwd, _, yaw float64) []float64 {
			uf, ul, err := p.Feedforward(fwd, yaw)
			if err != nil {
				return []float64{0, 0}
			}
			return []float64{uf, ul}
		},
	}
	return r, r.Validate()
}

// NewSkidSteerRobot drives the skid-steer p with commands |vc| ≤ vmax,
// |wc| ≤ wmax at any step.
func NewSkidSteerRobot(p skidsteer.Params, vmax, wmax float64) (control.Robot, error) {
	if err := p.Validate(); err != nil {
		return control.Robot{}, err
	}
	if !(vmax > 0) || !(wmax > 0) || math.IsInf(vmax, 0) || math.IsInf(wmax, 0) {
		return control.Robot{}, fmt.Errorf("robots: skidsteer: bounds vmax = %g, wmax = %g must be positive and finite", vmax, wmax)
	}
	a := p.Coeffs()
	r := control.Robot{
		Model:  skidsteer.Model,
		Params: a,
		State0: make([]float64, 3),
		X:      "x", Y: "y", Heading: "psi",
		// Smoothness scales: a change of 3 cm/s or 0.1 rad/s costs as much
		// as a change of 1 rad/s of a Mecanum wheel (3 cm/s at r = 3 cm).
		Controls: []control.Control{{Input: "vc", Lo: -vmax, Hi: vmax, Scale: 0.03}, {Input: "wc", Lo: -wmax, Hi: wmax, Scale: 0.1}},
		DtInput:  "dt",
		Guess:    func(fwd, _, yaw float64) []float64 { vc, wc := skidSteerInverse(a, fwd, yaw); return []float64{vc, wc} },
	}
	return r, r.Validate()
}

// skidSteerInverse solves eqs. 2–3 for the commands whose forward speed and
// yaw rate are (fwd, yaw), by Newton's method from the nominal commands;
// the lateral slip is not controllable and is left to synthesis.
func skidSteerInverse(a []float64, fwd, yaw float64) (vc, wc float64) {
	vc, wc = fwd, yaw
	for range 20 {
		f, _, w := skidsteer.Velocity(a, vc, wc)
		r1, r2 := f-fwd, w-yaw
		// Jacobian of (fwd, yaw) in (vc, wc).
		j11, j12 := 1+a[0]+a[2]*wc, a[1]+a[2]*vc
		j21, j22 := a[6]+a[8]*wc, 1+a[7]+a[8]*vc
		det := j11*j22 - j12*j21
		if math.Abs(det) < 1e-12 {
			break
		}
		vc -= (j22*r1 - j12*r2) / det
		wc -= (-j21*r1 + j11*r2) / det
		if math.Abs(r1)+math.Abs(r2) < 1e-14 {
			break
		}
	}
	if math.IsNaN(vc) || math.IsNaN(wc) {
		return fwd, yaw
	}
	return vc, wc
}

// NewMecanumRobot drives the Mecanum robot p (constant μ) with wheel
// commands |ω_s| ≤ wmax at any step.
func NewMecanumRobot(p mecanum.Params, wmax float64) (control.Robot, error) {
	if err := p.Validate(); err != nil {
		return control.Robot{}, err
	}
	if p.Friction != nil {
		return control.Robot{}, errors.New("robots: the step-language Mecanum model has constant μ; plan with a friction network through control.Synthesizer and mecanum.Drive")
	}
	if !(wmax > 0) || math.IsInf(wmax, 0) {
		return control.Robot{}, fmt.Errorf("robots: mecanum: wheel bound %g must be positive and finite", wmax)
	}
	m := mecanum.Drive{Params: p}
	ctl := make([]control.Control, 4)
	for j := range ctl {
		ctl[j] = control.Control{Input: fmt.Sprintf("w%d", j+1), Lo: -wmax, Hi: wmax, Scale: 1}
	}
	r := control.Robot{
		Model:    mecanum.Model,
		Params:   append([]float64(nil), p.Mu...),
		Settings: []float64{p.M, p.G, p.R, p.Ts, p.Lab},
		State0:   make([]float64, 3),
		X:        "x", Y: "y", Heading: "theta",
		ForwardAxis: math.Pi / 2,
		Controls:    ctl,
		DtInput:     "dt",
		Guess: func(fwd, lat, yaw float64) []float64 {
			// The body x axis points to the robot's right.
			w := m.PseudoInverse(-lat, fwd, yaw)
			return w[:]
		},
	}
	return r, r.Validate()
}
