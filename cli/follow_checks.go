package cli

import (
	"fmt"

	"github.com/wheelgrad/wheelgrad/control"
)

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
