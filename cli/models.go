package cli

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/robots"
)

// SimulateArgs are the parsed flags of `wheelgrad simulate`.
type SimulateArgs struct {
	Params   string // parameter JSON path
	Controls string // controls CSV path
	Out      string // trajectory CSV path, "-" for stdout
	Poses    string // separate sensor CSV merged into the controls, or ""
	Offset   float64
	Auto     bool   // -offset auto: the model estimates it
	Plot     string // mecanum: PNG of the prediction against the log's poses
	Columns  *dataset.ColumnMap
	// JSON (-json): a summary object on stdout (simulateJSON); the CSV
	// goes to -out only when it names a file.
	JSON     bool
	HoldLast bool // -hold-last
}

// source is the controls file as a log source.
func (a SimulateArgs) source() logSource {
	return logSource{Path: a.Controls, Poses: a.Poses, Offset: a.Offset, Columns: a.Columns, HoldLast: a.HoldLast}
}

// IdentifyArgs are the parsed flags of `wheelgrad identify`.
type IdentifyArgs struct {
	Data     []string // log CSV paths (-data a.csv,b.csv)
	Poses    []string // separate sensor CSV per log, "" where none
	Offset   string   // seconds added to the sensor streams' times, or "auto"
	Init     string   // parameter JSON path or ""
	Method   string   // lbfgsb, neldermead, cmaes, or a model-specific method (e.g. batch, ekf)
	Out      string   // parameter JSON path, "-" for stdout
	Plot     string   // PNG path or ""
	Extra    map[string]string
	Columns  *dataset.ColumnMap // -columns, -where, -from, -to
	HoldLast bool               // -hold-last
	Fit      fitSettings        // -maxiter, -tol, -allow-unconverged (status.go)
	Verbose  bool
	Quiet    bool
	Prog     *progress
	// JSON (-json): the fit's report as one JSON object on stdout
	// (identifyJSON); the parameters go to -out only, the summary to
	// stderr. report receives the handler's report (emitReport).
	JSON   bool
	report *reportSlot
	// Diagnostics (diagnostics.go): the -gaps policy (error, split,
	// bridge), the -fix / -free lists as given, -allow-undetermined, and
	// the warnings collected so far.
	Gaps              string
	Fix, Free         string
	AllowUndetermined bool
	Diag              *diag
}

// FollowArgs are the parsed flags of `wheelgrad follow`.
type FollowArgs struct {
	Params   string
	Path     string
	Duration float64
	Rate     float64
	Wmax     float64
	Theta0   float64
	Heading  string
	Dt       float64
	Out      string
	Plot     string
	MPC      string // parameter JSON of the simulated true robot, or ""
	Prog     *progress
	// Model-specific bounds and settings (follow_robot.go), and the flags
	// given on the command line (a model's default applies to the others).
	Umax, Vmax, Band float64
	Set              map[string]bool
}

// methodsFor lists the -method values model accepts (its
// robots.Identifier's Methods).
func methodsFor(reg *robots.Registry, model string) []string {
	if m, ok := reg.Get(model); ok {
		if id, ok := m.(robots.Identifier); ok {
			return id.Methods()
		}
	}
	return nil
}

func checkModel(reg *robots.Registry, cmd, model string, registered bool) error {
	if model == "" {
		return usagef("-model is required (one of %s)", strings.Join(reg.Names(), ", "))
	}
	if !slices.Contains(reg.Names(), model) {
		return usagef("unknown -model %q (one of %s)", model, strings.Join(reg.Names(), ", "))
	}
	if !registered {
		return fmt.Errorf("model %q is not available in this version of wheelgrad %s yet", model, cmd)
	}
	return nil
}

func required(flag, value string) error {
	if value == "" {
		return usagef("-%s is required", flag)
	}
	return nil
}

// sources are the -data logs with their -poses files and a fixed offset.
func (a IdentifyArgs) sources(offset float64) []logSource {
	out := make([]logSource, len(a.Data))
	for i, d := range a.Data {
		out[i] = logSource{Path: d, Poses: a.Poses[i], Offset: offset, Columns: a.Columns, HoldLast: a.HoldLast}
	}
	return out
}

// dataFiles splits -data's comma-separated list: at least one file, each
// named once (the same file twice would count its runs twice).
func dataFiles(list string) ([]string, error) {
	var files []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p != "" {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return nil, usagef("-data names no file")
	}
	return files, uniqueFiles(files)
}

func parseOffset(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, usagef("-offset must be a number of seconds or auto, not %q", s)
	}
	return v, nil
}
