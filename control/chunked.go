package control

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/wheelgrad/wheelgrad/opt"
)

// Long horizons. A synthesis over the whole path holds every step of the
// path at once (a Drive graph's tensors, the Robot's dyn.Sim), so its
// memory grows with the duration, and L-BFGS-B's work per iteration with
// it. Above ChunkSeconds the path is planned in receding-horizon chunks
// instead: ChunkSeconds of controls at a time, each planned over
// ChunkSeconds + LookaheadSeconds from the state the previous chunk's
// controls reach on the plan's own model (no noise, no other robot), so
// that memory depends on the chunk, not the duration, and time grows
// linearly with it. MaxSteps bounds what is kept of the whole run (the
// controls and the predicted poses, about 100 bytes per step).
const (
	ChunkSeconds     = 60
	LookaheadSeconds = 10
	// ChunkMaxIterations is L-BFGS-B's iteration limit per chunk (unless
	// the settings give one): a whole plan's 3,000 spent on a 70-s chunk of
	// a differential drive polish the plan below a millimetre for 6× the
	// time (measured on a 300-s figure 8: planned RMS 0.3 mm either way).
	ChunkMaxIterations = 500
	// MaxSteps is the most integration steps `follow` plans (duration/dt):
	// 10⁷ steps (11.6 h at 240 Hz) keep the predicted run near 1 GB.
	MaxSteps = 10_000_000
)

// CheckSteps refuses a path of the given duration integrated at dt when it
// has more than MaxSteps steps, naming the path (a waypoint file's name) and
// the numbers. Call it before planning: it needs nothing but the duration.
func CheckSteps(path string, duration, dt float64) error {
	if steps := duration / dt; !(steps <= MaxSteps) {
		return fmt.Errorf("%s: the path lasts %.6g s: %.4g integration steps of %.4g s, above follow's limit of %d (about 1 GB); plan a shorter path or a larger -dt",
			path, duration, steps, dt, MaxSteps)
	}
	return nil
}

// Chunks returns the segments per chunk and of look-ahead at rate segments
// per second, and whether a plan of k segments is long enough to chunk
// (more than two chunks' worth).
func Chunks(k int, rate float64) (every, horizon int, chunked bool) {
	every = max(1, int(math.Round(ChunkSeconds*rate)))
	horizon = every + max(1, int(math.Round(LookaheadSeconds*rate)))
	return every, horizon, k > 2*every
}

// ChunkResult is a chunked synthesis.
type ChunkResult struct {
	Controls    [][]float64 // one row per segment (Robot)
	Wheels      [][4]float64
	Chunks      int
	Iterations  int
	Evaluations int
	Runtime     time.Duration
}

// SynthesizeChunked plans plan (a Drive's Plan) in chunks of every segments
// over horizons of horizon segments (see Chunks). Each chunk starts from the
// pose the previous chunk's controls reach on plan.Model, warm-started
// from the previous plan where it overlaps and from InitialGuess past it.
// progress, if set, is called after each chunk with the segments done.
func SynthesizeChunked(plan *Plan, every, horizon int, settings opt.Settings, progress func(done, total int)) (*ChunkResult, error) {
	if every < 1 || horizon < every {
		return nil, errors.New("control: a chunk must execute at least one segment and plan at least as many")
	}
	if settings.MaxIterations == 0 {
		settings.MaxIterations = ChunkMaxIterations
	}
	start := time.Now()
	total := plan.K
	window := *plan
	window.K = min(horizon, total)
	s, err := NewSynthesizer(&window)
	if err != nil {
		return nil, err
	}
	res := &ChunkResult{}
	pose := plan.Start
	var warm [][4]float64
	segT := float64(plan.N) * plan.Dt
	for done := 0; done < total; {
		if err := s.SetStart(pose, plan.T0+float64(done)*segT); err != nil {
			return nil, err
		}
		init := s.InitialGuess()
		if warm != nil {
			copy(init, warm[every:])
		}
		r, err := s.Synthesize(init, settings)
		if err != nil {
			return nil, fmt.Errorf("control: chunk at segment %d: %w", done, err)
		}
		res.Chunks++
		res.Iterations += r.Opt.Iterations
		res.Evaluations += r.Opt.FuncEvaluations
		warm = r.Controls
		n := min(every, total-done)
		poses, _ := Execute(plan.Model, pose, r.Controls[:n], plan.N, plan.Dt)
		res.Wheels = append(res.Wheels, r.Controls[:n]...)
		pose = poses[len(poses)-1]
		done += n
		if progress != nil {
			progress(done, total)
		}
	}
	res.Runtime = time.Since(start)
	return res, nil
}

// SynthesizeRobotChunked is SynthesizeChunked for a RobotPlan: each chunk
// starts from the full state (pose and, e.g., wheel speeds) the previous
// chunk's controls reach on plan.Robot.
func SynthesizeRobotChunked(plan *RobotPlan, every, horizon int, settings opt.Settings, progress func(done, total int)) (*ChunkResult, error) {
	if every < 1 || horizon < every {
		return nil, errors.New("control: a chunk must execute at least one segment and plan at least as many")
	}
	if settings.MaxIterations == 0 {
		settings.MaxIterations = ChunkMaxIterations
	}
	start := time.Now()
	total := plan.K
	window := *plan
	window.K = min(horizon, total)
	s, err := NewRobotSynthesizer(&window)
	if err != nil {
		return nil, err
	}
	state, err := plan.Robot.StartState(plan.Start)
	if err != nil {
		return nil, err
	}
	res := &ChunkResult{}
	var warm [][]float64
	segT := float64(plan.N) * plan.Dt
	for done := 0; done < total; {
		if err := s.SetState(state, plan.T0+float64(done)*segT); err != nil {
			return nil, err
		}
		init := s.InitialGuess()
		if warm != nil {
			copy(init, warm[every:])
		}
		r, err := s.Synthesize(init, settings)
		if err != nil {
			return nil, fmt.Errorf("control: chunk at segment %d: %w", done, err)
		}
		res.Chunks++
		res.Iterations += r.Opt.Iterations
		res.Evaluations += r.Opt.FuncEvaluations
		warm = r.Controls
		n := min(every, total-done)
		_, _, final, err := plan.Robot.Execute(state, r.Controls[:n], plan.N, plan.Dt)
		if err != nil {
			return nil, fmt.Errorf("control: chunk at segment %d: %w", done, err)
		}
		res.Controls = append(res.Controls, r.Controls[:n]...)
		state = final
		done += n
		if progress != nil {
			progress(done, total)
		}
	}
	res.Runtime = time.Since(start)
	return res, nil
}
