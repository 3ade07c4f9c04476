package diffdrive

import (
	"fmt"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/dyn"
)

// The Park–Lee–Kuipers step written once in the dyn step language. From it
// come the native rollout, the calibration gradient (the generated reverse
// pass, step_gen.go) and the graph op; the hand-written kernel of batch.go
// and fused.go stays as the reference the tests compare with.

// wheel is one load-motor-wheel unit, eqs. 3–5: the speed update with the
// exact Kikuuwe friction (a wheel whose stick acceleration μ̄ = −ṡ/h − s̈ is
// within ±μ stops at exactly 0; otherwise it slips with friction ∓μ, written
// as x − h·μ·sign(x) with x = ṡ + h·s̈, as StepWheel) or its tanh surrogate
// graph.TanhClampSym(μ̄, μ, T) (StepWheelSmooth); and the motor update
// s̈' = −β·h·ṡ + (1 − γ·h)·s̈ + α·h·V.
func wheel(s *dyn.Step, sd, sdd, V dyn.X, smooth bool) (sdNext, sddNext dyn.X) {
	h := s.Setting("h")
	al, be, ga := s.Param("alpha").Mul(h), s.Param("beta").Mul(h), s.Param("gamma").Mul(h).RSubC(1)
	mu := s.Param("mu")
	sddNext = be.Neg().Mul(sd).Add(ga.Mul(sdd)).Add(al.Mul(V))
	x := sd.Add(h.Mul(sdd))
	if smooth {
		mubar := sd.Neg().Div(h).Sub(sdd)
		return x.Add(h.Mul(dyn.TanhClampSym(mubar, mu, s.Setting("T")))), sddNext
	}
	hmu := h.Mul(mu)
	return dyn.Where(dyn.Le(dyn.Abs(x), hmu), s.Const(0), x.Sub(dyn.Copysign(hmu, x))), sddNext
}

// joystick is the input map of eqs. 20–21: the wheel voltages V_R, V_L of
// the joystick command (uf, ul).
func joystick(s *dyn.Step) (VR, VL dyn.X) {
	uf, ul := s.Input("uf"), s.Input("ul")
	gu := s.Param("c1").Mul(s.Param("c2").Mul(dyn.Abs(uf)).RSubC(1)).Mul(ul)
	return uf.Add(gu), uf.Sub(gu)
}

// defineStep is the step over the joystick command (uf, ul): the input map
// of eqs. 20–21 and both wheels; its outputs are the next states. With
// loss, the outputs are the body velocities v, ω of eq. 19 after the step,
// the inputs also carry the measured v, ω, and the step adds the L1 error
// of eq. 22 (|·| exact, or graph.SmoothAbs of width eps) to its cost.
func defineStep(name string, smooth, smoothAbs, loss bool) *dyn.Model {
	spec := dyn.Spec{
		Name:     name,
		State:    []string{"sdR", "sddR", "sdL", "sddL"},
		Input:    []string{"uf", "ul"},
		Params:   []string{"c1", "c2", "alpha", "beta", "gamma", "mu"},
		Settings: []string{"h", "l"},
	}
	if smooth {
		spec.Settings = append(spec.Settings, "T")
	}
	if loss {
		spec.Outputs = []string{"v", "w"}
		spec.Input = append(spec.Input, "vm", "wm")
		spec.Settings = append(spec.Settings, "cw")
		if smoothAbs {
			spec.Settings = append(spec.Settings, "eps")
		}
	}
	return dyn.MustDefine(spec, func(s *dyn.Step) {
		VR, VL := joystick(s)
		sR, aR := wheel(s, s.State("sdR"), s.State("sddR"), VR, smooth)
		sL, aL := wheel(s, s.State("sdL"), s.State("sddL"), VL, smooth)
		s.Next("sdR", sR)
		s.Next("sddR", aR)
		s.Next("sdL", sL)
		s.Next("sddL", aL)
		if loss {
			v := sR.Add(sL).DivC(2)
			w := sR.Sub(sL).Div(s.Setting("l"))
			s.Output("v", v)
			s.Output("w", w)
			abs := dyn.Abs
			if smoothAbs {
				eps := s.Setting("eps")
				abs = func(e dyn.X) dyn.X { return dyn.SmoothAbs(e, eps) }
			}
			s.Cost(abs(v.Sub(s.Input("vm"))).Add(s.Setting("cw").Mul(abs(w.Sub(s.Input("wm"))))))
		}
	})
}

//go:generate env DYN_UPDATE=1 go test -count=1 -run TestGenerated .

// StepModel is the exact model (eqs. 3–5, 20–21) in the step language:
// states sdR, sddR, sdL, sddL (outputs: the same after the step); inputs
// uf, ul; settings h, l (l is unused: v, ω of eq. 19 follow from the
// speeds).
var StepModel = defineStep("diffdrive", false, false, false)

// PoseModel is StepModel (eqs. 3–5, 20–21) extended with a unicycle pose
// integrated from the body velocities of eq. 19 by explicit Euler at the
// state at the start of the step:
//
//	x' = x + h·v·cos th,  y' = y + h·v·sin th,  th' = th + h·ω,
//	v = (ṡ_R + ṡ_L)/2,    ω = (ṡ_R − ṡ_L)/l.
//
// The friction is the exact Kikuuwe clamp when the setting T is 0 (as
// Params.Step) and the surrogate of band T > 0 otherwise (as
// StepWheelSmooth), chosen per step, so that one model plans with the
// surrogate and executes exactly. It is the step that control.Robot drives
// along a path (robots.NewDiffDriveRobot).
//
// Lanes:
//
//	state     sdR, sddR, sdL, sddL, x, y, th   wheel speeds and accelerations, pose (m, m, rad)
//	input     uf, ul                           joystick command
//	params    c1, c2, alpha, beta, gamma, mu   ζ (Params.Zeta)
//	settings  h, l, T                          step (s), axle length (m), friction band (0: exact)
//	outputs   x, y, th                         the pose after the step
//
// pose_gen.go is its generated kernel.
//
//go:generate env DYN_UPDATE=1 go test -run Generated .
var PoseModel = dyn.MustDefine(dyn.Spec{
	Name:     "diffdrive_pose",
	State:    []string{"sdR", "sddR", "sdL", "sddL", "x", "y", "th"},
	Input:    []string{"uf", "ul"},
	Params:   []string{"c1", "c2", "alpha", "beta", "gamma", "mu"},
	Settings: []string{"h", "l", "T"},
	Outputs:  []string{"x", "y", "th"},
}, func(s *dyn.Step) {
	VR, VL := joystick(s)
	smooth := dyn.Gt(s.Setting("T"), s.Const(0))
	wheelT := func(sd, sdd, V dyn.X) (dyn.X, dyn.X) {
		sS, a := wheel(s, sd, sdd, V, true)
		sE, _ := wheel(s, sd, sdd, V, false)
		return dyn.Where(smooth, sS, sE), a
	}
	sdR, sdL := s.State("sdR"), s.State("sdL")
	sR, aR := wheelT(sdR, s.State("sddR"), VR)
	sL, aL := wheelT(sdL, s.State("sddL"), VL)
	s.Next("sdR", sR)
	s.Next("sddR", aR)
	s.Next("sdL", sL)
	s.Next("sddL", aL)
	h := s.Setting("h")
	v, w := sdR.Add(sdL).DivC(2), sdR.Sub(sdL).Div(s.Setting("l"))
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

// Calibration steps: the model plus the L1 loss of eq. 22 as the step cost,
// for each combination of exact/smoothed friction (setting T) and exact/
// smoothed |·| (setting eps).
var (
	CalibExact       = defineStep("diffdrive_calib", false, false, true)
	CalibSmoothAbs   = defineStep("diffdrive_calib_sabs", false, true, true)
	CalibSmooth      = defineStep("diffdrive_calib_smooth", true, false, true)
	CalibSmoothBoth  = defineStep("diffdrive_calib_smooth_sabs", true, true, true)
	calibrationSteps = []*dyn.Model{CalibExact, CalibSmoothAbs, CalibSmooth, CalibSmoothBoth}
)

// CalibModel returns the calibration step for a smoothing.
func CalibModel(sm Smoothing) *dyn.Model {
	i := 0
	if sm.Eps > 0 {
		i |= 1
	}
	if sm.T > 0 {
		i |= 2
	}
	return calibrationSteps[i]
}

// calibSettings are the settings of CalibModel(sm) in its order.
func calibSettings(l, h, cw float64, sm Smoothing) []float64 {
	q := []float64{h, l}
	if sm.T > 0 {
		q = append(q, sm.T)
	}
	q = append(q, cw)
	if sm.Eps > 0 {
		q = append(q, sm.Eps)
	}
	return q
}

// StepData lays the batch out as the step language's rollout data: the
// initial states [4][M] and the inputs [N][4][M] (uf, ul, vm, wm per step).
func (b *Batch) StepData() (x0, u []float64) {
	m := b.M
	x0 = make([]float64, 4*m)
	for i := range 4 {
		copy(x0[i*m:], b.Init[i])
	}
	u = make([]float64, b.N*4*m)
	for n := range b.N {
		for k, s := range [4][]float64{b.UF, b.UL, b.V, b.W} {
			copy(u[(n*4+k)*m:(n*4+k+1)*m], s[n*m:(n+1)*m])
		}
	}
	return x0, u
}

// StepLoss is the calibration loss of eq. 22 over a Batch, computed by the
// step-language model: native rollout and generated reverse pass (no
// gorgonia). It allocates once; not safe for concurrent use.
type StepLoss struct {
	b       *Batch
	l, h    float64
	cw      float64
	x0, u   []float64
	sims    map[*dyn.Model]*dyn.Sim
	grad    []float64
	lastSim *dyn.Sim
}

// NewStepLoss prepares the loss over b.
func NewStepLoss(b *Batch, l, h float64, spec LossSpec) (*StepLoss, error) {
	if err := b.Check(); err != nil {
		return nil, err
	}
	x0, u := b.StepData()
	return &StepLoss{b: b, l: l, h: h, cw: spec.CW, x0: x0, u: u, sims: map[*dyn.Model]*dyn.Sim{}, grad: make([]float64, 6)}, nil
}

func (s *StepLoss) sim(sm Smoothing) (*dyn.Sim, []float64) {
	m := CalibModel(sm)
	sim, ok := s.sims[m]
	if !ok {
		sim = m.NewSim(s.b.M, s.b.N)
		s.sims[m] = sim
	}
	s.lastSim = sim
	return sim, calibSettings(s.l, s.h, s.cw, sm)
}

// Loss returns L(ζ) of eq. 22.
func (s *StepLoss) Loss(z [6]float64, sm Smoothing) (float64, error) {
	sim, q := s.sim(sm)
	return sim.Forward(z[:], q, s.x0, s.u, nil)
}

// LossGrad returns L(ζ) and ∂L/∂ζ.
func (s *StepLoss) LossGrad(z [6]float64, sm Smoothing) (float64, [6]float64, error) {
	var g [6]float64
	sim, q := s.sim(sm)
	L, err := sim.Forward(z[:], q, s.x0, s.u, nil)
	if err != nil {
		return 0, g, err
	}
	if err := sim.Backward(z[:], q, s.u, nil, 1, nil, s.grad, nil, nil); err != nil {
		return 0, g, err
	}
	copy(g[:], s.grad)
	return L, g, nil
}

// StepGraphLoss builds the calibration loss of eq. 22 over b in a gorgonia
// graph: one dyn.Rollout node over all M segments and N steps whose cost is
// the loss. zeta is the [6] parameter node; q is a settings node holding
// calibSettings(l, h, cw, sm) (an ad input, so that a compiled program can
// change T and eps within the same form with SetInput).
func StepGraphLoss(g *ad.Graph, zeta *G.Node, b *Batch, l, h, cw float64, sm Smoothing, opts ...dyn.OpOption) (*G.Node, error) {
	if err := b.Check(); err != nil {
		return nil, err
	}
	if zeta.Shape().TotalSize() != 6 {
		return nil, fmt.Errorf("diffdrive.StepGraphLoss: zeta has shape %v, want [6]", zeta.Shape())
	}
	x0, u := b.StepData()
	q, err := g.Input("settings", calibSettings(l, h, cw, sm))
	if err != nil {
		return nil, err
	}
	tr, err := dyn.Rollout(CalibModel(sm), zeta, q, g.Const(x0), g.Const(u), b.M, b.N, opts...)
	if err != nil {
		return nil, err
	}
	return tr.Cost()
}
