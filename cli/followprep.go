package cli

import (
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/control"
)

// followPath checks follow's path flags and prepares the path
// (control.PreparePath, issue 16): -heading and -theta0 in radians are
// usage errors here. forwardAxis is the robot's (control.Robot.ForwardAxis).
//
// The notes are printed by the caller once its plan is accepted, so that a
// usage error stays the only line.
func followPath(a FollowArgs, forwardAxis float64) (control.Path, control.HeadingMode, control.Pose, []string, error) {
	mode, err := control.ParseHeading(a.Heading)
	if err != nil {
		return nil, mode, control.Pose{}, nil, usagef("%v", err)
	}
	if a.Set["theta0"] && math.Abs(a.Theta0) > 2*math.Pi {
		return nil, mode, control.Pose{}, nil, usagef("-theta0 %g: the heading is in radians (%g° is %.4f rad)", a.Theta0, a.Theta0, a.Theta0*math.Pi/180)
	}
	p, err := control.PreparePath(control.PathSpec{Name: a.Path, Duration: a.Duration, StretchTo: a.Set["duration"],
		Mode: mode, ModeGiven: a.Set["heading"], Theta0: a.Theta0, Theta0Given: a.Set["theta0"], ForwardAxis: forwardAxis})
	if err != nil {
		return nil, mode, control.Pose{}, nil, err
	}
	return p.Path, p.Mode, p.Start, p.Notes, nil
}

func printNotes(e env, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(e.stderr, n)
	}
}
