package control

import (
	"errors"
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// The step-language models that synthesis drives through Robot, written
// from FORMATS.md's equations. They live here rather than in models/*
// because control needs a pose on each of them (the differential drive's
// own model has none) and a model package must not import another; tests
// pin each to its model package's native step to 1e-12. Their generated
// kernels are in *_gen.go (DYN_UPDATE=1 go test -run Generated ./control/).

//go:generate env DYN_UPDATE=1 go test -count=1 -run TestGenerated .

// DiffDrivePose is the Park–Lee–Kuipers differential drive (FORMATS.md model
// diffdrive: eqs. 3–5 per wheel, joystick eqs. 20–21) extended with a
// unicycle pose integrated from its body velocities (eq. 19) by explicit
// Euler at the state at the start of the step:
//
//	x' = x + h·v·cos th,  y' = y + h·v·sin th,  th' = th + h·w,
//	v = (sdR + sdL)/2,    w = (sdR − sdL)/l.
//
// The friction is the exact Kikuuwe clamp when the setting T is 0 (the
// locked wheel's speed is exactly 0, as in diffdrive.Params.StepWheel), and
// the surrogate TanhClampSym(μ̄, μ, T) of band T > 0 otherwise (as
// StepWheelSmooth), which has a gradient inside the deadband. The outputs
// are the pose after the step.
var DiffDrivePose = dyn.MustDefine(dyn.Spec{
	Name:     "diffdrive_pose",
	State:    []string{"sdR", "sddR", "sdL", "sddL", "x", "y", "th"},
	Input:    []string{"uf", "ul"},
	Params:   []string{"c1", "c2", "alpha", "beta", "gamma", "mu"},
	Settings: []string{"l", "h", "T"},
	Outputs:  []string{"x", "y", "th"},
}, func(s *dyn.Step) {
	uf, ul := s.Input("uf"), s.Input("ul")
	c1, c2 := s.Param("c1"), s.Param("c2")
	alpha, beta, gamma, mu := s.Param("alpha"), s.Param("beta"), s.Param("gamma"), s.Param("mu")
	l, h, T := s.Setting("l"), s.Setting("h"), s.Setting("T")
	// Eqs. 20–21.
	gu := c1.Mul(c2.Mul(dyn.Abs(uf)).RSubC(1)).Mul(ul)
	vR, vL := uf.Add(gu), uf.Sub(gu)
	zero := s.Const(0)
	wheel := func(sd, sdd, v dyn.X) (sdN, sddN dyn.X) {
		// Eq. 3 with the operations of diffdrive.Params.StepWheel.
		sddN = beta.Neg().Mul(h).Mul(sd).Add(gamma.Mul(h).RSubC(1).Mul(sdd)).Add(alpha.Mul(h).Mul(v))
		x, hmu := sd.Add(h.Mul(sdd)), h.Mul(mu)
		exact := dyn.Where(dyn.Le(dyn.Abs(x), hmu), zero, x.Sub(dyn.Sign(x).Mul(hmu)))
		mubar := sd.Neg().Div(h).Sub(sdd)
		smooth := x.Add(h.Mul(dyn.TanhClampSym(mubar, mu, T)))
		return dyn.Where(dyn.Gt(T, zero), smooth, exact), sddN
	}
	sdR, sddR, sdL, sddL := s.State("sdR"), s.State("sddR"), s.State("sdL"), s.State("sddL")
	nR, aR := wheel(sdR, sddR, vR)
	nL, aL := wheel(sdL, sddL, vL)
	s.Next("sdR", nR)
	s.Next("sddR", aR)
	s.Next("sdL", nL)
	s.Next("sddL", aL)
	v, w := sdR.Add(sdL).DivC(2), sdR.Sub(sdL).Div(l)
	x, y, th := s.State("x"), s.State("y"), s.State("th")
	xn := x.Add(h.Mul(v).Mul(dyn.Cos(th)))
	yn := y.Add(h.Mul(v).Mul(dyn.Sin(th)))
	thn := th.Add(h.Mul(w))
	s.Next("x", xn)
	s.Next("y", yn)
	s.Next("th", thn)
	s.Output("x", xn)
	s.Output("y", yn)
	s.Output("th", thn)
})

// SkidSteer is FORMATS.md's skidsteer model (Ordonez et al. eqs. 2–3): slip
// kinematics under commands vc, wc held for dt, explicit Euler at the
// heading at the start of the step, as skidsteer.Step. The pose is the state
// and the outputs are the next pose.
var SkidSteer = dyn.MustDefine(dyn.Spec{
	Name:   "skidsteer",
	State:  []string{"x", "y", "psi"},
	Input:  []string{"vc", "wc", "dt"},
	Params: []string{"a11", "a12", "a13", "a21", "a22", "a23", "a31", "a32", "a33"},
}, func(s *dyn.Step) {
	vc, wc, dt := s.Input("vc"), s.Input("wc"), s.Input("dt")
	var a [9]dyn.X
	for i, n := range skidsteer.CoeffNames {
		a[i] = s.Param(n)
	}
	vw := vc.Mul(wc)
	fwd := vc.Add(a[0].Mul(vc)).Add(a[1].Mul(wc)).Add(a[2].Mul(vw))
	lat := a[3].Mul(vc).Add(a[4].Mul(wc)).Add(a[5].Mul(vw))
	yaw := wc.Add(a[6].Mul(vc)).Add(a[7].Mul(wc)).Add(a[8].Mul(vw))
	x, y, psi := s.State("x"), s.State("y"), s.State("psi")
	c, sn := dyn.Cos(psi), dyn.Sin(psi)
	s.Next("x", x.Add(dt.Mul(c.Mul(fwd).Sub(sn.Mul(lat)))))
	s.Next("y", y.Add(dt.Mul(sn.Mul(fwd).Add(c.Mul(lat)))))
	s.Next("psi", psi.Add(dt.Mul(yaw)))
})

// MecanumPose is FORMATS.md's mecanum model with constant friction (Luo et
// al. eqs. 3–5): wheel speeds ω_j = ω_s,j·(1 − μ_j·M·g·r/(4·Ts)), body
// velocity B·ω, pose by explicit Euler at the angle at the start of the
// step. The friction network of models/mecanum is not in it: synthesis with
// a network goes through Synthesizer.
var MecanumPose = dyn.MustDefine(dyn.Spec{
	Name:     "mecanum",
	State:    []string{"x", "y", "theta"},
	Input:    []string{"w1", "w2", "w3", "w4", "dt"},
	Params:   []string{"mu1", "mu2", "mu3", "mu4"},
	Settings: []string{"M", "g", "r", "Ts", "lab"},
}, func(s *dyn.Step) {
	M, g, r, Ts, lab := s.Setting("M"), s.Setting("g"), s.Setting("r"), s.Setting("Ts"), s.Setting("lab")
	k := M.Mul(g).Mul(r).Div(Ts.MulC(4))
	c := r.Div(lab.MulC(4))
	cl := c.Mul(lab)
	var om [4]dyn.X
	for j := range om {
		n := fmt.Sprint(j + 1)
		om[j] = s.Input("w" + n).Mul(s.Param("mu" + n).Mul(k).RSubC(1))
	}
	vx := cl.Mul(om[1].Add(om[3]).Sub(om[0]).Sub(om[2]))
	vy := cl.Mul(om[0].Add(om[1]).Add(om[2]).Add(om[3]))
	wz := c.Mul(om[0].Add(om[3]).Sub(om[1]).Sub(om[2]))
	dt := s.Input("dt")
	x, y, th := s.State("x"), s.State("y"), s.State("theta")
	co, sn := dyn.Cos(th), dyn.Sin(th)
	s.Next("x", x.Add(dt.Mul(co.Mul(vx).Sub(sn.Mul(vy)))))
	s.Next("y", y.Add(dt.Mul(sn.Mul(vx).Add(co.Mul(vy)))))
	s.Next("theta", th.Add(dt.Mul(wz)))
})

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
func NewDiffDriveRobot(p diffdrive.Params, band, umax float64) (Robot, error) {
	if err := p.Validate(); err != nil {
		return Robot{}, err
	}
	if !(band >= 0) || math.IsInf(band, 0) || !(umax > 0) || math.IsInf(umax, 0) {
		return Robot{}, fmt.Errorf("control: diffdrive: band %g must be ≥ 0 and the joystick bound %g positive, both finite", band, umax)
	}
	z := p.Zeta()
	r := Robot{
		Model:    DiffDrivePose,
		Params:   z[:],
		Settings: []float64{p.L, p.H, band},
		State0:   make([]float64, DiffDrivePose.NS()),
		X:        "x", Y: "y", Heading: "th",
		Controls: []Control{{Input: "uf", Lo: -umax, Hi: umax, Scale: 1}, {Input: "ul", Lo: -umax, Hi: umax, Scale: 1}},
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

// WithSetting returns r with a setting of its model changed, e.g. the
// differential drive's friction band "T" (0: the exact model).
func (r Robot) WithSetting(name string, v float64) (Robot, error) {
	k := r.Model.Index("setting", name)
	if k < 0 {
		return r, fmt.Errorf("control: %s has no setting %q", r.Model.Name(), name)
	}
	r.Settings = append([]float64(nil), r.Settings...)
	r.Settings[k] = v
	return r, nil
}

// NewSkidSteerRobot drives the skid-steer p with commands |vc| ≤ vmax,
// |wc| ≤ wmax at any step.
func NewSkidSteerRobot(p skidsteer.Params, vmax, wmax float64) (Robot, error) {
	if err := p.Validate(); err != nil {
		return Robot{}, err
	}
	if !(vmax > 0) || !(wmax > 0) || math.IsInf(vmax, 0) || math.IsInf(wmax, 0) {
		return Robot{}, fmt.Errorf("control: skidsteer: bounds vmax = %g, wmax = %g must be positive and finite", vmax, wmax)
	}
	a := p.Coeffs()
	r := Robot{
		Model:  SkidSteer,
		Params: a,
		State0: make([]float64, 3),
		X:      "x", Y: "y", Heading: "psi",
		// Smoothness scales: a change of 3 cm/s or 0.1 rad/s costs as much
		// as a change of 1 rad/s of a Mecanum wheel (3 cm/s at r = 3 cm).
		Controls: []Control{{Input: "vc", Lo: -vmax, Hi: vmax, Scale: 0.03}, {Input: "wc", Lo: -wmax, Hi: wmax, Scale: 0.1}},
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
func NewMecanumRobot(p mecanum.Params, wmax float64) (Robot, error) {
	if err := p.Validate(); err != nil {
		return Robot{}, err
	}
	if p.Friction != nil {
		return Robot{}, errors.New("control: the step-language Mecanum model has constant μ; plan with a friction network through Synthesizer")
	}
	if !(wmax > 0) || math.IsInf(wmax, 0) {
		return Robot{}, fmt.Errorf("control: mecanum: wheel bound %g must be positive and finite", wmax)
	}
	m := Mecanum{Params: p}
	ctl := make([]Control, 4)
	for j := range ctl {
		ctl[j] = Control{Input: fmt.Sprintf("w%d", j+1), Lo: -wmax, Hi: wmax, Scale: 1}
	}
	r := Robot{
		Model:    MecanumPose,
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
