package unicycle

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Log says how to make a synthetic log of Robot as a tracker and a motor
// controller would record it.
type Log struct {
	Runs, Steps int       // runs (traj 1, 2, …) of Steps commands each
	Dt          float64   // command period (s)
	Truth       []float64 // tau, k, c of the robot that drove
	// CmdNoise (m/s) is added to every commanded speed before the robot
	// executes it; the log has the command as sent (the model does not
	// know).
	CmdNoise float64
	// PosNoise (m) is the tracker's noise; the tracker samples every
	// TrackEvery command periods on its own clock, offset by half a period.
	PosNoise   float64
	TrackEvery int
	// Jitter (s): the logged times of commands and samples are off their
	// schedule by up to ±Jitter (uniform, under a quarter period); a sample is the position at its
	// logged time.
	Jitter float64
	Seed   uint64
}

// Write writes the log as CSV: t, u, w, x, y, traj; command rows have
// empty x, y and tracker rows empty u, w (dataset.ReadLog holds the
// commands over them). Commands are piecewise constant (held 0.3–2 s),
// with stops; every run starts at rest at a random pose.
func (l Log) Write(w io.Writer) error {
	if l.Runs < 1 || l.Steps < 2 || !(l.Dt > 0) || len(l.Truth) != 3 || l.TrackEvery < 1 || !(l.Jitter >= 0 && l.Jitter < l.Dt/4) {
		return fmt.Errorf("unicycle: bad synthetic log settings %+v", l)
	}
	rng := rand.New(rand.NewPCG(l.Seed, 7))
	B, T := l.Runs, l.Steps
	x0 := make([]float64, 4*B)
	u := make([]float64, T*2*B)
	exec := make([]float64, len(u))
	for j := range B {
		x0[j], x0[B+j], x0[2*B+j] = rng.NormFloat64(), rng.NormFloat64(), rng.Float64()*2*math.Pi
		var uc, wc float64
		hold := 0
		for t := range T {
			if hold == 0 {
				hold = int(0.3/l.Dt) + rng.IntN(int(1.7/l.Dt)+1)
				uc, wc = -0.5+2*rng.Float64(), -1+2*rng.Float64()
				if rng.IntN(5) == 0 {
					uc = 0
				}
			}
			hold--
			u[(t*2)*B+j], u[(t*2+1)*B+j] = uc, wc
			exec[(t*2)*B+j], exec[(t*2+1)*B+j] = uc+l.CmdNoise*rng.NormFloat64(), wc
		}
	}
	sim := Robot.NewSim(B, T)
	if _, err := sim.Forward(l.Truth, []float64{l.Dt}, x0, exec, nil); err != nil {
		return err
	}
	cw := dataset.NewWriter(w)
	if err := cw.WriteHeader("t", "u", "w", "x", "y", "traj"); err != nil {
		return err
	}
	nan := math.NaN()
	jit := func() float64 { return l.Jitter * (2*rng.Float64() - 1) }
	for j := range B {
		id := dataset.Text(fmt.Sprint(j + 1))
		for t := range T {
			tc := float64(t)*l.Dt + jit()
			if err := cw.WriteRow(dataset.Num(tc), dataset.Num(u[(t*2)*B+j]), dataset.Num(u[(t*2+1)*B+j]), dataset.Num(nan), dataset.Num(nan), id); err != nil {
				return err
			}
			if t%l.TrackEvery != 0 || t+1 >= T {
				continue
			}
			// The tracker's sample, half a command period later.
			ts := (float64(t)+0.5)*l.Dt + jit()
			f := ts/l.Dt - float64(t)
			at := func(k int) float64 {
				a, b := sim.X[(t*4+k)*B+j], sim.X[((t+1)*4+k)*B+j]
				return a + f*(b-a)
			}
			px, py := at(0)+l.PosNoise*rng.NormFloat64(), at(1)+l.PosNoise*rng.NormFloat64()
			if err := cw.WriteRow(dataset.Num(ts), dataset.Num(nan), dataset.Num(nan), dataset.Num(px), dataset.Num(py), id); err != nil {
				return err
			}
		}
	}
	return cw.Flush()
}
