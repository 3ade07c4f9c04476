package robots

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

// The Mecanum robot's follow (Luo et al. §VII-B): synthesis of its four
// wheel commands through a gorgonia graph of the model (control.Drive), so
// that the gradient also flows through command-dependent friction networks;
// the other models are driven through a control.Robot (Driver).

var _ Driver = Mecanum{}

// DriveFlags is "wmax": the bound on every wheel command.
func (Mecanum) DriveFlags() []string { return []string{"wmax"} }

// Drive plans four wheel commands |ω_s| ≤ Wmax (default
// DefaultMecanumWmax) at the step Dt through a graph of the model
// (mecanum.NewDrive: constant μ or friction networks); Truth, the
// simulated true robot of -mpc, is built alike.
func (Mecanum) Drive(params Params, o DriveOptions) (*Drive, error) {
	wd := &WheelDrive{Wmax: DefaultMecanumWmax}
	if o.Set["wmax"] {
		wd.Wmax = o.Wmax
	}
	if err := positiveFlag("wmax", wd.Wmax); err != nil {
		return nil, err
	}
	build := func(params Params, path string) (control.Drive, error) {
		p, err := mecanumParams(params)
		if err != nil {
			return nil, err
		}
		d, err := mecanum.NewDrive(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return d, nil
	}
	var err error
	if wd.Model, err = build(params, o.ParamsPath); err != nil {
		return nil, err
	}
	if o.Truth != nil {
		if wd.Truth, err = build(o.Truth, o.TruthPath); err != nil {
			return nil, err
		}
	}
	return &Drive{Wheels: wd, Dt: o.Dt, Columns: []string{"w1", "w2", "w3", "w4"}, Pose: []string{"x", "y", "theta"}}, nil
}

// ReadDrive reads a Mecanum parameter file (mecanum.ReadParams, μ or a
// friction network required) into the model synthesis plans with. Its
// warnings read `PATH, key "K": why`.
func (Mecanum) ReadDrive(path string) (control.Drive, []fit.Warning, error) {
	p, ws, err := mecanum.ReadParams(path, true)
	if err != nil {
		return nil, nil, err
	}
	d, err := mecanum.NewDrive(p)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, ParamWarnings(path, ws), nil
}

// WheelFollowRequest is one follow of a control.Drive along a path.
type WheelFollowRequest struct {
	Model control.Drive // the robot synthesis plans with
	Path  control.Path
	Mode  control.HeadingMode
	// Start is the pose at the path's start; its heading is the robot's
	// (the Mecanum convention: the forward axis is the body y axis).
	Start control.Pose
	// Rate is the number of control segments per second, Dt the
	// integration step (s), Wmax the bound on every wheel command (rad/s).
	Rate, Dt, Wmax float64
	// Label names the synthesis on the progress line ("synthesis" when
	// empty).
	Label string
	Sink  Sink
}

// WheelFollow is a planned follow and what has been done with it:
// Synthesize fills Synthesis; OpenLoop and RunMPC drive a simulated true
// robot.
type WheelFollow struct {
	Req  WheelFollowRequest
	Plan *control.Plan
	// Synthesis holds the synthesised controls and their prediction on the
	// plan's model (nil before Synthesize).
	Synthesis *control.DriveFollow
	// MPC is the closed-loop run on the true robot (nil before RunMPC).
	MPC *control.MPCResult
}

// PlanWheelFollow checks a request and plans it: K = duration·rate
// segments of N = 1/(rate·dt) steps. A plan the request cannot make (a
// segment that is not a whole number of steps, a duration that is not a
// whole number of segments) is a UsageError.
func PlanWheelFollow(req WheelFollowRequest) (*WheelFollow, error) {
	plan, err := newWheelPlan(req)
	if err != nil {
		return nil, Usagef("%v", err)
	}
	return &WheelFollow{Req: req, Plan: plan}, nil
}

func newWheelPlan(req WheelFollowRequest) (*control.Plan, error) {
	plan, err := control.NewPlan(req.Model, req.Path, req.Mode, req.Start.Theta, req.Rate, req.Dt, req.Wmax)
	if err != nil {
		return nil, err
	}
	plan.Start = req.Start
	return plan, nil
}

// Synthesize synthesises the plan's controls (control.FollowDrive: whole,
// or in receding-horizon chunks for a long path), reporting progress to the
// request's Sink. When the predicted robot does not follow the path it
// keeps the result and returns an error wrapping control.ErrNotFollowed.
func (f *WheelFollow) Synthesize() error {
	label := f.Req.Label
	if label == "" {
		label = "synthesis"
	}
	r, err := control.FollowDrive(f.Plan, FollowProgress(f.sink(), label))
	f.sink().Done()
	if r != nil {
		f.Synthesis = r
	}
	return err
}

// sink is the request's Sink, Discard for none.
func (f *WheelFollow) sink() Sink {
	if f.Req.Sink == nil {
		return Discard
	}
	return f.Req.Sink
}

// FollowProgress reports a follow's synthesis on sink's progress line, as
// "LABEL: iteration I, loss F" (a whole plan) or "LABEL in chunks: segment
// D of T" (a long path).
func FollowProgress(sink Sink, label string) control.FollowSettings {
	if sink == nil {
		sink = Discard
	}
	return control.FollowSettings{
		Iteration: func(iter int, loss float64) { sink.Progress("%s: iteration %d, loss %.4g", label, iter, loss) },
		Chunk:     func(done, total int) { sink.Progress("%s in chunks: segment %d of %d", label, done, total) },
	}
}

// Execute runs controls on robot d from the plan's start (exact
// simulation) and measures how it follows the path.
func (f *WheelFollow) Execute(d control.Drive, controls [][4]float64) control.Trajectory {
	poses, vel := control.Execute(d, f.Plan.Start, controls, f.Plan.N, f.Plan.Dt)
	return control.Trajectory{Poses: poses, Velocity: vel, Tracking: control.Track(f.Plan.Path, 0, f.Plan.Dt, poses, vel)}
}

// OpenLoop is the synthesised controls executed on truth, a simulated true
// robot: what the plan does without feedback.
func (f *WheelFollow) OpenLoop(truth control.Drive) (control.Trajectory, error) {
	if f.Synthesis == nil {
		return control.Trajectory{}, errors.New("robots: OpenLoop before Synthesize")
	}
	return f.Execute(truth, f.Synthesis.Controls), nil
}

// RunMPC drives truth along the path in closed loop (control.RunMPC with
// ms; the zero value re-plans every second over an 8-s horizon from the
// true pose, measured exactly, with the plan's model) and returns the
// executed run. Without ms.Progress, progress goes to the request's Sink.
func (f *WheelFollow) RunMPC(truth control.Drive, ms control.MPCSettings) (control.Trajectory, error) {
	plan, err := newWheelPlan(f.Req)
	if err != nil {
		return control.Trajectory{}, err
	}
	s := f.sink()
	if ms.Progress == nil {
		ms.Progress = func(done, total int) { s.Progress("MPC: segment %d of %d", done, total) }
	}
	m, err := control.RunMPC(plan, truth, ms)
	s.Done()
	if err != nil {
		return control.Trajectory{}, err
	}
	f.MPC = m
	return control.Trajectory{Poses: m.Poses, Velocity: m.Velocity, Tracking: control.Track(f.Plan.Path, 0, f.Plan.Dt, m.Poses, m.Velocity)}, nil
}

// Controls are the commands to write: the MPC's executed ones when RunMPC
// ran, else the synthesised ones.
func (f *WheelFollow) Controls() [][4]float64 {
	if f.MPC != nil {
		return f.MPC.Controls
	}
	if f.Synthesis != nil {
		return f.Synthesis.Controls
	}
	return nil
}

// WriteControls writes Controls as FORMATS.md's controls CSV (WriteWheelControls).
func (f *WheelFollow) WriteControls(w io.Writer) error {
	return WriteWheelControls(w, f.Controls(), f.Plan.N, f.Plan.Dt, f.Plan.Start)
}

// WriteWheelControls writes FORMATS.md's controls CSV of four wheel
// commands: t,w1..w4,x,y,theta, one row per integration step dt, each of
// the n steps of a segment holding its command, plus a last row at the
// final time (so that simulate also reports the final pose); the first row
// carries the start pose, so that simulate starts where follow did.
func WriteWheelControls(w io.Writer, c [][4]float64, n int, dt float64, start control.Pose) error {
	if len(c) == 0 || n < 1 {
		return errors.New("robots: no controls to write")
	}
	cw := dataset.NewWriter(w)
	cw.WriteHeader("t", "w1", "w2", "w3", "w4", "x", "y", "theta")
	steps := len(c) * n
	for k := 0; k <= steps; k++ {
		ws := c[min(k/n, len(c)-1)]
		x, y, th := math.NaN(), math.NaN(), math.NaN()
		if k == 0 {
			x, y, th = start.X, start.Y, start.Theta
		}
		cw.WriteFloats(float64(k)*dt, ws[0], ws[1], ws[2], ws[3], x, y, th)
	}
	return cw.Flush()
}
