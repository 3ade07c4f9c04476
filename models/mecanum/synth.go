package mecanum

import (
	"math"
	"math/rand/v2"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// SynthSpec describes a synthetic log like the paper's (§VII-A): commands at
// a control rate, a camera every few rows with Gaussian noise.
type SynthSpec struct {
	ID        string
	Command   [4]float64                 // constant command (rad/s), unless Commands is set
	Commands  func(t float64) [4]float64 // optional time-varying command
	Duration  float64                    // s
	Rate      float64                    // control rows per second (default 240)
	Every     int                        // camera on every Every-th row (default 4: 60 Hz at 240 Hz)
	Pose0     [3]float64                 // true start pose
	Noise     float64                    // camera position noise σ (m) per axis
	HeadNoise float64                    // camera heading noise σ (rad)
	Seed      uint64
}

// Synthesize rolls the true parameters p (Mu, or the friction network)
// forward from spec.Pose0 and returns the log as a Run with noisy camera poses
// on every spec.Every-th row (row 0 included), NaN elsewhere. It also returns
// the true poses at every row.
func Synthesize(p Params, spec SynthSpec) (run Run, truth [3][]float64) {
	rate := spec.Rate
	if rate == 0 {
		rate = 240
	}
	every := spec.Every
	if every == 0 {
		every = 4
	}
	n := int(math.Round(spec.Duration*rate)) + 1
	run = Run{Origin: dataset.Origin{ID: spec.ID}, T: make([]float64, n), W: make([][4]float64, n)}
	for i := range n {
		run.T[i] = float64(i) / rate
		run.W[i] = spec.Command
		if spec.Commands != nil {
			run.W[i] = spec.Commands(run.T[i])
		}
	}
	tr := run
	tr.X, tr.Y, tr.Theta = nanSlice(n), nanSlice(n), nanSlice(n)
	tr.X[0], tr.Y[0], tr.Theta[0] = spec.Pose0[0], spec.Pose0[1], spec.Pose0[2]
	x, y, th := Simulate(p, &tr)
	truth = [3][]float64{x, y, th}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x6d6563616e756d))
	run.X, run.Y, run.Theta = nanSlice(n), nanSlice(n), nanSlice(n)
	for i := 0; i < n; i += every {
		run.X[i] = x[i] + spec.Noise*rng.NormFloat64()
		run.Y[i] = y[i] + spec.Noise*rng.NormFloat64()
		run.Theta[i] = th[i] + spec.HeadNoise*rng.NormFloat64()
	}
	return run, truth
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}
