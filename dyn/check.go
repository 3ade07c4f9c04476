package dyn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// DefaultCheckTol is the relative tolerance of the built-in gradient check.
// Central differences with a relative step of 1e-6 agree with an exact
// derivative of a smooth float64 rollout to about 1e-8 (truncation 1e-12,
// round-off 1e-10 relative to the function, amplified by the rollout's
// condition); 1e-5 leaves room for that and for the odd lane that crosses a
// kink of an exact clamp within the step, while any real error in a
// generated or hand-made derivative (a wrong sign, a missing term) is of
// order 1.
const DefaultCheckTol = 1e-5

// Check is the outcome of a directional derivative check of a rollout.
type Check struct {
	Analytic, Numeric float64 // ⟨∇F, d⟩ and its fourth-order central difference
	RelErr            float64
}

func (c Check) String() string {
	return fmt.Sprintf("directional derivative %.12g (reverse pass) vs %.12g (central differences): relative error %.3g", c.Analytic, c.Numeric, c.RelErr)
}

// CheckRollout checks the reverse pass of kernel k over a rollout of B lanes
// and T steps against central differences of its forward pass: for the
// scalar F = ⟨ybar, y⟩ + cbar·cost + ⟨xTbar, xT⟩ (random weights when ybar
// and xTbar are nil and cbar is 0) and a random direction d over the
// parameters, the initial states and the inputs, each coordinate scaled by
// max(|z_i|, 1), it compares ⟨∇F, d⟩ with the fourth-order central difference along d
// with h = 1e-6. It allocates; it is for tests and the first run of a graph op.
func (m *Model) CheckRollout(k Kernel, p, q, x0, u []float64, B, T int, ybar []float64, cbar float64, xTbar []float64, seed uint64) (Check, error) {
	return m.checkRollout(k, p, q, x0, u, B, T, ybar, cbar, xTbar, seed, 1e-6)
}

// checkKinked is the check of a model that may have kinks (an exact
// clamp, |·| of a residual): a central difference whose stencil straddles a
// kink of one lane misses that lane's slope by O(1), and with 10⁵ residuals
// some always lie within 1e-6 of their kink. Such misses are random: they
// depend on the direction and shrink with h, while an error in the reverse
// pass shows in every direction at every h. So the check passes if one of
// three attempts (h = 1e-6, 1e-7, 1e-8, each along a fresh direction)
// agrees within tol, and returns the best attempt.
func (m *Model) checkKinked(k Kernel, p, q, x0, u []float64, B, T int, ybar []float64, cbar float64, xTbar []float64, seed uint64, tol float64) (Check, error) {
	var best Check
	for i, h := range []float64{1e-6, 1e-7, 1e-8} {
		c, err := m.checkRollout(k, p, q, x0, u, B, T, ybar, cbar, xTbar, seed+uint64(i), h)
		if err != nil {
			return c, err
		}
		if i == 0 || c.RelErr < best.RelErr {
			best = c
		}
		if c.RelErr <= tol {
			break
		}
	}
	return best, nil
}

func (m *Model) checkRollout(k Kernel, p, q, x0, u []float64, B, T int, ybar []float64, cbar float64, xTbar []float64, seed uint64, h float64) (Check, error) {
	if err := m.accepts(k); err != nil {
		return Check{}, err
	}
	sim := m.newSim(k, B, T, opConfig{})
	if err := sim.checkLens(p, q, x0, u); err != nil {
		return Check{}, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	ny := m.NY() * T * B
	if ybar == nil && xTbar == nil && cbar == 0 {
		ybar = make([]float64, ny)
		for i := range ybar {
			ybar[i] = rng.NormFloat64()
		}
		xTbar = make([]float64, m.NS()*B)
		for i := range xTbar {
			xTbar[i] = rng.NormFloat64()
		}
		if m.HasCost() {
			cbar = 1
		}
	}
	y := make([]float64, ny)
	F := func(p, x0, u []float64) (float64, error) {
		c, err := sim.Forward(p, q, x0, u, y)
		if err != nil {
			return 0, err
		}
		f := cbar * c
		for i, v := range ybar {
			f += v * y[i]
		}
		for i, v := range xTbar {
			f += v * sim.Final()[i]
		}
		return f, nil
	}
	if _, err := F(p, x0, u); err != nil {
		return Check{}, err
	}
	pbar, x0bar, ubar := make([]float64, len(p)), make([]float64, len(x0)), make([]float64, len(u))
	sim.backward(p, q, u, ybar, cbar, xTbar, pbar, x0bar, ubar)
	var an float64
	var dirs [3][]float64
	for b, zg := range [3][2][]float64{{p, pbar}, {x0, x0bar}, {u, ubar}} {
		d := make([]float64, len(zg[0]))
		for i, v := range zg[0] {
			d[i] = rng.NormFloat64() * math.Max(math.Abs(v), 1)
			an += zg[1][i] * d[i]
		}
		dirs[b] = d
	}
	at := func(s float64) (float64, error) {
		var z [3][]float64
		for b, v := range [3][]float64{p, x0, u} {
			z[b] = make([]float64, len(v))
			for i := range v {
				z[b][i] = v[i] + s*dirs[b][i]
			}
		}
		return F(z[0], z[1], z[2])
	}
	// Fourth-order central differences: stiff steps (a 1/x near small x,
	// a 1-ms tyre model) have third derivatives large enough that the
	// second-order stencil's h² error shows at 1e-6.
	var f [4]float64
	for i, s := range [4]float64{h, -h, 2 * h, -2 * h} {
		var err error
		if f[i], err = at(s); err != nil {
			return Check{}, err
		}
	}
	num := (8*(f[0]-f[1]) - (f[2] - f[3])) / (12 * h)
	c := Check{Analytic: an, Numeric: num}
	den := math.Max(math.Abs(an), math.Abs(num))
	if den > 0 {
		c.RelErr = math.Abs(an-num) / den
	}
	if math.IsNaN(an) || math.IsNaN(num) {
		c.RelErr = math.Inf(1)
	}
	// Leave sim's states as they were for z (the callers may read them).
	_, _ = F(p, x0, u)
	return c, nil
}

// SelfChecked reports whether a graph op of this model has passed its
// built-in gradient check, and the relative error measured.
func (m *Model) SelfChecked() (bool, float64) {
	return m.checked.Load(), math.Float64frombits(m.lastCheck.Load())
}

// selfCheck is the built-in check of the first backward run of a model's
// Sim or op: kernel k's gradient against central differences of the native
// rollout at the actual values, once per model (it passes or fails every
// caller that waits for it).
func (m *Model) selfCheck(k Kernel, cfg opConfig, p, q, x0, u []float64, B, T int, ybar []float64, cbar float64, xTbar []float64) error {
	m.checkOnce.Lock()
	defer m.checkOnce.Unlock()
	if m.checked.Load() {
		return nil
	}
	zero := cbar == 0
	for _, s := range [][]float64{ybar, xTbar} {
		for _, v := range s {
			if v != 0 {
				zero = false
			}
		}
	}
	if zero {
		ybar, xTbar = nil, nil // no upstream signal: check with random weights
	}
	c, err := m.checkKinked(k, p, q, x0, u, B, T, ybar, cbar, xTbar, cfg.seed, cfg.checkTol)
	if err != nil {
		return fmt.Errorf("dyn: %s: self-check: %w", m.spec.Name, err)
	}
	m.lastCheck.Store(math.Float64bits(c.RelErr))
	if c.RelErr > cfg.checkTol {
		return fmt.Errorf("dyn: %s: self-check failed: %v, tolerance %.3g (WithoutSelfCheck turns the check off)", m.spec.Name, c, cfg.checkTol)
	}
	m.checked.Store(true)
	return nil
}
