package skidsteer

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Commands are the command columns of a skid-steer log (FORMATS.md): the
// commanded forward speed vc (m/s) and yaw rate wc (rad/s).
var Commands = []string{"vc", "wc"}

// WheelCommands are the commands of a log in wheel-speed form: the left
// and right wheel speeds wl, wr (rad/s), converted with the parameters' r
// and track.
var WheelCommands = []string{"wl", "wr"}

// LogSpec is the CSV spec of a skid-steer log or controls file (FORMATS.md
// with the README's additions): t, the commands vc, wc (or, with wheels,
// wl, wr), optional sparse poses x, y, psi, and an optional traj column
// splitting runs.
//
// A log in wheel-speed form may carry the commanded wheel speeds wl_cmd,
// wr_cmd (rad/s) beside the measured wl, wr (optional columns, both or
// neither): the inputs of LagModel.
func LogSpec(wheels bool) dataset.Spec {
	cmds := Commands
	if wheels {
		cmds = WheelCommands
	}
	cols := []dataset.Column{
		{Name: "t"}, {Name: cmds[0]}, {Name: cmds[1]},
		{Name: "x", Optional: true, Sparse: true},
		{Name: "y", Optional: true, Sparse: true},
		{Name: "psi", Optional: true, Sparse: true},
		{Name: "traj", Optional: true, Text: true},
	}
	if wheels {
		cols = append(cols, dataset.Column{Name: "wl_cmd", Optional: true}, dataset.Column{Name: "wr_cmd", Optional: true})
	}
	return dataset.Spec{Columns: cols, Time: "t", Group: "traj"}
}

// Run is one run of a log read from a file: the checked Log and where its
// rows came from (Origin.Err positions the model's row errors).
type Run struct {
	*Log
	dataset.Origin
}

// RunsFromTable splits a table read with LogSpec into runs (by traj, else
// one run) and checks each with NewLog. A table in wheel-speed form (wl, wr)
// is converted to vc = r·(wl + wr)/2, wc = r·(wr − wl)/track with p's r and
// track. x, y and psi go together; an error names the file, line and column.
func RunsFromTable(tab *dataset.Table, p Params) ([]Run, error) {
	wheels := !tab.Has("vc") && tab.Has("wl")
	if wheels && !(p.R > 0 && p.Track > 0) {
		return nil, fmt.Errorf("%s: the log gives wheel speeds wl, wr: give the wheel radius r and track width track in a parameter file", tab.File)
	}
	has := []bool{tab.Has("x"), tab.Has("y"), tab.Has("psi")}
	if has[0] || has[1] || has[2] {
		for i, c := range []string{"x", "y", "psi"} {
			if !has[i] {
				return nil, &dataset.ParseError{File: tab.File, Line: tab.Line[0] - 1, Column: c,
					Err: fmt.Errorf("%w (x, y and psi go together)", dataset.ErrMissingColumn)}
			}
		}
	}
	if tab.Has("wl_cmd") != tab.Has("wr_cmd") {
		missing := "wr_cmd"
		if !tab.Has("wl_cmd") {
			missing = "wl_cmd"
		}
		return nil, &dataset.ParseError{File: tab.File, Line: tab.Line[0] - 1, Column: missing,
			Err: fmt.Errorf("%w (wl_cmd and wr_cmd go together)", dataset.ErrMissingColumn)}
	}
	vc, wc := tab.Col("vc"), tab.Col("wc")
	if wheels {
		wl, wr := tab.Col("wl"), tab.Col("wr")
		vc, wc = make([]float64, len(wl)), make([]float64, len(wl))
		for i := range wl {
			vc[i] = p.R * (wl[i] + wr[i]) / 2
			wc[i] = p.R * (wr[i] - wl[i]) / p.Track
		}
	}
	ids := tab.TextCol("traj")
	var runs []Run
	for _, rr := range tab.Runs("traj") {
		i, j := rr[0], rr[1]
		cut := func(c []float64) []float64 {
			if c == nil {
				return nil
			}
			return c[i:j]
		}
		l, err := NewLog(tab.Col("t")[i:j], vc[i:j], wc[i:j], cut(tab.Col("x")), cut(tab.Col("y")), cut(tab.Col("psi")))
		if l != nil && wheels {
			l.Wl, l.Wr = tab.Col("wl")[i:j], tab.Col("wr")[i:j]
			l.WlCmd, l.WrCmd = cut(tab.Col("wl_cmd")), cut(tab.Col("wr_cmd"))
			if err == nil {
				err = checkWheelCommands(l)
			}
		}
		r := Run{Log: l, Origin: dataset.Origin{Table: tab, Row: i}}
		if ids != nil {
			r.ID = ids[i]
		}
		if err != nil {
			return nil, r.Err(err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// LogOptions say how ReadLog reads a recording (the asynchronous-stream
// rules of dataset.ReadLog).
type LogOptions struct {
	// Params gives the command map (Params.CommandMap) and, for a log in
	// wheel-speed form, the wheel radius r and track width.
	Params Params
	// ParamsFile names the file Params came from, for messages ("" none).
	ParamsFile string
	// Sensors is a separate file of poses (t, x, y, psi or psi_deg) merged
	// into the log by time (the command line's -poses); "" for none.
	Sensors string
	// Offset (s) is added to the sensor times before they are merged.
	Offset float64
	// Note receives one-line notes (rows ignored before the first
	// command); nil for none.
	Note io.Writer
	// Columns, when not nil, computes the log's columns from differently
	// named, scaled or expressed logged ones (ros_time in ns, a quaternion,
	// renames), filters rows and cuts a time range: dataset.ColumnMap.
	Columns *dataset.ColumnMap
	// HoldLast keeps sensor rows more than one command period after the
	// last command row, simulated with the last command held; by default
	// they are dropped with a warning on Note (dataset.DropAfterCommands).
	HoldLast bool
	// Cache, when not nil, parses the files once for every read through it
	// (dataset.ReadCache).
	Cache *dataset.ReadCache
}

// ReadLog reads and checks a log or controls CSV split into runs by traj:
// sensor-only rows hold the previous command, a Sensors file is merged by
// time, psi may come as psi_deg, the parameters' command map gives vc, wc
// (unless the file has vc, wc itself), a log of wheel speeds wl, wr (without
// vc) is converted with r and track. Every error names the file, line and
// column. Gaps in the command stream are not judged here: each run's
// Origin.CommandRows tells its command rows, for the caller's policy.
func ReadLog(path string, o LogOptions) ([]Run, error) {
	if o.Cache == nil {
		o.Cache = dataset.NewPipeCache() // the header, then the log: a pipe read once
	}
	h, err := o.Cache.ReadHeaderMapped(path, o.Columns)
	if err != nil {
		return nil, err
	}
	m := o.Params.CommandMap
	wheels := !slices.Contains(h, "vc") && slices.Contains(h, "wl") && m == nil // a map gives vc, wc
	if wheels && !(o.Params.R > 0 && o.Params.Track > 0) {
		if o.ParamsFile == "" {
			return nil, fmt.Errorf("%s: the log gives wheel speeds wl, wr: give the wheel radius r and track width track in a parameter file", path)
		}
		return nil, fmt.Errorf("%s: the log %s gives wheel speeds wl, wr: the parameters need r (wheel radius) and track (track width)", o.ParamsFile, path)
	}
	cmds := Commands
	if wheels {
		cmds = WheelCommands
	}
	tab, err := dataset.ReadLog(path, LogSpec(wheels), dataset.LogOptions{Commands: cmds, Angles: []string{"psi"},
		Map: o.Cache.MapFor(path, m, cmds), Sensors: o.Sensors, Offset: o.Offset, Note: o.Note, Columns: o.Columns, HoldLast: o.HoldLast, Cache: o.Cache})
	if err != nil {
		return nil, err
	}
	return RunsFromTable(tab, o.Params)
}

// ReadParams reads a parameter file strictly (unknown keys, a key given
// twice or in another case, another model's file are errors naming the
// key) and validates it. With needA (simulate, follow) the slip matrix "a"
// must be given, else it defaults to zero (the nominal model, identify's
// start). warnings are legal but unusual values, each "key: why".
func ReadParams(path string, needA bool) (p Params, warnings []string, err error) {
	o := dataset.JSONOptions{Strict: true, Model: "skidsteer"}
	if needA {
		o.Required = []string{"a"}
	}
	if err := dataset.ReadJSON(path, &p, o); err != nil {
		return p, nil, err
	}
	if err := p.Validate(); err != nil {
		return p, nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.CommandMap != nil {
		if err := p.CommandMap.Check(Commands); err != nil {
			return p, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return p, p.Warnings(), nil
}

// checkWheelCommands checks the commanded wheel speeds of a log: finite and
// within ±maxSpeed, as the other commands.
func checkWheelCommands(l *Log) error {
	for _, c := range []struct {
		name string
		v    []float64
	}{{"wl_cmd", l.WlCmd}, {"wr_cmd", l.WrCmd}} {
		for i, v := range c.v {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > maxSpeed {
				return &dataset.RowError{Row: i, Column: c.name, Msg: fmt.Sprintf("commanded wheel speed %g is not finite or beyond ±%d", v, maxSpeed)}
			}
		}
	}
	return nil
}
