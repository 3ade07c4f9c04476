package robots

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
)

// Model is one robot model as every face (the command line, a notebook, the
// fleet pipeline) reaches it: a name and what the model can do. What it can
// do is said by the interfaces it also implements, each one command's work:
// ParamReader (parameter files), Simulator, Identifier, Validator, Driver
// (a control.Robot for follow), and extras (Inspector, Planner). A face asks
// by type assertion and says, in one line, what a model cannot do.
//
// A Model never prints: warnings come back as fit.Warning values (and go to
// the request's Sink as they are found), progress goes to the Sink.
type Model interface {
	// Name is the model's -model name (lower case, no spaces).
	Name() string
	// Summary is one line for a listing of the models.
	Summary() string
}

// Params are a model's parameters: its package's own Params value, which
// marshals to the parameter file's JSON (FORMATS.md) and, where the model
// checks ranges, has a Validate() error method.
type Params any

// ParamUse says what a parameter file is read for.
type ParamUse int

const (
	// ForStart: identify's -init, where the parameters to identify may be
	// missing (the model's defaults then).
	ForStart ParamUse = iota
	// ForPrediction: simulate, validate and follow, where every parameter
	// the model needs must be given.
	ForPrediction
)

// ParamReader reads a model's parameter file strictly (dataset.ReadJSON):
// unknown keys and values out of range are errors naming the file and key;
// what is read but doubtful (a default used, a key another model uses) comes
// back as warnings.
type ParamReader interface {
	ReadParams(path string, use ParamUse) (Params, []fit.Warning, error)
}

// Source is one log as a face names it: the log file, a separate sensor
// file merged by time, the sensor stream's time offset, a column map, and
// whether sensor rows after the last command are kept (FORMATS.md, "Real
// recordings").
type Source struct {
	Path  string
	Poses string // separate sensor file, "" for none
	// Offset (s) is added to the sensor stream's times; AutoOffset asks the
	// model to estimate it (models that cannot say so as an error).
	Offset     float64
	AutoOffset bool
	Columns    *dataset.ColumnMap // nil: the log's columns are the model's
	HoldLast   bool
	// Cache, when not nil, parses each file once however often the
	// operation reads it (dataset.ReadCache): identify reads its logs
	// again to check that the calibration predicts them no worse than the
	// start. Give every source of one operation the same cache.
	Cache *dataset.ReadCache
}

// Sink receives what a long operation finds as it goes: warnings (also
// returned as values in its result) and progress lines (Done clears the
// progress line). A nil Sink in a request discards both.
type Sink interface {
	Warn(fit.Warning)
	Progress(format string, a ...any)
	Done()
}

// Discard is a Sink that drops everything.
var Discard Sink = discard{}

type discard struct{}

func (discard) Warn(fit.Warning)        {}
func (discard) Progress(string, ...any) {}
func (discard) Done()                   {}

// Diag collects the warnings of one operation and passes each to a Sink as
// it is found: the adapters' way to keep warnings as values without losing
// the early ones for a user watching stderr.
type Diag struct {
	Sink     Sink
	Warnings []fit.Warning
}

// NewDiag returns a Diag over s (nil: Discard).
func NewDiag(s Sink) *Diag {
	if s == nil {
		s = Discard
	}
	return &Diag{Sink: s}
}

// Add keeps ws and passes them to the sink.
func (d *Diag) Add(ws ...fit.Warning) {
	for _, w := range ws {
		d.Warnings = append(d.Warnings, w)
		d.Sink.Warn(w)
	}
}

// Keep adds the warnings of a check and passes its error on.
func (d *Diag) Keep(ws []fit.Warning, err error) error {
	d.Add(ws...)
	return err
}

// FailureHint adds the likely causes to a numerical failure of an
// optimiser (a NaN or Inf loss): inputs in the wrong units, or a start far
// from plausible values.
func FailureHint(err error) error {
	if err == nil {
		return nil
	}
	s := err.Error()
	if strings.Contains(s, "NaN") || strings.Contains(s, "Inf") || strings.Contains(s, "not finite") {
		return fmt.Errorf("%w — the model blew up: usually inputs in the wrong units (rpm or deg/s for rad/s, mm for m, ms for s, joystick commands not normalised to [-1, 1]) or a start point in -init far from plausible values", err)
	}
	return err
}

// Option is a model's own identify option (a command-line flag -Name).
// Bool options take no value on the command line.
type Option struct {
	Name, Default, Usage string
	Bool                 bool
}

// Identifier identifies a model's parameters from logs.
type Identifier interface {
	// Methods lists the identification methods the model accepts, its
	// default first.
	Methods() []string
	// Options lists the model's own options (IdentifyRequest.Options).
	Options() []Option
	Identify(req IdentifyRequest) (*Identified, error)
}

// IdentifyRequest is one identification: logs, a start, a method and the
// shared settings.
type IdentifyRequest struct {
	Sources []Source
	// Init is the start (ParamReader with ForStart), nil for the model's
	// defaults; InitPath names its file in messages ("" for none).
	Init     Params
	InitPath string
	Method   string // one of Methods(); "" for the default
	// Options are the model's own options as given (Option.Name → value);
	// the model parses and checks them (a bad value is a UsageError).
	Options map[string]string
	Fit     fit.Settings
	Gaps    fit.GapPolicy
	// Fix and Free name the parameters held at their start values (Free:
	// all but these); at most one is non-empty.
	Fix, Free []string
	// AllowUndetermined accepts parameters the data do not determine.
	AllowUndetermined bool
	// Plot asks for Identified.Figure (the fit drawn as data).
	Plot bool
	Sink Sink
}

// Identified is an identification's outcome.
type Identified struct {
	Report fit.Report
	// Params are the identified parameters, as a parameter file holds them.
	Params Params
	// Refused is the fit refused after its report (fit.CheckDetermined:
	// parameters the data do not determine, without AllowUndetermined):
	// the face prints the report and writes nothing.
	Refused error
	// Outcome is the optimiser's status as the fit's outcome
	// (fit.Settings.Check, whose warnings are in Report.Warnings): nil when
	// it converged or the fit is not an optimiser's; a
	// fit.UnconvergedError (outputs written, the command line's exit
	// status 3); another error fails the fit (nothing written).
	Outcome error
	// Figure is the fit's figure as data, for the face to draw (robots
	// imports no plotting package); nil when none was asked for or the
	// model draws none.
	Figure *Figure
}

// Simulator predicts a log's outputs from its inputs.
type Simulator interface {
	Simulate(req SimulateRequest) (*Simulation, error)
}

// SimulateRequest is one simulation of one log's inputs.
type SimulateRequest struct {
	Params     Params // ParamReader with ForPrediction
	ParamsPath string
	Source     Source
	Plot       bool
	Sink       Sink
}

// Simulation is a simulated log: its CSV (FORMATS.md's trajectory columns
// of the model) and, when asked for, a figure.
type Simulation struct {
	Write    func(w io.Writer) error
	Warnings []fit.Warning
	Figure   *Figure // the figure as data, when asked for
}

// Validator compares a model's predictions with logged outputs.
type Validator interface {
	Validate(req ValidateRequest) ([]ValidationRun, error)
}

// Start states of a validation (ValidateRequest.X0).
const (
	X0Estimate = "estimate" // fit.EstimateStart, as MATLAB's compare
	X0First    = "first"    // the run's first measured state
)

// ValidateRequest is one validation over logs.
type ValidateRequest struct {
	Params     Params // ParamReader with ForPrediction
	ParamsPath string
	Sources    []Source
	X0         string // X0Estimate ("" too) or X0First
	Gaps       fit.GapPolicy
	Sink       Sink
}

// ValidationRun is one validated run: its channels (run index 0), its poses
// for the endpoint and k-step errors, and the start state used.
type ValidationRun = fit.ValidationRun

// RunID is a run's name in a validation: its traj value, prefixed by the
// file's base name when several sources are validated.
func RunID(sources []Source, file, traj string) string {
	base := filepath.Base(file)
	switch {
	case len(sources) > 1 && traj == "":
		return base
	case len(sources) > 1:
		return base + ":" + traj
	}
	return traj
}

// Driver is a model that control can drive along a path (follow).
type Driver interface {
	// DriveFlags names the follow settings (DriveOptions) the model uses.
	DriveFlags() []string
	Drive(p Params, o DriveOptions) (*Drive, error)
}

// DriveOptions are follow's model settings; Set says which were given (a
// model's default applies to the others).
type DriveOptions struct {
	Wmax, Umax, Vmax, Band float64
	Set                    map[string]bool
	// Truth are the parameters of a simulated true robot (-mpc), nil for
	// none.
	Truth Params
	// Dt (s) is the step of the controls (follow's -dt); a model that
	// steps by its own step refuses a Dt given (Set["dt"]) that differs.
	Dt float64
	// ParamsPath and TruthPath name the files of the parameters and of
	// Truth in messages ("" for none).
	ParamsPath, TruthPath string
}

// Drive is one model's follow: the robot synthesis plans with, the one the
// prediction is reported on (the exact friction where the plan uses a
// surrogate), the simulated true robot of -mpc, and the controls CSV.
type Drive struct {
	Plan, Exact control.Robot
	Truth       *control.Robot
	Dt          float64
	FixedStep   bool     // Dt is the model's own step: fit the path to it
	Columns     []string // controls CSV columns, in the order of Plan.Controls
	Pose        []string // columns of the start pose on the first row
	Planned     string   // what the plan's own prediction is, when it differs from Exact
	// Wheels, when set, is a model planned through a gorgonia graph of
	// the model (the Mecanum robot, whose friction may be networks):
	// Follow then plans with it, and Plan, Exact and Truth are unused.
	Wheels *WheelDrive
}

// WheelDrive is the graph-planned follow of a Drive: the model synthesis
// plans with, the simulated true robot of -mpc (nil for none), and the
// bound on every wheel command (rad/s).
type WheelDrive struct {
	Model, Truth control.Drive
	Wmax         float64
}

// UsageError is a request the model cannot take as given (a bad option
// value, a method it does not know): a face reports it as a usage error
// (the command line's exit status 2).
type UsageError struct{ Msg string }

func (u UsageError) Error() string { return u.Msg }

// Usagef returns a UsageError.
func Usagef(format string, a ...any) error { return UsageError{fmt.Sprintf(format, a...)} }

// Registry is a set of models by name (Brax's envs): the built-in ones
// (Default) and a user's own (With, Register).
type Registry struct {
	models map[string]Model
	order  []string
}

// NewRegistry returns a registry of ms (a name given twice is an error).
func NewRegistry(ms ...Model) (*Registry, error) {
	r := &Registry{models: map[string]Model{}}
	for _, m := range ms {
		if err := r.Register(m); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds m; its name must be new, lower case and without spaces.
func (r *Registry) Register(m Model) error {
	n := m.Name()
	if n == "" || n != strings.ToLower(n) || strings.ContainsAny(n, " \t,=") {
		return fmt.Errorf("robots: model name %q: want a lower-case word", n)
	}
	if _, ok := r.models[n]; ok {
		return fmt.Errorf("robots: model %q is registered twice", n)
	}
	r.models[n] = m
	r.order = append(r.order, n)
	return nil
}

// With returns a copy of r with ms added; it panics on a name given twice
// (a program's own mistake, found at its first run).
func (r *Registry) With(ms ...Model) *Registry {
	c := &Registry{models: map[string]Model{}, order: slices.Clone(r.order)}
	for k, v := range r.models {
		c.models[k] = v
	}
	for _, m := range ms {
		if err := c.Register(m); err != nil {
			panic(err)
		}
	}
	return c
}

// Get returns the model named n.
func (r *Registry) Get(n string) (Model, bool) {
	m, ok := r.models[n]
	return m, ok
}

// Names lists the models in the order they were registered.
func (r *Registry) Names() []string { return slices.Clone(r.order) }

// Sorted lists the models' names alphabetically.
func (r *Registry) Sorted() []string {
	s := r.Names()
	sort.Strings(s)
	return s
}
