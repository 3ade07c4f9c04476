package skidsteer

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// NumCoeffs is the number of slip coefficients a11..a33 (eq. 3).
const NumCoeffs = 9

// Params is the FORMATS.md parameter file of model skidsteer:
// {"model": "skidsteer", "a": [[a11,a12,a13],[a21,a22,a23],[a31,a32,a33]]}.
// The zero value is the nominal (no-slip) model. Cov, when present, is the
// 9×9 covariance of the coefficients (row-major over a11..a33) that identify
// reports; it is optional on input and ignored by Simulate.
type Params struct {
	Model string         `json:"model"`
	A     [3][3]float64  `json:"a"`
	Cov   *[9][9]float64 `json:"cov,omitempty"`
	Std   *[3][3]float64 `json:"std,omitempty"`
	// R (wheel radius, m) and Track (track width, m) convert a log in
	// wheel-speed form (wl, wr in rad/s) to vc = R·(wl+wr)/2,
	// wc = R·(wr−wl)/Track; needed only for such logs.
	R     float64 `json:"r,omitempty"`
	Track float64 `json:"track,omitempty"`
	// Tau (s) and Delay (s) are the input dynamics of a log predicted
	// from commanded wheel speeds wl_cmd, wr_cmd (LagModel): each side's
	// wheel speed follows its command through a first-order lag of time
	// constant Tau after a dead time Delay. Both 0 (absent): the model is
	// driven by the speeds as given, with no input dynamics.
	Tau   float64 `json:"tau,omitempty"`
	Delay float64 `json:"delay,omitempty"`
	// TauStd and DelayStd are their standard deviations, as identified.
	TauStd   float64 `json:"tau_std,omitempty"`
	DelayStd float64 `json:"delay_std,omitempty"`
	// Inputs is "commanded" when the parameters were identified from the
	// commanded wheel speeds wl_cmd, wr_cmd through the lag (identify
	// -inputs commanded): simulate and validate then predict from those
	// columns (PredictCommanded). "" or "measured": from the measured
	// speeds (vc, wc or wl, wr), Tau and Delay unused.
	Inputs string `json:"inputs,omitempty"`
	// CommandMap maps a log's channels to the commands (vc, wc, or wl, wr
	// for a wheel-speed log); read by the command line.
	CommandMap *dataset.CommandMap `json:"command_map,omitempty"`
	// Surface and Vehicle are the optional terramechanic keys of `wheelgrad
	// plan` (package terra); the kinematics ignore them and keep them as read.
	Surface json.RawMessage `json:"surface,omitempty"`
	Vehicle json.RawMessage `json:"vehicle,omitempty"`
}

// Validate checks the model name and that every coefficient is finite.
func (p Params) Validate() error {
	if p.Model != "" && p.Model != "skidsteer" {
		return fmt.Errorf("model is %q, want \"skidsteer\"", p.Model)
	}
	if math.IsNaN(p.R) || math.IsInf(p.R, 0) || p.R < 0 || math.IsNaN(p.Track) || math.IsInf(p.Track, 0) || p.Track < 0 {
		return fmt.Errorf("r = %v and track = %v must be finite and ≥ 0 (0: not given)", p.R, p.Track)
	}
	if p.Inputs != "" && p.Inputs != InputsMeasured && p.Inputs != InputsCommanded {
		return fmt.Errorf("inputs is %q, want %q or %q", p.Inputs, InputsMeasured, InputsCommanded)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"tau", p.Tau}, {"delay", p.Delay}, {"tau_std", p.TauStd}, {"delay_std", p.DelayStd}} {
		if math.IsNaN(c.v) || math.IsInf(c.v, 0) || c.v < 0 {
			return fmt.Errorf("%s = %v must be finite and ≥ 0 (s)", c.name, c.v)
		}
	}
	for i, v := range p.Coeffs() {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("a%d%d is not finite", i/3+1, i%3+1)
		}
		if math.Abs(v) > 10 {
			// A slip coefficient of 10 means the robot moves 11 times faster
			// than commanded: surely a unit or sign mistake.
			return fmt.Errorf("a%d%d = %g is out of range [-10, 10]", i/3+1, i%3+1, v)
		}
	}
	// At straight driving forward = (1 + a11)·vc and in place yaw rate =
	// (1 + a32)·wc: at or below zero the robot moves against its command.
	if 1+p.A[0][0] <= 0 {
		return fmt.Errorf("a11 = %g: the forward speed (1 + a11)·vc would oppose the command (want a11 > −1)", p.A[0][0])
	}
	if 1+p.A[2][1] <= 0 {
		return fmt.Errorf("a32 = %g: the yaw rate (1 + a32)·wc would oppose the command (want a32 > −1)", p.A[2][1])
	}
	return nil
}

// Warnings lists coefficients that are legal but unusual, each as "key:
// why"; Validate has passed. Slip of more than 100 % of the command (a
// linear coefficient beyond ±1) is seldom seen on real ground.
func (p Params) Warnings() []string {
	var w []string
	for i, v := range p.Coeffs() {
		if i%3 != 2 && math.Abs(v) > 1 {
			w = append(w, fmt.Sprintf("a: a%d%d = %g is a slip of more than 100 %% of the command", i/3+1, i%3+1, v))
		}
	}
	return w
}

// The values of Params.Inputs.
const (
	InputsMeasured  = "measured"
	InputsCommanded = "commanded"
)

// FromCommands reports whether p predicts from the commanded wheel speeds
// (Inputs is "commanded").
func (p Params) FromCommands() bool { return p.Inputs == InputsCommanded }

// Coeffs returns a11, a12, a13, a21, …, a33.
func (p Params) Coeffs() []float64 {
	c := make([]float64, 0, NumCoeffs)
	for i := range 3 {
		c = append(c, p.A[i][:]...)
	}
	return c
}

// FromCoeffs is the inverse of Coeffs.
func FromCoeffs(c []float64) Params {
	p := Params{Model: "skidsteer"}
	for i := range NumCoeffs {
		p.A[i/3][i%3] = c[i]
	}
	return p
}

// CoeffNames are the coefficients in the order of Coeffs.
var CoeffNames = [NumCoeffs]string{"a11", "a12", "a13", "a21", "a22", "a23", "a31", "a32", "a33"}

// Surface is one row of Ordonez et al. Table 2.
type Surface struct {
	Name string
	A    [NumCoeffs]float64
}

// Table2 holds the calibrated slip coefficients of Ordonez et al. Table 2
// (printed there ×10⁻³).
var Table2 = []Surface{
	{"asphalt", [9]float64{15e-3, -0.4e-3, -10e-3, 7e-3, 15e-3, -7e-3, 5e-3, -405e-3, 119e-3}},
	{"concrete", [9]float64{9e-3, 12e-3, -28e-3, 6e-3, -25e-3, 68e-3, 0.3e-3, -394e-3, 88e-3}},
	{"grass", [9]float64{15e-3, 6.9e-3, -19e-3, 9e-3, 9.4e-3, 14e-3, 0.01e-3, -337e-3, 33e-3}},
}

// SurfaceByName returns the Table 2 row of the named surface.
func SurfaceByName(name string) (Surface, error) {
	for _, s := range Table2 {
		if s.Name == name {
			return s, nil
		}
	}
	return Surface{}, errors.New("unknown surface " + name)
}
