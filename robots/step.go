package robots

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/step"
)

// A user's own model on every face (issue 23, Deliver 4): a step written
// in package dyn and the few facts the toolkit cannot read from it — the
// parameters' units, start values and bounds, which setting is the time
// step, the settings' values, whether an output is the state after the step —
// make a Model with ParamReader, Simulator, Identifier and Validator (and,
// with Controls, Driver):
//
//	m, err := robots.NewStepModel(robots.StepModel{
//		Name: "unicycle", Summary: "velocity lag against Coulomb friction",
//		Model: Robot, Dt: "dt", AfterStep: true, Pose: [3]string{"x", "y", "th"},
//		Params: []fit.Param{{Name: "tau", Unit: "s", Value: 0.5, Lower: 0.02, Upper: 5}, ...},
//	})
//	os.Exit(cli.Main(os.Args[1:], robots.Default().With(m)))
//
// The model itself — its log (a CSV with a time column t, an optional run
// column traj, one column per input of the step and one per output,
// empty where none was measured), identification, simulation and
// validation — is package models/step; this adapter adds the command
// line's usage errors and follow. The parameter file is a JSON object of
// the parameters by name (plus "model" and the "fit" record identify
// writes).

// StepModel is what a user says about a model written in package dyn.
type StepModel struct {
	// Name is the -model name (a lower-case word); Summary one line.
	Name, Summary string
	// Model is the step (a *dyn.Model).
	Model *step.DynModel
	// Params are the step's parameters, one per Spec().Params entry and in
	// its order: Name as in the spec, Unit, Value (the start of identify
	// and the default of a parameter file that omits it), Lower and Upper
	// (the bounds of identify; ±Inf for none).
	Params []fit.Param
	// Dt names the setting, or the input, that takes the step length (s):
	// the median step of the log's command rows. Commands are sampled onto
	// that grid (zero-order hold) and measurements compared at their own
	// times (linear interpolation between the grid's outputs), so a log
	// with jitter or a sensor on its own clock needs no resampling.
	Dt string
	// Settings gives every other setting of the step its value.
	Settings map[string]float64
	// Outputs describe the step's outputs, which the log measures, by
	// name: unit, angle (residuals wrapped to (−π, π]) and the noise σ that
	// weighs their residuals (0: estimated from the log, fit.NoiseStd).
	// Outputs not listed have no unit and an estimated noise.
	Outputs []Output
	// AfterStep says the step's outputs are at the end of the step (the
	// state it leads to, as a tracker sees it); false: at its start.
	AfterStep bool
	// Pose names the state lanes of a planar pose (x, y, heading), "" for
	// none. With it a run's unmeasured heading starts from the direction
	// that best explains its first motion, and validate reports endpoint
	// and k-step position errors. The x and y lanes must be outputs too.
	Pose [3]string
	// Controls are the inputs follow decides, with their bounds: with
	// them, and a Pose whose three lanes are outputs of the step, the
	// model is a Driver (control.Robot over the same step). Other inputs
	// but Dt are held at 0.
	Controls []control.Control
	// DriveStep (s) is the step follow plans with when Dt is a setting
	// (0: 0.01 s); a Dt input takes follow's own step.
	DriveStep float64
}

// Output is one measured output of a step model (step.Output).
type Output = step.Output

// StepParams are a step model's parameter values, in the step's order; as
// JSON an object of the values by name, after "model" (step.Params).
type StepParams = step.Params

// Step is a StepModel checked against its step: a Model with ParamReader,
// Simulator, Identifier, Validator and Driver over a models/step Model.
type Step struct {
	m StepModel
	g *step.Model
}

// NewStepModel checks m against its step and returns the adapter.
func NewStepModel(m StepModel) (*Step, error) {
	g, err := step.New(step.Config{Name: m.Name, Model: m.Model, Params: m.Params, Dt: m.Dt, Settings: m.Settings,
		Outputs: m.Outputs, AfterStep: m.AfterStep, Pose: m.Pose})
	if err != nil {
		return nil, fmt.Errorf("robots: %w", err)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("robots: step model %q: %s", m.Name, fmt.Sprintf(format, a...))
	}
	for _, c := range m.Controls {
		if !slices.Contains(g.Inputs(), c.Input) {
			return nil, bad("Controls names %q, not an input of the step other than Dt", c.Input)
		}
	}
	if !(m.DriveStep >= 0) || math.IsInf(m.DriveStep, 0) {
		return nil, bad("DriveStep %g must be ≥ 0 and finite", m.DriveStep)
	}
	return &Step{m: m, g: g}, nil
}

// Name is the model's -model name.
func (s *Step) Name() string { return s.m.Name }

// Summary is the model's one line.
func (s *Step) Summary() string {
	if s.m.Summary != "" {
		return s.m.Summary
	}
	return "a user's step model " + s.g.Spec().Name
}

// Defaults are the parameters' start values.
func (s *Step) Defaults() StepParams { return s.g.Defaults() }

// ReadParams reads a parameter file (step.Model.ReadParams): for
// prediction every parameter must be given; for a start, a missing one
// takes its StepModel value.
func (s *Step) ReadParams(path string, use ParamUse) (Params, []fit.Warning, error) {
	p, err := s.g.ReadParams(path, use == ForPrediction)
	if err != nil {
		return nil, nil, err
	}
	return p, nil, nil
}

// params turns a request's parameters into the step's values (nil: the
// defaults).
func (s *Step) params(p Params) (StepParams, error) {
	switch v := p.(type) {
	case nil:
		return s.g.Defaults(), nil
	case StepParams:
		return s.g.With(v.Values)
	case *StepParams:
		return s.params(*v)
	}
	return StepParams{}, errors.New("robots: " + s.m.Name + ": parameters of another model")
}

// sources are the requests' sources as the step model reads them; it
// cannot estimate an offset.
func (s *Step) sources(srcs ...Source) ([]step.Source, error) {
	out := make([]step.Source, len(srcs))
	for i, src := range srcs {
		if src.AutoOffset {
			return nil, Usagef("-offset auto is not available for -model %s (give the offset in seconds)", s.m.Name)
		}
		out[i] = step.Source{Path: src.Path, Poses: src.Poses, Offset: src.Offset, Columns: src.Columns, HoldLast: src.HoldLast, Cache: src.Cache}
	}
	return out, nil
}

// Methods: "lsq", bounded least squares over the measured outputs'
// residuals with the forward-mode Jacobian of the whole rollout; "lbfgsb",
// L-BFGS-B on the same loss with the generated reverse pass's gradient
// (step.Model.Identify).
func (s *Step) Methods() []string { return s.g.Methods() }

// Options: a step model has none of its own.
func (s *Step) Options() []Option { return nil }

// Identify fits the free parameters and every run's start state
// (step.Model.Identify: σ from Gauss–Newton over the parameters and the
// start states, corrected for residuals correlated in time).
func (s *Step) Identify(req IdentifyRequest) (*Identified, error) {
	method := req.Method
	if method == "" {
		method = "lsq"
	}
	if !slices.Contains(s.Methods(), method) {
		return nil, Usagef("unknown -method %q for %s (one of %s)", req.Method, s.m.Name, strings.Join(s.Methods(), ", "))
	}
	for k := range req.Options {
		return nil, Usagef("-%s does not apply to -model %s", k, s.m.Name)
	}
	start, err := s.params(req.Init)
	if err != nil {
		return nil, err
	}
	held, err := fit.HeldSet(s.g.Spec().Params, req.Fix, req.Free)
	if err != nil {
		return nil, Usagef("%s", err)
	}
	if len(s.g.Free(held)) == 0 {
		return nil, Usagef("no parameter of %s is left to identify", s.m.Name)
	}
	srcs, err := s.sources(req.Sources...)
	if err != nil {
		return nil, err
	}
	id, err := s.g.Identify(srcs, step.IdentifyOptions{Method: method, Start: start, Held: held, Gaps: req.Gaps,
		Fit: req.Fit, AllowUndetermined: req.AllowUndetermined, Sink: req.Sink})
	if err != nil {
		return nil, err
	}
	return &Identified{Report: id.Report, Params: id.Params, Refused: id.Refused, Outcome: id.Outcome}, nil
}

// Simulate rolls the model under the log's commands (step.Model.Simulate)
// and writes t, traj (when the log has it) and the state lanes at every
// row's time.
func (s *Step) Simulate(req SimulateRequest) (*Simulation, error) {
	p, err := s.params(req.Params)
	if err != nil {
		return nil, err
	}
	srcs, err := s.sources(req.Source)
	if err != nil {
		return nil, err
	}
	sim, err := s.g.Simulate(p, srcs[0], req.Sink)
	if err != nil {
		return nil, err
	}
	return &Simulation{Warnings: sim.Warnings, Write: sim.Write}, nil
}

// Validate predicts each run of the logs from its start state and compares
// every measured output (step.Model.Validate).
func (s *Step) Validate(req ValidateRequest) ([]ValidationRun, error) {
	p, err := s.params(req.Params)
	if err != nil {
		return nil, err
	}
	srcs, err := s.sources(req.Sources...)
	if err != nil {
		return nil, err
	}
	var out []ValidationRun
	for i, src := range srcs {
		vs, err := s.g.Validate(p, src, step.ValidateOptions{Gaps: req.Gaps, First: req.X0 == X0First, Sink: req.Sink})
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			out = append(out, ValidationRun{ID: RunID(req.Sources, req.Sources[i].Path, v.ID), Channels: v.Channels, Track: v.Track,
				Start: v.Start, StartNames: v.StartNames})
		}
	}
	return out, nil
}

// DriveFlags: a step model's bounds are its StepModel's Controls; it takes
// none of follow's model flags.
func (s *Step) DriveFlags() []string { return nil }

// Drive is the model's follow: a control.Robot over the same step, the
// Controls as decision variables, the Pose lanes tracked, started at rest
// (every other state lane 0). It fails, naming why, for a StepModel without
// Controls or a Pose whose lanes are all outputs.
func (s *Step) Drive(p Params, o DriveOptions) (*Drive, error) {
	if len(s.m.Controls) == 0 || !s.g.HasPose() {
		return nil, fmt.Errorf("model %s cannot be driven: its StepModel names no Controls or no Pose", s.m.Name)
	}
	dt := s.m.DriveStep
	if dt == 0 {
		dt = 0.01
	}
	robot := func(p Params) (control.Robot, error) {
		v, err := s.params(p)
		if err != nil {
			return control.Robot{}, err
		}
		r := control.Robot{Model: s.m.Model, Params: v.Values, Settings: s.g.Settings(dt), State0: make([]float64, len(s.g.Spec().State)),
			X: s.m.Pose[0], Y: s.m.Pose[1], Heading: s.m.Pose[2], Controls: slices.Clone(s.m.Controls), Inputs: map[string]float64{}}
		for _, n := range s.g.Inputs() {
			if !slices.ContainsFunc(r.Controls, func(c control.Control) bool { return c.Input == n }) {
				r.Inputs[n] = 0
			}
		}
		if s.g.DtIsInput() {
			r.DtInput = s.m.Dt
		} else {
			r.Step = dt // s.g.Settings(dt) holds it in the Dt setting
		}
		if err := r.Validate(); err != nil {
			return control.Robot{}, fmt.Errorf("model %s cannot be driven: %w", s.m.Name, err)
		}
		return r, nil
	}
	r, err := robot(p)
	if err != nil {
		return nil, err
	}
	d := &Drive{Plan: r, Exact: r, Pose: s.m.Pose[:]}
	if !s.g.DtIsInput() {
		d.Dt, d.FixedStep = dt, true
	}
	for _, c := range s.m.Controls {
		d.Columns = append(d.Columns, c.Input)
	}
	if o.Truth != nil {
		tr, err := robot(o.Truth)
		if err != nil {
			return nil, err
		}
		d.Truth = &tr
	}
	return d, nil
}
