package skidsteer

import (
	"fmt"

	"github.com/wheelgrad/wheelgrad/dyn"
)

//go:generate env DYN_UPDATE=1 go test -count=1 -run TestGenerated .

// Model is the slip-enhanced kinematics of Ordonez et al. §2.2 written once
// in the step language of package dyn: the actual body velocities of eq. 2,
// v_y = v_c + δv_y (forward), v_x = δv_x (lateral, to the robot's left),
// Ω = Ω_c + δΩ (yaw rate), with the slip terms of eq. 3 linear in the nine
// coefficients a,
//
//	δv_y = a11·v_c + a12·Ω_c + a13·v_c·Ω_c
//	δv_x = a21·v_c + a22·Ω_c + a23·v_c·Ω_c
//	δΩ   = a31·v_c + a32·Ω_c + a33·v_c·Ω_c
//
// and the pose integrated by explicit Euler with the heading at the start of
// the step (FORMATS.md). The native batched rollout (Model.NewSim), its
// generated reverse pass, the step Jacobians of the IPEM filter
// (Model.NewStepper, WindowJacobian) and the gorgonia op of the batch fit
// (dyn.Rollout, Batch) all come from this definition; step_gen.go is its
// generated kernel. Step and Simulate stay the exact references.
//
// Lanes:
//
//	state    x, y, psi       pose (m, m, rad)
//	input    vc, wc, dt      commanded forward speed (m/s) and yaw rate (rad/s),
//	                         held for dt (s); dt = 0 pads a window
//	params   a11 … a33       the slip coefficients, in the order of Coeffs
//	outputs  x, y, psi       the pose at the start of the step (as Simulate reports it)
var Model = dyn.MustDefine(dyn.Spec{
	Name:    "skidsteer",
	State:   []string{"x", "y", "psi"},
	Input:   []string{"vc", "wc", "dt"},
	Params:  append([]string(nil), CoeffNames[:]...),
	Outputs: []string{"x", "y", "psi"},
}, func(s *dyn.Step) {
	x, y, psi := s.State("x"), s.State("y"), s.State("psi")
	vc, wc, dt := s.Input("vc"), s.Input("wc"), s.Input("dt")
	a := make([]dyn.X, NumCoeffs)
	for i, n := range CoeffNames {
		a[i] = s.Param(n)
	}
	vw := vc.Mul(wc)
	// eqs. 2–3, summed in the order of Velocity
	fwd := vc.Add(a[0].Mul(vc)).Add(a[1].Mul(wc)).Add(a[2].Mul(vw))
	lat := a[3].Mul(vc).Add(a[4].Mul(wc)).Add(a[5].Mul(vw))
	yaw := wc.Add(a[6].Mul(vc)).Add(a[7].Mul(wc)).Add(a[8].Mul(vw))
	c, sn := dyn.Cos(psi), dyn.Sin(psi)
	s.Next("x", x.Add(dt.Mul(c.Mul(fwd).Sub(sn.Mul(lat)))))
	s.Next("y", y.Add(dt.Mul(sn.Mul(fwd).Add(c.Mul(lat)))))
	s.Next("psi", psi.Add(dt.Mul(yaw)))
	s.Output("x", x)
	s.Output("y", y)
	s.Output("psi", psi)
})

// WindowJacobian integrates windows of commands from (0, 0, 0) with Model
// and returns the end pose and its Jacobian with respect to the nine
// coefficients, for the IPEM filter. The Jacobian is the chain rule
// J_{k+1} = ∂x'/∂x·J_k + ∂x'/∂a (J_0 = 0) over the window's steps taken
// from the end, in adjoint form: one forward rollout (dyn.Sim) and the
// generated reverse pass seeded with each row (x, y, ψ) of J, the three
// in one sweep (dyn.Sim.FinalJacobian) — rather than nine tangent
// directions. It allocates nothing per call once it has seen a window of
// each length, and is not safe for concurrent use.
type WindowJacobian struct {
	sims map[int]*dyn.Sim // by window length
	u    []float64
	x0   [3]float64
}

// NewWindowJacobian returns a WindowJacobian of Model.
func NewWindowJacobian() *WindowJacobian { return &WindowJacobian{sims: map[int]*dyn.Sim{}} }

// Jacobian is JacobianNative from the step definition: the end pose of the
// window (commands vc, wc held for dt each) and its 3×9 Jacobian (rows x, y,
// ψ) into jac.
func (w *WindowJacobian) Jacobian(a, vc, wc, dt []float64, jac *[3 * NumCoeffs]float64) (Pose, error) {
	T := len(vc)
	if len(a) != NumCoeffs || len(wc) != T || len(dt) != T {
		return Pose{}, fmt.Errorf("skidsteer: %d coefficients and windows of %d, %d, %d steps", len(a), len(vc), len(wc), len(dt))
	}
	if T == 0 {
		clear(jac[:])
		return Pose{}, nil
	}
	sim := w.sims[T]
	if sim == nil {
		sim = Model.NewSim(1, T)
		w.sims[T] = sim
	}
	if cap(w.u) < 3*T {
		w.u = make([]float64, 3*T)
	}
	u := w.u[:3*T]
	for k := range T {
		u[3*k], u[3*k+1], u[3*k+2] = vc[k], wc[k], dt[k]
	}
	if _, err := sim.Forward(a, nil, w.x0[:], u, nil); err != nil {
		return Pose{}, err
	}
	if err := sim.FinalJacobian(a, nil, u, jac[:], nil); err != nil {
		return Pose{}, err
	}
	f := sim.Final()
	return Pose{X: f[0], Y: f[1], Psi: f[2]}, nil
}
