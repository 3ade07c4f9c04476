package cli

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/robots"
)

// followWheels synthesises the four wheel commands of a robots.WheelDriver
// (the Mecanum robot, Luo et al. §VII-B) for a path: FORMATS.md `wheelgrad
// follow`.
func followWheels(e env, a FollowArgs, m robots.WheelDriver) error {
	read := func(path string) (control.Drive, error) {
		d, ws, err := m.ReadDrive(path)
		if err != nil {
			return nil, err
		}
		for _, w := range ws {
			fmt.Fprintf(e.stderr, "wheelgrad: warning: %s\n", w)
		}
		return d, nil
	}
	model, err := read(a.Params)
	if err != nil {
		return err
	}
	path, mode, start, notes, err := followPath(a, math.Pi/2)
	if err != nil {
		return err
	}
	if err := checkFollowSteps(a, path, a.Dt); err != nil {
		return err
	}
	var truth control.Drive
	if a.MPC != "" {
		if truth, err = read(a.MPC); err != nil {
			return err
		}
	}
	f, err := robots.PlanWheelFollow(robots.WheelFollowRequest{Model: model, Path: path, Mode: mode, Start: start,
		Rate: a.Rate, Dt: a.Dt, Wmax: a.Wmax, Sink: newSink(e, nil, a.Prog)})
	if err != nil {
		return modelErr(err)
	}
	printNotes(e, notes)
	if err := f.Synthesize(); err != nil && !errors.Is(err, control.ErrNotFollowed) {
		return err
	}
	plan, pred := f.Plan, f.Synthesis.Predicted
	sep := ", "
	if f.Synthesis.Synthesis.Chunks > 0 {
		sep = " in "
	}
	fmt.Fprintf(e.stderr, "follow: %s, %d segments × 4 wheels%s%s\n", path.Name(), plan.K, sep, synthesisSummary(f.Synthesis.Synthesis))
	printTracking(e.stderr, "predicted", pred.Tracking, mode)
	if err := checkFollowed(pred.Tracking, a); err != nil {
		return err
	}

	var openLoop, executed []control.Pose
	if truth != nil {
		ol, err := f.OpenLoop(truth)
		if err != nil {
			return err
		}
		printTracking(e.stderr, "open loop, executed on the true robot", ol.Tracking, mode)
		cl, err := f.RunMPC(truth, control.MPCSettings{})
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "MPC: %d re-plans, %s\n", f.MPC.Replans, f.MPC.Runtime.Round(1e6))
		printTracking(e.stderr, "MPC, executed on the true robot", cl.Tracking, mode)
		openLoop, executed = ol.Poses, cl.Poses
	}
	if err := e.writeOut(a.Out, f.WriteControls); err != nil {
		return err
	}
	if a.Plot == "" {
		return nil
	}
	return e.drawFollow(a.Plot, followPlot{Title: fmt.Sprintf("%s, %s heading", path.Name(), mode), Path: path, ForwardAxis: math.Pi / 2,
		Start: start, Dt: plan.Dt, Poses: pred.Poses, Velocity: pred.Velocity, OpenLoop: openLoop, MPC: executed})
}

// followPlot is what follow's -plot draws: the reference path; on a
// simulated true robot (-mpc) the open-loop and the MPC runs; the predicted
// run, coloured by the sense of travel; the start and ticks along the
// robot's forward axis every 2 s. ForwardAxis is the robot's
// (control.Robot.ForwardAxis: π/2 for the Mecanum robot, whose forward
// axis is its y axis, the convention senseSeries and pathMarks read).
type followPlot struct {
	Title         string
	Path          control.Path
	ForwardAxis   float64
	Start         control.Pose
	Dt            float64
	Poses         []control.Pose
	Velocity      [][2]float64
	OpenLoop, MPC []control.Pose // nil without a true robot
}

// drawFollow draws p into the staged output file, and says so.
func (e env) drawFollow(file string, p followPlot) error {
	rx, ry := control.Dense(p.Path, 2000)
	series := []figure.Series{{Name: "reference", X: rx, Y: ry, Color: color.RGBA{200, 200, 200, 255}, Width: 6}}
	if p.OpenLoop != nil {
		series = append(series, figure.Series{Name: "open loop, executed on the true robot", X: xs(p.OpenLoop), Y: ys(p.OpenLoop), Dashed: true, Color: figure.Palette[3]})
	}
	if p.MPC != nil {
		series = append(series, figure.Series{Name: "MPC, executed on the true robot", X: xs(p.MPC), Y: ys(p.MPC), Color: figure.Palette[2], Width: 3})
	}
	poses, start := p.Poses, p.Start
	if off := p.ForwardAxis - math.Pi/2; off != 0 {
		poses = make([]control.Pose, len(p.Poses))
		for i, q := range p.Poses {
			poses[i] = control.Pose{X: q.X, Y: q.Y, Theta: q.Theta + off}
		}
		start.Theta += off
	}
	series = append(series, senseSeries("predicted", poses, p.Velocity)...)
	series = append(series, pathMarks(start, poses, int(math.Round(2/p.Dt)))...)
	stage, err := e.stagePath(file)
	if err != nil {
		return err
	}
	if err := figure.XY(stage, p.Title, "x (m)", "y (m)", true, series); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "follow: wrote %s\n", file)
	return nil
}

// followSettings reports the synthesis's progress on a's progress line.
func followSettings(a FollowArgs) control.FollowSettings {
	return robots.FollowProgress(sink{p: a.Prog}, "synthesis") // progress only: no warnings
}

// synthesisSummary is the synthesis part of follow's summary line.
func synthesisSummary(s control.Synthesis) string {
	if s.Chunks > 0 {
		return fmt.Sprintf("%d receding-horizon chunks of %d s (+%d s look-ahead), %d iterations, %d evaluations, %s",
			s.Chunks, control.ChunkSeconds, control.LookaheadSeconds, s.Iterations, s.Evaluations, s.Runtime.Round(1e6))
	}
	return fmt.Sprintf("%d iterations, %d evaluations, %s (%s)", s.Iterations, s.Evaluations, s.Runtime.Round(1e6), s.Status)
}

func printTracking(w io.Writer, what string, t control.Tracking, mode control.HeadingMode) {
	fmt.Fprintf(w, "  %-40s RMS %.4f m, max %.4f m to the path; on time RMS %.4f m\n", what+":", t.RMS, t.Max, t.OnTimeRMS)
	if mode == control.Figure8ReverseRight {
		fmt.Fprintf(w, "  %-40s %.1f %% of the right lobe driven backwards, %.1f %% of the left forwards\n", "", 100*t.ReversedRight, 100*t.ForwardLeft)
	}
}

// senseSeries splits a trajectory into runs driven forwards (the forward
// axis (−sin θ, cos θ) along the velocity) and backwards, coloured apart, so
// the figure shows the reversal of figure8-reverse-right.
func senseSeries(name string, p []control.Pose, v [][2]float64) []figure.Series {
	p, v = thinned(p, v)
	var out []figure.Series
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
		s := figure.Series{X: xs(p[start:min(k+1, len(p))]), Y: ys(p[start:min(k+1, len(p))]), Color: figure.Palette[0]}
		if !fwd {
			s.Color = figure.Palette[1]
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
// 2.4 million steps, which a figure cannot show and gonum/plot would hold
// several times over.
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
func pathMarks(start control.Pose, poses []control.Pose, every int) []figure.Series {
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
	return []figure.Series{
		{Name: "forward axis (every 2 s)", X: tx, Y: ty, Segments: true, Color: color.RGBA{60, 60, 60, 255}, Width: 1.2},
		{Name: "start", X: []float64{start.X}, Y: []float64{start.Y}, Points: true, Shape: "triangle", Size: 5, Color: color.Black},
	}
}
