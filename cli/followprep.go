package cli

import (
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/control"
)

// followPath prepares what every follow handler needs from the flags
// (issue 16): the path, with -duration honoured for a waypoint file (its
// times stretched to last -duration seconds); unevenly timed waypoints
// resampled (control.UnevenRatio); the heading that is used said out loud;
// -theta0 checked for degrees; and the start pose: the path's first point,
// heading -theta0 or, without it, the path's initial desired heading (for
// tangent modes: the forward axis along the path, not a spin on the spot).
// forwardAxis is the robot's (control.Robot.ForwardAxis; π/2 for the
// Mecanum robot, whose forward axis is its y axis).
//
// The notes are printed by the caller once its plan is accepted, so that a
// usage error stays the only line.
func followPath(a FollowArgs, forwardAxis float64) (control.Path, control.HeadingMode, control.Pose, []string, error) {
	var start control.Pose
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	mode, err := control.ParseHeading(a.Heading)
	if err != nil {
		return nil, mode, start, nil, usagef("%v", err)
	}
	if a.Set["theta0"] && math.Abs(a.Theta0) > 2*math.Pi {
		return nil, mode, start, nil, usagef("-theta0 %g: the heading is in radians (%g° is %.4f rad)", a.Theta0, a.Theta0, a.Theta0*math.Pi/180)
	}
	path, err := control.NewPath(a.Path, a.Duration)
	if err != nil {
		return nil, mode, start, nil, err
	}
	if w, ok := path.(*control.Waypoints); ok {
		if from, to := w.Resampled(); from > 0 {
			note("follow: %s: waypoint times are uneven (steps differ more than %g×): resampled %d waypoints at a uniform step into %d (linear between them), so the spline does not overshoot", a.Path, control.UnevenRatio, from, to)
		}
		if a.Set["duration"] && math.Abs(a.Duration-path.Duration()) > 1e-9*a.Duration {
			note("follow: %s: its times span %g s; stretched to -duration %g s", a.Path, path.Duration(), a.Duration)
			path = scaledPath{Path: path, k: a.Duration / path.Duration()}
		}
		if _, has := path.Heading(0); has {
			if a.Set["heading"] {
				note("warning: %s has a theta column, which sets the heading: -heading %s is ignored", a.Path, a.Heading)
			} else {
				note("follow: heading from the theta column of %s", a.Path)
			}
		}
	}
	x0, y0, _, _ := path.At(0)
	start = control.Pose{X: x0, Y: y0, Theta: a.Theta0}
	if x0 != 0 || y0 != 0 {
		note("follow: starting at the path's first point (%.4g, %.4g)", x0, y0)
	}
	if !a.Set["theta0"] {
		_, fromFile := path.Heading(0)
		if mode != control.Fixed || fromFile {
			ref, err := control.Sample(path, 200, mode, 0)
			if err != nil {
				return nil, mode, start, nil, err
			}
			th := ref.Theta[0] - forwardAxis + math.Pi/2 // plan heading → the robot's
			th -= 2 * math.Pi * math.Round(th/(2*math.Pi))
			start.Theta = th
			note("follow: start heading %.4f rad, the path's initial %s heading (-theta0 sets another)", th, headingSource(mode, fromFile))
		}
	}
	return path, mode, start, notes, nil
}

func printNotes(e env, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(e.stderr, n)
	}
}

func headingSource(mode control.HeadingMode, fromFile bool) string {
	if fromFile {
		return "theta-column"
	}
	return string(mode)
}

// scaledPath runs a path k times slower (k > 1) or faster.
type scaledPath struct {
	control.Path
	k float64
}

func (s scaledPath) At(t float64) (x, y, vx, vy float64) {
	x, y, vx, vy = s.Path.At(t / s.k)
	return x, y, vx / s.k, vy / s.k
}
func (s scaledPath) Duration() float64                 { return s.k * s.Path.Duration() }
func (s scaledPath) Heading(t float64) (float64, bool) { return s.Path.Heading(t / s.k) }
