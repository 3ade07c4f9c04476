package mecanum

import (
	"io"
	"math"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// LogOptions say how ReadLog reads a recording (the asynchronous-stream
// rules of dataset.ReadLog).
type LogOptions struct {
	// NeedPose requires the camera pose columns x, y, theta (identify).
	NeedPose bool
	// Map is the parameter file's command_map (Params.CommandMap): the
	// logged channels that give w1..w4; nil for none. A file that has
	// w1..w4 itself (e.g. follow's output) is read without it.
	Map *dataset.CommandMap
	// Sensors is a separate camera file (t, x, y, theta or theta_deg)
	// merged into the log by time (the command line's -poses); "" for none.
	Sensors string
	// Offset (s) is added to the camera times before they are merged
	// (EstimateOnset estimates it).
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

// ReadLog reads a log or controls CSV split into runs by traj
// (RunsFromTable): sensor-only rows hold the previous command, a Sensors
// file is merged by time, theta may come as theta_deg, the command map
// gives w1..w4. Every error names the file, line and column. Gaps in the
// command stream are not judged here: each run's Origin.CommandRows tells its
// command rows, for the caller's policy.
func ReadLog(path string, o LogOptions) ([]Run, error) {
	if o.Cache == nil {
		o.Cache = dataset.NewPipeCache() // the command map's header, then the log: a pipe read once
	}
	tab, err := dataset.ReadLog(path, LogSpec(o.NeedPose), dataset.LogOptions{Commands: Commands, Angles: []string{"theta"},
		Map: o.Cache.MapFor(path, o.Map, Commands), Sensors: o.Sensors, Offset: o.Offset, Note: o.Note, Columns: o.Columns, HoldLast: o.HoldLast, Cache: o.Cache})
	if err != nil {
		return nil, err
	}
	return RunsFromTable(tab)
}

// Streams is the first run of a log's two streams, each on its own clock,
// for EstimateOnset: the command rows' times and wheel speeds, and the
// camera's times and poses (the rows with a pose).
type Streams struct {
	CmdT        []float64
	W           [][4]float64
	CamT        []float64
	X, Y, Theta []float64
}

// ReadStreams reads a log as ReadLog does (o.Map, o.Sensors; o.Offset is
// not applied: it is what the streams are read to estimate) but returns the
// first run of each stream unmerged. The two first runs must be of one
// traj; an error names the file, line and column.
func ReadStreams(path string, o LogOptions) (Streams, error) {
	if o.Cache == nil {
		o.Cache = dataset.NewPipeCache() // the command map's header, then the log: a pipe read once
	}
	c, s, err := dataset.ReadStreams(path, LogSpec(true), dataset.LogOptions{Commands: Commands, Angles: []string{"theta"},
		Map: o.Cache.MapFor(path, o.Map, Commands), Sensors: o.Sensors, Columns: o.Columns, Cache: o.Cache})
	if err != nil {
		return Streams{}, err
	}
	firstRun := func(t *dataset.Table) int {
		if t.Len() == 0 {
			return 0
		}
		return t.Runs("traj")[0][1]
	}
	nc, ns := firstRun(c), firstRun(s)
	if ids, sids := c.TextCol("traj"), s.TextCol("traj"); ids != nil && sids != nil && nc > 0 && ns > 0 && sids[0] != ids[0] {
		return Streams{}, s.Errorf(0, "traj", "the first run of the poses is %q, of the commands %q", sids[0], ids[0])
	}
	var st Streams
	st.CmdT = c.Col("t")[:nc]
	for i := range nc {
		st.W = append(st.W, [4]float64{c.Col("w1")[i], c.Col("w2")[i], c.Col("w3")[i], c.Col("w4")[i]})
	}
	for i := range ns {
		if x := s.Col("x")[i]; !math.IsNaN(x) {
			st.CamT, st.X = append(st.CamT, s.Col("t")[i]), append(st.X, x)
			st.Y, st.Theta = append(st.Y, s.Col("y")[i]), append(st.Theta, s.Col("theta")[i])
		}
	}
	return st, nil
}
