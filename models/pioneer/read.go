package pioneer

import (
	"io"
	"math"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Commands are the command columns of a pioneer log: the references
// v_ref (m/s) and w_ref (rad/s).
var Commands = []string{"v_ref", "w_ref"}

// LogSpec is the CSV spec of a pioneer log or controls file (README,
// Contract additions): t, v_ref, w_ref, optional sparse measurements v, w,
// and an optional traj column splitting runs.
func LogSpec() dataset.Spec {
	return dataset.Spec{Columns: []dataset.Column{{Name: "t"}, {Name: "v_ref"}, {Name: "w_ref"},
		{Name: "v", Optional: true, Sparse: true}, {Name: "w", Optional: true, Sparse: true},
		{Name: "traj", Optional: true, Text: true}}, Time: "t", Group: "traj"}
}

// RunsFromTable splits a table read with LogSpec into runs (by traj, else
// one run). v and w go together, in the header and on every row; with
// needMeasured (identify, validate) they must be there. An error names the
// file, line and column. The runs are not checked against a sample time:
// Run.Check does that.
func RunsFromTable(tab *dataset.Table, needMeasured bool) ([]Run, error) {
	for _, c := range [][2]string{{"v", "w"}, {"w", "v"}} {
		if tab.Has(c[0]) && !tab.Has(c[1]) {
			return nil, tab.Errorf(0, c[1], "missing column %q (v and w go together)", c[1])
		}
	}
	if needMeasured && !tab.Has("v") {
		return nil, tab.Errorf(0, "v", "missing columns \"v\", \"w\": identify needs the measured velocities")
	}
	if tab.Has("v") {
		v, w := tab.Col("v"), tab.Col("w")
		for k := range v {
			if math.IsNaN(v[k]) != math.IsNaN(w[k]) {
				col := "v"
				if math.IsNaN(w[k]) {
					col = "w"
				}
				return nil, tab.Errorf(k, col, "empty cell: v and w go together on a row")
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
		r := Run{T: cut("t"), Vref: cut("v_ref"), Wref: cut("w_ref"), V: cut("v"), W: cut("w"), Origin: dataset.Origin{Table: tab, Row: i}}
		if ids != nil {
			r.ID = ids[i]
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// LogOptions say how ReadLog reads a recording.
type LogOptions struct {
	// NeedMeasured requires the measured velocities v, w (identify,
	// validate).
	NeedMeasured bool
	// Sensors is a separate file of measurements (t, v, w) merged into
	// the log by time; "" for none. With it, or an Offset, the log is read
	// with the asynchronous-stream rules of dataset.ReadLog (rows without
	// references hold the previous ones); else as one synchronous table,
	// every row one sample with both references.
	Sensors string
	// Offset (s) is added to the measurement times before they are merged.
	Offset float64
	// Note receives one-line notes (rows ignored before the first
	// reference); nil for none.
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

// ReadLog reads a log split into runs by traj (RunsFromTable). Every error
// names the file, line and column.
func ReadLog(path string, o LogOptions) ([]Run, error) {
	var tab *dataset.Table
	var err error
	if o.Sensors == "" && o.Offset == 0 {
		tab, err = dataset.ReadMapped(path, LogSpec(), o.Columns)
	} else {
		tab, err = dataset.ReadLog(path, LogSpec(), dataset.LogOptions{Commands: Commands, Sensors: o.Sensors, Offset: o.Offset, Note: o.Note, Columns: o.Columns, HoldLast: o.HoldLast, Cache: o.Cache})
	}
	if err != nil {
		return nil, err
	}
	return RunsFromTable(tab, o.NeedMeasured)
}
