package robots

import (
	"image/color"
	"math"

	"github.com/wheelgrad/wheelgrad/control"
)

// FollowPlot is what a follow's figure shows: the reference path; on a
// simulated true robot (-mpc) the open-loop and the MPC runs; the predicted
// run, coloured by the sense of travel; the start and ticks along the
// robot's forward axis every 2 s. ForwardAxis is the robot's
// (control.Robot.ForwardAxis: π/2 for the Mecanum robot, whose forward
// axis is its y axis, the convention SenseSeries and the ticks read).
type FollowPlot struct {
	Title         string
	Path          control.Path
	ForwardAxis   float64
	Start         control.Pose
	Dt            float64
	Poses         []control.Pose
	Velocity      [][2]float64
	OpenLoop, MPC []control.Pose // nil without a true robot
}

// referenceGrey is the colour of a reference path under the runs.
var referenceGrey = color.RGBA{200, 200, 200, 255}

// ReferenceSeries is path p drawn densely (2000 points), wide and grey,
// under the runs of a figure.
func ReferenceSeries(p control.Path) Series {
	rx, ry := control.Dense(p, 2000)
	return Series{Name: "reference", X: rx, Y: ry, RGB: referenceGrey, Width: 6}
}

// FollowFigure is p as a Figure (x and y in metres, one unit as long on
// both axes).
func FollowFigure(p FollowPlot) *Figure {
	series := []Series{ReferenceSeries(p.Path)}
	if p.OpenLoop != nil {
		series = append(series, Series{Name: "open loop, executed on the true robot", X: xs(p.OpenLoop), Y: ys(p.OpenLoop), Dashed: true, Color: 4})
	}
	if p.MPC != nil {
		series = append(series, Series{Name: "MPC, executed on the true robot", X: xs(p.MPC), Y: ys(p.MPC), Color: 3, Width: 3})
	}
	poses, start := p.Poses, p.Start
	if off := p.ForwardAxis - math.Pi/2; off != 0 {
		poses = make([]control.Pose, len(p.Poses))
		for i, q := range p.Poses {
			poses[i] = control.Pose{X: q.X, Y: q.Y, Theta: q.Theta + off}
		}
		start.Theta += off
	}
	series = append(series, SenseSeries("predicted", poses, p.Velocity)...)
	series = append(series, pathMarks(start, poses, int(math.Round(2/p.Dt)))...)
	return &Figure{Title: p.Title, XLabel: "x (m)", YLabel: "y (m)", Equal: true, Series: series}
}

// SenseSeries splits a trajectory into runs driven forwards (the forward
// axis (−sin θ, cos θ) along the velocity) and backwards, coloured apart
// (the palette's first and second colours), so that a figure shows the
// reversal of figure8-reverse-right.
func SenseSeries(name string, p []control.Pose, v [][2]float64) []Series {
	p, v = thinned(p, v)
	var out []Series
	named := map[bool]bool{}
	start := 0
	sense := func(k int) bool {
		return -math.Sin(p[k].Theta)*v[k][0]+math.Cos(p[k].Theta)*v[k][1] >= 0
	}
	for k := 1; k <= len(p); k++ {
		if k < len(p) && sense(k) == sense(start) {
			continue
		}
		fwd := sense(start)
		s := Series{X: xs(p[start:min(k+1, len(p))]), Y: ys(p[start:min(k+1, len(p))]), Color: 1}
		if !fwd {
			s.Color = 2
		}
		if !named[fwd] {
			named[fwd] = true
			s.Name = name + ", driven forwards"
			if !fwd {
				s.Name = name + ", driven backwards"
			}
		}
		out = append(out, s)
		start = k
	}
	return out
}

// plotPoints bounds the points drawn of one trajectory: a 10,000-s path has
// 2.4 million steps, which a figure cannot show and a plotting library
// would hold several times over.
const plotPoints = 20000

// stride is the step between plotted points of an n-point trajectory.
func stride(n int) int { return max(1, (n+plotPoints-1)/plotPoints) }

// thinned keeps every stride-th pose and velocity, and the last.
func thinned(p []control.Pose, v [][2]float64) ([]control.Pose, [][2]float64) {
	k := stride(len(p))
	if k == 1 {
		return p, v
	}
	var tp []control.Pose
	var tv [][2]float64
	for i := 0; i < len(p); i += k {
		tp, tv = append(tp, p[i]), append(tv, v[i])
	}
	if (len(p)-1)%k != 0 {
		tp, tv = append(tp, p[len(p)-1]), append(tv, v[len(v)-1])
	}
	return tp, tv
}

func xs(p []control.Pose) []float64 {
	k := stride(len(p))
	out := make([]float64, 0, len(p)/k+1)
	for i := 0; i < len(p); i += k {
		out = append(out, p[i].X)
	}
	return out
}

func ys(p []control.Pose) []float64 {
	k := stride(len(p))
	out := make([]float64, 0, len(p)/k+1)
	for i := 0; i < len(p); i += k {
		out = append(out, p[i].Y)
	}
	return out
}

// pathMarks are a triangle at the start and ticks along the robot's forward
// axis (−sin θ, cos θ: poses in the Mecanum convention) every `every` poses,
// so that a figure shows where the robot starts and which way it faces.
func pathMarks(start control.Pose, poses []control.Pose, every int) []Series {
	span := 0.0
	for _, q := range poses {
		span = max(span, math.Abs(q.X-start.X), math.Abs(q.Y-start.Y))
	}
	l := max(0.06*span, 0.01)
	var tx, ty []float64
	all := append([]control.Pose{start}, poses...)
	for k := 0; k < len(all); k += max(every, 1) {
		q := all[k]
		s, c := math.Sincos(q.Theta)
		tx = append(tx, q.X, q.X-l*s)
		ty = append(ty, q.Y, q.Y+l*c)
	}
	return []Series{
		{Name: "forward axis (every 2 s)", X: tx, Y: ty, Segments: true, RGB: color.RGBA{60, 60, 60, 255}, Width: 1.2},
		{Name: "start", X: []float64{start.X}, Y: []float64{start.Y}, Points: true, Shape: "triangle", Size: 5, RGB: color.Black},
	}
}
