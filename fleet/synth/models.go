package synth

import (
	"math"
	"math/rand/v2"
)

// spec is what the generator needs to know of one model beyond the robots
// registry: the inputs it is driven by and the outputs its logs carry. All
// model-specific knowledge of the package is in this one table (specs).
type spec struct {
	// init is the smallest parameter file the model's ParamReader reads
	// (robots.ForStart) as its nominal start; the registry fills in the
	// rest, and that nominal start is every robot's init file.
	init string
	// centre overrides nominal values as the centre of the robots' true
	// parameters (a model whose nominal start is the ideal, slip-free
	// robot); JSON key → value as the parameter file holds it.
	centre map[string]any
	// params are the parameters identify reports (fit.Param.Name), where
	// the parameter file holds them, and how far robots spread around the
	// centre (relative, drawn uniformly in ±[spreadLo, spreadHi]; an
	// absolute spread abs for coefficients near zero).
	params []param
	// dt (s) is the log's row period, seconds its length.
	dt, seconds float64
	// commands are the logged inputs; piecewise constant over holds of
	// holdLo..holdHi seconds, uniform in [lo, hi], zero with probability
	// zero.
	commands []command
	// outputs are the columns of the simulated CSV the log keeps, with
	// their sensor noise σ and the rows that carry them (every every-th;
	// the other cells empty).
	outputs []output
	// actuator is the relative σ of the difference between a logged
	// command and what drove the simulation (per row, times the command's
	// range): the model mismatch of a real log.
	actuator float64
	// jitter (s, σ) of the logged clock around the true sample times.
	jitter float64
	// drifts are what can happen to a robot of this model from a day on.
	drifts []drift
	// sigmaScale is how much the fit's σ understates its error on these
	// logs (1: not at all or overstates it), measured: the RMS of
	// (identified − true)/σ over the 40 × 5 fleet of seed 1.
	sigmaScale float64
}

type param struct {
	name string // as identify reports it
	key  string // JSON key of the parameter file
	idx  []int  // index into an array value (nil: a number)
	// spread: the robot's value is centre·(1 ± U(lo, hi)), or centre ±
	// U(lo, hi)·abs when abs > 0.
	lo, hi, abs float64
	// wobble is the day-to-day relative (or absolute, with abs) σ of a
	// steady robot: well below the fit's σ.
	wobble float64
}

type command struct {
	name           string
	lo, hi         float64
	holdLo, holdHi float64
	zero           float64
	// lag (s) smooths the steps as a motor following its set-point
	// through a first-order lag (0: steps).
	lag float64
}

type output struct {
	name  string
	noise float64
	every int
}

// drift is a physical change from a day on: the parameters it moves
// (identify's names) and their relative (or, with abs, absolute) change.
type drift struct {
	kind   string
	params []string
	rel    float64
	abs    float64
}

// specs is the model table. Models left out of the default list are
// named in DefaultModels' comment with the reason.
var specs = map[string]*spec{
	// Luo et al.: four wheel frictions μ_j from a 240-Hz command log and a
	// 60-Hz camera (σ = 3 mm, 3 mrad), as the paper's §VII-A.
	"mecanum": {
		init: `{"model":"mecanum","mu":[0.5,0.5,0.5,0.5]}`,
		params: []param{
			{name: "mu1", key: "mu", idx: []int{0}, lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "mu2", key: "mu", idx: []int{1}, lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "mu3", key: "mu", idx: []int{2}, lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "mu4", key: "mu", idx: []int{3}, lo: 0.05, hi: 0.15, wobble: 0.001},
		},
		dt: 1.0 / 240, seconds: 8,
		commands: []command{
			{name: "w1", lo: -15, hi: 15, holdLo: 0.5, holdHi: 1.5},
			{name: "w2", lo: -15, hi: 15, holdLo: 0.5, holdHi: 1.5},
			{name: "w3", lo: -15, hi: 15, holdLo: 0.5, holdHi: 1.5},
			{name: "w4", lo: -15, hi: 15, holdLo: 0.5, holdHi: 1.5},
		},
		outputs:  []output{{"x", 0.003, 4}, {"y", 0.003, 4}, {"theta", 0.003, 4}},
		actuator: 0.01, jitter: 0.0002,
		drifts: []drift{
			{kind: "worn roller (wheel 2 friction)", params: []string{"mu2"}, rel: 0.3},
			{kind: "payload on the front axle (wheels 1 and 2)", params: []string{"mu1", "mu2"}, rel: 0.25},
		},
		// identify's own summary: "over repeated noise the errors
		// measured 1.4–2× this σ"; here RMS z 2.51 (max 10.7 of 388)
		sigmaScale: 2.5,
	},
	// Park, Lee and Kuipers: the wheelchair's six motor and friction
	// constants from joystick commands and encoder wheel speeds at h.
	"diffdrive": {
		init: `{"model":"diffdrive"}`,
		params: []param{
			{name: "c1", key: "c1", lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "c2", key: "c2", lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "alpha", key: "alpha", lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "beta", key: "beta", lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "gamma", key: "gamma", lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "mu", key: "mu", lo: 0.05, hi: 0.15, wobble: 0.001},
		},
		dt: 0.06, seconds: 300,
		commands: []command{
			{name: "uf", lo: -40, hi: 40, holdLo: 2, holdHi: 8, zero: 0.3},
			{name: "ul", lo: -30, hi: 30, holdLo: 2, holdHi: 8, zero: 0.4},
		},
		outputs:  []output{{"vr", 0.01, 1}, {"vl", 0.01, 1}},
		actuator: 0.005, jitter: 0.001,
		drifts: []drift{
			{kind: "weakening motor (gain alpha)", params: []string{"alpha"}, rel: -0.2},
			{kind: "payload (friction mu)", params: []string{"mu"}, rel: 0.4},
		},
	},
	// Ordonez et al.: slip coefficients about Table 2's asphalt from speed
	// and yaw-rate commands and 10-Hz visual odometry.
	"skidsteer": {
		init:   `{"model":"skidsteer"}`,
		centre: map[string]any{"a": []any{[]any{15e-3, -0.4e-3, -10e-3}, []any{7e-3, 15e-3, -7e-3}, []any{5e-3, -405e-3, 119e-3}}},
		params: []param{
			{name: "a11", key: "a", idx: []int{0, 0}, lo: 0.5, hi: 1.5, abs: 0.01, wobble: 0.01},
			{name: "a12", key: "a", idx: []int{0, 1}, lo: 0.5, hi: 1.5, abs: 0.01, wobble: 0.01},
			{name: "a21", key: "a", idx: []int{1, 0}, lo: 0.5, hi: 1.5, abs: 0.01, wobble: 0.01},
			{name: "a22", key: "a", idx: []int{1, 1}, lo: 0.5, hi: 1.5, abs: 0.01, wobble: 0.01},
			{name: "a31", key: "a", idx: []int{2, 0}, lo: 0.5, hi: 1.5, abs: 0.01, wobble: 0.01},
			{name: "a32", key: "a", idx: []int{2, 1}, lo: 0.05, hi: 0.15, wobble: 0.001},
		},
		dt: 0.05, seconds: 60,
		commands: []command{
			{name: "vc", lo: 0.2, hi: 1.0, holdLo: 2, holdHi: 5},
			{name: "wc", lo: -1, hi: 1, holdLo: 2, holdHi: 5},
		},
		outputs:  []output{{"x", 0.002, 2}, {"y", 0.002, 2}, {"psi", 0.002, 2}},
		actuator: 0.005, jitter: 0.0005,
		drifts: []drift{
			{kind: "tyre wear (forward slip a11)", params: []string{"a11"}, abs: -0.06},
			{kind: "payload (yaw slip a32)", params: []string{"a32"}, rel: 0.25},
		},
		sigmaScale: 1, // RMS z 0.19: the EKF's σ overstates the error
	},
	// Ivanjko et al.: the Pioneer 3DX's experimental form (reference
	// limits, lags, thresholds) from v, w references and odometry at Ts.
	"pioneer": {
		init: `{"model":"pioneer","form":"experimental"}`,
		params: []param{
			{name: "acc_v", key: "acc_v", lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "dec_v", key: "dec_v", lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "tau_v", key: "tau_v", lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "acc_w", key: "acc_w", lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "dec_w", key: "dec_w", lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "tau_w", key: "tau_w", lo: 0.05, hi: 0.15, wobble: 0.001},
		},
		dt: 0.1, seconds: 120,
		commands: []command{
			{name: "v_ref", lo: -0.5, hi: 0.7, holdLo: 1.5, holdHi: 5, zero: 0.2},
			{name: "w_ref", lo: -1.2, hi: 1.2, holdLo: 1.5, holdHi: 5, zero: 0.3},
		},
		outputs:  []output{{"v", 0.005, 1}, {"w", 0.01, 1}},
		actuator: 0.002, jitter: 0.002,
		drifts: []drift{
			{kind: "weakening motor (acceleration acc_v)", params: []string{"acc_v"}, rel: -0.3},
			{kind: "payload (accelerations acc_v, acc_w)", params: []string{"acc_v", "acc_w"}, rel: -0.25},
		},
	},
	// Westerhout et al.: the Jackal's Dugoff tyres (mu, Kx, Ky) from
	// measured wheel speeds and 50-Hz motion capture.
	"tire": {
		init: `{"model":"tire"}`,
		params: []param{
			{name: "mu", key: "mu", lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "Kx", key: "Kx", lo: 0.05, hi: 0.15, wobble: 0.001},
			{name: "Ky", key: "Ky", lo: 0.05, hi: 0.15, wobble: 0.001},
		},
		dt: 0.02, seconds: 20,
		commands: []command{
			{name: "wl", lo: -6, hi: 6, holdLo: 1, holdHi: 3, lag: 0.15},
			{name: "wr", lo: -6, hi: 6, holdLo: 1, holdHi: 3, lag: 0.15},
		},
		outputs:  []output{{"x", 0.002, 1}, {"y", 0.002, 1}, {"psi", 0.005, 1}},
		actuator: 0.002, jitter: 0.0005,
		drifts: []drift{
			{kind: "payload (friction mu)", params: []string{"mu"}, rel: 0.3},
			{kind: "tyre wear (stiffness Kx, Ky)", params: []string{"Kx", "Ky"}, rel: -0.3},
		},
	},
}

// pieces draws a piecewise-constant command of n rows at period dt.
func (c command) pieces(rng *rand.Rand, n int, dt float64) []float64 {
	v := make([]float64, n)
	for k := 0; k < n; {
		hold := c.holdLo + (c.holdHi-c.holdLo)*rng.Float64()
		m := max(1, int(hold/dt))
		x := c.lo + (c.hi-c.lo)*rng.Float64()
		if c.zero > 0 && rng.Float64() < c.zero {
			x = 0
		}
		for i := k; i < min(n, k+m); i++ {
			v[i] = x
		}
		k += m
	}
	if c.lag > 0 {
		a := 1 - math.Exp(-dt/c.lag)
		y := 0.0
		for k, x := range v {
			y += a * (x - y)
			v[k] = y
		}
	}
	return v
}
