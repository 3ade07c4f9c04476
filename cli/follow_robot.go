package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/robots"
)

// `wheelgrad follow` for the models that control drives through their step
// written once (control.Robot): every robots.Driver of the registry
// (followWith in adapters.go builds its robots.Drive from the flags; the
// built-in ones are the differential drive and the skid-steer). A
// robots.WheelDriver (the Mecanum robot, which also plans through
// friction networks) follows through followWheels (follow.go).

// followModelSettings lists the model-specific follow flags, in the order
// DriveOptions holds them (the order their misuse is reported in).
var followModelSettings = []string{"wmax", "umax", "vmax", "band"}

func addFollowModelFlags(fs *flag.FlagSet, a *FollowArgs) {
	fs.Float64Var(&a.Umax, "umax", robots.DefaultJoystickMax, "diffdrive: bound on the joystick commands |uf| and |ul|")
	fs.Float64Var(&a.Vmax, "vmax", robots.DefaultSkidSteerVmax, "skidsteer: bound on the commanded speed |vc| (m/s)")
	fs.Float64Var(&a.Band, "band", 0, fmt.Sprintf("diffdrive: band T (m/s²) of the friction surrogate synthesis plans with (default %g·mu; 0: the exact clamp)", robots.DefaultFrictionBand))
}

// checkFollowModelFlags refuses a model-specific flag given with a model
// that does not take it: the registry's Drivers and WheelDrivers say
// which they take (DriveFlags).
func checkFollowModelFlags(reg *robots.Registry, model string, set map[string]bool) error {
	takes := map[string][]string{}
	for _, n := range reg.Names() {
		m, _ := reg.Get(n)
		if d, ok := m.(interface{ DriveFlags() []string }); ok {
			for _, f := range d.DriveFlags() {
				takes[f] = append(takes[f], n)
			}
		}
	}
	for _, f := range followModelSettings {
		if set[f] && len(takes[f]) > 0 && !slices.Contains(takes[f], model) {
			return usagef("-%s applies to -model %s only", f, strings.Join(takes[f], " and "))
		}
	}
	return nil
}

// followRobot synthesises, reports and writes the controls of a job.
func followRobot(e env, a FollowArgs, name string, job *robots.Drive) error {
	path, mode, start, notes, err := followPath(a, job.Exact.ForwardAxis)
	if err != nil {
		return err
	}
	if err := checkFollowSteps(a, path, job.Dt); err != nil {
		return err
	}
	rate := a.Rate
	if job.FixedStep {
		d0 := path.Duration()
		if path, rate, err = control.OnSteps(path, a.Rate, job.Dt); err != nil {
			return usagef("%v", err)
		}
		n := int(math.Round(1 / (rate * job.Dt)))
		if rate != a.Rate || path.Duration() != d0 {
			fmt.Fprintf(e.stderr, "follow: the model steps by %g s: control segments of %d steps (%g s), the path over %g s\n",
				job.Dt, n, float64(n)*job.Dt, path.Duration())
		}
	}
	plan, err := control.NewRobotPlan(job.Plan, path, mode, start.Theta, rate, job.Dt)
	if err != nil {
		return usagef("%v", err)
	}
	plan.Start = start
	printNotes(e, notes)
	f, err := control.FollowRobot(plan, job.Exact, followSettings(a))
	a.Prog.done()
	if err != nil && !errors.Is(err, control.ErrNotFollowed) {
		return err
	}
	planned, poses, vel, pred := f.Controls, f.Predicted.Poses, f.Predicted.Velocity, f.Predicted.Tracking
	fmt.Fprintf(e.stderr, "follow: %s, %s: %d segments × %s, %d steps of %g s, %s\n",
		name, path.Name(), plan.K, strings.Join(job.Columns, ", "), plan.K*plan.N, plan.Dt, synthesisSummary(f.Synthesis))
	if job.Planned != "" {
		printTracking(e.stderr, job.Planned, f.Planned.Tracking, mode)
		printTracking(e.stderr, "predicted (exact friction)", pred, mode)
	} else {
		printTracking(e.stderr, "predicted", pred, mode)
	}
	if err := checkFollowed(pred, a); err != nil {
		return err
	}

	controls := planned
	var openLoop, executed []control.Pose
	if job.Truth != nil {
		truth := *job.Truth
		tx0, err := truth.StartState(plan.Start)
		if err != nil {
			return err
		}
		olPoses, olVel, _, err := truth.Execute(tx0, planned, plan.N, plan.Dt)
		if err != nil {
			return fmt.Errorf("%s: %w", a.MPC, err)
		}
		printTracking(e.stderr, "open loop, executed on the true robot", control.TrackRobot(truth, path, 0, plan.Dt, olPoses, olVel), mode)
		plan2, err := control.NewRobotPlan(job.Plan, path, mode, start.Theta, rate, job.Dt)
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
		controls, openLoop, executed = m.Controls, olPoses, m.Poses
	}
	if err := e.writeOut(a.Out, func(w io.Writer) error {
		return control.WriteRobotControls(w, job.Columns, job.Pose, controls, plan.N, plan.Dt, plan.Start)
	}); err != nil {
		return err
	}
	if a.Plot == "" {
		return nil
	}
	return e.drawFollow(a.Plot, followPlot{Title: fmt.Sprintf("%s: %s, %s heading", name, path.Name(), mode), Path: path,
		ForwardAxis: job.Exact.ForwardAxis, Start: plan.Start, Dt: plan.Dt, Poses: poses, Velocity: vel, OpenLoop: openLoop, MPC: executed})
}
