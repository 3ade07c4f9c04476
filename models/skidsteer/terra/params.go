package terra

import (
	"fmt"
	"math"
)

// Gravity (m/s²), for the mass W/g.
const Gravity = 9.81

// Vehicle holds the FSU Bot's constants of Ordonez et al. Table 1 and the
// resistance and motor constants the paper leaves to its references (marked
// "assumed" below). Lengths in m, forces in N.
type Vehicle struct {
	W      float64 `json:"W"`       // weight (N)
	B      float64 `json:"B"`       // track width
	L      float64 `json:"L"`       // wheel base
	Pl     float64 `json:"pl"`      // contact patch length
	Bw     float64 `json:"b"`       // contact patch width
	Cx     float64 `json:"Cx"`      // CG offset, lateral (positive to the robot's right)
	Cy     float64 `json:"Cy"`      // CG offset, longitudinal (positive forward)
	H      float64 `json:"h"`       // CG height
	R      float64 `json:"r"`       // tyre radius
	Kt     float64 `json:"Kt"`      // motor torque constant (N·m/A)
	Gr     float64 `json:"gr"`      // gear ratio
	Eta    float64 `json:"eta"`     // drive efficiency
	Re     float64 `json:"Re"`      // electrical resistance per side (Ω), assumed
	Crr    float64 `json:"Crr"`     // rolling and drive-train resistance per unit normal load, assumed
	VRoll  float64 `json:"vroll"`   // speed (m/s) over which the resistance reverses, assumed
	TauMax float64 `json:"tau_max"` // torque limit per side (N·m), §2
}

// FSUBot is Table 1. Re, Crr and VRoll are not in the paper: Re = 0.5 Ω is
// two small DC motors in parallel per side; Crr = 0.05 puts the straight-line
// torque near 0.5 N·m per side, the level Fig. 6 approaches at large radii.
var FSUBot = Vehicle{
	W: 175.52, B: 0.39, L: 0.27, Pl: 0.023, Bw: 0.028, Cx: -0.0014, Cy: 0.0030, H: 0.1208, R: 0.1075,
	Kt: 0.023, Gr: 49.8, Eta: 0.76, Re: 0.5, Crr: 0.05, VRoll: 0.01, TauMax: 4.6,
}

// Surface is the terramechanic surface [μ_o μ_i K] (eq. 5): friction of the
// outer and inner sides and the shear deformation modulus K (m).
type Surface struct {
	MuO float64 `json:"mu_o"`
	MuI float64 `json:"mu_i"`
	K   float64 `json:"K"`
}

// Vinyl is Table 1's surface; Asphalt the parameters the paper maps from the
// network learned on asphalt (§4.3, Scenario 3).
var (
	Vinyl   = Surface{MuO: 0.3119, MuI: 0.2405, K: 0.0004}
	Asphalt = Surface{MuO: 1.209, MuI: 0.795, K: 0.0016}
)

// Validate refuses non-finite or non-positive surface parameters.
func (s Surface) Validate() error {
	for _, f := range []struct {
		n string
		v float64
	}{{"mu_o", s.MuO}, {"mu_i", s.MuI}, {"K", s.K}} {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("surface %s = %g, want a finite value > 0", f.n, f.v)
		}
	}
	if s.MuO > 5 || s.MuI > 5 || s.K > 1 {
		return fmt.Errorf("surface [mu_o mu_i K] = [%g %g %g] out of range (mu ≤ 5, K ≤ 1 m)", s.MuO, s.MuI, s.K)
	}
	return nil
}

// Validate refuses vehicle constants that make the model meaningless.
func (v Vehicle) Validate() error {
	pos := []struct {
		n string
		v float64
	}{{"W", v.W}, {"B", v.B}, {"L", v.L}, {"pl", v.Pl}, {"b", v.Bw}, {"r", v.R}, {"Kt", v.Kt}, {"gr", v.Gr},
		{"eta", v.Eta}, {"vroll", v.VRoll}, {"tau_max", v.TauMax}}
	for _, f := range pos {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("vehicle %s = %g, want a finite value > 0", f.n, f.v)
		}
	}
	for _, f := range []struct {
		n string
		v float64
	}{{"Cx", v.Cx}, {"Cy", v.Cy}, {"h", v.H}, {"Re", v.Re}, {"Crr", v.Crr}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("vehicle %s is not finite", f.n)
		}
	}
	if v.Re < 0 || v.Crr < 0 || v.H < 0 {
		return fmt.Errorf("vehicle Re, Crr and h must be ≥ 0")
	}
	if math.Abs(v.Cx) >= v.B/2 || math.Abs(v.Cy) >= v.L/2 {
		return fmt.Errorf("vehicle CG offset (Cx, Cy) = (%g, %g) outside the wheels", v.Cx, v.Cy)
	}
	if v.Eta > 1 {
		return fmt.Errorf("vehicle eta = %g > 1", v.Eta)
	}
	return nil
}

// WithPayload returns the vehicle carrying an extra mass (kg) at its CG.
func (v Vehicle) WithPayload(kg float64) Vehicle {
	v.W += kg * Gravity
	return v
}
