//go:build ignore

// gen writes the example's log: go run
// ./models/diffdrive/calibrate/testdata/gen.go (from the repository root).
// Three minutes of the paper's training commands (Park et al. §III-A) driving
// a wheelchair unlike the paper's (c1 0.40, c2 0.008, α 0.26, β 6.0, γ 4.5,
// μ 0.20), wheel speeds with 1 cm/s of encoder noise, rows every h = 0.06 s
// stamped with 1.5 ms of jitter.
package main

import (
	"io"
	"math"
	"math/rand/v2"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
)

func main() {
	truth := diffdrive.Paper().WithZeta([6]float64{0.40, 0.008, 0.26, 6.0, 4.5, 0.20})
	l, err := diffdrive.Synthesize(truth, diffdrive.SynthConfig{Drive: diffdrive.Training, Seconds: 180, Noise: 0.01, Seed: 3})
	if err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(4, 0))
	t := make([]float64, len(l.T))
	for k := range t {
		t[k] = l.T[k]
		if k > 0 {
			t[k] += 0.0015 * rng.NormFloat64()
		}
	}
	r := func(v []float64, digits float64) []float64 {
		out := make([]float64, len(v))
		s := math.Pow(10, digits)
		for i, x := range v {
			out[i] = math.Round(x*s) / s
		}
		return out
	}
	err = dataset.WriteFile("models/diffdrive/calibrate/testdata/wheelchair.csv", func(w io.Writer) error {
		return dataset.WriteCSV(w, []string{"t", "uf", "ul", "vr", "vl"}, [][]float64{r(t, 4), r(l.UF, 3), r(l.UL, 3), r(l.VR, 4), r(l.VL, 4)})
	})
	if err != nil {
		panic(err)
	}
}
