package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Real recordings (README, "Bring your own robot"): every model reads its log
// through readLog, which applies the asynchronous-stream rules of package
// dataset — sensor-only rows with empty command cells, a separate -poses file
// merged by time, NAME_deg angle columns, the parameter file's command_map and
// a time offset of the sensor stream.

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

// readLog reads one log of a model: spec is the model's one-table format,
// commands its command columns, angles its heading columns (which may come in
// degrees), m the parameter file's command map (nil for none).
func readLog(e env, src logSource, spec dataset.Spec, commands, angles []string, m *dataset.CommandMap) (*dataset.Table, error) {
	if m != nil && !hasAll(src.Path, m.Columns) && hasAll(src.Path, commands) {
		// a file in the model's own commands (e.g. follow's output) needs
		// no map
		m = nil
	}
	o := dataset.LogOptions{Commands: commands, Angles: angles, Map: m, Sensors: src.Poses, Note: e.stderr, Offset: src.Offset}
	t, err := dataset.ReadLog(src.Path, spec, o)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// mapError names the parameter file of a bad command map.
func mapError(params string, err error) error {
	return fmt.Errorf("%s: %w", params, err)
}

// hasAll reports whether the header of the CSV file at path has every one of
// the columns (case-insensitively); false when it cannot be read (the reader
// then says why).
func hasAll(path string, cols []string) bool {
	h, err := dataset.ReadHeader(path)
	if err != nil {
		return false
	}
	for _, c := range cols {
		if !slices.Contains(h, strings.ToLower(strings.TrimSpace(c))) {
			return false
		}
	}
	return true
}
