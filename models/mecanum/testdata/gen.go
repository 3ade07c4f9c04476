//go:build ignore

// gen writes the example's log: go run ./models/mecanum/testdata/gen.go
// (from the repository root). A Mecanum robot with unequal wheel friction
// (μ = 0.62, 0.48, 0.71, 0.55) driven for 8 s by commands that change every
// 2 s, as two streams: commands at 240 Hz with 0.2 ms of time-stamp jitter,
// and an overhead camera at 60 fps in a file of its own (x, y in m, heading
// in degrees; 2 mm and 0.3° of noise, 2 ms of time-stamp jitter).
package main

import (
	"io"
	"math"
	"math/rand/v2"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

func main() {
	p := mecanum.DefaultParams()
	p.Mu = []float64{0.62, 0.48, 0.71, 0.55}
	steps := [][4]float64{{10, 10, 10, 10}, {12, -12, 12, -12}, {6, 14, 6, 14}, {-8, -8, -8, -8}}
	run, _ := mecanum.Synthesize(p, mecanum.SynthSpec{
		Commands: func(t float64) [4]float64 { return steps[min(int(t/2), 3)] },
		Duration: 8, Noise: 0.002, HeadNoise: 0.3 * math.Pi / 180, Seed: 9,
	})
	rng := rand.New(rand.NewPCG(10, 0))
	r := func(v float64, digits float64) dataset.Cell {
		s := math.Pow(10, digits)
		return dataset.Num(math.Round(v*s) / s)
	}
	write := func(path string, rows func(cw *dataset.Writer)) {
		err := dataset.WriteFile(path, func(w io.Writer) error {
			cw := dataset.NewWriter(w)
			rows(cw)
			return cw.Flush()
		})
		if err != nil {
			panic(err)
		}
	}
	write("models/mecanum/testdata/commands.csv", func(cw *dataset.Writer) {
		cw.WriteHeader("t", "w1", "w2", "w3", "w4")
		for i, t := range run.T {
			if i > 0 {
				t += 0.0002 * (rng.Float64() - 0.5)
			}
			w := run.W[i]
			cw.WriteRow(r(t, 5), r(w[0], 3), r(w[1], 3), r(w[2], 3), r(w[3], 3))
		}
	})
	write("models/mecanum/testdata/camera.csv", func(cw *dataset.Writer) {
		cw.WriteHeader("t", "x", "y", "theta_deg")
		for _, k := range run.Camera() {
			t := run.T[k]
			if k > 0 {
				t += 0.002 * rng.NormFloat64()
			}
			cw.WriteRow(r(t, 4), r(run.X[k], 4), r(run.Y[k], 4), r(run.Theta[k]*180/math.Pi, 2))
		}
	})
}
