package cli

import (
	"flag"
	"math"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
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
	// Columns maps differently named or expressed logged columns to the
	// model's (-columns, -where, -from, -to); nil for none.
	Columns *dataset.ColumnMap
	// HoldLast keeps sensor rows after the commands end (-hold-last).
	HoldLast bool
}

// addColumnsFlags declares -columns, -where (repeatable), -from and -to; the
// returned function builds the column map once the flags are parsed (nil
// when none is given).
func addColumnsFlags(fs *flag.FlagSet) func() (*dataset.ColumnMap, error) {
	columns := fs.String("columns", "", "the log's columns as the model's: TARGET=SOURCE,... e.g. t=ros_time:ns,wl=meas_left_vel,psi=quat(qx,qy,qz,qw) (units s|ms|us|ns, deg; scale *k, offset +c)")
	var where []dataset.Filter
	fs.Func("where", "keep only the log rows where COLUMN OP VALUE holds (OP: = != < <= > >=), e.g. calib_state=calib; repeatable", func(s string) error {
		f, err := dataset.ParseFilter(s)
		if err != nil {
			return err
		}
		where = append(where, f)
		return nil
	})
	from := fs.Float64("from", 0, "keep the log from this many seconds after its first row (after -where)")
	to := fs.Float64("to", 0, "keep the log up to this many seconds after its first row (0: to the end)")
	return func() (*dataset.ColumnMap, error) {
		if *columns == "" && where == nil && *from == 0 && *to == 0 {
			return nil, nil
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"from", *from}, {"to", *to}} {
			if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
				return nil, usagef("-%s %g: want seconds ≥ 0 after the log's first row", f.name, f.v)
			}
		}
		if *to != 0 && *to <= *from {
			return nil, usagef("-to %g must be after -from %g", *to, *from)
		}
		m, err := dataset.ParseColumnMap(*columns)
		if err != nil {
			return nil, usagef("-%v", err)
		}
		if m == nil {
			m = &dataset.ColumnMap{}
		}
		m.Where, m.From, m.To = where, *from, *to
		return m, nil
	}
}

// addPosesFlag declares -poses (one file per log).
func addPosesFlag(fs *flag.FlagSet, v *string) {
	fs.StringVar(v, "poses", "", "separate sensor CSV(s) (t and the model's pose or measurement columns, e.g. t,x,y,theta), one per log, merged into the log by time")
}

// addHoldLastFlag declares -hold-last (issue 25.3, dataset.DropAfterCommands).
func addHoldLastFlag(fs *flag.FlagSet, v *bool) {
	fs.BoolVar(v, "hold-last", false, "keep sensor rows more than one command period after the last command row, simulated with the last command held (default: dropped with a warning)")
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
