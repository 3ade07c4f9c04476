package cli

import (
	"errors"
	"flag"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/robots"
)

// `wheelgrad follow` for the models written in the step language
// (control.Robot): the differential drive (joystick commands, planned with
// the friction surrogate, reported on the exact model) and the skid-steer
// (commanded speed and yaw rate). The Mecanum robot keeps its own handler
// (follow.go), which also plans through friction networks.

func init() {
	followHandlers["diffdrive"] = followDiffDrive
	followHandlers["skidsteer"] = followSkidSteer
}

// followModelFlags lists the follow flags that apply to some models only;
// giving one with another model is a usage error.
var followModelFlags = []struct {
	name   string
	models []string
}{
	{"wmax", []string{"mecanum", "skidsteer"}},
	{"umax", []string{"diffdrive"}},
	{"vmax", []string{"skidsteer"}},
	{"band", []string{"diffdrive"}},
}

func addFollowModelFlags(fs *flag.FlagSet, a *FollowArgs) {
	fs.Float64Var(&a.Umax, "umax", robots.DefaultJoystickMax, "diffdrive: bound on the joystick commands |uf| and |ul|")
	fs.Float64Var(&a.Vmax, "vmax", robots.DefaultSkidSteerVmax, "skidsteer: bound on the commanded speed |vc| (m/s)")
	fs.Float64Var(&a.Band, "band", 0, fmt.Sprintf("diffdrive: band T (m/s²) of the friction surrogate synthesis plans with (default %g·mu; 0: the exact clamp)", robots.DefaultFrictionBand))
}

func checkFollowModelFlags(model string, set map[string]bool) error {
	for _, f := range followModelFlags {
		if set[f.name] && !slices.Contains(f.models, model) {
			return usagef("-%s applies to -model %s only", f.name, strings.Join(f.models, " and "))
		}
	}
	return nil
}

func positive(flag string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return usagef("-%s %g: want a positive finite number", flag, v)
	}
	return nil
}

// robotJob is one model's follow: the robot synthesis plans with, the one
// the prediction is reported on (the exact friction where the plan uses a
// surrogate), the simulated true robot of -mpc, and the controls CSV.
type robotJob struct {
	model       string // -model
	plan, exact control.Robot
	truth       *control.Robot
	dt          float64
	fixedStep   bool     // dt is the model's own step: fit the path to it
	columns     []string // controls CSV columns, in the order of plan.Controls
	pose        []string // columns of the start pose on the first row
	planned     string   // what the plan's own prediction is, when it differs from exact
}

func followDiffDrive(e env, a FollowArgs) error {
	p, err := readDiffDriveParams(e, a.Params, true)
	if err != nil {
		return err
	}
	if err := positive("umax", a.Umax); err != nil {
		return err
	}
	band := robots.DefaultFrictionBand * p.Mu
	if a.Set["band"] {
		if !(a.Band >= 0) || math.IsInf(a.Band, 0) {
			return usagef("-band %g: want a finite number ≥ 0", a.Band)
		}
		band = a.Band
	}
	if a.Set["dt"] && math.Abs(a.Dt-p.H) > 1e-9*p.H {
		return usagef("-model diffdrive steps by its h = %g s (%s): -dt %g differs (leave it out)", p.H, a.Params, a.Dt)
	}
	plan, err := robots.NewDiffDriveRobot(p, band, a.Umax)
	if err != nil {
		return fmt.Errorf("%s: %w", a.Params, err)
	}
	exact, err := robots.NewDiffDriveRobot(p, 0, a.Umax)
	if err != nil {
		return fmt.Errorf("%s: %w", a.Params, err)
	}
	job := robotJob{model: "diffdrive", plan: plan, exact: exact, dt: p.H, fixedStep: true, columns: []string{"uf", "ul"}, pose: []string{"x", "y", "theta"}}
	if band > 0 {
		job.planned = fmt.Sprintf("planned (friction surrogate, T = %.3g)", band)
	}
	if a.MPC != "" {
		tp, err := readDiffDriveParams(e, a.MPC, true)
		if err != nil {
			return err
		}
		if math.Abs(tp.H-p.H) > 1e-9*p.H {
			return fmt.Errorf("%s: h = %g, the plan's %g (%s): the true robot must step alike", a.MPC, tp.H, p.H, a.Params)
		}
		tr, err := robots.NewDiffDriveRobot(tp, 0, a.Umax)
		if err != nil {
			return fmt.Errorf("%s: %w", a.MPC, err)
		}
		job.truth = &tr
	}
	return followRobot(e, a, job)
}

func followSkidSteer(e env, a FollowArgs) error {
	p, err := readSkidsteerParams(e, a.Params, true)
	if err != nil {
		return err
	}
	wmax := robots.DefaultSkidSteerWmax
	if a.Set["wmax"] {
		wmax = a.Wmax
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"wmax", wmax}, {"vmax", a.Vmax}} {
		if err := positive(f.name, f.v); err != nil {
			return err
		}
	}
	r, err := robots.NewSkidSteerRobot(p, a.Vmax, wmax)
	if err != nil {
		return fmt.Errorf("%s: %w", a.Params, err)
	}
	job := robotJob{model: "skidsteer", plan: r, exact: r, dt: a.Dt, columns: []string{"vc", "wc"}, pose: []string{"x", "y", "psi"}}
	if a.MPC != "" {
		tp, err := readSkidsteerParams(e, a.MPC, true)
		if err != nil {
			return err
		}
		tr, err := robots.NewSkidSteerRobot(tp, a.Vmax, wmax)
		if err != nil {
			return fmt.Errorf("%s: %w", a.MPC, err)
		}
		job.truth = &tr
	}
	return followRobot(e, a, job)
}

// followRobot synthesises, reports and writes the controls of a job.
func followRobot(e env, a FollowArgs, job robotJob) error {
	path, mode, start, notes, err := followPath(a, job.exact.ForwardAxis)
	if err != nil {
		return err
	}
	if err := checkFollowSteps(a, path, job.dt); err != nil {
		return err
	}
	rate := a.Rate
	name := job.model
	if job.fixedStep {
		d0 := path.Duration()
		if path, rate, err = control.OnSteps(path, a.Rate, job.dt); err != nil {
			return usagef("%v", err)
		}
		n := int(math.Round(1 / (rate * job.dt)))
		if rate != a.Rate || path.Duration() != d0 {
			fmt.Fprintf(e.stderr, "follow: the model steps by %g s: control segments of %d steps (%g s), the path over %g s\n",
				job.dt, n, float64(n)*job.dt, path.Duration())
		}
	}
	plan, err := control.NewRobotPlan(job.plan, path, mode, start.Theta, rate, job.dt)
	if err != nil {
		return usagef("%v", err)
	}
	plan.Start = start
	printNotes(e, notes)
	f, err := control.FollowRobot(plan, job.exact, followSettings(a))
	a.Prog.done()
	if err != nil && !errors.Is(err, control.ErrNotFollowed) {
		return err
	}
	planned, poses, vel, pred := f.Controls, f.Predicted.Poses, f.Predicted.Velocity, f.Predicted.Tracking
	fmt.Fprintf(e.stderr, "follow: %s, %s: %d segments × %s, %d steps of %g s, %s\n",
		name, path.Name(), plan.K, strings.Join(job.columns, ", "), plan.K*plan.N, plan.Dt, synthesisSummary(f.Synthesis))
	if job.planned != "" {
		printTracking(e.stderr, job.planned, f.Planned.Tracking, mode)
		printTracking(e.stderr, "predicted (exact friction)", pred, mode)
	} else {
		printTracking(e.stderr, "predicted", pred, mode)
	}
	if err := checkFollowed(pred, a); err != nil {
		return err
	}

	controls := planned
	series := []figure.Series{}
	var executed []control.Pose
	if job.truth != nil {
		truth := *job.truth
		tx0, err := truth.StartState(plan.Start)
		if err != nil {
			return err
		}
		olPoses, olVel, _, err := truth.Execute(tx0, planned, plan.N, plan.Dt)
		if err != nil {
			return fmt.Errorf("%s: %w", a.MPC, err)
		}
		printTracking(e.stderr, "open loop, executed on the true robot", control.TrackRobot(truth, path, 0, plan.Dt, olPoses, olVel), mode)
		plan2, err := control.NewRobotPlan(job.plan, path, mode, start.Theta, rate, job.dt)
		if err != nil {
			return err
		}
		plan2.Start = start
		m, err := control.RunRobotMPC(plan2, truth, control.MPCSettings{Progress: func(done, total int) {
			a.Prog.printf("MPC: segment %d of %d", done, total)
		}})
		a.Prog.done()
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "MPC: %d re-plans, %s\n", m.Replans, m.Runtime.Round(1e6))
		printTracking(e.stderr, "MPC, executed on the true robot", control.TrackRobot(truth, path, 0, plan.Dt, m.Poses, m.Velocity), mode)
		controls, executed = m.Controls, m.Poses
		series = append(series, figure.Series{Name: "open loop, executed on the true robot", X: xs(olPoses), Y: ys(olPoses), Dashed: true, Color: figure.Palette[3]})
	}
	if err := e.writeOut(a.Out, func(w io.Writer) error {
		return writeRobotControls(w, job, controls, plan.N, plan.Dt, plan.Start)
	}); err != nil {
		return err
	}
	if a.Plot != "" {
		rx, ry := control.Dense(path, 2000)
		series = append([]figure.Series{
			{Name: "reference", X: rx, Y: ry, Color: color.RGBA{200, 200, 200, 255}, Width: 6},
		}, series...)
		if executed != nil {
			series = append(series, figure.Series{Name: "MPC, executed on the true robot", X: xs(executed), Y: ys(executed), Color: figure.Palette[2], Width: 3})
		}
		// senseSeries reads the forward axis as the Mecanum robot's.
		conv := make([]control.Pose, len(poses))
		for i, q := range poses {
			conv[i] = control.Pose{X: q.X, Y: q.Y, Theta: q.Theta + job.exact.ForwardAxis - math.Pi/2}
		}
		series = append(series, senseSeries("predicted", conv, vel)...)
		cs := plan.Start
		cs.Theta += job.exact.ForwardAxis - math.Pi/2
		series = append(series, pathMarks(cs, conv, int(math.Round(2/plan.Dt)))...)
		title := fmt.Sprintf("%s: %s, %s heading", name, path.Name(), mode)
		stage, err := e.stagePath(a.Plot)
		if err != nil {
			return err
		}
		if err := figure.XY(stage, title, "x (m)", "y (m)", true, series); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "follow: wrote %s\n", a.Plot)
	}
	return nil
}

// writeRobotControls writes the model's controls CSV (FORMATS.md: t,uf,ul
// for diffdrive, t,vc,wc for skidsteer): one row per step of dt, values
// piecewise constant over each segment, plus a last row at the final time
// so that simulate reports the final state; the first row carries the start
// pose (skidsteer's simulate starts there; diffdrive's ignores it).
func writeRobotControls(w io.Writer, job robotJob, c [][]float64, n int, dt float64, start control.Pose) error {
	cw := dataset.NewWriter(w)
	cw.WriteHeader(slices.Concat([]string{"t"}, job.columns, job.pose)...)
	steps := len(c) * n
	row := make([]float64, 1+len(job.columns)+3)
	for k := 0; k <= steps; k++ {
		row[0] = float64(k) * dt
		copy(row[1:], c[min(k/n, len(c)-1)])
		p := row[1+len(job.columns):]
		p[0], p[1], p[2] = math.NaN(), math.NaN(), math.NaN()
		if k == 0 {
			p[0], p[1], p[2] = start.X, start.Y, start.Theta
		}
		cw.WriteFloats(row...)
	}
	return cw.Flush()
}
