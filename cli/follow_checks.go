package cli

import (
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/dataset"
)

// maxWaypointCoord bounds waypoint coordinates (m): beyond it the tracking
// loss overflows (1e300² is +Inf), and no wheeled robot's path is a
// thousand kilometres across.
const maxWaypointCoord = 1e6

// checkWaypointScale refuses a waypoint file whose coordinates the
// synthesis cannot square, naming the line and column.
func checkWaypointScale(path string) error {
	tab, err := dataset.ReadFile(path, dataset.Spec{
		Columns: []dataset.Column{{Name: "t"}, {Name: "x"}, {Name: "y"}, {Name: "theta", Optional: true}},
		Time:    "t",
	})
	if err != nil {
		return err // the path reader reports it the same way
	}
	for _, c := range []string{"x", "y"} {
		for k, v := range tab.Col(c) {
			if math.Abs(v) > maxWaypointCoord {
				return tab.Errorf(k, c, "waypoint coordinate %g m is beyond ±%g m (units?)", v, float64(maxWaypointCoord))
			}
		}
	}
	return nil
}

// checkFollowed refuses a plan whose predicted robot does not follow the
// path (control.Tracking.Followed: a robot that never moves sits on a path
// through its start, at distance 0, and its distance alone would look
// perfect).
func checkFollowed(t control.Tracking, a FollowArgs) error {
	if t.Followed() == nil {
		return nil
	}
	return fmt.Errorf("the predicted robot travels %.3g m of the path's %.3g m, %.3g m RMS from where it should be: it does not follow the path; the command bounds (-wmax/-umax/-vmax) may leave it too little speed for -duration %g s; no controls written",
		t.Travelled, t.PathLength, t.OnTimeRMS, a.Duration)
}

// checkFollowSteps refuses a plan of more than control.MaxSteps steps before
// any work: a usage error when the flags set the duration (a built-in path,
// or -duration given), else a failure naming the waypoint file.
func checkFollowSteps(a FollowArgs, path control.Path, dt float64) error {
	err := control.CheckSteps(path.Name(), path.Duration(), dt)
	if err != nil && (a.Path == "circle" || a.Path == "figure8" || a.Set["duration"]) {
		return usagef("%v", err)
	}
	return err
}
