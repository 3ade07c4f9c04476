package control

import (
	"fmt"
	"math"
)

// PathSpec is a path as follow's flags name it (issue 16).
type PathSpec struct {
	// Name is circle, figure8 or a waypoint CSV file; Duration (s) the
	// time once around a built-in path, and, when StretchTo is set, the
	// time a waypoint file's times are stretched (or shrunk) to.
	Name      string
	Duration  float64
	StretchTo bool
	Mode      HeadingMode
	// ModeGiven says the heading mode was asked for (a theta column in
	// the waypoint file overrides it, which deserves a warning then).
	ModeGiven bool
	// Theta0 (rad) is the start heading when Theta0Given; otherwise the
	// path's initial desired heading is taken.
	Theta0      float64
	Theta0Given bool
	// ForwardAxis is the robot's (Robot.ForwardAxis; π/2 for the Mecanum
	// robot, whose forward axis is its y axis).
	ForwardAxis float64
}

// PreparedPath is a path ready to be followed: the path (stretched or
// resampled as it says in Notes), its heading mode and the start pose.
type PreparedPath struct {
	Path  Path
	Mode  HeadingMode
	Start Pose
	// Notes say what was done to the path and why, one line each; a
	// doubt about the flags starts with "warning: ".
	Notes []string
}

// PreparePath reads the path of s and prepares it for following: a
// waypoint file's times stretched to s.Duration when StretchTo; unevenly
// timed waypoints resampled (UnevenRatio); the heading that is used said
// out loud; and the start pose: the path's first point, heading s.Theta0
// or, without it, the path's initial desired heading (for tangent modes:
// the forward axis along the path, not a spin on the spot).
func PreparePath(s PathSpec) (*PreparedPath, error) {
	out := &PreparedPath{Mode: s.Mode}
	note := func(format string, args ...any) { out.Notes = append(out.Notes, fmt.Sprintf(format, args...)) }
	path, err := NewPath(s.Name, s.Duration)
	if err != nil {
		return nil, err
	}
	if w, ok := path.(*Waypoints); ok {
		if from, to := w.Resampled(); from > 0 {
			note("follow: %s: waypoint times are uneven (steps differ more than %g×): resampled %d waypoints at a uniform step into %d (linear between them), so the spline does not overshoot", s.Name, UnevenRatio, from, to)
		}
		if s.StretchTo && math.Abs(s.Duration-path.Duration()) > 1e-9*s.Duration {
			note("follow: %s: its times span %g s; stretched to -duration %g s", s.Name, path.Duration(), s.Duration)
			path = scaledPath{Path: path, k: s.Duration / path.Duration()}
		}
		if _, has := path.Heading(0); has {
			if s.ModeGiven {
				note("warning: %s has a theta column, which sets the heading: -heading %s is ignored", s.Name, s.Mode)
			} else {
				note("follow: heading from the theta column of %s", s.Name)
			}
		}
	}
	out.Path = path
	x0, y0, _, _ := path.At(0)
	out.Start = Pose{X: x0, Y: y0, Theta: s.Theta0}
	if x0 != 0 || y0 != 0 {
		note("follow: starting at the path's first point (%.4g, %.4g)", x0, y0)
	}
	if !s.Theta0Given {
		_, fromFile := path.Heading(0)
		if s.Mode != Fixed || fromFile {
			ref, err := Sample(path, 200, s.Mode, 0)
			if err != nil {
				return nil, err
			}
			th := ref.Theta[0] - s.ForwardAxis + math.Pi/2 // plan heading → the robot's
			th -= 2 * math.Pi * math.Round(th/(2*math.Pi))
			out.Start.Theta = th
			source := string(s.Mode)
			if fromFile {
				source = "theta-column"
			}
			note("follow: start heading %.4f rad, the path's initial %s heading (-theta0 sets another)", th, source)
		}
	}
	return out, nil
}

// scaledPath runs a path k times slower (k > 1) or faster.
type scaledPath struct {
	Path
	k float64
}

func (s scaledPath) At(t float64) (x, y, vx, vy float64) {
	x, y, vx, vy = s.Path.At(t / s.k)
	return x, y, vx / s.k, vy / s.k
}
func (s scaledPath) Duration() float64                 { return s.k * s.Path.Duration() }
func (s scaledPath) Heading(t float64) (float64, bool) { return s.Path.Heading(t / s.k) }
