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

// Validate checks the parameters for physical sense.
func (p Params) Validate() error {
	if p.Model != "" && p.Model != "mecanum" {
		return fmt.Errorf("model %q is not mecanum", p.Model)
	}
	if p.Friction == nil && len(p.Mu) != 4 {
		return fmt.Errorf("mu has %d values, want 4", len(p.Mu))
	}
	if p.Mu != nil && len(p.Mu) != 4 {
		return fmt.Errorf("mu has %d values, want 4", len(p.Mu))
	}
	for j, m := range p.Mu {
		if math.IsNaN(m) || math.IsInf(m, 0) {
			return fmt.Errorf("mu[%d] = %v is not finite", j, m)
		}
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"M", p.M}, {"g", p.G}, {"r", p.R}, {"Ts", p.Ts}, {"lab", p.Lab}} {
		if !(c.v > 0) || math.IsInf(c.v, 0) {
			return fmt.Errorf("%s = %v must be positive and finite", c.name, c.v)
		}
	}
	if p.MuBounds != nil {
		if len(p.MuBounds) != 2 || !(p.MuBounds[0] < p.MuBounds[1]) ||
			math.IsInf(p.MuBounds[0], 0) || math.IsInf(p.MuBounds[1], 0) {
			return fmt.Errorf("mu_bounds %v must be two finite numbers lo < hi", p.MuBounds)
		}
	}
	if p.Friction != nil {
		if err := p.Friction.Validate(); err != nil {
			return fmt.Errorf("friction_net: %w", err)
		}
	}
	return nil
}

// Bounds returns identify's box for each μ_j: mu_bounds when given, else
// [0, 2] (§VII-A).
func (p Params) Bounds() (lo, hi float64) {
	if len(p.MuBounds) == 2 {
		return p.MuBounds[0], p.MuBounds[1]
	}
	return 0, 2
}

// ReadParams reads a parameter file: keys it lacks keep their defaults
// (FORMATS.md), unknown keys are errors, and the result is validated. With
// needMu (simulate) the file must give mu or friction_net; otherwise (identify's
// -init) a missing mu starts from the default. Errors name the file (and the
// line and column of a syntax error).
func ReadParams(path string, needMu bool) (Params, error) {
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
