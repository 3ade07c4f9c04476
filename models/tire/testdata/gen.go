//go:build ignore

// gen writes the example's log: go run ./models/tire/testdata/gen.go (from
// the repository root). A Jackal on carpet (μ = 0.45, Kx = 220, Ky = 160)
// drives a U-turn and a paperclip (Westerhout et al. Table I), logged at
// 100 Hz with encoder noise (0.005 rad/s), motion capture on every second
// row (1 mm, 5 mrad) and 0.2 ms of time-stamp jitter; one traj per
// maneuver.
package main

import (
	"io"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/tire"
)

func main() {
	truth := tire.Jackal()
	truth.Mu, truth.Kx, truth.Ky = 0.45, 220, 160
	rng := rand.New(rand.NewPCG(21, 0))
	err := dataset.WriteFile("models/tire/testdata/jackal.csv", func(w io.Writer) error {
		cw := dataset.NewWriter(w)
		cw.WriteHeader("t", "wl", "wr", "x", "y", "psi", "traj")
		for i, mv := range tire.Maneuvers() {
			if mv.Name != "u-turn-left" && mv.Name != "paperclip" {
				continue
			}
			r, err := tire.Synthesize(truth, mv, tire.SynthConfig{Seed: uint64(30 + i), WheelStd: 0.005, PoseEvery: 2})
			if err != nil {
				return err
			}
			num := func(v float64, digits int) dataset.Cell {
				if math.IsNaN(v) {
					return dataset.Text("")
				}
				s := math.Pow(10, float64(digits))
				return dataset.Num(math.Round(v*s) / s)
			}
			for k := range r.T {
				t := r.T[k]
				if k > 0 {
					t += 0.0002 * rng.NormFloat64()
				}
				cw.WriteRow(num(t, 5), num(r.WL[k], 4), num(r.WR[k], 4), num(r.X[k], 4), num(r.Y[k], 4), num(r.Psi[k], 4), dataset.Text(mv.Name+"-"+strconv.Itoa(i)))
			}
		}
		return cw.Flush()
	})
	if err != nil {
		panic(err)
	}
}
