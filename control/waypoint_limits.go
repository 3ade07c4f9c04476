package control

import (
	"math"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// MaxWaypointSpeed (m/s) bounds the straight-line speed between two
// consecutive waypoints of a REF.csv: faster than any wheeled robot drives,
// so a path that asks for more is a unit or typing mistake (a jump of 10⁶ m),
// and following it would only plan an absurd spline.
const MaxWaypointSpeed = 100

// checkWaypointJumps refuses a waypoint whose distance from the previous one
// needs more than MaxWaypointSpeed, naming the file, its line and column.
func checkWaypointJumps(tab *dataset.Table) error {
	t, x, y := tab.Col("t"), tab.Col("x"), tab.Col("y")
	for i := 1; i < len(t); i++ {
		d := math.Hypot(x[i]-x[i-1], y[i]-y[i-1])
		dt := t[i] - t[i-1]
		if v := d / dt; !(v <= MaxWaypointSpeed) {
			col := "x"
			if math.Abs(y[i]-y[i-1]) > math.Abs(x[i]-x[i-1]) {
				col = "y"
			}
			return tab.Errorf(i, col, "the path jumps %.4g m in %.4g s from the previous waypoint (%.4g m/s; follow refuses more than %d m/s)", d, dt, v, MaxWaypointSpeed)
		}
	}
	return nil
}
