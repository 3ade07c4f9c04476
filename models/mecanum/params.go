package mecanum

import (
	"errors"
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Params are the physical parameters of the robot, with the JSON keys of
// FORMATS.md. Only Mu is unknown to identification; the others are known
// constants (defaults: the paper's values, §V).
type Params struct {
	Model string `json:"model"`
	// Mu are the wheel friction coefficients μ_1..μ_4 of eq. 3.
	Mu []float64 `json:"mu"`
	// MuBounds optionally replaces identify's box [0, 2] for every μ_j.
	MuBounds []float64 `json:"mu_bounds,omitempty"`
	M        float64   `json:"M"`   // robot mass (kg)
	G        float64   `json:"g"`   // gravity (m/s²)
	R        float64   `json:"r"`   // wheel radius (m)
	Ts       float64   `json:"Ts"`  // motor stall torque (N·m)
	Lab      float64   `json:"lab"` // l_a + l_b (m)
	// Friction, when present, gives μ as a function of the commanded wheel
	// speeds (§VI, end) and takes the place of Mu in Simulate.
	Friction *FrictionNet `json:"friction_net,omitempty"`
	// CommandMap, when present, maps a log's channels (e.g. raw PWM) to the
	// commanded wheel speeds w1..w4 (order, sign, scale): read by the
	// command line, not by the model.
	CommandMap *dataset.CommandMap `json:"command_map,omitempty"`
	// Tau (s), when positive, is a first-order lag of each wheel's speed
	// behind its command, from rest at each run's first row (Run.Lagged):
	// Simulate drives the model with the lagged speeds. Absent or 0 (the
	// default): the commands act at once, as in Luo et al.
	Tau float64 `json:"tau,omitempty"`
}

// DefaultParams are the paper's constants (§V: M = 4, g = 9.8, r = 0.03,
// Ts = 0.6) with l_a + l_b = 0.2 m and μ = 0.5 on every wheel.
func DefaultParams() Params {
	return Params{Model: "mecanum", Mu: []float64{0.5, 0.5, 0.5, 0.5}, M: 4, G: 9.8, R: 0.03, Ts: 0.6, Lab: 0.2}
}

// K is the friction gain of eq. 3, ω = ω_s·(1 − K·μ) with K = M·g·r/(4·Ts).
// With the defaults K = 0.49, so that μ = 2 nearly stops a wheel (§VII-A).
func (p Params) K() float64 { return p.M * p.G * p.R / (4 * p.Ts) }

// BMatrix is the Uranus matrix of eq. 4 mapping wheel speeds to body
// velocities (v_x lateral, v_y forward, ω_z).
func (p Params) BMatrix() [3][4]float64 {
	c := p.R / (4 * p.Lab)
	l := p.Lab
	return [3][4]float64{
		{-c * l, c * l, -c * l, c * l},
		{c * l, c * l, c * l, c * l},
		{c, -c, -c, c},
	}
}

// Commands are the command columns of a mecanum log.
var Commands = []string{"w1", "w2", "w3", "w4"}

// NullVector is n = (1, 1, −1, −1), the null vector of B (eq. 4): wheel
// speeds changing along n move the robot not at all.
var NullVector = [4]float64{1, 1, -1, -1}

// ParamError is a parameter out of its physical range; Key is the JSON key.
type ParamError struct {
	Key string
	Msg string
}

func (e *ParamError) Error() string { return fmt.Sprintf("key %q: %s", e.Key, e.Msg) }

func paramErr(key, format string, a ...any) error {
	return &ParamError{Key: key, Msg: fmt.Sprintf(format, a...)}
}

// Validate checks the parameters for physical sense: M, g, r, Ts, lab
// positive and finite, every μ_j ≥ 0, and the friction factor of eq. 3,
// 1 − μ_j·M·g·r/(4·Ts), positive for every μ_j and for mu_bounds' upper end
// (at or below zero the model's wheel stops or turns against its command).
// Errors are *ParamError, naming the key.
func (p Params) Validate() error {
	if p.Model != "" && p.Model != "mecanum" {
		return paramErr("model", "%q is not mecanum", p.Model)
	}
	if p.Friction == nil && len(p.Mu) != 4 {
		return paramErr("mu", "%d values, want 4", len(p.Mu))
	}
	if p.Mu != nil && len(p.Mu) != 4 {
		return paramErr("mu", "%d values, want 4", len(p.Mu))
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"M", p.M}, {"g", p.G}, {"r", p.R}, {"Ts", p.Ts}, {"lab", p.Lab}} {
		if !(c.v > 0) || math.IsInf(c.v, 0) {
			return paramErr(c.name, "%v must be positive and finite", c.v)
		}
	}
	if math.IsNaN(p.Tau) || p.Tau < 0 || p.Tau > MaxTau {
		return paramErr("tau", "%v must be in [0, %g] s", p.Tau, MaxTau)
	}
	K := p.K()
	if math.IsInf(K, 0) {
		return paramErr("Ts", "%v: the friction gain M·g·r/(4·Ts) overflows", p.Ts)
	}
	for j, m := range p.Mu {
		if math.IsNaN(m) || math.IsInf(m, 0) {
			return paramErr("mu", "mu[%d] = %v is not finite", j, m)
		}
		if m < 0 {
			return paramErr("mu", "mu[%d] = %v: a friction coefficient must be ≥ 0", j, m)
		}
		if f := 1 - m*K; !(f > 0) {
			return paramErr("mu", "mu[%d] = %v: the friction factor 1 − μ·M·g·r/(4·Ts) = %.4g is not positive (the wheel would stop or turn against its command); μ must stay below 4·Ts/(M·g·r) = %.4g", j, m, f, 1/K)
		}
	}
	if p.MuBounds != nil {
		if len(p.MuBounds) != 2 || !(p.MuBounds[0] < p.MuBounds[1]) ||
			math.IsInf(p.MuBounds[0], 0) || math.IsInf(p.MuBounds[1], 0) {
			return paramErr("mu_bounds", "%v must be two finite numbers lo < hi", p.MuBounds)
		}
		if p.MuBounds[0] < 0 {
			return paramErr("mu_bounds", "lower bound %v: μ must be ≥ 0", p.MuBounds[0])
		}
		if f := 1 - p.MuBounds[1]*K; !(f > 0) {
			return paramErr("mu_bounds", "upper bound %v: the friction factor 1 − μ·M·g·r/(4·Ts) = %.4g is not positive there; keep it below 4·Ts/(M·g·r) = %.4g", p.MuBounds[1], f, 1/K)
		}
	}
	if p.Friction != nil {
		if err := p.Friction.Validate(); err != nil {
			return paramErr("friction_net", "%v", err)
		}
	}
	return nil
}

// Warnings lists values that are legal but unusual (likely a unit or typing
// mistake), each as "key: why"; Validate has passed.
func (p Params) Warnings() []string {
	var w []string
	K := p.K()
	for j, m := range p.Mu {
		if f := 1 - m*K; f < 0.05 {
			w = append(w, fmt.Sprintf("mu: mu[%d] = %g leaves a friction factor 1 − μ·M·g·r/(4·Ts) of %.3g: the wheel nearly stops", j, m, f))
		}
	}
	if p.G < 9.7 || p.G > 9.9 {
		w = append(w, fmt.Sprintf("g: %g m/s² is not the Earth's gravity (9.78–9.83)", p.G))
	}
	if p.M > 1000 {
		w = append(w, fmt.Sprintf("M: %g kg is heavy for a Mecanum robot (grams given as kilograms?)", p.M))
	}
	if p.R > 1 {
		w = append(w, fmt.Sprintf("r: a wheel radius of %g m (millimetres given as metres?)", p.R))
	}
	if p.Lab > 10 {
		w = append(w, fmt.Sprintf("lab: l_a + l_b = %g m (millimetres given as metres?)", p.Lab))
	}
	if p.R > 0 && p.Lab < p.R/10 {
		w = append(w, fmt.Sprintf("lab: l_a + l_b = %g m is tiny beside the wheel radius %g m", p.Lab, p.R))
	}
	return w
}

// Bounds returns identify's box for each μ_j: mu_bounds when given, else
// [0, 2] (§VII-A), its upper end lowered where needed so that the friction
// factor 1 − μ·K stays at least 0.01 (with the paper's constants K = 0.49
// and 2 is kept).
func (p Params) Bounds() (lo, hi float64) {
	if len(p.MuBounds) == 2 {
		return p.MuBounds[0], p.MuBounds[1]
	}
	hi = 2
	if K := p.K(); K > 0 && 2*K > 0.99 {
		hi = 0.99 / K
	}
	return 0, hi
}

// ReadParams reads a parameter file: keys it lacks keep their defaults
// (FORMATS.md), unknown keys are errors, and the result is validated. With
// needMu (simulate) the file must give mu or friction_net; otherwise (identify's
// -init) a missing mu starts from the default. Another model's file is
// reported by its "model" key, not by the first of its keys this model does
// not know. Errors name the file (and the line and column of a syntax
// error). warnings are legal but unusual values, each "key: why".
func ReadParams(path string, needMu bool) (p Params, warnings []string, err error) {
	p, err = readParams(path, needMu)
	if err != nil {
		return p, nil, err
	}
	return p, p.Warnings(), nil
}

func readParams(path string, needMu bool) (Params, error) {
	var m struct {
		Model string `json:"model"`
	}
	if err := dataset.ReadJSON(path, &m, dataset.JSONOptions{Model: "mecanum"}); err != nil {
		return Params{}, err
	}
	p := DefaultParams()
	p.Mu = nil
	if err := dataset.ReadJSONFile(path, &p, true); err != nil {
		return Params{}, err
	}
	if p.Mu == nil && p.Friction == nil {
		if needMu {
			return Params{}, &dataset.JSONError{File: path, Key: "mu", Err: errors.New("missing: the file must give mu (four friction coefficients) or friction_net")}
		}
		p.Mu = DefaultParams().Mu
	}
	if err := p.Validate(); err != nil {
		var pe *ParamError
		if errors.As(err, &pe) {
			return Params{}, &dataset.JSONError{File: path, Key: pe.Key, Err: errors.New(pe.Msg)}
		}
		return Params{}, &dataset.JSONError{File: path, Err: err}
	}
	if p.CommandMap != nil {
		if err := p.CommandMap.Check(Commands); err != nil {
			return Params{}, &dataset.JSONError{File: path, Key: "command_map", Err: err}
		}
	}
	if p.Model == "" {
		p.Model = "mecanum"
	}
	return p, nil
}
