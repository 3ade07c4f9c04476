package control

import (
	"io"
	"math"
	"slices"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// WriteRobotControls writes a robot's controls CSV (FORMATS.md): t, the
// control columns, then the pose columns; one row per step of dt, the
// controls c piecewise constant over segments of n steps, plus a last row
// at the final time so that simulate reports the final state. Only the
// first row carries the pose: the start (a model whose simulate starts
// there reads it; the others ignore it).
func WriteRobotControls(w io.Writer, columns, pose []string, c [][]float64, n int, dt float64, start Pose) error {
	cw := dataset.NewWriter(w)
	cw.WriteHeader(slices.Concat([]string{"t"}, columns, pose)...)
	steps := len(c) * n
	row := make([]float64, 1+len(columns)+3)
	for k := 0; k <= steps; k++ {
		row[0] = float64(k) * dt
		copy(row[1:], c[min(k/n, len(c)-1)])
		p := row[1+len(columns):]
		p[0], p[1], p[2] = math.NaN(), math.NaN(), math.NaN()
		if k == 0 {
			p[0], p[1], p[2] = start.X, start.Y, start.Theta
		}
		cw.WriteFloats(row...)
	}
	return cw.Flush()
}
