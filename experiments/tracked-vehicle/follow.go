package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/opt"
)

// The circle to follow: FORMATS.md's circle (from the origin heading +x,
// counter-clockwise) of radius 1 m in 20 s, 0.31 m/s, commands planned in
// segments of 0.2 s over 10-ms steps.
var (
	circle = control.Circle{R: 1, T: 20}
)

const (
	rate       = 5 // control segments per second
	mpcEvery   = 5 // segments executed between re-plans (1 s)
	mpcHorizon = 15
)

// vehicle is Robot as control drives it, with parameters x (identified)
// and the commands bounded to ±umax.
func vehicle(x []float64, umax float64) control.Robot {
	return control.Robot{
		Model:    Robot,
		Params:   x,
		Settings: []float64{truth.W},
		State0:   make([]float64, Robot.NS()),
		X:        "x", Y: "y", Heading: "th",
		Controls: []control.Control{{Input: "ul", Lo: -umax, Hi: umax, Scale: 0.05}, {Input: "ur", Lo: -umax, Hi: umax, Scale: 0.05}},
		DtInput:  "dt",
		Guess: func(fwd, _, yaw float64) []float64 {
			return []float64{steadyCommand(x, fwd-yaw*truth.W/2), steadyCommand(x, fwd+yaw*truth.W/2)}
		},
	}
}

// steadyCommand is the command that holds a track at speed v with the
// parameters x: the drive that balances Coulomb and viscous friction,
// looked up backwards in the motor table (0 for v = 0).
func steadyCommand(x []float64, v float64) float64 {
	if v == 0 {
		return 0
	}
	return math.Copysign(commandFor(x, x[pFc]+x[pB]*math.Abs(v)), v)
}

// commandFor is the command |u| whose drive is a in the motor table of x
// (1 beyond the table).
func commandFor(x []float64, a float64) float64 {
	table := append([]float64{0}, x[pF0:pF0+5]...)
	u := 1.0
	for i := 1; i < len(table); i++ {
		if a <= table[i] {
			f := (a - table[i-1]) / (table[i] - table[i-1])
			u = Knots[i-1] + f*(Knots[i]-Knots[i-1])
			break
		}
	}
	return u
}

// kick raises the first segment's commands of a plan from rest to a drive
// 10 % above the stiction level (within the bounds), where they are below
// it: while a track sticks, the gradient of the tracking loss with respect
// to its command is exactly zero (the exact clamp holds it whatever the
// command), so no gradient method can find the breakaway by itself — the
// first guess must contain it. The optimiser then shapes the rest.
func kick(c [][]float64, x []float64, umax float64) {
	u := math.Min(umax, commandFor(x, 1.1*x[pFs]))
	for j, v := range c[0] {
		if v != 0 && math.Abs(v) < u {
			c[0][j] = math.Copysign(u, v)
		}
	}
}

// planFollow plans the circle from rest with the model's parameters x and
// commands bounded to ±umax from the kicked initial guess, and tracks the
// plan on the model (what control.FollowRobot does, with the guess kicked).
func planFollow(x []float64, umax float64) (followRun, [][]float64, error) {
	r := vehicle(x, umax)
	plan, err := control.NewRobotPlan(r, circle, control.Tangent, 0, rate, period)
	if err != nil {
		return followRun{}, nil, err
	}
	syn, err := control.NewRobotSynthesizer(plan)
	if err != nil {
		return followRun{}, nil, err
	}
	init := syn.InitialGuess()
	kick(init, x, umax)
	res, err := syn.Synthesize(init, opt.Settings{})
	if err != nil {
		return followRun{}, nil, err
	}
	x0, err := r.StartState(plan.Start)
	if err != nil {
		return followRun{}, nil, err
	}
	poses, vel, _, err := r.Execute(x0, res.Controls, plan.N, plan.Dt)
	if err != nil {
		return followRun{}, nil, err
	}
	run := track("planned with a breakaway kick (model)", poses, vel)
	run.Iters, run.Status = res.Opt.Iterations, res.Opt.Status.String()
	return run, res.Controls, nil
}

// followRun is one way of following the circle and how well it did.
type followRun struct {
	Name     string
	Poses    []control.Pose
	Tracking control.Tracking
	Err      error // the run does not follow the circle (control.ErrNotFollowed)
	Iters    int
	Status   string
}

// followAll plans the circle with the identified model x (control's
// FollowRobot: controls synthesised through the model's generated reverse
// pass), then executes the plan on the true robot open loop, and follows
// the circle on the true robot closed loop (receding horizon: re-planned
// every second from the measured pose and encoder speeds). A last run
// plans with the commands bounded to ±weak, a drive below the stiction
// level: the robot cannot break away, and the run must end as a failure.
func followAll(x []float64, weak float64, seed uint64) ([]followRun, error) {
	var runs []followRun
	// control's pipeline as it is: from its own initial guess (the steady
	// commands of the circle) the inner track's drive is below the
	// stiction level, it never breaks away, and FollowRobot must say so.
	r := vehicle(x, 1)
	plan, err := control.NewRobotPlan(r, circle, control.Tangent, 0, rate, period)
	if err != nil {
		return nil, err
	}
	f, err := control.FollowRobot(plan, r, control.FollowSettings{})
	if f == nil {
		return nil, err
	}
	runs = append(runs, followRun{Name: "planned, steady-command guess (model)", Poses: f.Predicted.Poses, Tracking: f.Predicted.Tracking, Err: err,
		Iters: f.Synthesis.Iterations, Status: f.Synthesis.Status.String()})

	pf, controls, err := planFollow(x, 1)
	if err != nil {
		return nil, err
	}
	runs = append(runs, pf)
	poses, vel := executeTruth(truth, controls, plan.N, seed)
	runs = append(runs, track("  … open loop on the true robot", poses, vel))

	mpc, err := mpcTruth(x, seed+1)
	if err != nil {
		return nil, err
	}
	runs = append(runs, mpc)

	// Too little torque: commands bounded to ±weak, whose drive is below
	// the stiction level. control.FollowRobot must report the plan, which
	// never moves the robot from its start on the circle, as a failure.
	wf, err := weakFollow(x, weak)
	if wf == nil {
		return nil, err
	}
	runs = append(runs, followRun{Name: "planned, |u| ≤ " + fmtG(weak) + " (drive below stiction)", Poses: wf.Predicted.Poses, Tracking: wf.Predicted.Tracking, Err: err,
		Iters: wf.Synthesis.Iterations, Status: wf.Synthesis.Status.String()})
	poses, vel = executeTruth(truth, wf.Controls, plan.N, seed+2)
	runs = append(runs, track("  … open loop on the true robot", poses, vel))
	return runs, nil
}

// weakFollow is control.FollowRobot of the circle with the commands
// bounded to ±umax.
func weakFollow(x []float64, umax float64) (*control.RobotFollow, error) {
	w := vehicle(x, umax)
	plan, err := control.NewRobotPlan(w, circle, control.Tangent, 0, rate, period)
	if err != nil {
		return nil, err
	}
	return control.FollowRobot(plan, w, control.FollowSettings{})
}

// track measures poses against the circle (pose k at (k+1)·period).
func track(name string, poses []control.Pose, vel [][2]float64) followRun {
	tr := control.Track(circle, 0, period, poses, vel)
	var err error
	if e := tr.Followed(); e != nil {
		err = fmt.Errorf("%w (%v)", control.ErrNotFollowed, e)
	}
	return followRun{Name: name, Poses: poses, Tracking: tr, Err: err}
}

// executeTruth runs commands (one row [ul, ur] per segment of n periods) on
// the true robot from rest at the origin, with the control loop's jitter,
// and returns its pose after every period and its world velocity.
func executeTruth(r trueRobot, controls [][]float64, n int, seed uint64) ([]control.Pose, [][2]float64) {
	rng := rand.New(rand.NewPCG(seed, 0xe7ec))
	var s state
	var poses []control.Pose
	var vel [][2]float64
	t := 0.0
	k := 0
	for _, c := range controls {
		for range n {
			k++
			next := float64(k)*period + jitter*(2*rng.Float64()-1)
			px, py := s.X, s.Y
			r.advance(&s, c[0], c[1], next-t)
			t = next
			poses = append(poses, control.Pose{X: s.X, Y: s.Y, Theta: s.Th})
			vel = append(vel, [2]float64{(s.X - px) / period, (s.Y - py) / period})
		}
	}
	return poses, vel
}

// mpcTruth follows the circle on the true robot closed loop: every
// mpcEvery segments it measures the pose (tracker noise) and the tracks'
// speeds (encoders: the mean over the last period, with noise), re-plans
// mpcHorizon segments with the identified model from there (warm-started
// from the previous plan, shifted), and sends the first mpcEvery.
func mpcTruth(x []float64, seed uint64) (followRun, error) {
	r := vehicle(x, 1)
	plan, err := control.NewRobotPlan(r, circle, control.Tangent, 0, rate, period)
	if err != nil {
		return followRun{}, err
	}
	total := plan.K
	window := *plan
	window.K = mpcHorizon
	syn, err := control.NewRobotSynthesizer(&window)
	if err != nil {
		return followRun{}, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x3bc))
	var s state
	var el, er float64
	var poses []control.Pose
	var vel [][2]float64
	var warm [][]float64
	t, k, iters, replans := 0.0, 0, 0, 0
	segT := float64(plan.N) * period
	for done := 0; done < total; {
		meas := make([]float64, Robot.NS())
		meas[Robot.Index("state", "x")] = s.X + posNoise*rng.NormFloat64()
		meas[Robot.Index("state", "y")] = s.Y + posNoise*rng.NormFloat64()
		meas[Robot.Index("state", "th")] = s.Th + thNoise*rng.NormFloat64()
		for _, e := range []struct {
			lane string
			v    float64
		}{{"vl", el}, {"vr", er}} {
			if e.v != 0 {
				e.v += encNoise * rng.NormFloat64()
			}
			meas[Robot.Index("state", e.lane)] = e.v
		}
		if err := syn.SetState(meas, float64(done)*segT); err != nil {
			return followRun{}, err
		}
		var init [][]float64
		if warm != nil {
			init = append(init, warm[mpcEvery:]...)
			for range mpcEvery {
				init = append(init, warm[len(warm)-1])
			}
		} else {
			init = syn.InitialGuess()
			kick(init, x, 1)
		}
		res, err := syn.Synthesize(init, opt.Settings{MaxIterations: 300})
		if err != nil {
			return followRun{}, err
		}
		iters += res.Opt.Iterations
		replans++
		warm = res.Controls
		for _, c := range res.Controls[:min(mpcEvery, total-done)] {
			for range plan.N {
				k++
				next := float64(k)*period + jitter*(2*rng.Float64()-1)
				px, py := s.X, s.Y
				el, er = truth.advance(&s, c[0], c[1], next-t)
				t = next
				poses = append(poses, control.Pose{X: s.X, Y: s.Y, Theta: s.Th})
				vel = append(vel, [2]float64{(s.X - px) / period, (s.Y - py) / period})
			}
		}
		done += mpcEvery
	}
	run := track("closed loop (MPC) on the true robot", poses, vel)
	run.Iters, run.Status = iters, fmtG(float64(replans))+" re-plans"
	return run, nil
}
