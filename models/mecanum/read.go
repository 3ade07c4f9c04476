package mecanum

import (
	"io"

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
}

// ReadLog reads a log or controls CSV split into runs by traj
// (RunsFromTable): sensor-only rows hold the previous command, a Sensors
// file is merged by time, theta may come as theta_deg, the command map
// gives w1..w4. Every error names the file, line and column. Gaps in the
// command stream are not judged here: each run's Origin.Commands tells its
// command rows, for the caller's policy.
func ReadLog(path string, o LogOptions) ([]Run, error) {
	tab, err := dataset.ReadLog(path, LogSpec(o.NeedPose), dataset.LogOptions{Commands: Commands, Angles: []string{"theta"},
		Map: dataset.MapFor(path, o.Map, Commands), Sensors: o.Sensors, Offset: o.Offset, Note: o.Note})
	if err != nil {
		return nil, err
	}
	return RunsFromTable(tab)
}
