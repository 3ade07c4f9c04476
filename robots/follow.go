package robots

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/control"
)

// Follow, written once for every Driver (FORMATS.md `wheelgrad follow`):
// prepare the path (control.PreparePath), plan it in segments (whole or in
// receding-horizon chunks), synthesise the commands, measure how the
// predicted robot tracks the path, and on a simulated true robot (-mpc)
// the open-loop and the closed-loop (MPC) runs. A Drive with a Wheels
// model (the Mecanum robot, whose friction may be networks) plans through
// a gorgonia graph of the model (control.FollowDrive); the others through
// their own dyn step (control.FollowRobot).

// FollowRequest is one follow as a face asks for it.
type FollowRequest struct {
	// Path is figure8, circle or a waypoint CSV t,x,y[,theta]; Duration
	// (s) the time once around (a waypoint file's times are stretched to
	// it when Options.Set["duration"]).
	Path     string
	Duration float64
	// Heading is the heading mode's name (control.ParseHeading), Theta0
	// the start heading (rad) when Options.Set["theta0"].
	Heading string
	Theta0  float64
	// Rate is the number of control segments per second.
	Rate float64
	// Options are the model's settings (the bounds, Dt, the flags given in
	// Set, the true robot of -mpc); the Drive is built from them.
	Options DriveOptions
	// Plot asks for the figure of the follow (Followed.Figure).
	Plot bool
	// Report receives the follow's report, line by line as it is found:
	// the path's notes, the synthesis, the tracking errors (nil: none).
	Report io.Writer
	Sink   Sink // progress
}

// Followed is a follow's outputs as data.
type Followed struct {
	// WriteControls writes the controls CSV (FORMATS.md): the executed
	// MPC commands with a true robot, else the synthesised ones.
	WriteControls func(io.Writer) error
	// Figure is the reference path, the predicted run coloured by the
	// sense of travel, the start and the robot's forward axis every 2 s,
	// and the open-loop and MPC runs of a true robot (nil unless Plot).
	Figure *Figure
}

// DefaultMecanumWmax is the default bound on every Mecanum wheel command
// (rad/s).
const DefaultMecanumWmax = 30

// CheckDriveFlags refuses a model-specific follow setting (DriveOptions'
// wmax, umax, vmax, band) given in set for a model that does not take it:
// the registry's Drivers say which they take (DriveFlags). The error is a
// UsageError.
func (r *Registry) CheckDriveFlags(model string, set map[string]bool) error {
	takes := map[string][]string{}
	for _, n := range r.Names() {
		m, _ := r.Get(n)
		if d, ok := m.(Driver); ok {
			for _, f := range d.DriveFlags() {
				takes[f] = append(takes[f], n)
			}
		}
	}
	for _, f := range []string{"wmax", "umax", "vmax", "band"} {
		if set[f] && len(takes[f]) > 0 && !slices.Contains(takes[f], model) {
			return Usagef("-%s applies to -model %s only", f, strings.Join(takes[f], " and "))
		}
	}
	return nil
}

// Follow drives model m (named name in the report) along req's path with
// the Drive d (Driver.Drive of req.Options). A mistake in the request is
// a UsageError; a predicted robot that does not follow the path is an
// error after the report's tracking lines, and no outputs.
func Follow(name string, d *Drive, req FollowRequest) (*Followed, error) {
	f := follower{req: req, d: d, name: name, w: req.Report, sink: req.Sink}
	if f.w == nil {
		f.w = io.Discard
	}
	if f.sink == nil {
		f.sink = Discard
	}
	if d.Wheels != nil {
		return f.wheels()
	}
	return f.robot()
}

type follower struct {
	req  FollowRequest
	d    *Drive
	name string
	w    io.Writer
	sink Sink
	// set by path
	path  control.Path
	mode  control.HeadingMode
	start control.Pose
	notes []string
}

// preparePath checks the path settings and prepares the path: -heading
// and -theta0 in radians are usage errors; so is a plan of more than
// control.MaxSteps steps when the settings fix the duration (a built-in
// path, or Duration given), else a failure naming the waypoint file. The
// notes are reported once the plan is accepted, so that a usage error
// stays the only line.
func (f *follower) preparePath(forwardAxis, dt float64) error {
	r, set := f.req, f.req.Options.Set
	mode, err := control.ParseHeading(r.Heading)
	if err != nil {
		return Usagef("%v", err)
	}
	if set["theta0"] && math.Abs(r.Theta0) > 2*math.Pi {
		return Usagef("-theta0 %g: the heading is in radians (%g° is %.4f rad)", r.Theta0, r.Theta0, r.Theta0*math.Pi/180)
	}
	p, err := control.PreparePath(control.PathSpec{Name: r.Path, Duration: r.Duration, StretchTo: set["duration"],
		Mode: mode, ModeGiven: set["heading"], Theta0: r.Theta0, Theta0Given: set["theta0"], ForwardAxis: forwardAxis})
	if err != nil {
		return err
	}
	f.path, f.mode, f.start, f.notes = p.Path, p.Mode, p.Start, p.Notes
	err = control.CheckSteps(f.path.Name(), f.path.Duration(), dt)
	if err != nil && (r.Path == "circle" || r.Path == "figure8" || set["duration"]) {
		return Usagef("%v", err)
	}
	return err
}

func (f *follower) printNotes() {
	for _, n := range f.notes {
		fmt.Fprintln(f.w, n)
	}
}

// checkFollowed refuses a plan whose predicted robot does not follow the
// path (control.Tracking.Followed: a robot that never moves sits on a path
// through its start, at distance 0, and its distance alone would look
// perfect).
func (f *follower) checkFollowed(t control.Tracking) error {
	if t.Followed() == nil {
		return nil
	}
	return fmt.Errorf("the predicted robot travels %.3g m of the path's %.3g m, %.3g m RMS from where it should be: it does not follow the path; the command bounds (-wmax/-umax/-vmax) may leave it too little speed for -duration %g s; no controls written",
		t.Travelled, t.PathLength, t.OnTimeRMS, f.req.Duration)
}

func (f *follower) tracking(what string, t control.Tracking) {
	fmt.Fprintf(f.w, "  %-40s RMS %.4f m, max %.4f m to the path; on time RMS %.4f m\n", what+":", t.RMS, t.Max, t.OnTimeRMS)
	if f.mode == control.Figure8ReverseRight {
		fmt.Fprintf(f.w, "  %-40s %.1f %% of the right lobe driven backwards, %.1f %% of the left forwards\n", "", 100*t.ReversedRight, 100*t.ForwardLeft)
	}
}

// wheels is the follow of a graph-planned model (Drive.Wheels).
func (f *follower) wheels() (*Followed, error) {
	wd := f.d.Wheels
	if err := f.preparePath(math.Pi/2, f.req.Options.Dt); err != nil {
		return nil, err
	}
	wf, err := PlanWheelFollow(WheelFollowRequest{Model: wd.Model, Path: f.path, Mode: f.mode, Start: f.start,
		Rate: f.req.Rate, Dt: f.req.Options.Dt, Wmax: wd.Wmax, Sink: f.sink})
	if err != nil {
		return nil, err
	}
	f.printNotes()
	if err := wf.Synthesize(); err != nil && !errors.Is(err, control.ErrNotFollowed) {
		return nil, err
	}
	plan, pred := wf.Plan, wf.Synthesis.Predicted
	sep := ", "
	if wf.Synthesis.Synthesis.Chunks > 0 {
		sep = " in "
	}
	fmt.Fprintf(f.w, "follow: %s, %d segments × 4 wheels%s%s\n", f.path.Name(), plan.K, sep, SynthesisSummary(wf.Synthesis.Synthesis))
	f.tracking("predicted", pred.Tracking)
	if err := f.checkFollowed(pred.Tracking); err != nil {
		return nil, err
	}
	var openLoop, executed []control.Pose
	if wd.Truth != nil {
		ol, err := wf.OpenLoop(wd.Truth)
		if err != nil {
			return nil, err
		}
		f.tracking("open loop, executed on the true robot", ol.Tracking)
		cl, err := wf.RunMPC(wd.Truth, control.MPCSettings{})
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(f.w, "MPC: %d re-plans, %s\n", wf.MPC.Replans, wf.MPC.Runtime.Round(1e6))
		f.tracking("MPC, executed on the true robot", cl.Tracking)
		openLoop, executed = ol.Poses, cl.Poses
	}
	out := &Followed{WriteControls: wf.WriteControls}
	if f.req.Plot {
		out.Figure = FollowFigure(FollowPlot{Title: fmt.Sprintf("%s, %s heading", f.path.Name(), f.mode), Path: f.path, ForwardAxis: math.Pi / 2,
			Start: f.start, Dt: plan.Dt, Poses: pred.Poses, Velocity: pred.Velocity, OpenLoop: openLoop, MPC: executed})
	}
	return out, nil
}

// robot is the follow of a model driven through its own step
// (control.Robot).
func (f *follower) robot() (*Followed, error) {
	job, r := f.d, f.req
	if err := f.preparePath(job.Exact.ForwardAxis, job.Dt); err != nil {
		return nil, err
	}
	path, rate := f.path, r.Rate
	if job.FixedStep {
		d0 := path.Duration()
		var err error
		if path, rate, err = control.OnSteps(path, r.Rate, job.Dt); err != nil {
			return nil, Usagef("%v", err)
		}
		n := int(math.Round(1 / (rate * job.Dt)))
		if rate != r.Rate || path.Duration() != d0 {
			fmt.Fprintf(f.w, "follow: the model steps by %g s: control segments of %d steps (%g s), the path over %g s\n",
				job.Dt, n, float64(n)*job.Dt, path.Duration())
		}
	}
	newPlan := func() (*control.RobotPlan, error) {
		plan, err := control.NewRobotPlan(job.Plan, path, f.mode, f.start.Theta, rate, job.Dt)
		if err != nil {
			return nil, err
		}
		plan.Start = f.start
		return plan, nil
	}
	plan, err := newPlan()
	if err != nil {
		return nil, Usagef("%v", err)
	}
	f.printNotes()
	fl, err := control.FollowRobot(plan, job.Exact, FollowProgress(f.sink, "synthesis"))
	f.sink.Done()
	if err != nil && !errors.Is(err, control.ErrNotFollowed) {
		return nil, err
	}
	planned, pred := fl.Controls, fl.Predicted.Tracking
	fmt.Fprintf(f.w, "follow: %s, %s: %d segments × %s, %d steps of %g s, %s\n",
		f.name, path.Name(), plan.K, strings.Join(job.Columns, ", "), plan.K*plan.N, plan.Dt, SynthesisSummary(fl.Synthesis))
	if job.Planned != "" {
		f.tracking(job.Planned, fl.Planned.Tracking)
		f.tracking("predicted (exact friction)", pred)
	} else {
		f.tracking("predicted", pred)
	}
	if err := f.checkFollowed(pred); err != nil {
		return nil, err
	}
	controls := planned
	var openLoop, executed []control.Pose
	if job.Truth != nil {
		truth := *job.Truth
		tx0, err := truth.StartState(plan.Start)
		if err != nil {
			return nil, err
		}
		olPoses, olVel, _, err := truth.Execute(tx0, planned, plan.N, plan.Dt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Options.TruthPath, err)
		}
		f.tracking("open loop, executed on the true robot", control.TrackRobot(truth, path, 0, plan.Dt, olPoses, olVel))
		plan2, err := newPlan()
		if err != nil {
			return nil, err
		}
		m, err := control.RunRobotMPC(plan2, truth, control.MPCSettings{Progress: func(done, total int) {
			f.sink.Progress("MPC: segment %d of %d", done, total)
		}})
		f.sink.Done()
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(f.w, "MPC: %d re-plans, %s\n", m.Replans, m.Runtime.Round(1e6))
		f.tracking("MPC, executed on the true robot", control.TrackRobot(truth, path, 0, plan.Dt, m.Poses, m.Velocity))
		controls, openLoop, executed = m.Controls, olPoses, m.Poses
	}
	out := &Followed{WriteControls: func(w io.Writer) error {
		return control.WriteRobotControls(w, job.Columns, job.Pose, controls, plan.N, plan.Dt, plan.Start)
	}}
	if r.Plot {
		out.Figure = FollowFigure(FollowPlot{Title: fmt.Sprintf("%s: %s, %s heading", f.name, path.Name(), f.mode), Path: path,
			ForwardAxis: job.Exact.ForwardAxis, Start: plan.Start, Dt: plan.Dt, Poses: fl.Predicted.Poses, Velocity: fl.Predicted.Velocity,
			OpenLoop: openLoop, MPC: executed})
	}
	return out, nil
}

// SynthesisSummary is the synthesis part of follow's summary line.
func SynthesisSummary(s control.Synthesis) string {
	if s.Chunks > 0 {
		return fmt.Sprintf("%d receding-horizon chunks of %d s (+%d s look-ahead), %d iterations, %d evaluations, %s",
			s.Chunks, control.ChunkSeconds, control.LookaheadSeconds, s.Iterations, s.Evaluations, s.Runtime.Round(1e6))
	}
	return fmt.Sprintf("%d iterations, %d evaluations, %s (%s)", s.Iterations, s.Evaluations, s.Runtime.Round(1e6), s.Status)
}
