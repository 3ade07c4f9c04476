package control

import (
	"errors"
	"fmt"
	"time"

	"github.com/wheelgrad/wheelgrad/opt"
)

// The follow pipeline, written once for every face (`wheelgrad follow`,
// the demo, the experiments, a notebook): synthesise the controls of a
// plan, whole or in receding-horizon chunks when the path is long
// (Chunks), roll them through the model, measure how the predicted robot
// follows the path (Track), and report a robot that does not follow it
// (Tracking.Followed) as a failure rather than as a small distance.

// ErrNotFollowed is wrapped by the error of FollowRobot and FollowDrive when
// the predicted robot does not follow the path (Tracking.Followed): a plan
// that never moves the robot, e.g. from rest against stiction, where the
// gradient of the loss is zero and the optimiser stops at once.
var ErrNotFollowed = errors.New("control: the predicted robot does not follow the path")

// Synthesis summarises how the controls of a follow were found.
type Synthesis struct {
	Chunks      int // receding-horizon chunks; 0: planned whole
	Iterations  int
	Evaluations int
	Runtime     time.Duration
	Status      opt.Status // of the whole plan's optimiser (planned whole)
}

// Trajectory is a predicted or executed run: the pose after every step, the
// world velocity of every step and how they follow the path.
type Trajectory struct {
	Poses    []Pose
	Velocity [][2]float64
	Tracking Tracking
}

// FollowSettings configure FollowRobot and FollowDrive. The zero value is
// the default of `wheelgrad follow`.
type FollowSettings struct {
	Opt opt.Settings // of the whole plan's optimiser, or of each chunk's
	// Iteration, if set, is called after every iteration of a whole plan's
	// optimiser (its return value is ignored); Chunk after every chunk of a
	// long plan, with the segments done and the total.
	Iteration func(iter int, loss float64)
	Chunk     func(done, total int)
}

// RobotFollow is the result of FollowRobot.
type RobotFollow struct {
	Plan      *RobotPlan
	Controls  [][]float64 // one row per segment, one value per Robot.Controls entry
	Synthesis Synthesis
	// Predicted is the run of the controls on the exact robot; Planned on
	// the plan's robot (the same run when they are the same robot).
	Predicted, Planned Trajectory
}

// FollowRobot synthesises the controls of plan and rolls them through
// exact (the robot the controls are for, e.g. with the exact friction
// where plan.Robot plans with a surrogate; the same step model), from the
// plan's start. When the predicted robot does not follow the path it
// returns the result together with an error wrapping ErrNotFollowed.
func FollowRobot(plan *RobotPlan, exact Robot, fs FollowSettings) (*RobotFollow, error) {
	if exact.Model != plan.Robot.Model {
		return nil, fmt.Errorf("control: the exact robot is model %s, the plan's %s: they must be the same step model", exact.Model.Name(), plan.Robot.Model.Name())
	}
	controls, syn, err := synthesize(plan.K, plan.N, plan.Dt, fs,
		func(every, horizon int) (*ChunkResult, error) {
			return SynthesizeRobotChunked(plan, every, horizon, fs.Opt, fs.Chunk)
		},
		func(r *ChunkResult) [][]float64 { return r.Controls },
		func() ([][]float64, *opt.Result, error) {
			s, err := NewRobotSynthesizer(plan)
			if err != nil {
				return nil, nil, err
			}
			r, err := s.Synthesize(nil, fs.whole())
			if err != nil {
				return nil, nil, err
			}
			return r.Controls, r.Opt, nil
		})
	if err != nil {
		return nil, err
	}
	res := &RobotFollow{Plan: plan, Controls: controls, Synthesis: syn}
	if res.Predicted, err = runRobot(exact, plan, res.Controls); err != nil {
		return nil, err
	}
	res.Planned = res.Predicted
	if !sameRobot(exact, plan.Robot) {
		if res.Planned, err = runRobot(plan.Robot, plan, res.Controls); err != nil {
			return nil, err
		}
	}
	return res, notFollowed(res.Predicted.Tracking)
}

// runRobot executes controls on r from the plan's start and tracks the run
// against the plan's path.
func runRobot(r Robot, plan *RobotPlan, controls [][]float64) (Trajectory, error) {
	x0, err := r.StartState(plan.Start)
	if err != nil {
		return Trajectory{}, err
	}
	poses, vel, _, err := r.Execute(x0, controls, plan.N, plan.Dt)
	if err != nil {
		return Trajectory{}, err
	}
	return Trajectory{Poses: poses, Velocity: vel, Tracking: TrackRobot(r, plan.Path, plan.T0, plan.Dt, poses, vel)}, nil
}

// sameRobot tells whether two robots of one model step alike.
func sameRobot(a, b Robot) bool {
	eq := func(x, y []float64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	return a.Model == b.Model && eq(a.Params, b.Params) && eq(a.Settings, b.Settings) && eq(a.State0, b.State0)
}

// DriveFollow is the result of FollowDrive.
type DriveFollow struct {
	Plan      *Plan
	Controls  [][4]float64 // one row per segment
	Synthesis Synthesis
	Predicted Trajectory // the run of the controls on plan.Model
}

// FollowDrive is FollowRobot for a Drive's graph synthesis: it plans
// plan (whole, or in chunks when the path is long) and rolls the controls
// through plan.Model from the plan's start.
func FollowDrive(plan *Plan, fs FollowSettings) (*DriveFollow, error) {
	controls, syn, err := synthesize(plan.K, plan.N, plan.Dt, fs,
		func(every, horizon int) (*ChunkResult, error) {
			return SynthesizeChunked(plan, every, horizon, fs.Opt, fs.Chunk)
		},
		func(r *ChunkResult) [][4]float64 { return r.Wheels },
		func() ([][4]float64, *opt.Result, error) {
			s, err := NewSynthesizer(plan)
			if err != nil {
				return nil, nil, err
			}
			r, err := s.Synthesize(nil, fs.whole())
			if err != nil {
				return nil, nil, err
			}
			return r.Controls, r.Opt, nil
		})
	if err != nil {
		return nil, err
	}
	res := &DriveFollow{Plan: plan, Controls: controls, Synthesis: syn}
	poses, vel := Execute(plan.Model, plan.Start, res.Controls, plan.N, plan.Dt)
	res.Predicted = Trajectory{Poses: poses, Velocity: vel, Tracking: Track(plan.Path, plan.T0, plan.Dt, poses, vel)}
	return res, notFollowed(res.Predicted.Tracking)
}

// synthesize plans k segments of n steps of dt whole, or in receding-horizon
// chunks when the plan is long (Chunks), and summarises the work.
func synthesize[C any](k, n int, dt float64, fs FollowSettings,
	chunked func(every, horizon int) (*ChunkResult, error), rows func(*ChunkResult) []C,
	whole func() ([]C, *opt.Result, error)) ([]C, Synthesis, error) {
	if every, horizon, ok := Chunks(k, 1/(float64(n)*dt)); ok {
		r, err := chunked(every, horizon)
		if err != nil {
			return nil, Synthesis{}, err
		}
		return rows(r), Synthesis{Chunks: r.Chunks, Iterations: r.Iterations, Evaluations: r.Evaluations, Runtime: r.Runtime}, nil
	}
	c, r, err := whole()
	if err != nil {
		return nil, Synthesis{}, err
	}
	return c, Synthesis{Iterations: r.Iterations, Evaluations: r.FuncEvaluations, Runtime: r.Runtime, Status: r.Status}, nil
}

func notFollowed(t Tracking) error {
	if t.Followed() != nil {
		return fmt.Errorf("%w: it travels %.3g m of the path's %.3g m, %.3g m RMS from where it should be", ErrNotFollowed, t.Travelled, t.PathLength, t.OnTimeRMS)
	}
	return nil
}

// whole is the optimiser's settings for a whole plan, with the caller's
// Iteration chained before any Callback of its own.
func (fs FollowSettings) whole() opt.Settings {
	s := fs.Opt
	if fs.Iteration != nil {
		cb := s.Callback
		s.Callback = func(it opt.Iteration) bool {
			fs.Iteration(it.Iter, it.F)
			return cb == nil || cb(it)
		}
	}
	return s
}
