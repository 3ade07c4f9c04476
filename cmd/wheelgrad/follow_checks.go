package main

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
// path: a robot that never moves sits on a path through its start, at
// distance 0, and its distance alone would look perfect. Not followed: it
// travels less than half the path's length and its on-time error exceeds a
// quarter of the path's extent. (control.Tracking.Coverage is no guide at a
// coarse step: it marks only the samples beside each pose's closest point.)
func checkFollowed(t control.Tracking, path control.Path, poses []control.Pose, a FollowArgs) error {
	rx, ry := control.Dense(path, 2000)
	var ref float64
	minX, maxX, minY, maxY := rx[0], rx[0], ry[0], ry[0]
	for i := 1; i < len(rx); i++ {
		ref += math.Hypot(rx[i]-rx[i-1], ry[i]-ry[i-1])
		minX, maxX = math.Min(minX, rx[i]), math.Max(maxX, rx[i])
		minY, maxY = math.Min(minY, ry[i]), math.Max(maxY, ry[i])
	}
	var moved float64
	for i := 1; i < len(poses); i++ {
		moved += math.Hypot(poses[i].X-poses[i-1].X, poses[i].Y-poses[i-1].Y)
	}
	extent := math.Hypot(maxX-minX, maxY-minY)
	if moved >= 0.5*ref || t.OnTimeRMS <= 0.25*extent {
		return nil
	}
	return fmt.Errorf("the predicted robot travels %.3g m of the path's %.3g m, %.3g m RMS from where it should be: it does not follow the path; the command bounds (-wmax/-umax/-vmax) may leave it too little speed for -duration %g s; no controls written",
		moved, ref, t.OnTimeRMS, a.Duration)
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
