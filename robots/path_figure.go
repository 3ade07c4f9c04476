package robots

import (
	"fmt"
	"math"
)

// PathRun is one run of a path figure: the measured poses (nil: none) and
// the predicted path.
type PathRun struct {
	ID           string
	MeasX, MeasY []float64
	PredX, PredY []float64
	// Pair[k] is the index into PredX/PredY at measured pose k (for the
	// RMS), nil to leave the run out of it.
	Pair []int
}

// legendRuns is how many runs get legend entries of their own in a path
// figure; past it the runs are drawn as two groups (issue 28: 180 runs).
const legendRuns = 6

// PathFigure is the figure of simulate -plot for a pose model: each run's
// predicted path (a line) over its measured poses (points), with equal
// axes and the position RMS of the predictions at the measured poses in
// the title. Up to six runs are named by their traj; past that, one legend
// entry for the measured poses and one for the predictions.
func PathFigure(title string, runs []PathRun) *Figure {
	f := &Figure{Title: title, XLabel: "x (m)", YLabel: "y (m)", Equal: true}
	var ss float64
	n := 0
	for i, r := range runs {
		id := r.ID
		if id == "" {
			id = fmt.Sprint(i + 1)
		}
		mn, pn := "measured", "prediction"
		switch {
		case len(runs) > legendRuns && i > 0:
			mn, pn = "", ""
		case len(runs) > legendRuns:
			mn, pn = fmt.Sprintf("measured (%d runs)", len(runs)), "prediction"
		case len(runs) > 1:
			mn, pn = "run "+id+" measured", "run "+id+" prediction"
		}
		if len(r.MeasX) > 0 {
			f.Series = append(f.Series, Series{Name: mn, X: r.MeasX, Y: r.MeasY, Points: true, Color: 2})
		}
		f.Series = append(f.Series, Series{Name: pn, X: r.PredX, Y: r.PredY, Color: 1})
		for k, j := range r.Pair {
			dx, dy := r.PredX[j]-r.MeasX[k], r.PredY[j]-r.MeasY[k]
			if d := dx*dx + dy*dy; !math.IsNaN(d) && !math.IsInf(d, 0) {
				ss += d
				n++
			}
		}
	}
	if n > 0 {
		f.Title += fmt.Sprintf(" (position RMS %.3g m over %d measured poses)", math.Sqrt(ss/float64(n)), n)
	}
	return f
}
