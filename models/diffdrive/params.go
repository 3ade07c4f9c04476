package diffdrive

import (
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Params are the constants of the model, with the JSON keys of FORMATS.md.
// C1, C2 map the joystick to motor inputs (eq. 21); Alpha, Beta, Gamma are the
// input gain and the velocity- and current-induced losses of the motor (eq.
// 13); Mu is the maximum Coulomb friction acceleration (eq. 4). L (axle
// length, eq. 19) and H (time step) are known, not calibrated.
type Params struct {
	Model string  `json:"model"`
	C1    float64 `json:"c1"`
	C2    float64 `json:"c2"`
	Alpha float64 `json:"alpha"`
	Beta  float64 `json:"beta"`
	Gamma float64 `json:"gamma"`
	Mu    float64 `json:"mu"`
	L     float64 `json:"l"`
	H     float64 `json:"h"`
}

// Default known constants (FORMATS.md).
const (
	DefaultL = 0.55
	DefaultH = 0.06
)

// Paper returns ζ* of Park et al. §III-A, the parameters calibrated on their
// wheelchair, with the default l and h.
func Paper() Params {
	return Params{Model: "diffdrive", C1: 0.4265, C2: 0.006491, Alpha: 0.2315, Beta: 6.548, Gamma: 4.073, Mu: 0.1676, L: DefaultL, H: DefaultH}
}

// Vulcan returns the second, real parameter set of the authors' deployed
// robot software (config/default/robot_model.cfg), which stores the
// steady-state coefficients a = α/β = 0.0245 and g = μγ/β = 0.155 with β =
// 8.5, μ = 0.28, c1 = 0.44, c2 = 0.008, wheel base 0.6028 m, joystick ±100.
func Vulcan() Params {
	return FromSteady(SteadyCoords{C1: 0.44, C2: 0.008, A: 0.0245, Beta: 8.5, G: 0.155, Mu: 0.28}, 0.6028, DefaultH)
}

// Zeta returns the six calibrated parameters ζ = [c1, c2, α, β, γ, μ] in the
// paper's order (§III-A).
func (p Params) Zeta() [6]float64 {
	return [6]float64{p.C1, p.C2, p.Alpha, p.Beta, p.Gamma, p.Mu}
}

// WithZeta returns p with ζ replaced.
func (p Params) WithZeta(z [6]float64) Params {
	p.C1, p.C2, p.Alpha, p.Beta, p.Gamma, p.Mu = z[0], z[1], z[2], z[3], z[4], z[5]
	return p
}

// ZetaNames are the JSON keys of ζ in order.
var ZetaNames = [6]string{"c1", "c2", "alpha", "beta", "gamma", "mu"}

// Validate checks that every constant is finite and positive (the paper's
// "7 positive constants", eq. 2) and that the frictionless motor dynamics
// are stable: the eigenvalues of [[1, h], [−βh, 1−γh]] (eq. 3) must lie inside
// the unit circle, or a rollout diverges whatever the friction. It names the
// key at fault.
func (p Params) Validate() error {
	vals := []struct {
		k string
		v float64
	}{{"c1", p.C1}, {"c2", p.C2}, {"alpha", p.Alpha}, {"beta", p.Beta}, {"gamma", p.Gamma}, {"mu", p.Mu}, {"l", p.L}, {"h", p.H}}
	for _, kv := range vals {
		if math.IsNaN(kv.v) || math.IsInf(kv.v, 0) || kv.v <= 0 {
			return fmt.Errorf("%s = %v: must be a positive finite number", kv.k, kv.v)
		}
	}
	if r := p.SpectralRadius(); r >= 1 {
		return fmt.Errorf("beta = %v, gamma = %v, h = %v: the motor dynamics are unstable (spectral radius %.4g ≥ 1)", p.Beta, p.Gamma, p.H, r)
	}
	return nil
}

// Warnings lists values that are legal but unusual (likely a unit or typing
// mistake), each as "key: why"; Validate has passed.
func (p Params) Warnings() []string {
	var w []string
	if p.C2*100 >= 1 {
		w = append(w, fmt.Sprintf("c2: %g makes the mixing factor 1 − c2·|uf| of eq. 21 negative before |uf| = 100 (the joystick's range)", p.C2))
	}
	if p.H > 0.5 {
		w = append(w, fmt.Sprintf("h: a step of %g s is coarse for the motor dynamics (milliseconds given as seconds?)", p.H))
	}
	if p.L > 5 || p.L < 0.05 {
		w = append(w, fmt.Sprintf("l: an axle of %g m (millimetres given as metres?)", p.L))
	}
	if p.Mu*p.H > 10 {
		w = append(w, fmt.Sprintf("mu: a friction acceleration of %g m/s² stops any wheel within one step", p.Mu))
	}
	return w
}

// SpectralRadius is the largest eigenvalue modulus of the frictionless motor
// matrix [[1, h], [−βh, 1 − γh]] of eq. 3.
func (p Params) SpectralRadius() float64 {
	h := p.H
	tr := 2 - p.Gamma*h
	det := 1 - p.Gamma*h + p.Beta*h*h
	disc := tr*tr/4 - det
	if disc >= 0 {
		s := math.Sqrt(disc)
		return math.Max(math.Abs(tr/2+s), math.Abs(tr/2-s))
	}
	return math.Sqrt(det)
}

// SteadyCoords are the steady-state coordinates of the authors' deployed
// code: above the deadband a wheel's steady speed is v∞ = A·V − G (eq. 17
// with A = α/β, G = μγ/β). Calibrating in them is better conditioned than in
// (α, γ), which are nearly degenerate with β.
type SteadyCoords struct {
	C1, C2, A, Beta, G, Mu float64
}

// Steady returns p in steady-state coordinates.
func (p Params) Steady() SteadyCoords {
	return SteadyCoords{C1: p.C1, C2: p.C2, A: p.Alpha / p.Beta, Beta: p.Beta, G: p.Mu * p.Gamma / p.Beta, Mu: p.Mu}
}

// FromSteady maps steady-state coordinates back to the paper's parameters:
// α = A·β, γ = G·β/μ.
func FromSteady(s SteadyCoords, l, h float64) Params {
	return Params{Model: "diffdrive", C1: s.C1, C2: s.C2, Alpha: s.A * s.Beta, Beta: s.Beta, Gamma: s.G * s.Beta / s.Mu, Mu: s.Mu, L: l, H: h}
}

// ReadParams reads a parameter file strictly over the defaults of Paper:
// the "model" key is required, and with needZeta (simulate, validate,
// follow) so is every key of ζ (ZetaNames), which identify's start may
// leave to the paper's values. A file for another model, an unknown key, a
// key given twice or in another case are errors naming the key; the result
// is validated. warnings are legal but unusual values, each "key: why".
func ReadParams(path string, needZeta bool) (p Params, warnings []string, err error) {
	p = Paper()
	o := dataset.JSONOptions{Strict: true, Model: "diffdrive", Required: []string{"model"}}
	if needZeta {
		o.Required = append(o.Required, ZetaNames[:]...)
	}
	if err := dataset.ReadJSON(path, &p, o); err != nil {
		return p, nil, err
	}
	if p.Model != "diffdrive" {
		return p, nil, fmt.Errorf("%s: key \"model\": %q, want \"diffdrive\"", path, p.Model)
	}
	if err := p.Validate(); err != nil {
		return p, nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, p.Warnings(), nil
}
