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

// minCoverage is the share of the path the predicted robot must pass
// within 5 cm of for follow to call it followed.
const minCoverage = 0.5

// checkFollowed refuses a plan whose predicted robot does not follow the
// path: a robot that never moves sits on a path through its start, at
// distance 0, and its distance alone would look perfect.
func checkFollowed(t control.Tracking, a FollowArgs) error {
	if t.Coverage >= minCoverage {
		return nil
	}
	return fmt.Errorf("the predicted robot passes within 5 cm of only %.0f %% of the path (on-time RMS %.3g m): it does not follow it; the command bounds (-wmax/-umax/-vmax) may leave it too little speed for -duration %g s; no controls written",
		100*t.Coverage, t.OnTimeRMS, a.Duration)
}
