package control

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/wheelgrad/wheelgrad/opt"
)

// MPCSettings configure receding-horizon re-planning.
type MPCSettings struct {
	Horizon int     // segments planned at each re-plan (default 32: 8 s at 4/s)
	Every   int     // segments executed between re-plans (default 4: 1 s)
	Noise   float64 // σ of the position measurement of the true robot (m); heading σ is Noise/0.1 rad per m
	Seed    uint64
	Opt     opt.Settings // per re-plan
	// Progress, if set, is called after each re-plan with the segment index
	// reached and the total.
	Progress func(done, total int)
}

// MPCResult is a closed-loop run.
type MPCResult struct {
	Controls [][4]float64 // executed, one per segment
	Poses    []Pose       // the true robot after each step
	Velocity [][2]float64
	Replans  int
	Runtime  time.Duration
}

// RunMPC drives truth (the "real" robot) along plan.Path: every Every
// segments it measures the true pose, re-plans Horizon segments with the
// plan's model from there (warm-started from the previous plan, shifted),
// and executes the first Every segments on truth.
func RunMPC(plan *Plan, truth Drive, ms MPCSettings) (*MPCResult, error) {
	if err := truth.Validate(); err != nil {
		return nil, err
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
	s, err := NewSynthesizer(&window)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(ms.Seed, 11))
	res := &MPCResult{}
	pose := plan.Start
	var warm [][4]float64
	segT := float64(plan.N) * plan.Dt
	for done := 0; done < total; {
		meas := pose
		if ms.Noise > 0 {
			meas.X += ms.Noise * rng.NormFloat64()
			meas.Y += ms.Noise * rng.NormFloat64()
			meas.Theta += ms.Noise / 0.1 * rng.NormFloat64()
		}
		if err := s.SetStart(meas, float64(done)*segT); err != nil {
			return nil, err
		}
		var init [][4]float64
		if warm != nil {
			init = append(append([][4]float64(nil), warm[ms.Every:]...), make([][4]float64, ms.Every)...)
			copy(init[h-ms.Every:], repeatLast(warm, ms.Every))
		}
		r, err := s.Synthesize(init, ms.Opt)
		if err != nil {
			return nil, fmt.Errorf("control: MPC re-plan at segment %d: %w", done, err)
		}
		res.Replans++
		warm = r.Controls
		n := min(ms.Every, total-done)
		poses, vel := Execute(truth, pose, r.Controls[:n], plan.N, plan.Dt)
		res.Controls = append(res.Controls, r.Controls[:n]...)
		res.Poses = append(res.Poses, poses...)
		res.Velocity = append(res.Velocity, vel...)
		pose = poses[len(poses)-1]
		done += n
		if ms.Progress != nil {
			ms.Progress(done, total)
		}
	}
	res.Runtime = time.Since(start)
	return res, nil
}

func repeatLast(c [][4]float64, n int) [][4]float64 {
	out := make([][4]float64, n)
	for i := range out {
		out[i] = c[len(c)-1]
	}
	return out
}
