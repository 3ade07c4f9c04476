package tire

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Commands are the command columns of a tire log (FORMATS.md): the
// measured wheel speeds wl, wr (rad/s) held from a row to the next.
var Commands = []string{"wl", "wr"}

// LogSpec is the CSV spec of a tire log or controls file (FORMATS.md): t,
// wl, wr, optional sparse poses x, y, psi and body velocities u, v, r, and
// an optional traj column splitting runs.
func LogSpec() dataset.Spec {
	cols := []dataset.Column{{Name: "t"}, {Name: "wl"}, {Name: "wr"}}
	for _, c := range []string{"x", "y", "psi", "u", "v", "r"} {
		cols = append(cols, dataset.Column{Name: c, Optional: true, Sparse: true})
	}
	cols = append(cols, dataset.Column{Name: "traj", Optional: true, Text: true})
	return dataset.Spec{Columns: cols, Time: "t", Group: "traj"}
}

// poseGroups are the columns that go together, in a file and on a row.
var poseGroups = [][]string{{"x", "y", "psi"}, {"u", "v", "r"}}

// RunsFromTable splits a table read with LogSpec into runs (by traj, else
// one run). x, y, psi go together, and so do u, v, r: in the header and on
// every row; an error names the file, line and column.
func RunsFromTable(tab *dataset.Table) ([]Run, error) {
	for _, group := range poseGroups {
		n := 0
		for _, c := range group {
			if tab.Has(c) {
				n++
			}
		}
		if n > 0 && n < 3 {
			for _, c := range group {
				if !tab.Has(c) {
					return nil, tab.Errorf(0, c, "missing column %q (%s go together)", c, strings.Join(group, ", "))
				}
			}
		}
	}
	ids := tab.TextCol("traj")
	var runs []Run
	for _, rr := range tab.Runs("traj") {
		i, j := rr[0], rr[1]
		cut := func(c string) []float64 {
			if !tab.Has(c) {
				return nil
			}
			return tab.Col(c)[i:j]
		}
		for k := i; k < j; k++ {
			for _, group := range poseGroups {
				if !tab.Has(group[0]) {
					continue
				}
				nan := 0
				for _, c := range group {
					if math.IsNaN(tab.Col(c)[k]) {
						nan++
					}
				}
				if nan > 0 && nan < 3 {
					for _, c := range group {
						if math.IsNaN(tab.Col(c)[k]) {
							return nil, tab.Errorf(k, c, "empty cell: %s go together on a row", strings.Join(group, ", "))
						}
					}
				}
			}
		}
		r := Run{T: cut("t"), WL: cut("wl"), WR: cut("wr"), X: cut("x"), Y: cut("y"), Psi: cut("psi"), U: cut("u"), V: cut("v"), R: cut("r"),
			Origin: dataset.Origin{Table: tab, Row: i}}
		if ids != nil {
			r.ID = ids[i]
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// LogOptions say how ReadLog reads a recording (the asynchronous-stream
// rules of dataset.ReadLog).
type LogOptions struct {
	// Sensors is a separate sensor file (t and x, y, psi and/or u, v, r)
	// merged into the log by time (the command line's -poses); "" for none.
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

// ReadLog reads and checks a log split into runs by traj: sensor-only rows
// hold the previous wheel speeds, a Sensors file is merged by time, psi may
// come as psi_deg. Every error names the file, line and column. Gaps in the
// command stream are not judged here: each run's Origin.CommandRows tells its
// command rows, for the caller's policy.
func ReadLog(path string, o LogOptions) ([]Run, error) {
	tab, err := dataset.ReadLog(path, LogSpec(), dataset.LogOptions{Commands: Commands, Angles: []string{"psi"},
		Sensors: o.Sensors, Offset: o.Offset, Note: o.Note, Columns: o.Columns, HoldLast: o.HoldLast, Cache: o.Cache})
	if err != nil {
		return nil, err
	}
	return RunsFromTable(tab)
}

// ReadParams reads a parameter file strictly over the defaults of Jackal
// (unknown keys, a key given twice or in another case, another model's
// file are errors naming the key) and validates it. warnings are legal but
// unusual values, each "key: why".
func ReadParams(path string) (p Params, warnings []string, err error) {
	p = Jackal()
	if err := dataset.ReadJSON(path, &p, dataset.JSONOptions{Strict: true, Model: "tire"}); err != nil {
		return p, nil, err
	}
	if err := p.Validate(); err != nil {
		return p, nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, p.Warnings(), nil
}
