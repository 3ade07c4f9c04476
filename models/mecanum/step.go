package mecanum

import "github.com/wheelgrad/wheelgrad/dyn"

//go:generate env DYN_UPDATE=1 go test -count=1 -run TestGenerated .

// Model is the Mecanum robot's step written once in the step language of
// package dyn (Luo, Boularias, Aanjaneya §IV): the wheel speeds under
// friction of eq. 3, ω_j = ω_s,j·(1 − μ_j·M·g·r/(4·Ts)), the body velocity
// [v_x, v_y, ω_z] = B·ω of eq. 4, and the explicit Euler pose update of
// eq. 5 with the angle at the start of the step. The native batched rollout
// (Model.NewSim), its generated reverse pass, the step's Jacobians
// (Model.NewStepper) and a gorgonia op (dyn.Rollout) all come from this one
// definition; step_gen.go is its generated kernel.
//
// Lanes:
//
//	state     x, y, theta      pose (m, m, rad)
//	input     w1..w4, dt       commanded wheel speeds ω_s (rad/s), held for dt (s):
//	                           a log row and the time to the next row (rows may
//	                           be non-uniform; dt = 0 pads a run and leaves it still)
//	params    mu1..mu4         wheel friction coefficients μ_j (eq. 3)
//	settings  M, g, r, Ts, lab the known constants of Params (SettingsOf)
//	outputs   x, y, theta      the pose at the start of the step: the pose at the
//	                           row's time, before its command acts, as Simulate
//	                           reports it
//
// Simulate stays the exact reference it is tested against (it also anchors a
// run at a camera pose after row 0, and takes μ from a friction network).
var Model = dyn.MustDefine(dyn.Spec{
	Name:     "mecanum",
	State:    []string{"x", "y", "theta"},
	Input:    []string{"w1", "w2", "w3", "w4", "dt"},
	Params:   []string{"mu1", "mu2", "mu3", "mu4"},
	Settings: []string{"M", "g", "r", "Ts", "lab"},
	Outputs:  []string{"x", "y", "theta"},
}, func(s *dyn.Step) {
	mu := [4]dyn.X{s.Param("mu1"), s.Param("mu2"), s.Param("mu3"), s.Param("mu4")}
	step(s, mu)
})

// step is eqs. 3–5 of one step with the wheels' μ_j given (Model's
// parameters, MuModel's inputs): it sets the next pose and the outputs x, y,
// theta (the pose at the step's start), and returns the world-frame
// velocity during the step. Written once for both definitions.
func step(s *dyn.Step, mu [4]dyn.X) (xd, yd, thd dyn.X) {
	x, y, th := s.State("x"), s.State("y"), s.State("theta")
	M, g, r, Ts, lab := s.Setting("M"), s.Setting("g"), s.Setting("r"), s.Setting("Ts"), s.Setting("lab")
	// eq. 3: ω_j = ω_s,j·(1 − μ_j·K), K = M·g·r/(4·Ts) (Params.K)
	K := M.Mul(g).Mul(r).Div(Ts.MulC(4))
	// eq. 4: B = r/(4·lab)·[−lab lab −lab lab; lab lab lab lab; 1 −1 −1 1]
	// (Params.BMatrix), summed wheel by wheel as Params.Velocity does
	c := r.Div(lab.MulC(4))
	cl := c.Mul(lab)
	b := [3][4]dyn.X{{cl.Neg(), cl, cl.Neg(), cl}, {cl, cl, cl, cl}, {c, c.Neg(), c.Neg(), c}}
	var v [3]dyn.X
	for j, name := range []string{"1", "2", "3", "4"} {
		om := s.Input("w" + name).Mul(mu[j].Mul(K).RSubC(1))
		for row := range 3 {
			if j == 0 {
				v[row] = b[row][0].Mul(om)
			} else {
				v[row] = v[row].Add(b[row][j].Mul(om))
			}
		}
	}
	// eq. 5: explicit Euler, rotation by the angle at the start of the step
	dt := s.Input("dt")
	sn, cs := dyn.Sin(th), dyn.Cos(th)
	xd = cs.Mul(v[0]).Sub(sn.Mul(v[1]))
	yd = sn.Mul(v[0]).Add(cs.Mul(v[1]))
	s.Next("x", x.Add(dt.Mul(xd)))
	s.Next("y", y.Add(dt.Mul(yd)))
	s.Next("theta", th.Add(dt.Mul(v[2])))
	s.Output("x", x)
	s.Output("y", y)
	s.Output("theta", th)
	return xd, yd, v[2]
}

// SettingsOf returns the settings of Model for p: M, g, r, Ts, lab.
func SettingsOf(p Params) []float64 { return []float64{p.M, p.G, p.R, p.Ts, p.Lab} }

// ModelInputs lays the rows of r out as Model's inputs for a one-lane
// rollout of r.Len() steps ([T][U][1]: w1..w4, dt per row; the last row's
// command has no duration, dt = 0).
func ModelInputs(r *Run) []float64 {
	n := r.Len()
	u := make([]float64, 5*n)
	for i := range n {
		copy(u[5*i:5*i+4], r.W[i][:])
		if i+1 < n {
			u[5*i+4] = r.T[i+1] - r.T[i]
		}
	}
	return u
}
