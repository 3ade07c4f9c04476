package step

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/fit"
)

// DynModel is the step a Config is about (package dyn's Model), named here
// so that a package wrapping Config (robots.StepModel) can hold one.
type DynModel = dyn.Model

// Config is what a user says about a model written in package dyn.
type Config struct {
	// Name is the model's name (a lower-case word).
	Name  string
	Model *dyn.Model
	// Params are the step's parameters, one per Spec().Params entry and in
	// its order: Name as in the spec, Unit, Value (the start of identify
	// and the default of a parameter file that omits it), Lower and Upper
	// (the bounds of identify; ±Inf for none).
	Params []fit.Param
	// Dt names the setting, or the input, that takes the step length (s).
	Dt string
	// Settings gives every other setting of the step its value.
	Settings map[string]float64
	// Outputs describe the step's outputs, which the log measures, by
	// name. Outputs not listed have no unit and an estimated noise.
	Outputs []Output
	// AfterStep says the step's outputs are at the end of the step (the
	// state it leads to, as a tracker sees it); false: at its start.
	AfterStep bool
	// Pose names the state lanes of a planar pose (x, y, heading), "" for
	// none. With it a run's unmeasured heading starts from the direction
	// that best explains its first motion, and Validate pairs measured and
	// predicted positions. The x and y lanes must be outputs too.
	Pose [3]string
}

// Output is one measured output of a step: its unit, whether it is an
// angle (residuals wrapped to (−π, π]) and the noise σ that weighs its
// residuals (0: estimated from the log, fit.NoiseStd).
type Output struct {
	Name, Unit string
	Angle      bool
	Noise      float64
}

// Model is a Config checked against its step.
type Model struct {
	c       Config
	spec    dyn.Spec
	out     []Output // one per spec output
	dtInput int      // index of the Dt input, -1: Dt is a setting
	q       []float64
	dtSet   int // index of Dt in q, -1: an input
	pose    [3]int
	poseOut [2]int // outputs of the x, y pose lanes
}

// New checks c against its step. Its errors read "step model NAME: …".
func New(c Config) (*Model, error) {
	if c.Model == nil {
		return nil, fmt.Errorf("step model %q: no dyn.Model", c.Name)
	}
	s := &Model{c: c, spec: c.Model.Spec(), dtInput: -1, dtSet: -1}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("step model %q: %s", c.Name, fmt.Sprintf(format, a...))
	}
	if c.Name == "" {
		return nil, bad("no Name")
	}
	if len(c.Params) != len(s.spec.Params) {
		return nil, bad("%d Params for the step's %d (%s)", len(c.Params), len(s.spec.Params), strings.Join(s.spec.Params, ", "))
	}
	for i, p := range c.Params {
		if p.Name != s.spec.Params[i] {
			return nil, bad("Params[%d] is %q, the step's parameter %d is %q", i, p.Name, i, s.spec.Params[i])
		}
		if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) || p.Lower > p.Upper || math.IsNaN(p.Lower) || math.IsNaN(p.Upper) ||
			(p.Lower != p.Upper && (p.Value < p.Lower || p.Value > p.Upper)) {
			return nil, bad("parameter %s: start value %g not finite or outside its bounds [%g, %g] (give Lower and Upper, ±Inf for none)", p.Name, p.Value, p.Lower, p.Upper)
		}
	}
	if c.Dt == "" {
		return nil, bad("Dt names no setting or input (the step length)")
	}
	s.dtSet, s.dtInput = slices.Index(s.spec.Settings, c.Dt), slices.Index(s.spec.Input, c.Dt)
	if s.dtSet < 0 && s.dtInput < 0 {
		return nil, bad("Dt %q is neither a setting nor an input of the step", c.Dt)
	}
	s.q = make([]float64, len(s.spec.Settings))
	for i, n := range s.spec.Settings {
		if i == s.dtSet {
			continue
		}
		v, ok := c.Settings[n]
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, bad("setting %q has no finite value in Settings", n)
		}
		s.q[i] = v
	}
	for n := range c.Settings {
		if !slices.Contains(s.spec.Settings, n) || n == c.Dt {
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
	for _, o := range c.Outputs {
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
	if c.Pose != [3]string{} {
		for k, n := range c.Pose {
			if s.pose[k] = slices.Index(s.spec.State, n); s.pose[k] < 0 {
				return nil, bad("Pose lane %q is not a state of the step", n)
			}
		}
		for k := range 2 {
			if s.poseOut[k] = slices.Index(s.spec.Outputs, c.Pose[k]); s.poseOut[k] < 0 {
				return nil, bad("Pose lane %q is not an output of the step (the log must measure the position)", c.Pose[k])
			}
		}
	}
	for _, n := range s.Inputs() {
		if slices.Contains(s.spec.Outputs, n) || n == "t" || n == "traj" {
			return nil, bad("input %q: a log column of that name is an output or t or traj", n)
		}
	}
	return s, nil
}

// Config is the model's configuration as New checked it.
func (s *Model) Config() Config { return s.c }

// Spec is the step's declaration (dyn.Spec): its state, inputs, settings,
// parameters and outputs by name.
func (s *Model) Spec() dyn.Spec { return s.spec }

// Inputs are the log's command columns: the step's inputs but Dt.
func (s *Model) Inputs() []string {
	var in []string
	for i, n := range s.spec.Input {
		if i != s.dtInput {
			in = append(in, n)
		}
	}
	return in
}

// DtIsInput says the step length is an input of the step (false: a
// setting).
func (s *Model) DtIsInput() bool { return s.dtInput >= 0 }

// Settings are the values of the step's settings, in its order, with the
// Dt setting (if it is one) set to dt.
func (s *Model) Settings(dt float64) []float64 {
	q := slices.Clone(s.q)
	if s.dtSet >= 0 {
		q[s.dtSet] = dt
	}
	return q
}

// HasPose says the Config names a Pose.
func (s *Model) HasPose() bool { return s.pose[0] >= 0 }

// Free are the indices of the parameters identify fits: neither held nor
// with equal bounds.
func (s *Model) Free(held map[string]bool) []int {
	var free []int
	for i, p := range s.c.Params {
		if !held[p.Name] && p.Lower != p.Upper {
			free = append(free, i)
		}
	}
	return free
}

// Params are a step model's parameter values, in the step's order; as
// JSON an object of the values by name, after "model".
type Params struct {
	Model  string
	Names  []string
	Values []float64
	lower  []float64
	upper  []float64
}

// Get returns the value of the parameter named n (NaN: none).
func (p Params) Get(n string) float64 {
	if i := slices.Index(p.Names, n); i >= 0 {
		return p.Values[i]
	}
	return math.NaN()
}

// MarshalJSON writes {"model": …, name: value, …} in the step's order.
func (p Params) MarshalJSON() ([]byte, error) {
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
func (p Params) Validate() error {
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
func (s *Model) Defaults() Params {
	p := Params{Model: s.c.Name}
	for _, q := range s.c.Params {
		p.Names = append(p.Names, q.Name)
		p.Values = append(p.Values, q.Value)
		p.lower = append(p.lower, q.Lower)
		p.upper = append(p.upper, q.Upper)
	}
	return p
}

// With is the model's parameters with values v (one per parameter, in the
// step's order), checked against the bounds.
func (s *Model) With(v []float64) (Params, error) {
	if len(v) != len(s.c.Params) {
		return Params{}, fmt.Errorf("%s: %d parameter values for %d parameters", s.c.Name, len(v), len(s.c.Params))
	}
	d := s.Defaults()
	copy(d.Values, v)
	return d, d.Validate()
}

// ReadParams reads a parameter file: a JSON object of the parameters by
// name, strictly (dataset.ReadJSON: an unknown key, a key given twice or
// in another case, a "model" naming another model are errors naming the
// file, the line and the key). With all, every parameter must be given;
// otherwise a missing one takes its Config value. A value outside the
// parameter's bounds is an error naming the key.
func (s *Model) ReadParams(path string, all bool) (Params, error) {
	// The file's shape as a struct (one *float64 field per parameter), so
	// that dataset.ReadJSON's strict checks name the key and position.
	fields := []reflect.StructField{{Name: "Model", Type: reflect.TypeFor[string](), Tag: `json:"model"`}}
	for i, p := range s.c.Params {
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("P%d", i), Type: reflect.TypeFor[*float64](), Tag: reflect.StructTag(fmt.Sprintf("json:%q", p.Name))})
	}
	v := reflect.New(reflect.StructOf(fields))
	o := dataset.JSONOptions{Strict: true, Model: s.c.Name}
	if all {
		o.Required = slices.Clone(s.spec.Params)
	}
	if err := dataset.ReadJSON(path, v.Interface(), o); err != nil {
		return Params{}, err
	}
	p := s.Defaults()
	for i, q := range s.c.Params {
		f := v.Elem().Field(i + 1)
		if f.IsNil() {
			continue
		}
		x := f.Elem().Float()
		if x < q.Lower || x > q.Upper {
			return Params{}, &dataset.JSONError{File: path, Key: q.Name, Err: fmt.Errorf("%g is outside the parameter's range [%g, %g]", x, q.Lower, q.Upper)}
		}
		p.Values[i] = x
	}
	return p, nil
}
