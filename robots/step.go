package robots

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/fit"
)

// A user's own model on every face (issue 23, Deliver 4): a step written
// in package dyn and the few facts the toolkit cannot read from it — the
// parameters' units, start values and bounds, which setting is the time
// step, the settings' values, whether an output is the state after the step —
// make a Model with ParamReader, Simulator, Identifier and Validator:
//
//	m, err := robots.NewStepModel(robots.StepModel{
//		Name: "unicycle", Summary: "velocity lag against Coulomb friction",
//		Model: Robot, Dt: "dt", AfterStep: true, Pose: [3]string{"x", "y", "th"},
//		Params: []fit.Param{{Name: "tau", Unit: "s", Value: 0.5, Lower: 0.02, Upper: 5}, ...},
//	})
//	os.Exit(cli.Main(os.Args[1:], robots.Default().With(m)))
//
// Its log is a CSV with a time column t, an optional run column traj, one
// column per input of the step (commands, held over sensor-only rows) and
// one per output (measurements, empty where none was taken), read by
// dataset.ReadLog (sensor files, offsets, -columns maps and the gap policy
// work as for the built-in models). The parameter file is a JSON object of
// the parameters by name (plus "model" and the "fit" record identify writes).

// StepModel is what a user says about a model written in package dyn.
type StepModel struct {
	// Name is the -model name (a lower-case word); Summary one line.
	Name, Summary string
	Model         *dyn.Model
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

// Output is one measured output of a step model.
type Output struct {
	Name, Unit string
	Angle      bool
	Noise      float64
}

// Step is a StepModel checked against its step: a Model with ParamReader,
// Simulator, Identifier and Validator.
type Step struct {
	m       StepModel
	spec    dyn.Spec
	out     []Output // one per spec output
	dtInput int      // index of the Dt input, -1: Dt is a setting
	q       []float64
	dtSet   int // index of Dt in q, -1: an input
	pose    [3]int
	poseOut [2]int // outputs of the x, y pose lanes
}

// NewStepModel checks m against its step and returns the adapter.
func NewStepModel(m StepModel) (*Step, error) {
	if m.Model == nil {
		return nil, fmt.Errorf("robots: step model %q: no dyn.Model", m.Name)
	}
	s := &Step{m: m, spec: m.Model.Spec(), dtInput: -1, dtSet: -1}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("robots: step model %q: %s", m.Name, fmt.Sprintf(format, a...))
	}
	if m.Name == "" {
		return nil, bad("no Name")
	}
	if len(m.Params) != len(s.spec.Params) {
		return nil, bad("%d Params for the step's %d (%s)", len(m.Params), len(s.spec.Params), strings.Join(s.spec.Params, ", "))
	}
	for i, p := range m.Params {
		if p.Name != s.spec.Params[i] {
			return nil, bad("Params[%d] is %q, the step's parameter %d is %q", i, p.Name, i, s.spec.Params[i])
		}
		if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) || p.Lower > p.Upper || math.IsNaN(p.Lower) || math.IsNaN(p.Upper) ||
			(p.Lower != p.Upper && (p.Value < p.Lower || p.Value > p.Upper)) {
			return nil, bad("parameter %s: start value %g not finite or outside its bounds [%g, %g] (give Lower and Upper, ±Inf for none)", p.Name, p.Value, p.Lower, p.Upper)
		}
	}
	if m.Dt == "" {
		return nil, bad("Dt names no setting or input (the step length)")
	}
	s.dtSet, s.dtInput = slices.Index(s.spec.Settings, m.Dt), slices.Index(s.spec.Input, m.Dt)
	if s.dtSet < 0 && s.dtInput < 0 {
		return nil, bad("Dt %q is neither a setting nor an input of the step", m.Dt)
	}
	s.q = make([]float64, len(s.spec.Settings))
	for i, n := range s.spec.Settings {
		if i == s.dtSet {
			continue
		}
		v, ok := m.Settings[n]
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, bad("setting %q has no finite value in Settings", n)
		}
		s.q[i] = v
	}
	for n := range m.Settings {
		if !slices.Contains(s.spec.Settings, n) || n == m.Dt {
			return nil, bad("Settings names %q, not a setting of the step other than Dt", n)
		}
	}
	if len(s.spec.Outputs) == 0 {
		return nil, bad("the step declares no Outputs: name what the log measures")
	}
	s.out = make([]Output, len(s.spec.Outputs))
	for i, n := range s.spec.Outputs {
		s.out[i] = Output{Name: n}
	}
	for _, o := range m.Outputs {
		i := slices.Index(s.spec.Outputs, o.Name)
		if i < 0 {
			return nil, bad("Outputs names %q, not an output of the step (%s)", o.Name, strings.Join(s.spec.Outputs, ", "))
		}
		if !(o.Noise >= 0) || math.IsInf(o.Noise, 0) {
			return nil, bad("output %s: noise %g must be ≥ 0 and finite", o.Name, o.Noise)
		}
		s.out[i] = o
	}
	s.pose = [3]int{-1, -1, -1}
	if m.Pose != [3]string{} {
		for k, n := range m.Pose {
			if s.pose[k] = slices.Index(s.spec.State, n); s.pose[k] < 0 {
				return nil, bad("Pose lane %q is not a state of the step", n)
			}
		}
		for k := range 2 {
			if s.poseOut[k] = slices.Index(s.spec.Outputs, m.Pose[k]); s.poseOut[k] < 0 {
				return nil, bad("Pose lane %q is not an output of the step (the log must measure the position)", m.Pose[k])
			}
		}
	}
	for _, c := range m.Controls {
		if !slices.Contains(s.inputs(), c.Input) {
			return nil, bad("Controls names %q, not an input of the step other than Dt", c.Input)
		}
	}
	if !(m.DriveStep >= 0) || math.IsInf(m.DriveStep, 0) {
		return nil, bad("DriveStep %g must be ≥ 0 and finite", m.DriveStep)
	}
	for _, n := range s.inputs() {
		if slices.Contains(s.spec.Outputs, n) || n == "t" || n == "traj" {
			return nil, bad("input %q: a log column of that name is an output or t or traj", n)
		}
	}
	return s, nil
}

// Name is the model's -model name.
func (s *Step) Name() string { return s.m.Name }

// Summary is the model's one line.
func (s *Step) Summary() string {
	if s.m.Summary != "" {
		return s.m.Summary
	}
	return "a user's step model " + s.spec.Name
}

// inputs are the log's command columns: the step's inputs but Dt.
func (s *Step) inputs() []string {
	var in []string
	for i, n := range s.spec.Input {
		if i != s.dtInput {
			in = append(in, n)
		}
	}
	return in
}

// StepParams are a step model's parameter values, in the step's order; as
// JSON an object of the values by name, after "model".
type StepParams struct {
	Model  string
	Names  []string
	Values []float64
	lower  []float64
	upper  []float64
}

// Get returns the value of the parameter named n (NaN: none).
func (p StepParams) Get(n string) float64 {
	if i := slices.Index(p.Names, n); i >= 0 {
		return p.Values[i]
	}
	return math.NaN()
}

// MarshalJSON writes {"model": …, name: value, …} in the step's order.
func (p StepParams) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	mb, _ := json.Marshal(p.Model)
	b.WriteString(`{"model":`)
	b.Write(mb)
	for i, n := range p.Names {
		if math.IsNaN(p.Values[i]) || math.IsInf(p.Values[i], 0) {
			return nil, fmt.Errorf("parameter %s = %g is not finite", n, p.Values[i])
		}
		nb, _ := json.Marshal(n)
		vb, _ := json.Marshal(p.Values[i])
		b.WriteByte(',')
		b.Write(nb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Validate checks every value is finite and within its bounds.
func (p StepParams) Validate() error {
	for i, n := range p.Names {
		v := p.Values[i]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("parameter %q = %g is not finite", n, v)
		}
		if i < len(p.lower) && (v < p.lower[i] || v > p.upper[i]) {
			return fmt.Errorf("parameter %q = %g is outside its range [%g, %g]", n, v, p.lower[i], p.upper[i])
		}
	}
	return nil
}

// Defaults are the parameters' start values.
func (s *Step) Defaults() StepParams {
	p := StepParams{Model: s.m.Name}
	for _, q := range s.m.Params {
		p.Names = append(p.Names, q.Name)
		p.Values = append(p.Values, q.Value)
		p.lower = append(p.lower, q.Lower)
		p.upper = append(p.upper, q.Upper)
	}
	return p
}

// ReadParams reads a parameter file: a JSON object of the parameters by
// name, strictly (dataset.ReadJSON: an unknown key, a key given twice or
// in another case, a "model" naming another model are errors naming the
// file, the line and the key). For prediction every parameter must be
// given; for a start, a missing one takes its StepModel value. A value
// outside the parameter's bounds is an error naming the key.
func (s *Step) ReadParams(path string, use ParamUse) (Params, []fit.Warning, error) {
	// The file's shape as a struct (one *float64 field per parameter), so
	// that dataset.ReadJSON's strict checks name the key and position.
	fields := []reflect.StructField{{Name: "Model", Type: reflect.TypeFor[string](), Tag: `json:"model"`}}
	for i, p := range s.m.Params {
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("P%d", i), Type: reflect.TypeFor[*float64](), Tag: reflect.StructTag(fmt.Sprintf("json:%q", p.Name))})
	}
	v := reflect.New(reflect.StructOf(fields))
	o := dataset.JSONOptions{Strict: true, Model: s.m.Name}
	if use == ForPrediction {
		o.Required = slices.Clone(s.spec.Params)
	}
	if err := dataset.ReadJSON(path, v.Interface(), o); err != nil {
		return nil, nil, err
	}
	p := s.Defaults()
	for i, q := range s.m.Params {
		f := v.Elem().Field(i + 1)
		if f.IsNil() {
			continue
		}
		x := f.Elem().Float()
		if x < q.Lower || x > q.Upper {
			return nil, nil, &dataset.JSONError{File: path, Key: q.Name, Err: fmt.Errorf("%g is outside the parameter's range [%g, %g]", x, q.Lower, q.Upper)}
		}
		p.Values[i] = x
	}
	return p, nil, nil
}

// params turns a request's parameters into the step's values (nil: the
// defaults).
func (s *Step) params(p Params) (StepParams, error) {
	switch v := p.(type) {
	case nil:
		return s.Defaults(), nil
	case StepParams:
		if len(v.Values) != len(s.m.Params) {
			return StepParams{}, fmt.Errorf("robots: %s: %d parameter values for %d parameters", s.m.Name, len(v.Values), len(s.m.Params))
		}
		d := s.Defaults()
		copy(d.Values, v.Values)
		return d, d.Validate()
	case *StepParams:
		return s.params(*v)
	}
	return StepParams{}, errors.New("robots: " + s.m.Name + ": parameters of another model")
}

// DriveFlags: a step model's bounds are its StepModel's Controls; it takes
// none of follow's model flags.
func (s *Step) DriveFlags() []string { return nil }

// Drive is the model's follow: a control.Robot over the same step, the
// Controls as decision variables, the Pose lanes tracked, started at rest
// (every other state lane 0). It fails, naming why, for a StepModel without
// Controls or a Pose whose lanes are all outputs.
func (s *Step) Drive(p Params, o DriveOptions) (*Drive, error) {
	if len(s.m.Controls) == 0 || s.pose[0] < 0 {
		return nil, fmt.Errorf("model %s cannot be driven: its StepModel names no Controls or no Pose", s.m.Name)
	}
	step := s.m.DriveStep
	if step == 0 {
		step = 0.01
	}
	robot := func(p Params) (control.Robot, error) {
		v, err := s.params(p)
		if err != nil {
			return control.Robot{}, err
		}
		r := control.Robot{Model: s.m.Model, Params: v.Values, Settings: slices.Clone(s.q), State0: make([]float64, len(s.spec.State)),
			X: s.m.Pose[0], Y: s.m.Pose[1], Heading: s.m.Pose[2], Controls: slices.Clone(s.m.Controls), Inputs: map[string]float64{}}
		for _, n := range s.inputs() {
			if !slices.ContainsFunc(r.Controls, func(c control.Control) bool { return c.Input == n }) {
				r.Inputs[n] = 0
			}
		}
		if s.dtInput >= 0 {
			r.DtInput = s.m.Dt
		} else {
			r.Step, r.Settings[s.dtSet] = step, step
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
	if s.dtInput < 0 {
		d.Dt, d.FixedStep = step, true
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
