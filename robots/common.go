package robots

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
)

// What several adapters share: parameter warnings as the command line
// prints them, the log readers' notes turned into warnings and notes,
// the validation channels of pose and velocity models, and the hint a
// numerical failure deserves.

// ParamWarnings turns a model package's parameter warnings (each "key:
// why") into warnings that name the file and the key ("PATH, key "K":
// WHY"; File empty, so that the line reads as it always has).
func ParamWarnings(path string, ws []string) []fit.Warning {
	var out []fit.Warning
	for _, w := range ws {
		key, why, ok := strings.Cut(w, ": ")
		if !ok {
			out = append(out, fit.Warning{Msg: fmt.Sprintf("%s: %s", path, w)})
			continue
		}
		out = append(out, fit.Warning{Msg: fmt.Sprintf("%s, key %q: %s", path, key, why)})
	}
	return out
}

// Noter is a Sink that also shows notes: one-line remarks that are not
// warnings (rows ignored before a log's first command). A Sink without it
// drops them.
type Noter interface {
	Note(line string)
}

// Note passes a note (one line, no newline) to d's sink when it shows
// notes (Noter).
func (d *Diag) Note(format string, a ...any) {
	if nt, ok := d.Sink.(Noter); ok {
		nt.Note(fmt.Sprintf(format, a...))
	}
}

// NoteWriter is the writer a model package's reader takes as its Note
// option (e.g. tire.LogOptions.Note): each line "warning: X" becomes the
// warning X of d, every other line a note of d's sink (Noter).
func (d *Diag) NoteWriter() io.Writer { return &noteWriter{d: d} }

type noteWriter struct {
	d    *Diag
	part []byte
}

func (n *noteWriter) Write(b []byte) (int, error) {
	n.part = append(n.part, b...)
	for {
		i := strings.IndexByte(string(n.part), '\n')
		if i < 0 {
			return len(b), nil
		}
		line := string(n.part[:i])
		n.part = n.part[i+1:]
		if msg, ok := strings.CutPrefix(line, "warning: "); ok {
			n.d.Add(fit.Warning{Msg: msg})
			continue
		}
		if nt, ok := n.d.Sink.(Noter); ok {
			nt.Note(line)
		}
	}
}

// PoseChannels are the validation channels of a pose model: x, y (m) and
// the heading named angle (rad, wrapped).
func PoseChannels(angle string) []fit.Channel {
	return []fit.Channel{{Name: "x", Unit: "m"}, {Name: "y", Unit: "m"}, {Name: angle, Unit: "rad", Angle: true}}
}

// VelocityChannels are the validation channels of a velocity model: v
// (m/s) and w (rad/s).
func VelocityChannels() []fit.Channel {
	return []fit.Channel{{Name: "v", Unit: "m/s"}, {Name: "w", Unit: "rad/s"}}
}

// PoseTrack pairs the first three channels (x, y, heading) of a pose model
// sample by sample (empty when they are not sampled together).
func PoseTrack(chs []fit.Channel) fit.Track {
	var tr fit.Track
	if len(chs) < 3 || len(chs[0].T) != len(chs[1].T) || len(chs[0].T) != len(chs[2].T) {
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

// VelocityTrack dead-reckons the v, w channels (sampled together) into
// poses (fit.DeadReckon).
func VelocityTrack(chs []fit.Channel) fit.Track {
	if len(chs) < 2 || len(chs[0].T) != len(chs[1].T) {
		return fit.Track{}
	}
	return fit.DeadReckon(chs[0].T, chs[0].Meas, chs[1].Meas, chs[0].Pred, chs[1].Pred)
}

// StartChannels returns a run's channels predicted from its start state:
// estimated as MATLAB's compare does (fit.EstimateStart, x0 X0Estimate or
// "") or, with X0First, the first measured state first.
func StartChannels(x0 string, first []float64, predict func([]float64) ([]fit.Channel, error)) ([]float64, []fit.Channel, error) {
	if x0 == X0First {
		chs, err := predict(first)
		return first, chs, err
	}
	return fit.EstimateStart(first, predict)
}

// PoseOutliers warns of a run's position samples far off their
// neighbours (fit.PoseOutlierWarnings over the rows where x and y are
// both measured, at times t, for a robot of speed at most speed m/s),
// naming the file's line through the run's origin.
func PoseOutliers(file string, t, x, y []float64, speed float64, o dataset.Origin) []fit.Warning {
	if x == nil || y == nil {
		return nil
	}
	var rows []int
	for k := range x {
		if !math.IsNaN(x[k]) && !math.IsNaN(y[k]) {
			rows = append(rows, k)
		}
	}
	return fit.PoseOutlierWarnings(file, t, x, y, rows, speed, o.Line)
}

// Implausible warns of the values of a run's columns beyond the model's
// limits (fit.Implausible, one warning per column, in the order of
// lim.Columns); columns absent from cols or nil are skipped.
func Implausible(file string, o dataset.Origin, lim fit.Limits, cols map[string][]float64) []fit.Warning {
	var ws []fit.Warning
	for _, c := range lim.Columns {
		if v := cols[c.Name]; v != nil {
			ws = append(ws, fit.Implausible(file, c, v, nil, o.Line)...)
		}
	}
	return ws
}

// Spikes warns of glitches in a run's measured channels (fit.SpikeWarnings
// over the rows each channel measures), in the order of the column names.
func Spikes(file string, o dataset.Origin, cols map[string][]float64) []fit.Warning {
	names := make([]string, 0, len(cols))
	for n := range cols {
		names = append(names, n)
	}
	sort.Strings(names)
	var ws []fit.Warning
	for _, n := range names {
		v := cols[n]
		var rows []int
		for k, x := range v {
			if !math.IsNaN(x) {
				rows = append(rows, k)
			}
		}
		ws = append(ws, fit.SpikeWarnings(file, n, v, rows, o.Line)...)
	}
	return ws
}

// SimulatedGaps warns of the time gaps of a run (steps longer than
// fit.GapFactor medians between command rows) that a simulation bridges by
// holding the command before each gap across it: a log with a row at
// t = 1e308, or an hour missing, is simulated, but not silently (issue
// 26.4). Each warning names the line after the gap; at most three are
// listed, the rest counted.
func SimulatedGaps(t []float64, o dataset.Origin) []fit.Warning {
	rows, prev, med := fit.CommandGaps(t, o.CommandRows())
	file := ""
	if o.Table != nil {
		file = o.Table.File
	}
	var ws []fit.Warning
	for i, r := range rows {
		if i == 3 {
			ws = append(ws, fit.Warnf(file, "%d more time gaps bridged the same way (%d in all)", len(rows)-i, len(rows)))
			break
		}
		gap := t[r] - t[prev[i]]
		times := fmt.Sprintf("%.3g×", gap/med)
		if math.IsInf(gap/med, 0) {
			times = "beyond 1e300×"
		}
		ws = append(ws, fit.Warning{File: file, Row: o.Line(r), Msg: fmt.Sprintf(
			"a time gap of %.4g s before this row (%s the median step %.3g s): the simulation holds the command of line %d across it",
			gap, times, med, o.Line(prev[i]))})
	}
	return ws
}

// simRun is one run of a simulation CSV: its traj value, its row times and
// the simulated columns (each as long as T).
type simRun struct {
	ID   string
	T    []float64
	Cols [][]float64
}

// writeSimulation writes the CSV every adapter's Simulate writes: the
// header t and cols (and traj when the log has runs), then one row per
// time of every run.
func writeSimulation(w io.Writer, cols []string, hasTraj bool, runs []simRun) error {
	cw := dataset.NewWriter(w)
	head := append([]string{"t"}, cols...)
	if hasTraj {
		head = append(head, "traj")
	}
	if err := cw.WriteHeader(head...); err != nil {
		return err
	}
	row := make([]dataset.Cell, len(head))
	for _, r := range runs {
		for k := range r.T {
			row[0] = dataset.Num(r.T[k])
			for j, c := range r.Cols {
				row[1+j] = dataset.Num(c[k])
			}
			if hasTraj {
				row[len(row)-1] = dataset.Text(r.ID)
			}
			if err := cw.WriteRow(row...); err != nil {
				return err
			}
		}
	}
	return cw.Flush()
}
