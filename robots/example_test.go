package robots_test

import (
	"fmt"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/robots"
)

// The skid-steer on asphalt (Ordonez et al. Table 2) driven along a 0.5-m
// circle in 20 s: its Robot is the model's own step, and control.FollowRobot
// plans, executes and tracks it.
func ExampleNewSkidSteerRobot() {
	s, err := skidsteer.SurfaceByName("asphalt")
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := robots.NewSkidSteerRobot(skidsteer.FromCoeffs(s.A[:]), robots.DefaultSkidSteerVmax, robots.DefaultSkidSteerWmax)
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := control.NewRobotPlan(r, control.Circle{R: 0.5, T: 20}, control.Tangent, 0, 4, 0.05)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := control.FollowRobot(plan, r, control.FollowSettings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	tr := f.Predicted.Tracking
	fmt.Printf("%d segments × %v; within 5 mm RMS of the circle: %v; covered: %v\n",
		plan.K, r.Controls[0].Input+", "+r.Controls[1].Input, tr.RMS < 0.005, tr.Coverage > 0.999)
	// Output: 80 segments × vc, wc; within 5 mm RMS of the circle: true; covered: true
}

// A tyre log as a library user reads it: identify μ, Kx, Ky of the Jackal
// on carpet (the log's truth: 0.45, 220, 160), then validate the fit on
// the same log, as MATLAB's compare scores it.
func ExampleTire() {
	var m robots.Tire
	src := []robots.Source{{Path: "../models/tire/testdata/jackal.csv"}}
	out, err := m.IdentifyWith(robots.IdentifyRequest{Sources: src}, robots.TireOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range out.Report.Params {
		fmt.Printf("%s %.3g (%s)\n", p.Name, p.Value, p.Verdict())
	}
	runs, err := m.Validate(robots.ValidateRequest{Params: out.Params, Sources: src})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range runs {
		f, _, _ := r.Channels[0].Fit()
		fmt.Printf("run %s: x fit above 95 %%: %v\n", r.ID, f > 95)
	}
	// Output:
	// mu 0.452 (determined)
	// Kx 223 (determined)
	// Ky 162 (determined)
	// run u-turn-left-2: x fit above 95 %: true
	// run paperclip-4: x fit above 95 %: true
}

// A differential drive identified from a log of joystick commands and
// wheel speeds (Park et al. §III-A), then validated on it: the wheelchair
// log's truth is c1 = 0.40, μ = 0.20.
func ExampleDiffDrive() {
	var m robots.DiffDrive
	log := []robots.Source{{Path: "../models/diffdrive/calibrate/testdata/wheelchair.csv"}}
	id, err := m.Identify(robots.IdentifyRequest{Sources: log})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := id.Params.(diffdrive.Params)
	fmt.Printf("%s: c1 = %.2f, mu = %.2f, converged: %v\n", id.Report.Method, p.C1, p.Mu, id.Report.Status.Converged)
	runs, err := m.Validate(robots.ValidateRequest{Params: p, Sources: log})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range runs[0].Channels {
		f, _, _ := c.Fit()
		fmt.Printf("%s: fit %.0f %%\n", c.Name, f)
	}
	// Output:
	// lbfgsb: c1 = 0.40, mu = 0.20, converged: true
	// v: fit 98 %
	// w: fit 96 %
}
