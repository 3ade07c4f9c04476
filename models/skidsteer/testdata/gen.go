//go:build ignore

// gen writes the example's log: go run ./models/skidsteer/testdata/gen.go
// (from the repository root). 150 s of random commands at 20 Hz on grass
// (Ordonez et al. Table 2) with terrain disturbances, and 10-Hz visual
// odometry that drifts, in a file of its own whose clock stamps the frames
// with 3 ms of jitter.
package main

import (
	"io"
	"math/rand/v2"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

func main() {
	grass, err := skidsteer.SurfaceByName("grass")
	if err != nil {
		panic(err)
	}
	t, vc, wc := skidsteer.RandomCommands(50, 0.05, 3, 11)
	l, _ := skidsteer.Generate(grass.A[:], t, vc, wc, 2, skidsteer.SurfaceNoise("grass"), 12)
	rng := rand.New(rand.NewPCG(13, 0))
	var pt, px, py, ppsi []float64
	for i, ok := range l.HasPose {
		if ok {
			pt = append(pt, l.T[i]+0.003*rng.NormFloat64())
			px, py, ppsi = append(px, l.Pose[i].X), append(py, l.Pose[i].Y), append(ppsi, l.Pose[i].Psi)
		}
	}
	write := func(path string, head []string, cols [][]float64) {
		if err := dataset.WriteFile(path, func(w io.Writer) error { return dataset.WriteCSV(w, head, cols) }); err != nil {
			panic(err)
		}
	}
	round := func(v []float64, scale float64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(int64(x*scale+0.5*sign(x))) / scale
		}
		return out
	}
	write("models/skidsteer/testdata/commands.csv", []string{"t", "vc", "wc"}, [][]float64{round(l.T, 1e4), round(l.Vc, 1e4), round(l.Wc, 1e4)})
	write("models/skidsteer/testdata/vo.csv", []string{"t", "x", "y", "psi"}, [][]float64{round(pt, 1e4), round(px, 1e4), round(py, 1e4), round(ppsi, 1e5)})
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}
