//go:build ignore

// gen writes the example's log: go run ./models/pioneer/testdata/gen.go
// (from the repository root). The independent "true" Pioneer 3DX of package
// p3dx (a 1-kHz firmware loop with a jittery delay and encoder noise, not
// the model that identifies it) driven through a reversal case and a minute
// of navigation-like references; 100-ms rows stamped with 2 ms of jitter,
// one traj per drive.
package main

import (
	"io"
	"math"
	"math/rand/v2"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/pioneer/p3dx"
)

func main() {
	rb := p3dx.Default()
	v1, w1 := p3dx.Cases(1, 3)
	v2, w2 := p3dx.Navigation(60, 4)
	rng := rand.New(rand.NewPCG(5, 0))
	r4 := func(v float64) dataset.Cell { return dataset.Num(math.Round(v*1e4) / 1e4) }
	err := dataset.WriteFile("models/pioneer/testdata/p3dx.csv", func(w io.Writer) error {
		cw := dataset.NewWriter(w)
		cw.WriteHeader("t", "v_ref", "w_ref", "v", "w", "traj")
		for i, d := range []struct {
			name string
			v, w []float64
		}{{"reversal", v1, w1}, {"navigation", v2, w2}} {
			l := rb.Drive(d.v, d.w, uint64(7+i))
			for k := range l.T {
				t := l.T[k]
				if k > 0 {
					t += 0.002 * rng.NormFloat64()
				}
				cw.WriteRow(r4(t), r4(l.Vref[k]), r4(l.Wref[k]), r4(l.V[k]), r4(l.W[k]), dataset.Text(d.name))
			}
		}
		return cw.Flush()
	})
	if err != nil {
		panic(err)
	}
}
