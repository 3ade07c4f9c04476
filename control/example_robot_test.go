package control_test

import (
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/opt"
)

// A model of one's own, driven along the circle: a unicycle whose speed
// follows the command with a first-order lag. The pose lanes are states
// that the model records as its outputs (a model without declared Outputs
// records its next states).
func ExampleRobot() {
	lag := dyn.MustDefine(dyn.Spec{
		Name:   "lagged_unicycle",
		State:  []string{"x", "y", "th", "v"},
		Input:  []string{"u", "w", "dt"},
		Params: []string{"tau"},
	}, func(s *dyn.Step) {
		x, y, th, v := s.State("x"), s.State("y"), s.State("th"), s.State("v")
		u, w, dt := s.Input("u"), s.Input("w"), s.Input("dt")
		s.Next("x", x.Add(dt.Mul(v).Mul(dyn.Cos(th))))
		s.Next("y", y.Add(dt.Mul(v).Mul(dyn.Sin(th))))
		s.Next("th", th.Add(dt.Mul(w)))
		s.Next("v", v.Add(dt.Mul(u.Sub(v)).Div(s.Param("tau"))))
	})
	robot := control.Robot{
		Model:  lag,
		Params: []float64{0.3}, // τ = 0.3 s
		State0: make([]float64, 4),
		X:      "x", Y: "y", Heading: "th",
		Controls: []control.Control{{Input: "u", Lo: -1, Hi: 1, Scale: 0.03}, {Input: "w", Lo: -2, Hi: 2, Scale: 0.1}},
		DtInput:  "dt",
		Guess:    func(fwd, lat, yaw float64) []float64 { return []float64{fwd, yaw} },
	}
	plan, err := control.NewRobotPlan(robot, control.Circle{R: 0.5, T: 10}, control.Tangent, 0, 4, 0.05)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := control.NewRobotSynthesizer(plan)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := s.Synthesize(nil, opt.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	x0, _ := robot.StartState(plan.Start)
	poses, vel, _, err := robot.Execute(x0, res.Controls, plan.N, plan.Dt)
	if err != nil {
		fmt.Println(err)
		return
	}
	tr := control.TrackRobot(robot, plan.Path, 0, plan.Dt, poses, vel)
	fmt.Printf("%d segments of %d steps; RMS distance to the circle below 5 mm: %v\n", plan.K, plan.N, tr.RMS < 0.005 && !math.IsNaN(tr.RMS))
	// Output: 40 segments of 5 steps; RMS distance to the circle below 5 mm: true
}
