package robots

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

// The Mecanum adapter (Luo, Boularias and Aanjaneya): parameter files,
// logs with -poses, -offset (auto: from the motion onset), command maps and
// the gap policy, simulate, validate (this file), identify
// (mecanum_identify.go) and inspect, the search for a log's wheel channels
// (mecanum_inspect.go).

var (
	_ ParamReader = Mecanum{}
	_ Simulator   = Mecanum{}
	_ Validator   = Mecanum{}
)

// mecanumNames are the identified parameters, μ_j of wheel j (Luo eq. 3).
var mecanumNames = []string{"mu1", "mu2", "mu3", "mu4"}

// ReadParams reads a Mecanum parameter file (mecanum.ReadParams): for
// prediction it must give mu or friction_net; for a start a missing mu is
// the default. The Params are a mecanum.Params.
func (Mecanum) ReadParams(path string, use ParamUse) (Params, []fit.Warning, error) {
	p, ws, err := mecanum.ReadParams(path, use == ForPrediction)
	if err != nil {
		return nil, nil, err
	}
	return p, ParamWarnings(path, ws), nil
}

// mecanumParams is p as the model's own parameters.
func mecanumParams(p Params) (mecanum.Params, error) {
	switch q := p.(type) {
	case mecanum.Params:
		return q, nil
	case *mecanum.Params:
		if q != nil {
			return *q, nil
		}
	}
	return mecanum.Params{}, fmt.Errorf("mecanum: parameters of type %T, want mecanum.Params", p)
}

// mecanumOnset estimates the sensor offset of one log from the motion onset
// of its first run (mecanum.EstimateOnset); without lag the model's time to
// move is not counted (inspect: the wiring is not known yet).
func mecanumOnset(src Source, p mecanum.Params, lag bool) (mecanum.Onset, error) {
	st, err := mecanum.ReadStreams(src.Path, mecanum.LogOptions{Map: p.CommandMap, Sensors: src.Poses, Columns: src.Columns, Cache: src.Cache})
	if err != nil {
		return mecanum.Onset{}, err
	}
	if len(st.CmdT) == 0 {
		return mecanum.Onset{}, fmt.Errorf("%s: -offset auto: no command rows", src.Path)
	}
	estimate := mecanum.EstimateOnset
	if !lag {
		estimate = mecanum.EstimateOnsetNoLag
	}
	on, err := estimate(p, st.CmdT, st.W, st.CamT, st.X, st.Y, st.Theta)
	if err != nil {
		file := src.Path
		if src.Poses != "" {
			file = src.Poses
		}
		return on, fmt.Errorf("%s: -offset auto: %w", file, err)
	}
	return on, nil
}

// mecanumOffsets resolves AutoOffset in srcs (a copy): each log's offset
// from its motion onset, with one line per log saying what was found.
func mecanumOffsets(srcs []Source, p mecanum.Params, lag bool) ([]Source, []string, error) {
	out := slices.Clone(srcs)
	var lines []string
	for i := range out {
		if !out[i].AutoOffset {
			continue
		}
		on, err := mecanumOnset(out[i], p, lag)
		if err != nil {
			return nil, nil, err
		}
		out[i].Offset, out[i].AutoOffset = on.Offset, false
		lines = append(lines, fmt.Sprintf("%s: offset %+.4f s added to the pose times (motion onset at pose time %.4f s, commands start at %.4f s, the model needs %.4f s to move %.3g m)",
			out[i].Path, on.Offset, on.MotionOnset, on.CommandOnset, on.Lag, on.Threshold))
	}
	return out, lines, nil
}

// mecanumRuns reads every source's runs with camera poses; with several
// sources a run's id is prefixed by its file's name (RunID). Gaps follow
// the policy: a split run's pieces are runs of their own, ids suffixed
// "#2", "#3", ...
func mecanumRuns(d *Diag, srcs []Source, m *dataset.CommandMap, gaps fit.GapPolicy) ([]mecanum.Run, error) {
	if gaps == "" {
		gaps = fit.GapsError
	}
	var runs []mecanum.Run
	for _, src := range srcs {
		f := src.Path
		rs, err := mecanum.ReadLog(src.Path, mecanum.LogOptions{NeedPose: true, Map: m, Sensors: src.Poses, Offset: src.Offset, Note: d.NoteWriter(), Columns: src.Columns, HoldLast: src.HoldLast, Cache: src.Cache})
		if err != nil {
			return nil, err
		}
		t := rs[0].Table
		d.Add(fit.TimeUnits(f, t.Col("t"))...)
		for i := range rs {
			rs[i].ID = RunID(srcs, f, rs[i].ID)
			r := rs[i]
			d.Add(PoseOutliers(f, r.T, r.X, r.Y, mecanumLimits.Speed, r.Origin)...)
			d.Add(mecanumImplausible(f, r)...)
			d.Add(mecanumLayout(f, t.Has("traj"), r)...)
			pieces, ws, err := fit.ApplyGaps(gaps, r.T, r.CommandRows(), true, func(row int, msg string) error { return r.Errorf(row, "t", "%s", msg) })
			d.Add(ws...)
			if err != nil {
				return nil, err
			}
			if pieces == nil {
				runs = append(runs, r)
				continue
			}
			for pi, pc := range pieces {
				q := r
				q.T, q.W = r.T[pc[0]:pc[1]], r.W[pc[0]:pc[1]]
				if r.X != nil {
					q.X, q.Y, q.Theta = r.X[pc[0]:pc[1]], r.Y[pc[0]:pc[1]], r.Theta[pc[0]:pc[1]]
				}
				q.Row = r.Row + pc[0]
				if pi > 0 {
					q.ID = fmt.Sprintf("%s#%d", r.ID, pi+1)
				}
				if len(q.Camera()) < 3 {
					d.Add(fit.Warnf(f, "the piece of run %q from line %d has fewer than three camera poses after the gap split: left out", r.ID, t.Line[q.Row]))
					continue
				}
				runs = append(runs, q)
			}
			d.Add(fit.Warnf(f, "run %q split at %d time gap(s) into %d runs (-gaps split)", r.ID, len(pieces)-1, len(pieces)))
		}
	}
	return runs, nil
}

// Simulate rolls the model out over one log's commands (mecanum.Simulate,
// from the first camera pose where the log has one) and writes t, x, y,
// theta (and traj). With Source.AutoOffset the camera offset is estimated
// from the motion onset first; Plot draws the predicted paths against the
// camera poses.
func (Mecanum) Simulate(req SimulateRequest) (*Simulation, error) {
	p, err := mecanumParams(req.Params)
	if err != nil {
		return nil, err
	}
	d := NewDiag(req.Sink)
	src := req.Source
	if src.AutoOffset {
		on, err := mecanumOnset(src, p, true)
		if err != nil {
			return nil, err
		}
		src.Offset, src.AutoOffset = on.Offset, false
		d.Note("%s: offset %+.4f s added to the pose times (motion onset)", src.Path, on.Offset)
	}
	runs, err := mecanum.ReadLog(src.Path, mecanum.LogOptions{Map: p.CommandMap, Sensors: src.Poses, Offset: src.Offset, Note: d.NoteWriter(), Columns: src.Columns, HoldLast: src.HoldLast, Cache: src.Cache})
	if err != nil {
		return nil, err
	}
	for i := range runs {
		d.Add(SimulatedGaps(runs[i].T, runs[i].Origin)...)
		d.Add(mecanumImplausible(src.Path, runs[i])...)
	}
	hasTraj := runs[0].Table.Has("traj")
	// The whole rollout is computed and checked before the first byte is
	// written: a late overflow must not leave a truncated CSV.
	poses := make([][3][]float64, len(runs))
	for i := range runs {
		r := &runs[i]
		x, y, th := mecanum.Simulate(p, r)
		for k := range x {
			if !mecanumFinite(x[k]) || !mecanumFinite(y[k]) || !mecanumFinite(th[k]) {
				return nil, r.Errorf(k, "", "the simulated pose is not finite from this row on: the commands, or the parameters of %s (M, r, Ts, lab), are out of scale", req.ParamsPath)
			}
		}
		poses[i] = [3][]float64{x, y, th}
	}
	sim := &Simulation{Warnings: d.Warnings}
	sr := make([]simRun, len(runs))
	for i := range runs {
		sr[i] = simRun{ID: runs[i].ID, T: runs[i].T[:len(poses[i][0])], Cols: poses[i][:]}
	}
	sim.Write = func(w io.Writer) error { return writeSimulation(w, []string{"x", "y", "theta"}, hasTraj, sr) }
	if req.Plot {
		sim.Figure = mecanumPredictionFigure(p, runs)
	}
	return sim, nil
}

func mecanumFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Validate predicts each run's camera poses x, y, theta with
// mecanum.Simulate from a start pose estimated per run (fit.EstimateStart,
// as MATLAB's compare; X0First: the first camera pose).
func (Mecanum) Validate(req ValidateRequest) ([]ValidationRun, error) {
	p, err := mecanumParams(req.Params)
	if err != nil {
		return nil, err
	}
	d := NewDiag(req.Sink)
	srcs, lines, err := mecanumOffsets(req.Sources, p, true)
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		d.Note("%s", l)
	}
	runs, err := mecanumRuns(d, srcs, p.CommandMap, req.Gaps)
	if err != nil {
		return nil, err
	}
	var out []ValidationRun
	for i := range runs {
		r := &runs[i]
		if r.X == nil {
			return nil, r.Errorf(0, "x", "validate needs measured poses x, y, theta")
		}
		cam := r.Camera()
		if len(cam) == 0 {
			return nil, r.Errorf(0, "x", "validate needs measured poses x, y, theta: this run has none")
		}
		k0 := cam[0]
		predict := func(s []float64) ([]fit.Channel, error) {
			q := *r
			q.X, q.Y, q.Theta = slices.Clone(r.X), slices.Clone(r.Y), slices.Clone(r.Theta)
			q.X[k0], q.Y[k0], q.Theta[k0] = s[0], s[1], s[2]
			x, y, th := mecanum.Simulate(p, &q)
			chs := []fit.Channel{{Name: "x", Unit: "m"}, {Name: "y", Unit: "m"}, {Name: "theta", Unit: "rad", Angle: true}}
			for k := range r.T {
				chs[0].Add(0, r.T[k], r.X[k], x[k])
				chs[1].Add(0, r.T[k], r.Y[k], y[k])
				chs[2].Add(0, r.T[k], r.Theta[k], th[k])
			}
			return chs, nil
		}
		x0 := []float64{r.X[k0], r.Y[k0], r.Theta[k0]}
		var chs []fit.Channel
		if req.X0 == X0First {
			chs, err = predict(x0)
		} else {
			x0, chs, err = fit.EstimateStart(x0, predict)
		}
		if err != nil {
			return nil, r.Err(err)
		}
		out = append(out, ValidationRun{ID: r.ID, Channels: chs, Track: mecanumTrack(chs), Start: x0, StartNames: []string{"x", "y", "theta"}})
	}
	return out, nil
}

// mecanumTrack pairs the x, y, theta channels sample by sample (they are
// sampled together: NaN rows are skipped alike).
func mecanumTrack(chs []fit.Channel) fit.Track {
	var tr fit.Track
	if len(chs[0].T) != len(chs[1].T) || len(chs[0].T) != len(chs[2].T) {
		return tr
	}
	for k := range chs[0].T {
		if chs[1].T[k] != chs[0].T[k] || chs[2].T[k] != chs[0].T[k] {
			return fit.Track{}
		}
		tr.Add(chs[0].T[k], [3]float64{chs[0].Meas[k], chs[1].Meas[k], chs[2].Meas[k]}, [3]float64{chs[0].Pred[k], chs[1].Pred[k], chs[2].Pred[k]})
	}
	return tr
}

// mecanumPredictionFigure is each run's predicted path (Simulate, anchored
// at its first camera pose) and its camera poses, with the RMS distance
// between them in the title.
func mecanumPredictionFigure(p mecanum.Params, runs []mecanum.Run) *Figure {
	var series []Series
	var ss float64
	var n int
	for i := range runs {
		r := &runs[i]
		x, y, _ := mecanum.Simulate(p, r)
		var gx, gy []float64
		for _, k := range r.Camera() {
			gx, gy = append(gx, r.X[k]), append(gy, r.Y[k])
			ss += (x[k]-r.X[k])*(x[k]-r.X[k]) + (y[k]-r.Y[k])*(y[k]-r.Y[k])
			n++
		}
		name := mecanumLegend(i)
		if len(gx) > 0 {
			series = append(series, Series{Name: name("camera"), X: gx, Y: gy, Points: true, Color: 2})
		}
		series = append(series, Series{Name: name("prediction"), X: x, Y: y, Color: 1})
	}
	title := "Mecanum prediction"
	if n > 0 {
		title += fmt.Sprintf(" (RMS %.1f mm from the camera)", 1e3*math.Sqrt(ss/float64(n)))
	}
	return &Figure{Title: title, XLabel: "x (m)", YLabel: "y (m)", Equal: true, Series: series}
}

// mecanumLegend names a legend entry on the first run only.
func mecanumLegend(i int) func(string) string {
	return func(s string) string {
		if i == 0 {
			return s
		}
		return ""
	}
}

// mecanumFiles names the sources in a message.
func mecanumFiles(srcs []Source) string {
	var fs []string
	for _, s := range srcs {
		fs = append(fs, s.Path)
	}
	return strings.Join(fs, ",")
}

// mecanumImplausible warns of wheel speeds beyond the robot's limits
// (mecanumLimits), named w1..w4 as the model's inputs after any command
// map.
func mecanumImplausible(file string, r mecanum.Run) []fit.Warning {
	cols := map[string][]float64{}
	for j := range 4 {
		v := make([]float64, len(r.W))
		for k, w := range r.W {
			v[k] = w[j]
		}
		cols[fmt.Sprintf("w%d", j+1)] = v
	}
	return Implausible(file, r.Origin, mecanumLimits, cols)
}

// mecanumLayout are the layout checks of one run (issue 28): poses that
// jump back to the run's start (runs concatenated without traj) and
// stretches of motion with every wheel command zero, or of standing while
// commanded (fit.CommandMotionWarnings: before mecanumChecks' unit
// warnings, which they would mislead).
func mecanumLayout(file string, hasTraj bool, r mecanum.Run) []fit.Warning {
	if r.X == nil {
		return nil
	}
	rows := r.Camera()
	var ws []fit.Warning
	if !hasTraj {
		ws = append(ws, fit.JumpsBackWarning(file, r.X, r.Y, rows, r.Line)...)
	}
	return append(ws, fit.CommandMotionWarnings(file, r.T, r.X, r.Y, r.Theta, rows, func(k int) bool {
		return r.W[k] == [4]float64{}
	})...)
}
