package cli

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/opt"
)

func init() { followHandlers["mecanum"] = followMecanum }

// followMecanum synthesises wheel commands for a path (Luo et al. §VII-B):
// FORMATS.md `wheelgrad follow`.
func followMecanum(e env, a FollowArgs) error {
	params, err := readMecanumParams(e, a.Params, true)
	if err != nil {
		return err
	}
	model, err := mecanum.NewDrive(params)
	if err != nil {
		return fmt.Errorf("%s: %w", a.Params, err)
	}
	path, mode, start, notes, err := followPath(a, math.Pi/2)
	if err != nil {
		return err
	}
	if err := checkFollowSteps(a, path, a.Dt); err != nil {
		return err
	}
	var truth *mecanum.Drive
	if a.MPC != "" {
		tp, err := readMecanumParams(e, a.MPC, true)
		if err != nil {
			return err
		}
		tm, err := mecanum.NewDrive(tp)
		if err != nil {
			return fmt.Errorf("%s: %w", a.MPC, err)
		}
		truth = &tm
	}
	plan, err := control.NewPlan(model, path, mode, start.Theta, a.Rate, a.Dt, a.Wmax)
	if err != nil {
		return usagef("%v", err)
	}
	plan.Start = start
	printNotes(e, notes)
	f, err := control.FollowDrive(plan, followSettings(a))
	a.Prog.done()
	if err != nil && !errors.Is(err, control.ErrNotFollowed) {
		return err
	}
	planned, poses, vel, pred := f.Controls, f.Predicted.Poses, f.Predicted.Velocity, f.Predicted.Tracking
	sep := ", "
	if f.Synthesis.Chunks > 0 {
		sep = " in "
	}
	fmt.Fprintf(e.stderr, "follow: %s, %d segments × 4 wheels%s%s\n", path.Name(), plan.K, sep, synthesisSummary(f.Synthesis))
	printTracking(e.stderr, "predicted", pred, mode)
	if err := checkFollowed(pred, a); err != nil {
		return err
	}

	controls := planned
	series := []figure.Series{}
	var executed []control.Pose
	if truth != nil {
		olPoses, olVel := control.Execute(truth, plan.Start, planned, plan.N, plan.Dt)
		ol := control.Track(path, 0, plan.Dt, olPoses, olVel)
		printTracking(e.stderr, "open loop, executed on the true robot", ol, mode)
		plan2, _ := control.NewPlan(model, path, mode, start.Theta, a.Rate, a.Dt, a.Wmax)
		plan2.Start = start
		m, err := control.RunMPC(plan2, *truth, control.MPCSettings{Progress: func(done, total int) {
			a.Prog.printf("MPC: segment %d of %d", done, total)
		}})
		a.Prog.done()
		if err != nil {
			return err
		}
		cl := control.Track(path, 0, plan.Dt, m.Poses, m.Velocity)
		fmt.Fprintf(e.stderr, "MPC: %d re-plans, %s\n", m.Replans, m.Runtime.Round(1e6))
		printTracking(e.stderr, "MPC, executed on the true robot", cl, mode)
		controls, executed = m.Controls, m.Poses
		series = append(series, figure.Series{Name: "open loop, executed on the true robot", X: xs(olPoses), Y: ys(olPoses), Dashed: true, Color: figure.Palette[3]})
	}
	if err := e.writeOut(a.Out, func(w io.Writer) error {
		return writeControls(w, controls, plan.N, plan.Dt, plan.Start)
	}); err != nil {
		return err
	}
	if a.Plot != "" {
		rx, ry := control.Dense(path, 2000)
		series = append([]figure.Series{
			{Name: "reference", X: rx, Y: ry, Color: color.RGBA{200, 200, 200, 255}, Width: 6},
		}, series...)
		if executed != nil {
			series = append(series, figure.Series{Name: "MPC, executed on the true robot", X: xs(executed), Y: ys(executed), Color: figure.Palette[2], Width: 3})
		}
		series = append(series, senseSeries("predicted", poses, vel)...)
		series = append(series, pathMarks(start, poses, int(math.Round(2/plan.Dt)))...)
		title := fmt.Sprintf("%s, %s heading", path.Name(), mode)
		stage, err := e.stagePath(a.Plot)
		if err != nil {
			return err
		}
		if err := figure.XY(stage, title, "x (m)", "y (m)", true, series); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "follow: wrote %s\n", a.Plot)
	}
	return nil
}

// followSettings reports the synthesis's progress on a's progress line.
func followSettings(a FollowArgs) control.FollowSettings {
	return control.FollowSettings{
		Iteration: func(it opt.Iteration) { a.Prog.printf("synthesis: iteration %d, loss %.4g", it.Iter, it.F) },
		Chunk:     func(done, total int) { a.Prog.printf("synthesis in chunks: segment %d of %d", done, total) },
	}
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

// writeControls writes FORMATS.md's controls CSV: t,w1..w4, one row per
// integration step, plus a last row at the final time (so that simulate also
// reports the final pose); the first row carries the start pose, so that
// simulate starts where follow did.
func writeControls(w io.Writer, c [][4]float64, n int, dt float64, start control.Pose) error {
	cw := dataset.NewWriter(w)
	cw.WriteHeader("t", "w1", "w2", "w3", "w4", "x", "y", "theta")
	steps := len(c) * n
	for k := 0; k <= steps; k++ {
		ws := c[min(k/n, len(c)-1)]
		x, y, th := math.NaN(), math.NaN(), math.NaN()
		if k == 0 {
			x, y, th = start.X, start.Y, start.Theta
		}
		cw.WriteFloats(float64(k)*dt, ws[0], ws[1], ws[2], ws[3], x, y, th)
	}
	return cw.Flush()
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
