package control

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// RobotMPCResult is a closed-loop run of RunRobotMPC.
type RobotMPCResult struct {
	Controls [][]float64  // executed, one row per segment
	Poses    []Pose       // the true robot after each step (its own heading)
	Velocity [][2]float64 // world velocity of each step
	Final    []float64    // the true robot's final state
	Replans  int
	Runtime  time.Duration
}

// RunRobotMPC is RunMPC for any Robot: every Every segments it measures the
// true robot's state (its pose with the noise of MPCSettings, the other
// states exactly, e.g. a differential drive's wheel speeds from encoders),
// re-plans Horizon segments with plan.Robot from there, warm-started from
// the previous plan shifted, and executes the first Every segments on
// truth. truth must be the same step-language model as plan.Robot; its
// parameters and settings may differ (e.g. the exact friction where the
// plan uses a surrogate, or a mis-identified μ). It starts from truth's
// initial state with the plan's start pose.
func RunRobotMPC(plan *RobotPlan, truth Robot, ms MPCSettings) (*RobotMPCResult, error) {
	if err := truth.Validate(); err != nil {
		return nil, err
	}
	if truth.Model != plan.Robot.Model {
		return nil, fmt.Errorf("control: MPC: the true robot is model %s, the plan's %s: they must be the same step model", truth.Model.Name(), plan.Robot.Model.Name())
	}
	if len(truth.Controls) != len(plan.Robot.Controls) || !slices.EqualFunc(truth.Controls, plan.Robot.Controls, func(a, b Control) bool { return a.Input == b.Input }) {
		return nil, errors.New("control: MPC: the true robot must take the plan's controls")
	}
	if ms.Horizon <= 0 {
		ms.Horizon = 32
	}
	if ms.Every <= 0 {
		ms.Every = 4
	}
	if ms.Every > ms.Horizon {
		return nil, errors.New("control: MPC executes more segments than it plans")
	}
	if ms.Opt.MaxIterations == 0 {
		ms.Opt.MaxIterations = 300
	}
	start := time.Now()
	total := plan.K
	h := min(ms.Horizon, total)
	window := *plan
	window.K = h
	s, err := NewRobotSynthesizer(&window)
	if err != nil {
		return nil, err
	}
	l, err := truth.resolve()
	if err != nil {
		return nil, err
	}
	state, err := truth.StartState(plan.Start)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(ms.Seed, 11))
	res := &RobotMPCResult{}
	var warm [][]float64
	segT := float64(plan.N) * plan.Dt
	for done := 0; done < total; {
		meas := append([]float64(nil), state...)
		if ms.Noise > 0 {
			meas[l.x] += ms.Noise * rng.NormFloat64()
			meas[l.y] += ms.Noise * rng.NormFloat64()
			meas[l.th] += ms.Noise / 0.1 * rng.NormFloat64()
		}
		if err := s.SetState(meas, plan.T0+float64(done)*segT); err != nil {
			return nil, err
		}
		var init [][]float64
		if warm != nil {
			init = append(init, warm[ms.Every:]...)
			for range ms.Every {
				init = append(init, warm[len(warm)-1])
			}
		}
		r, err := s.Synthesize(init, ms.Opt)
		if err != nil {
			return nil, fmt.Errorf("control: MPC re-plan at segment %d: %w", done, err)
		}
		res.Replans++
		warm = r.Controls
		n := min(ms.Every, total-done)
		poses, vel, final, err := truth.Execute(state, r.Controls[:n], plan.N, plan.Dt)
		if err != nil {
			return nil, fmt.Errorf("control: MPC at segment %d: the true robot: %w", done, err)
		}
		res.Controls = append(res.Controls, r.Controls[:n]...)
		res.Poses = append(res.Poses, poses...)
		res.Velocity = append(res.Velocity, vel...)
		state = final
		done += n
		if ms.Progress != nil {
			ms.Progress(done, total)
		}
	}
	res.Final = state
	res.Runtime = time.Since(start)
	return res, nil
}
