package synth

import (
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
	return v
}
