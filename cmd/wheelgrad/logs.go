package main

import (
	"flag"
	"strings"
)

// Real recordings (README, "Bring your own robot"): every model reads its log
// through its package's ReadLog (e.g. skidsteer.ReadLog), which applies the
// asynchronous-stream rules of package dataset — sensor-only rows with empty
// command cells, a separate -poses file merged by time, NAME_deg angle
// columns, the parameter file's command_map and a time offset of the sensor
// stream. Here: the flags that name those streams.

// logSource is one log as given on the command line.
type logSource struct {
	Path   string
	Poses  string  // separate sensor file, "" for none
	Offset float64 // s added to the sensor stream's times
}

// addPosesFlag declares -poses (one file per log).
func addPosesFlag(fs *flag.FlagSet, v *string) {
	fs.StringVar(v, "poses", "", "separate sensor CSV(s) (t and the model's pose or measurement columns, e.g. t,x,y,theta), one per log, merged into the log by time")
}

// splitPoses pairs the -poses files with the logs.
func splitPoses(poses string, logs int) ([]string, error) {
	out := make([]string, logs)
	if poses == "" {
		return out, nil
	}
	var ps []string
	for _, p := range strings.Split(poses, ",") {
		if p = strings.TrimSpace(p); p != "" {
			ps = append(ps, p)
		}
	}
	if len(ps) != logs {
		return nil, usagef("-poses names %d file(s) for %d log(s): give one sensor file per log", len(ps), logs)
	}
	return ps, nil
}
