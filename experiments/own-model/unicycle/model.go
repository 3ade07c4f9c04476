// Package unicycle is the worked example of "Your own model": a robot
// model written once in the step language (Robot, 33 lines) and its
// generated kernel. The experiment (experiments/own-model) identifies it
// from synthetic logs; experiments/own-model/cli puts it on the command
// line beside the built-in models.
package unicycle

import "github.com/wheelgrad/wheelgrad/dyn"

//go:generate env DYN_UPDATE=1 go test -count=1 -run TestGenerated .

// Robot is a user's own model, written once in the step language: a
// first-order velocity lag (gain k, time constant tau) against Coulomb
// friction of level c (the exact Kikuuwe clamp: a robot slower than the
// friction can hold stops in one step), driving a unicycle. Everything
// else (native rollout, generated gradient, gorgonia op, Jacobians) comes
// from this definition.
var Robot = dyn.MustDefine(dyn.Spec{
	Name:     "lag_coulomb_unicycle",
	State:    []string{"x", "y", "th", "v"}, // pose (m, rad) and forward speed (m/s)
	Input:    []string{"u", "w"},            // commanded speed (m/s) and yaw rate (rad/s)
	Params:   []string{"tau", "k", "c"},     // s, gain, m/s²
	Settings: []string{"dt"},                // step (s)
	Outputs:  []string{"x", "y"},            // what a tracker measures
}, func(s *dyn.Step) {
	x, y, th, v := s.State("x"), s.State("y"), s.State("th"), s.State("v")
	u, w := s.Input("u"), s.Input("w")
	tau, k, c := s.Param("tau"), s.Param("k"), s.Param("c")
	dt := s.Setting("dt")

	drive := k.Mul(u).Sub(v).Div(tau)                // motor lag
	stick := v.Neg().Div(dt).Sub(drive)              // friction that would stop the robot now
	friction := dyn.Clamp(stick, c.Neg(), c)         // Coulomb, exact
	s.Next("v", v.Add(dt.Mul(drive.Add(friction))))  // explicit Euler
	s.Next("th", th.Add(dt.Mul(w)))                  //
	s.Next("x", x.Add(dt.Mul(v).Mul(dyn.Cos(th))))   // unicycle
	s.Next("y", y.Add(dt.Mul(v).Mul(dyn.Sin(th))))   //
	s.Output("x", x.Add(dt.Mul(v).Mul(dyn.Cos(th)))) // pose after the step
	s.Output("y", y.Add(dt.Mul(v).Mul(dyn.Sin(th)))) //
})
