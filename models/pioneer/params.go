package pioneer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/dyn"
)

// Forms of the model (the "form" key of the parameter JSON).
const (
	FormPhysical     = "physical"
	FormExperimental = "experimental"
)

// Params are the parameters of one form, in SI units (m, s, rad, kg, N·m):
// the paper's kg·mm² and mm are converted. Keys of the other form are
// refused, so a file says what it is.
type Params struct {
	Model string  `json:"model"` // "pioneer"
	Form  string  `json:"form"`  // FormPhysical or FormExperimental
	Ts    float64 `json:"Ts"`    // sample time of the references and measurements (s)

	// Both forms: reference saturation (m/s, rad/s) and slope limits
	// (m/s², rad/s²; acceleration while |v| grows, deceleration while it shrinks).
	Vmax float64 `json:"vmax"`
	Wmax float64 `json:"wmax"`
	AccV float64 `json:"acc_v"`
	DecV float64 `json:"dec_v"`
	AccW float64 `json:"acc_w"`
	DecW float64 `json:"dec_w"`

	Physical
	Experimental
}

// Physical holds the keys of the physical form (Tables 1–2, §3.1).
type Physical struct {
	Delay *int     `json:"delay,omitempty"` // communication delay, whole samples (§3.1: 3)
	Phi   *float64 `json:"phi,omitempty"`   // and its fraction of a sample (s), in [0, Ts]
	KR    *float64 `json:"KR,omitempty"`    // PI gain
	TI    *float64 `json:"TI,omitempty"`    // PI integral time (s)
	K     *float64 `json:"K,omitempty"`     // viscous friction (N·m·s/rad)
	M     *float64 `json:"m,omitempty"`     // mass (kg)
	R     *float64 `json:"r,omitempty"`     // wheel radius (m)
	B     *float64 `json:"b,omitempty"`     // axle length (m)
	D     *float64 `json:"d,omitempty"`     // distance A–C (m)
	I0    *float64 `json:"I0,omitempty"`    // wheel and rotor inertia (kg·m²)
	IA    *float64 `json:"IA,omitempty"`    // robot inertia about A (kg·m²)
	KA    *float64 `json:"KA,omitempty"`    // armature gain (A/V)
	KM    *float64 `json:"KM,omitempty"`    // torque constant (N·m/A)
	TA    *float64 `json:"TA,omitempty"`    // armature time constant (s)
	TM    *float64 `json:"TM,omitempty"`    // mechanical time constant (s)
	H     *float64 `json:"h,omitempty"`     // internal control step (s), Ts/h whole
}

// Experimental holds the keys of the experimental form (§2.2, §3.2), per
// channel v and w: the delay as whole samples plus a first-order lag of time
// constant tau (the fractional part), and the threshold at zero velocity
// thr0 + thr1·|slope| (Fig. 6).
type Experimental struct {
	DelayV *int     `json:"delay_v,omitempty"`
	DelayW *int     `json:"delay_w,omitempty"`
	TauV   *float64 `json:"tau_v,omitempty"`
	TauW   *float64 `json:"tau_w,omitempty"`
	Thr0V  *float64 `json:"thr0_v,omitempty"` // m/s
	Thr1V  *float64 `json:"thr1_v,omitempty"` // s (m/s per m/s²)
	Thr0W  *float64 `json:"thr0_w,omitempty"` // rad/s
	Thr1W  *float64 `json:"thr1_w,omitempty"` // s
}

func fp(v float64) *float64 { return &v }
func ip(v int) *int         { return &v }

// Default returns the defaults of a form: Tables 1–2 in SI units, the PI of
// §3.1 (K_R = 11996, T_I = 4.58 s) and its 300-ms delay for the physical form;
// the delays of §2.2 (250 ms = 2 samples + 50 ms, 270 ms = 2 + 70 ms) for the
// experimental one. The limits are the Pioneer 3DX firmware's defaults
// (0.75 m/s, 100 °/s, 0.3 m/s², 100 °/s²); the paper does not list its own.
func Default(form string) Params {
	p := Params{Model: "pioneer", Form: form, Ts: 0.1, Vmax: 0.75, Wmax: 100 * math.Pi / 180,
		AccV: 0.3, DecV: 0.3, AccW: 100 * math.Pi / 180, DecW: 100 * math.Pi / 180}
	if form == FormPhysical {
		p.Physical = Physical{Delay: ip(3), Phi: fp(0), KR: fp(11996), TI: fp(4.58), K: fp(35e-7),
			M: fp(28.05), R: fp(0.095), B: fp(0.320), D: fp(0.0578), I0: fp(9.24e-2 * 1e-6), IA: fp(175e3 * 1e-6),
			KA: fp(0.013), KM: fp(0.029), TA: fp(1.1e-3), TM: fp(8.5e-3), H: fp(0.005)}
	} else {
		p.Experimental = Experimental{DelayV: ip(2), DelayW: ip(2), TauV: fp(0.05), TauW: fp(0.07),
			Thr0V: fp(0.01), Thr1V: fp(0.05), Thr0W: fp(0.02), Thr1W: fp(0.05)}
	}
	return p
}

// keysOf lists the JSON keys of a struct's fields.
func keysOf(v any) []string {
	b, _ := json.Marshal(v)
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m)
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

var (
	physicalKeys     = keysOf(Default(FormPhysical).Physical)
	experimentalKeys = keysOf(Default(FormExperimental).Experimental)
)

// ReadParams reads a parameter file: "form" selects the defaults, the
// file's keys override them. A missing or unknown form, a key of the other
// form, an unknown key or a value out of range is an error naming the file,
// the line and the key.
//
// warnings are legal but unusual values, each "key: why", as the other
// models report them; this model has none so far (nil).
func ReadParams(path string) (p Params, warnings []string, err error) {
	b, err := dataset.ReadAll(path, dataset.MaxJSONBytes)
	if err != nil {
		return Params{}, nil, err
	}
	p, err = DecodeParams(b, path)
	return p, nil, err
}

// DecodeParams is ReadParams on bytes already read.
func DecodeParams(b []byte, file string) (Params, error) {
	var probe struct {
		Model *string `json:"model"`
		Form  *string `json:"form"`
	}
	if err := dataset.DecodeJSON(b, file, &probe, false); err != nil {
		return Params{}, err
	}
	keyErr := func(key, format string, a ...any) error {
		e := &dataset.JSONError{File: file, Key: key, Err: fmt.Errorf(format, a...)}
		if i := bytes.Index(b, []byte(`"`+key+`"`)); i >= 0 {
			e.Line, e.Column = 1+bytes.Count(b[:i], []byte("\n")), i-bytes.LastIndexByte(b[:i], '\n')
		}
		return e
	}
	if probe.Model != nil && *probe.Model != "pioneer" {
		return Params{}, keyErr("model", "%q: this file is for model pioneer", *probe.Model)
	}
	if probe.Form == nil {
		return Params{}, &dataset.JSONError{File: file, Key: "form", Err: errors.New(`missing: "form" must be "physical" or "experimental"`)}
	}
	form := *probe.Form
	if form != FormPhysical && form != FormExperimental {
		return Params{}, keyErr("form", "%q: want \"physical\" or \"experimental\"", form)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Params{}, &dataset.JSONError{File: file, Err: err}
	}
	other, otherForm := experimentalKeys, FormExperimental
	if form == FormExperimental {
		other, otherForm = physicalKeys, FormPhysical
	}
	for k := range raw {
		if slices.Contains(other, k) {
			return Params{}, keyErr(k, "a key of the %s form in a %s file", otherForm, form)
		}
	}
	p := Default(form)
	if err := dataset.DecodeJSON(b, file, &p, true); err != nil {
		return Params{}, err
	}
	if err := p.Validate(); err != nil {
		var ke *keyError
		if errors.As(err, &ke) {
			return Params{}, keyErr(ke.key, "%s", ke.msg)
		}
		return Params{}, fmt.Errorf("%s: %w", file, err)
	}
	return p, nil
}

type keyError struct{ key, msg string }

func (e *keyError) Error() string { return fmt.Sprintf("key %q: %s", e.key, e.msg) }

// Validate checks the form and the ranges; the error names the key.
func (p Params) Validate() error {
	if p.Form != FormPhysical && p.Form != FormExperimental {
		return &keyError{"form", fmt.Sprintf("%q: want \"physical\" or \"experimental\"", p.Form)}
	}
	pos := func(key string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return &keyError{key, fmt.Sprintf("%v: want a finite value > 0", v)}
		}
		return nil
	}
	type kv struct {
		k string
		v float64
	}
	checks := []kv{{"Ts", p.Ts}, {"vmax", p.Vmax}, {"wmax", p.Wmax}, {"acc_v", p.AccV}, {"dec_v", p.DecV}, {"acc_w", p.AccW}, {"dec_w", p.DecW}}
	delay := func(key string, d *int) error {
		if d == nil || *d < 0 || *d > 50 {
			return &keyError{key, "want a whole number of samples in [0, 50]"}
		}
		return nil
	}
	if p.Form == FormPhysical {
		q := p.Physical
		for _, c := range []struct {
			k string
			v *float64
		}{{"KR", q.KR}, {"TI", q.TI}, {"m", q.M}, {"r", q.R}, {"b", q.B}, {"I0", q.I0}, {"IA", q.IA},
			{"KA", q.KA}, {"KM", q.KM}, {"TA", q.TA}, {"TM", q.TM}, {"h", q.H}} {
			if c.v == nil {
				return &keyError{c.k, "missing"}
			}
			checks = append(checks, kv{c.k, *c.v})
		}
		for _, c := range checks {
			if err := pos(c.k, c.v); err != nil {
				return err
			}
		}
		if err := delay("delay", q.Delay); err != nil {
			return err
		}
		for _, c := range []struct {
			k string
			v *float64
		}{{"K", q.K}, {"d", q.D}} {
			if c.v == nil || !(*c.v >= 0) || math.IsInf(*c.v, 0) {
				return &keyError{c.k, "want a finite value ≥ 0"}
			}
		}
		if q.Phi == nil || !(*q.Phi >= 0 && *q.Phi <= p.Ts) {
			return &keyError{"phi", fmt.Sprintf("want a value in [0, Ts = %g] s", p.Ts)}
		}
		n := p.Ts / *q.H
		if math.Abs(n-math.Round(n)) > 1e-6*n || n > 10000 {
			return &keyError{"h", fmt.Sprintf("%g: Ts/h = %g must be a whole number (at most 10000)", *q.H, n)}
		}
		return nil
	}
	q := p.Experimental
	for _, c := range []struct {
		k string
		v *float64
	}{{"tau_v", q.TauV}, {"tau_w", q.TauW}} {
		if c.v == nil {
			return &keyError{c.k, "missing"}
		}
		checks = append(checks, kv{c.k, *c.v})
	}
	for _, c := range checks {
		if err := pos(c.k, c.v); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		k string
		v *int
	}{{"delay_v", q.DelayV}, {"delay_w", q.DelayW}} {
		if err := delay(c.k, c.v); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		k string
		v *float64
	}{{"thr0_v", q.Thr0V}, {"thr1_v", q.Thr1V}, {"thr0_w", q.Thr0W}, {"thr1_w", q.Thr1W}} {
		if c.v == nil || !(*c.v >= 0) || math.IsInf(*c.v, 0) {
			return &keyError{c.k, "want a finite value ≥ 0"}
		}
	}
	return nil
}

// Step is the step-language model of p's form.
func (p Params) Step() *dyn.Model {
	if p.Form == FormPhysical {
		return PhysicalStep
	}
	return ExperimentalStep
}

// vector is the parameter vector of the form's dyn model (names in
// PhysicalParamNames or ExperimentalParamNames).
func (p Params) vector() []float64 {
	if p.Form == FormPhysical {
		q := p.Physical
		return []float64{p.Vmax, p.Wmax, p.AccV, p.DecV, p.AccW, p.DecW, *q.Phi, *q.KR, *q.TI, *q.K,
			*q.M, *q.R, *q.B, *q.D, *q.I0, *q.IA, *q.KA, *q.KM, *q.TA, *q.TM}
	}
	q := p.Experimental
	return []float64{p.Vmax, p.AccV, p.DecV, *q.TauV, *q.Thr0V, *q.Thr1V, p.Wmax, p.AccW, p.DecW, *q.TauW, *q.Thr0W, *q.Thr1W}
}

// withVector returns a copy of p with the values of x (as vector's).
func (p Params) withVector(x []float64) Params {
	c := p.clone()
	if p.Form == FormPhysical {
		q := &c.Physical
		c.Vmax, c.Wmax, c.AccV, c.DecV, c.AccW, c.DecW = x[0], x[1], x[2], x[3], x[4], x[5]
		*q.Phi, *q.KR, *q.TI, *q.K = x[6], x[7], x[8], x[9]
		*q.M, *q.R, *q.B, *q.D, *q.I0, *q.IA, *q.KA, *q.KM, *q.TA, *q.TM = x[10], x[11], x[12], x[13], x[14], x[15], x[16], x[17], x[18], x[19]
		return c
	}
	q := &c.Experimental
	c.Vmax, c.AccV, c.DecV, *q.TauV, *q.Thr0V, *q.Thr1V = x[0], x[1], x[2], x[3], x[4], x[5]
	c.Wmax, c.AccW, c.DecW, *q.TauW, *q.Thr0W, *q.Thr1W = x[6], x[7], x[8], x[9], x[10], x[11]
	return c
}

// clone copies the pointed-to values too.
func (p Params) clone() Params {
	c := p
	cf := func(v *float64) *float64 {
		if v == nil {
			return nil
		}
		return fp(*v)
	}
	ci := func(v *int) *int {
		if v == nil {
			return nil
		}
		return ip(*v)
	}
	q := &c.Physical
	q.Delay, q.Phi, q.KR, q.TI, q.K, q.M, q.R, q.B, q.D = ci(q.Delay), cf(q.Phi), cf(q.KR), cf(q.TI), cf(q.K), cf(q.M), cf(q.R), cf(q.B), cf(q.D)
	q.I0, q.IA, q.KA, q.KM, q.TA, q.TM, q.H = cf(q.I0), cf(q.IA), cf(q.KA), cf(q.KM), cf(q.TA), cf(q.TM), cf(q.H)
	e := &c.Experimental
	e.DelayV, e.DelayW, e.TauV, e.TauW = ci(e.DelayV), ci(e.DelayW), cf(e.TauV), cf(e.TauW)
	e.Thr0V, e.Thr1V, e.Thr0W, e.Thr1W = cf(e.Thr0V), cf(e.Thr1V), cf(e.Thr0W), cf(e.Thr1W)
	return c
}

// Substeps is the number of internal steps h per sample (physical form).
func (p Params) Substeps() int {
	if p.Form != FormPhysical {
		return 1
	}
	return int(math.Round(p.Ts / *p.H))
}

// Delays are the whole-sample delays of the v and ω channels (one shared
// delay in the physical form).
func (p Params) Delays() (dv, dw int) {
	if p.Form == FormPhysical {
		return *p.Delay, *p.Delay
	}
	return *p.DelayV, *p.DelayW
}

// DelaySeconds is the total communication delay of each channel that the
// parameters describe: whole samples plus φ (physical) or plus the lag's time
// constant (experimental: a first-order lag approximates a delay of tau).
func (p Params) DelaySeconds() (dv, dw float64) {
	a, b := p.Delays()
	if p.Form == FormPhysical {
		return float64(a)*p.Ts + *p.Phi, float64(b)*p.Ts + *p.Phi
	}
	return float64(a)*p.Ts + *p.TauV, float64(b)*p.Ts + *p.TauW
}
