package control

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// Robot is what synthesis needs to know about a model written in the step
// language (package dyn): the model, its parameters, settings and initial
// state, which of its inputs are the decision variables (with bounds),
// which fixed values the other inputs take, and which lanes are the planar
// pose to track. Any model can be driven along a path through it
// (RobotPlan, RobotSynthesizer, RunRobotMPC); robots.NewDiffDriveRobot,
// NewSkidSteerRobot and NewMecanumRobot build the three of FORMATS.md.
//
// The pose lanes X, Y and Heading must each be a state and an output of
// the same name whose value at step t is the state after step t (a model
// that declares no Outputs records its next states, so it qualifies as it
// is) or the state at the start of step t (as the models that report the
// pose at a log row's time, e.g. skidsteer.Model and mecanum.Model; the
// pose after the last step is then the final state). The outputs (and the
// final state) carry the tracking loss's adjoints into the model's
// generated reverse pass; the states receive the start pose.
type Robot struct {
	Model    *dyn.Model
	Params   []float64 // in the order of the model's Spec().Params
	Settings []float64 // in the order of Spec().Settings
	// State0 is the initial state; its pose lanes are overwritten by the
	// plan's start pose.
	State0 []float64
	// X, Y, Heading name the pose lanes: world position (m) and the heading
	// (rad, counter-clockwise).
	X, Y, Heading string
	// ForwardAxis is the angle from the heading to the robot's forward axis:
	// 0 when the heading is the direction the robot drives (differential
	// drive, skid-steer), π/2 for FORMATS.md's Mecanum robot, whose forward
	// axis is its body y axis. Heading modes refer to the forward axis.
	ForwardAxis float64
	// Controls are the decision variables: inputs held constant over each
	// control segment, bounded to [Lo, Hi].
	Controls []Control
	// Inputs gives the constant value of every other input except DtInput.
	Inputs map[string]float64
	// DtInput names the input that carries the step length, which the plan
	// sets to its dt; or Step > 0 is the model's own fixed step (s), which a
	// plan must use (the differential drive's h, a setting of its model).
	DtInput string
	Step    float64
	// Guess, if set, returns the controls (one per Controls entry) that
	// hold the robot at a steady body velocity: fwd along the forward axis
	// (m/s), lat to its left (m/s) and a yaw rate (rad/s). It seeds the
	// optimiser; without it synthesis starts from zero controls.
	Guess func(fwd, lat, yaw float64) []float64
}

// Control is an input that synthesis decides: piecewise constant over the
// plan's control segments and bounded to [Lo, Hi].
type Control struct {
	Input  string
	Lo, Hi float64
	// Scale is the change between consecutive segments that the smoothness
	// term counts as one unit (0: 1), in the input's units.
	Scale float64
}

// lanes are a Robot's names resolved to indices of its model.
type lanes struct {
	x, y, th    int // states
	ox, oy, oth int // outputs
	ctl         []int
	dt          int // −1: none
	fixed       []float64
	// atStart: the pose outputs are the state at the start of each step
	// (otherwise after it).
	atStart bool
}

// stateOf and outOf are the state and output index of pose lane c (0: x,
// 1: y, 2: heading).
func (l *lanes) stateOf(c int) int { return [3]int{l.x, l.y, l.th}[c] }
func (l *lanes) outOf(c int) int   { return [3]int{l.ox, l.oy, l.oth}[c] }

// after is pose lane c after step t of a one-lane rollout of T steps whose
// outputs are y ([NY][T]) and final state xT.
func (l *lanes) after(y, xT []float64, c, t, T int) float64 {
	switch {
	case !l.atStart:
		return y[l.outOf(c)*T+t]
	case t+1 < T:
		return y[l.outOf(c)*T+t+1]
	default:
		return xT[l.stateOf(c)]
	}
}

// seed adds v to the adjoint of pose lane c after step t: of its output
// (ybar, [NY][T]) or, for the last step of a model whose outputs are at
// the start of a step, of the final state (xTbar, [S]).
func (l *lanes) seed(ybar, xTbar []float64, c, t, T int, v float64) {
	switch {
	case !l.atStart:
		ybar[l.outOf(c)*T+t] += v
	case t+1 < T:
		ybar[l.outOf(c)*T+t+1] += v
	default:
		xTbar[l.stateOf(c)] += v
	}
}

// Validate checks the robot against its model and names what is wrong.
func (r Robot) Validate() error {
	_, err := r.resolve()
	return err
}

func (r Robot) resolve() (*lanes, error) {
	m := r.Model
	if m == nil {
		return nil, errors.New("control: robot without a model")
	}
	name := m.Name()
	for _, c := range []struct {
		what      string
		got, want int
	}{{"parameters", len(r.Params), m.NP()}, {"settings", len(r.Settings), m.NQ()}, {"initial states", len(r.State0), m.NS()}} {
		if c.got != c.want {
			return nil, fmt.Errorf("control: %s: %d %s, want %d", name, c.got, c.what, c.want)
		}
	}
	for _, v := range slices.Concat(r.Params, r.Settings, r.State0) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("control: %s: a parameter, setting or initial state is %v", name, v)
		}
	}
	l := &lanes{dt: -1}
	for _, p := range []struct {
		lane  string
		state *int
		out   *int
	}{{r.X, &l.x, &l.ox}, {r.Y, &l.y, &l.oy}, {r.Heading, &l.th, &l.oth}} {
		*p.state, *p.out = m.Index("state", p.lane), m.Index("output", p.lane)
		if *p.state < 0 || *p.out < 0 {
			return nil, fmt.Errorf("control: %s: pose lane %q must be both a state and an output of the model", name, p.lane)
		}
	}
	if l.x == l.y || l.x == l.th || l.y == l.th {
		return nil, fmt.Errorf("control: %s: the pose lanes %q, %q, %q must differ", name, r.X, r.Y, r.Heading)
	}
	if math.IsNaN(r.ForwardAxis) || math.IsInf(r.ForwardAxis, 0) {
		return nil, fmt.Errorf("control: %s: forward axis %v", name, r.ForwardAxis)
	}
	if len(r.Controls) == 0 {
		return nil, fmt.Errorf("control: %s: no input is a decision variable", name)
	}
	role := make([]string, m.NU())
	for _, c := range r.Controls {
		k := m.Index("input", c.Input)
		if k < 0 {
			return nil, fmt.Errorf("control: %s: control %q is not an input of the model", name, c.Input)
		}
		if role[k] != "" {
			return nil, fmt.Errorf("control: %s: input %q is a control twice", name, c.Input)
		}
		if !(c.Lo < c.Hi) || math.IsInf(c.Lo, 0) || math.IsInf(c.Hi, 0) {
			return nil, fmt.Errorf("control: %s: bounds of %q are [%g, %g], want finite lo < hi", name, c.Input, c.Lo, c.Hi)
		}
		if c.Scale < 0 || math.IsNaN(c.Scale) || math.IsInf(c.Scale, 0) {
			return nil, fmt.Errorf("control: %s: smoothness scale of %q is %g", name, c.Input, c.Scale)
		}
		role[k] = "control"
		l.ctl = append(l.ctl, k)
	}
	switch {
	case r.DtInput != "" && r.Step != 0:
		return nil, fmt.Errorf("control: %s: give either the step input (DtInput %q) or the model's fixed step (Step %g), not both", name, r.DtInput, r.Step)
	case r.DtInput != "":
		l.dt = m.Index("input", r.DtInput)
		if l.dt < 0 {
			return nil, fmt.Errorf("control: %s: step input %q is not an input of the model", name, r.DtInput)
		}
		if role[l.dt] != "" {
			return nil, fmt.Errorf("control: %s: step input %q is also a control", name, r.DtInput)
		}
		role[l.dt] = "dt"
	case !(r.Step > 0) || math.IsInf(r.Step, 0):
		return nil, fmt.Errorf("control: %s: no step: name the input that carries dt (DtInput) or give the model's fixed step (Step > 0)", name)
	}
	l.fixed = make([]float64, m.NU())
	for in, v := range r.Inputs {
		k := m.Index("input", in)
		if k < 0 {
			return nil, fmt.Errorf("control: %s: fixed input %q is not an input of the model", name, in)
		}
		if role[k] != "" {
			return nil, fmt.Errorf("control: %s: input %q is fixed and also a %s", name, in, role[k])
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("control: %s: fixed input %q = %v", name, in, v)
		}
		role[k] = "fixed"
		l.fixed[k] = v
	}
	for k, in := range m.Spec().Input {
		if role[k] == "" {
			return nil, fmt.Errorf("control: %s: input %q is neither a control, the step input nor fixed (Robot.Inputs)", name, in)
		}
	}
	if err := r.checkPoseOutputs(l); err != nil {
		return nil, err
	}
	return l, nil
}

// checkPoseOutputs checks, at one step from the initial state (pose
// shifted off zero) with controls mid-range, that the pose outputs are the
// next pose states or the pose at the start of the step, and records which.
func (r Robot) checkPoseOutputs(l *lanes) error {
	m := r.Model
	x := append([]float64(nil), r.State0...)
	x[l.x], x[l.y], x[l.th] = 0.3, -0.2, 0.7
	u := append([]float64(nil), l.fixed...)
	for j, k := range l.ctl {
		c := r.Controls[j]
		u[k] = c.Lo + 0.7*(c.Hi-c.Lo)
	}
	if l.dt >= 0 {
		u[l.dt] = 0.01
	}
	xn := make([]float64, m.NS())
	y := make([]float64, m.NY())
	if _, err := m.NewStepper().Step(r.Params, r.Settings, x, u, xn, y); err != nil {
		return fmt.Errorf("control: %w", err)
	}
	next, start := true, true
	for c := range 3 {
		next = next && y[l.outOf(c)] == xn[l.stateOf(c)]
		start = start && y[l.outOf(c)] == x[l.stateOf(c)]
	}
	switch {
	case next:
		return nil
	case start:
		l.atStart = true
		return nil
	}
	return fmt.Errorf("control: %s: the pose outputs %g, %g, %g are neither the pose after a step (%g, %g, %g) nor before it (%g, %g, %g)", m.Name(),
		y[l.ox], y[l.oy], y[l.oth], xn[l.x], xn[l.y], xn[l.th], x[l.x], x[l.y], x[l.th])
}

// toPlanHeading converts the robot's heading to the heading convention of
// Sample and Track (FORMATS.md's Mecanum robot: forward axis at θ + π/2).
func (r Robot) toPlanHeading(th float64) float64 { return th + r.ForwardAxis - math.Pi/2 }

// fromPlanHeading is the inverse of toPlanHeading.
func (r Robot) fromPlanHeading(th float64) float64 { return th - r.ForwardAxis + math.Pi/2 }

// Execute rolls the robot from the state x0 under controls (one row per
// segment, one value per Controls entry) held for n steps of dt each, and
// returns every pose after a step, the world velocity of every step (for
// Track) and the final state. The headings of the poses are the robot's.
func (r Robot) Execute(x0 []float64, controls [][]float64, n int, dt float64) ([]Pose, [][2]float64, []float64, error) {
	l, err := r.resolve()
	if err != nil {
		return nil, nil, nil, err
	}
	if len(x0) != r.Model.NS() {
		return nil, nil, nil, fmt.Errorf("control: %s: %d initial states, want %d", r.Model.Name(), len(x0), r.Model.NS())
	}
	T := len(controls) * n
	u, err := r.inputs(l, controls, n, dt)
	if err != nil {
		return nil, nil, nil, err
	}
	sim := r.Model.NewSim(1, T)
	y := make([]float64, r.Model.NY()*T)
	if _, err := sim.Forward(r.Params, r.Settings, x0, u, y); err != nil {
		return nil, nil, nil, err
	}
	poses := make([]Pose, T)
	vel := make([][2]float64, T)
	px, py := x0[l.x], x0[l.y]
	xT := sim.Final()
	for t := range T {
		p := Pose{X: l.after(y, xT, 0, t, T), Y: l.after(y, xT, 1, t, T), Theta: l.after(y, xT, 2, t, T)}
		poses[t] = p
		vel[t] = [2]float64{(p.X - px) / dt, (p.Y - py) / dt}
		px, py = p.X, p.Y
	}
	return poses, vel, append([]float64(nil), sim.Final()...), nil
}

// inputs lays out the model's inputs [T][U] for controls held n steps each.
func (r Robot) inputs(l *lanes, controls [][]float64, n int, dt float64) ([]float64, error) {
	U := r.Model.NU()
	T := len(controls) * n
	u := make([]float64, T*U)
	for i, c := range controls {
		if len(c) != len(l.ctl) {
			return nil, fmt.Errorf("control: %s: segment %d has %d controls, want %d", r.Model.Name(), i, len(c), len(l.ctl))
		}
		for s := range n {
			row := u[(i*n+s)*U : (i*n+s+1)*U]
			copy(row, l.fixed)
			if l.dt >= 0 {
				row[l.dt] = dt
			}
			for j, k := range l.ctl {
				row[k] = c[j]
			}
		}
	}
	return u, nil
}

// StartState is State0 with the pose lanes set to p.
func (r Robot) StartState(p Pose) ([]float64, error) {
	l, err := r.resolve()
	if err != nil {
		return nil, err
	}
	x := append([]float64(nil), r.State0...)
	x[l.x], x[l.y], x[l.th] = p.X, p.Y, p.Theta
	return x, nil
}

// PoseOf reads the pose lanes of a state.
func (r Robot) PoseOf(x []float64) (Pose, error) {
	l, err := r.resolve()
	if err != nil {
		return Pose{}, err
	}
	if len(x) != r.Model.NS() {
		return Pose{}, fmt.Errorf("control: %s: %d states, want %d", r.Model.Name(), len(x), r.Model.NS())
	}
	return Pose{X: x[l.x], Y: x[l.y], Theta: x[l.th]}, nil
}

// TrackRobot is Track for poses whose headings are the robot's (as Execute
// returns them): the direction-of-travel shares refer to its forward axis.
func TrackRobot(r Robot, p Path, t0, dt float64, poses []Pose, vel [][2]float64) Tracking {
	conv := make([]Pose, len(poses))
	for i, q := range poses {
		conv[i] = Pose{X: q.X, Y: q.Y, Theta: r.toPlanHeading(q.Theta)}
	}
	return Track(p, t0, dt, conv, vel)
}

// WithSetting returns r with a setting of its model changed, e.g. the
// differential drive's friction band "T" (0: the exact model).
func (r Robot) WithSetting(name string, v float64) (Robot, error) {
	k := r.Model.Index("setting", name)
	if k < 0 {
		return r, fmt.Errorf("control: %s has no setting %q", r.Model.Name(), name)
	}
	r.Settings = append([]float64(nil), r.Settings...)
	r.Settings[k] = v
	return r, nil
}
