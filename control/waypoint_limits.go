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

// MaxWaypointCoord bounds waypoint coordinates (m): beyond it the tracking
// loss overflows (1e300² is +Inf), and no wheeled robot's path is a
// thousand kilometres across.
const MaxWaypointCoord = 1e6

// CheckWaypointScale refuses a waypoint file whose coordinates the
// synthesis cannot square, naming the line and column; a file it cannot
// read is left to ReadWaypoints, which reports it the same way.
func CheckWaypointScale(path string) error {
	tab, err := dataset.ReadFile(path, dataset.Spec{
		Columns: []dataset.Column{{Name: "t"}, {Name: "x"}, {Name: "y"}, {Name: "theta", Optional: true}},
		Time:    "t",
	})
	if err != nil {
		return err
	}
	for _, c := range []string{"x", "y"} {
		for k, v := range tab.Col(c) {
			if math.Abs(v) > MaxWaypointCoord {
				return tab.Errorf(k, c, "waypoint coordinate %g m is beyond ±%g m (units?)", v, float64(MaxWaypointCoord))
			}
		}
	}
	return nil
}
