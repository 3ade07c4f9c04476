package dyn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
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
	Analytic, Numeric float64 // ⟨∇F, d⟩ and its finite difference along d
	RelErr            float64
	// Stencil is the difference taken: "central" (fourth order), or, when
	// a switch of the step (an exact clamp's limit, |·| at 0, a Where)
	// lies within the stencil on one side, "forward" or "backward" (second
	// order, on the side where every switch keeps the branch of the point
	// itself, whose derivative the reverse pass computes: a one-sided
	// derivative at a kink). "straddled" when switches lie on both sides:
	// no difference is exact there and the check is inconclusive.
	Stencil string
	// Switch names a switch that changed branch within the stencil (step,
	// lane, instruction), if any.
	Switch string
	// Moved is the relative offset by which the point was moved off a
	// switch before it could be checked (0: checked where asked).
	Moved float64
	// Where names, for a failed check, the lane, step and instruction (or
	// the kernel) that disagree.
	Where string
}

const straddled = "straddled"

func (c Check) String() string {
	s := fmt.Sprintf("directional derivative %.12g (reverse pass) vs %.12g (%s differences): relative error %.3g", c.Analytic, c.Numeric, c.Stencil, c.RelErr)
	if c.Moved != 0 {
		s += fmt.Sprintf(", at a point moved by %.1g off a switch", c.Moved)
	}
	if c.Switch != "" {
		s += "; " + c.Switch
	}
	if c.Where != "" {
		s += "; " + c.Where
	}
	return s
}

// CheckRollout checks the reverse pass of kernel k over a rollout of B lanes
// and T steps against finite differences of its forward pass: for the
// scalar F = ⟨ybar, y⟩ + cbar·cost + ⟨xTbar, xT⟩ (random weights when ybar
// and xTbar are nil and cbar is 0) and a random direction d over the
// parameters, the initial states and the inputs, each coordinate scaled by
// max(|z_i|, 1), it compares ⟨∇F, d⟩ with the fourth-order central
// difference along d with h = 1e-6 — or, when a switch of the step changes
// branch within the stencil on one side only, with the second-order
// one-sided difference on the other side (see Check.Stencil). It
// allocates; it is for tests and the first run of a Sim or graph op.
func (m *Model) CheckRollout(k Kernel, p, q, x0, u []float64, B, T int, ybar []float64, cbar float64, xTbar []float64, seed uint64) (Check, error) {
	return m.checkRollout(k, p, q, x0, u, B, T, ybar, cbar, xTbar, seed, 1e-6)
}

// checkKinked is the check of a model that may have kinks. Along a random
// direction, a stencil that a switch crosses on one side is replaced by
// the one-sided difference on the other (checkRollout); one crossed on
// both sides (many lanes, or the point exactly on |·|'s kink) is retried
// with a smaller h and a fresh direction (h = 1e-6, 1e-7, 1e-8), then
// along the parameters alone, then lane by lane (checkLanes: each lane crossing on one side only), and then at
// points moved off the switches by a relative 1e-5 and 1e-4 along a
// random direction. It returns the first attempt that agrees within tol,
// else the worst clean disagreement (a failure), else the last straddled
// attempt (inconclusive).
func (m *Model) checkKinked(k Kernel, p, q, x0, u []float64, B, T int, ybar []float64, cbar float64, xTbar []float64, seed uint64, tol float64) (Check, error) {
	var best Check
	var trivial *Check // 0 = 0: passed, but says little; kept as the last resort
	have := false
	keep := func(c Check) {
		clean := c.Stencil != straddled
		switch {
		case !have:
		case clean && best.Stencil == straddled:
		case clean == (best.Stencil != straddled) && c.RelErr < best.RelErr:
		default:
			return
		}
		best, have = c, true
	}
	for i, h := range []float64{1e-6, 1e-7, 1e-8} {
		c, err := m.checkRollout(k, p, q, x0, u, B, T, ybar, cbar, xTbar, seed+uint64(i), h)
		if err != nil {
			return c, err
		}
		if c.RelErr <= tol {
			return c, nil
		}
		keep(c)
	}
	if best.Stencil != straddled {
		// A clean disagreement at the point itself can be the differences'
		// own error at a singularity the step language does not mark as a
		// switch: √ of a squared distance that is ~0 where a predicted
		// point lies on its target (the cone of a norm; 5 of 6 false
		// failures on 100 valid Mecanum logs pass this way). A wrong
		// derivative (a sign, a missing term) disagrees off the point too:
		// the failure stands unless the check agrees at points moved off
		// by a relative 1e-4 and 1e-3, both.
		if c, ok := m.agreesMoved(k, p, q, x0, u, B, T, ybar, cbar, xTbar, seed, tol); ok {
			return c, nil
		}
		return best, nil
	}
	// done: a fallback that passes with a non-trivial derivative ends the
	// check; one that passes with 0 = 0 is kept as the last resort.
	done := func(c Check) bool {
		if c.RelErr > tol {
			keep(c)
			return false
		}
		if c.Analytic != 0 || c.Numeric != 0 {
			return true
		}
		if trivial == nil {
			trivial = &c
		}
		return false
	}
	if m.NP() > 0 {
		// Along the parameters alone every lane and step moves the same
		// way, so a system resting on a switch (drive exactly at the
		// stiction limit in every step) crosses it on one side only.
		c, err := m.checkAlong(k, p, q, x0, u, B, T, ybar, cbar, xTbar, seed+3, 1e-6, dirP)
		if err != nil {
			return c, err
		}
		if done(c) {
			return c, nil
		}
		if best.Stencil != straddled {
			return best, nil
		}
	}
	if B > 1 {
		if ybar == nil && xTbar == nil && cbar == 0 {
			ybar, cbar, xTbar = randomWeights(m, rand.New(rand.NewPCG(seed, 0x3e1f)), B, T)
		}
		c, err := m.checkLanes(k, p, q, x0, u, B, T, ybar, cbar, xTbar, seed)
		if err != nil {
			return c, err
		}
		if done(c) {
			return c, nil
		}
		if best.Stencil != straddled {
			return best, nil
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x0ff))
	for i, delta := range []float64{1e-5, 1e-4} {
		var z [3][]float64
		for b, v := range [3][]float64{p, x0, u} {
			z[b] = make([]float64, len(v))
			for j := range v {
				z[b][j] = v[j] + delta*rng.NormFloat64()*math.Max(math.Abs(v[j]), 1)
			}
		}
		c, err := m.checkRollout(k, z[0], q, z[1], z[2], B, T, ybar, cbar, xTbar, seed+uint64(10+i), 1e-6)
		if err != nil {
			continue // moved out of the model's domain
		}
		if c.Stencil == straddled && (ybar != nil || xTbar != nil || cbar != 0) {
			if cl, err := m.checkLanes(k, z[0], q, z[1], z[2], B, T, ybar, cbar, xTbar, seed+uint64(10+i)); err == nil {
				c = cl
			}
		}
		c.Moved = delta
		if done(c) {
			return c, nil
		}
	}
	if trivial != nil && best.Stencil == straddled {
		return *trivial, nil
	}
	return best, nil
}

// agreesMoved checks at two points moved off (p, x0, u) along random
// directions by a relative 1e-4 and 1e-3 (each coordinate scaled by
// max(|z|, 1)): ok when both agree within tol with a non-trivial derivative;
// c is the second, its Moved set.
func (m *Model) agreesMoved(k Kernel, p, q, x0, u []float64, B, T int, ybar []float64, cbar float64, xTbar []float64, seed uint64, tol float64) (c Check, ok bool) {
	rng := rand.New(rand.NewPCG(seed, 0x5a1))
	for i, delta := range []float64{1e-4, 1e-3} {
		var z [3][]float64
		for b, v := range [3][]float64{p, x0, u} {
			z[b] = make([]float64, len(v))
			for j := range v {
				z[b][j] = v[j] + delta*rng.NormFloat64()*math.Max(math.Abs(v[j]), 1)
			}
		}
		var err error
		c, err = m.checkRollout(k, z[0], q, z[1], z[2], B, T, ybar, cbar, xTbar, seed+uint64(20+i), 1e-6)
		if err != nil || c.Stencil == straddled || c.RelErr > tol || (c.Analytic == 0 && c.Numeric == 0) {
			return c, false
		}
		c.Moved = delta
	}
	return c, true
}

// signature is the branch code of every switching instruction at every
// step in every lane of the interpreted rollout (step-major, then
// instruction, then lane), with the number of codes per step; ties as in
// interp.switches (for the stencil's points, not the point checked: a tie
// there is the kink whose one-sided derivative the reverse pass takes).
func (m *Model) signature(p, q, x0, u []float64, B, T int, ties bool) ([]uint8, int) {
	var codes []uint8
	per := 0
	m.eachSwitches(p, q, x0, u, B, T, ties, func(t int, step []uint8) bool {
		if t == 0 {
			per = len(step)
			codes = make([]uint8, 0, per*T) // every step has as many
		}
		codes = append(codes, step...)
		return true
	})
	return codes, per
}

// firstMoved is the index of the first code of the signature at (p, q,
// x0, u) (with ties) that differs from sig0's and is not a tie, −1 if
// none: what comparing m.signature's codes with sig0 finds, one step at a
// time (the signature of a calibration's batch is megabytes, and the
// self-check takes four).
func (m *Model) firstMoved(p, q, x0, u []float64, B, T int, sig0 []uint8) int {
	moved, at := -1, 0
	m.eachSwitches(p, q, x0, u, B, T, true, func(_ int, step []uint8) bool {
		for k, c := range step {
			if c != sig0[at+k] && c != tieCode {
				moved = at + k
				return false
			}
		}
		at += len(step)
		return true
	})
	return moved
}

// eachSwitches runs the interpreted rollout and calls f with each step's
// branch codes (in one buffer, reused) until f returns false.
func (m *Model) eachSwitches(p, q, x0, u []float64, B, T int, ties bool, f func(t int, codes []uint8) bool) {
	in := &interp{p: m.prog, hash: m.hash}
	S, U := m.NS(), m.NU()
	x := append([]float64(nil), x0...)
	xn := make([]float64, S*B)
	var codes []uint8
	for t := range T {
		in.Forward(B, p, q, x, u[t*U*B:(t+1)*U*B], xn, nil, 0)
		codes = in.switches(codes[:0], ties)
		if !f(t, codes) {
			return
		}
		x, xn = xn, x
	}
}

// switchAt names the switch of code i of a signature.
func (m *Model) switchAt(i, per, B int) string {
	t, r := i/per, i%per
	j, lane := r/B, r%B
	for n := m.prog.firstOp; n < int32(len(m.prog.nodes)); n++ {
		if _, ok := branchCode(m.prog.nodes[n].op, 0, 0, 0); !ok {
			continue
		}
		if j == 0 {
			return fmt.Sprintf("%s changes branch at step %d of lane %d", m.describe(n), t, lane)
		}
		j--
	}
	return ""
}

// name is how an instruction's operand reads in messages.
func (m *Model) name(i int32) string {
	nd := m.prog.nodes[i]
	k := int(nd.k)
	switch nd.op {
	case opConst:
		return fmt.Sprint(nd.k)
	case opState:
		return "state " + m.spec.State[k]
	case opInput:
		return "input " + m.spec.Input[k]
	case opParam:
		return "param " + m.spec.Params[k]
	case opSetting:
		return "setting " + m.spec.Settings[k]
	}
	return fmt.Sprintf("v%d", i)
}

// describe is an instruction as it reads in messages: "v17 = tanh(v15)".
func (m *Model) describe(i int32) string {
	nd := m.prog.nodes[i]
	ops := [3]int32{nd.a, nd.b, nd.c}
	var args []string
	for j := range nd.op.arity() {
		args = append(args, m.name(ops[j]))
	}
	return fmt.Sprintf("instruction %s = %v(%s)", m.name(i), nd.op, strings.Join(args, ", "))
}

// Blocks of checkRollout's direction.
const (
	dirP = 1 << iota
	dirX0
	dirU
	dirAll = dirP | dirX0 | dirU
)

func (m *Model) checkRollout(k Kernel, p, q, x0, u []float64, B, T int, ybar []float64, cbar float64, xTbar []float64, seed uint64, h float64) (Check, error) {
	return m.checkAlong(k, p, q, x0, u, B, T, ybar, cbar, xTbar, seed, h, dirAll)
}

// checkAlong is checkRollout along a direction over the given blocks.
func (m *Model) checkAlong(k Kernel, p, q, x0, u []float64, B, T int, ybar []float64, cbar float64, xTbar []float64, seed uint64, h float64, blocks int) (Check, error) {
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
		ybar, cbar, xTbar = randomWeights(m, rng, B, T)
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
	f0, err := F(p, x0, u)
	if err != nil {
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
			if blocks&(1<<b) == 0 {
				d[i] = 0
			}
			an += zg[1][i] * d[i]
		}
		dirs[b] = d
	}
	sig0, per := m.signature(p, q, x0, u, B, T, false)
	// at returns F at z + s·d and the first switch whose branch differs
	// from the point's (−1: none).
	// z: the stencil point, one buffer for the four (fresh megabytes per
	// point were most of a calibration's check)
	z := [3][]float64{make([]float64, len(p)), make([]float64, len(x0)), make([]float64, len(u))}
	at := func(s float64) (float64, int, error) {
		for b, v := range [3][]float64{p, x0, u} {
			for i := range v {
				z[b][i] = v[i] + s*dirs[b][i]
			}
		}
		f, err := F(z[0], z[1], z[2])
		if err != nil {
			return 0, 0, err
		}
		return f, m.firstMoved(z[0], q, z[1], z[2], B, T, sig0), nil
	}
	// Fourth-order central differences: stiff steps (a 1/x near small x,
	// a 1-ms tyre model) have third derivatives large enough that the
	// second-order stencil's h² error shows at 1e-6.
	var f [4]float64
	var moved [4]int
	for i, s := range [4]float64{h, -h, 2 * h, -2 * h} {
		if f[i], moved[i], err = at(s); err != nil {
			return Check{}, err
		}
	}
	c := Check{Analytic: an}
	plus, minus := moved[0] < 0 && moved[2] < 0, moved[1] < 0 && moved[3] < 0
	switch {
	case plus && minus:
		c.Numeric, c.Stencil = (8*(f[0]-f[1])-(f[2]-f[3]))/(12*h), "central"
	case plus:
		c.Numeric, c.Stencil = (-3*f0+4*f[0]-f[2])/(2*h), "forward"
	case minus:
		c.Numeric, c.Stencil = (3*f0-4*f[1]+f[3])/(2*h), "backward"
	default:
		c.Numeric, c.Stencil = (8*(f[0]-f[1])-(f[2]-f[3]))/(12*h), straddled
	}
	for _, i := range moved {
		if i >= 0 {
			c.Switch = m.switchAt(i, per, B)
			break
		}
	}
	den := math.Max(math.Abs(an), math.Abs(c.Numeric))
	if den > 0 {
		c.RelErr = math.Abs(an-c.Numeric) / den
	}
	if math.IsNaN(an) || math.IsNaN(c.Numeric) {
		c.RelErr = math.Inf(1)
	}
	return c, nil
}

// randomWeights are the check's weights of the outputs, the final state
// and the cost when the caller gives none.
func randomWeights(m *Model, rng *rand.Rand, B, T int) (ybar []float64, cbar float64, xTbar []float64) {
	ybar = make([]float64, m.NY()*T*B)
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
	return
}

// SelfChecked reports whether a Sim or graph op of this model has passed its
// built-in gradient check, and the relative error measured.
func (m *Model) SelfChecked() (bool, float64) {
	return m.checked.Load(), math.Float64frombits(m.lastCheck.Load())
}

// selfCheck is the built-in check of the first backward run of a model's
// Sim or op: kernel k's gradient against finite differences of the native
// rollout at the actual values, once per model (it passes or fails every
// caller that waits for it). A check that finds switches on both sides of
// every stencil, even at points moved off them, is inconclusive: it
// neither passes nor fails, and the next backward run checks again (at
// most maxInconclusive times; Model.LastSelfCheck has the outcome).
func (m *Model) selfCheck(k Kernel, cfg opConfig, p, q, x0, u []float64, B, T int, ybar []float64, cbar float64, xTbar []float64) error {
	m.checkOnce.Lock()
	defer m.checkOnce.Unlock()
	if m.checked.Load() || m.inconclusive >= maxInconclusive {
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
		// No upstream signal: check with random weights.
		ybar, cbar, xTbar = randomWeights(m, rand.New(rand.NewPCG(cfg.seed, 0x3e1f)), B, T)
	}
	c, err := m.checkKinked(k, p, q, x0, u, B, T, ybar, cbar, xTbar, cfg.seed, cfg.checkTol)
	if errors.Is(err, ErrDiverged) {
		// The rollout ran at this point (Backward follows a successful
		// Forward); a difference stencil around it left the model's domain
		// (a time constant stepped below 0, say). That is no evidence
		// against the gradient: inconclusive, as on switches.
		m.inconclusive++
		return nil
	}
	if err != nil {
		return fmt.Errorf("dyn: %s: self-check: %w", m.spec.Name, err)
	}
	m.lastCheck.Store(math.Float64bits(c.RelErr))
	defer func() { m.last.Store(&c) }()
	switch {
	case c.RelErr <= cfg.checkTol:
		m.checked.Store(true)
		return nil
	case c.Stencil == straddled:
		m.inconclusive++
		return nil
	}
	c.Where = m.localise(k, p, q, x0, u, B, T, ybar, cbar, xTbar, cfg.seed, cfg.checkTol)
	return fmt.Errorf("dyn: %s: self-check failed: %v, tolerance %.3g (WithoutSelfCheck turns the check off)", m.spec.Name, c, cfg.checkTol)
}

// maxInconclusive bounds the self-checks of a model that every backward
// run finds on switches.
const maxInconclusive = 3

// LastSelfCheck is the outcome of the model's last built-in check (ok is
// false before the first): passed, failed with where it disagrees, or
// inconclusive (Stencil "straddled") when every stencil crossed switches
// on both sides.
func (m *Model) LastSelfCheck() (c Check, ok bool) {
	if p := m.last.Load(); p != nil {
		return *p, true
	}
	return Check{}, false
}

// laneData is lane j of a batch as a one-lane problem.
func (m *Model) laneData(j int, x0, u []float64, B, T int, ybar, xTbar []float64) (x0j, uj, yj, xTj []float64) {
	S, U, NY := m.NS(), m.NU(), m.NY()
	x0j, uj = make([]float64, S), make([]float64, T*U)
	if xTbar != nil {
		xTj = make([]float64, S)
	}
	if ybar != nil {
		yj = make([]float64, NY*T)
	}
	for s := range S {
		x0j[s] = x0[s*B+j]
		if xTbar != nil {
			xTj[s] = xTbar[s*B+j]
		}
	}
	for t := range T {
		for i := range U {
			uj[t*U+i] = u[(t*U+i)*B+j]
		}
		if ybar != nil {
			for c := range NY {
				yj[c*T+t] = ybar[(c*T+t)*B+j]
			}
		}
	}
	return
}

// checkLanes is the check lane by lane: F is the sum of the lanes' own F_j
// (lanes share only the parameters), so ⟨∇F, d⟩ is the sum of each lane's
// directional derivative along the same parameter direction (one seed: the
// parameters' direction is drawn first), and each lane takes the stencil
// its own switches allow (central, one-sided, or a smaller h). A batch
// whose lanes cross switches on both sides of every batched stencil is
// checked this way. ybar, xTbar must be the caller's weights (not nil
// together with cbar = 0).
func (m *Model) checkLanes(k Kernel, p, q, x0, u []float64, B, T int, ybar []float64, cbar float64, xTbar []float64, seed uint64) (Check, error) {
	c := Check{Stencil: "lane-by-lane"}
	for j := range B {
		x0j, uj, yj, xTj := m.laneData(j, x0, u, B, T, ybar, xTbar)
		if yj == nil && xTj == nil && cbar == 0 {
			continue // a lane without weight
		}
		var cj Check
		for _, h := range []float64{1e-6, 1e-7, 1e-8} {
			var err error
			if cj, err = m.checkRollout(k, p, q, x0j, uj, 1, T, yj, cbar, xTj, seed, h); err != nil {
				return cj, err
			}
			if cj.Stencil != straddled {
				break
			}
		}
		c.Analytic += cj.Analytic
		c.Numeric += cj.Numeric
		if cj.Stencil == straddled {
			c.Stencil = straddled
			c.Switch = strings.Replace(cj.Switch, "of lane 0", fmt.Sprintf("of lane %d", j), 1)
		} else if c.Switch == "" && cj.Switch != "" {
			c.Switch = strings.Replace(cj.Switch, "of lane 0", fmt.Sprintf("of lane %d", j), 1)
		}
	}
	den := math.Max(math.Abs(c.Analytic), math.Abs(c.Numeric))
	if den > 0 {
		c.RelErr = math.Abs(c.Analytic-c.Numeric) / den
	}
	if math.IsNaN(c.Analytic) || math.IsNaN(c.Numeric) {
		c.RelErr = math.Inf(1)
	}
	return c, nil
}

// maxLocaliseLanes bounds the lanes checked one by one to localise a
// failure.
const maxLocaliseLanes = 256

// localise names where a failed check disagrees: the lane whose own check
// (a one-lane rollout) disagrees most, then the first step of that lane at
// which the kernel's reverse step differs from the interpreter's (the
// kernel is wrong), or at which an instruction's partial derivatives differ
// from central differences of the instruction (the step language is
// wrong).
func (m *Model) localise(k Kernel, p, q, x0, u []float64, B, T int, ybar []float64, cbar float64, xTbar []float64, seed uint64, tol float64) string {
	S, U, NY := m.NS(), m.NU(), m.NY()
	lane := func(j int) (x0j, uj, yj, xTj []float64) { return m.laneData(j, x0, u, B, T, ybar, xTbar) }
	worst, werr := -1, 0.0
	for j := range min(B, maxLocaliseLanes) {
		x0j, uj, yj, xTj := lane(j)
		c, err := m.checkRollout(k, p, q, x0j, uj, 1, T, yj, cbar, xTj, seed, 1e-6)
		if err != nil || c.Stencil == straddled {
			continue
		}
		if c.RelErr > werr {
			worst, werr = j, c.RelErr
		}
	}
	if worst < 0 || werr <= tol {
		return fmt.Sprintf("no single lane of the first %d disagrees: the lanes' errors add up, or the rollout is ill-conditioned here", min(B, maxLocaliseLanes))
	}
	x0j, uj, _, _ := lane(worst)
	where := fmt.Sprintf("lane %d disagrees most (relative error %.3g alone)", worst, werr)
	// The lane's states, step by step, with the interpreter.
	in := &interp{p: m.prog, hash: m.hash}
	ref := &interp{p: m.prog, hash: m.hash}
	rng := rand.New(rand.NewPCG(seed, 0x10c))
	x, xn := append([]float64(nil), x0j...), make([]float64, S)
	axn, ay := make([]float64, S), make([]float64, NY)
	var g [2][3][]float64
	for i := range g {
		g[i] = [3][]float64{make([]float64, S), make([]float64, U), make([]float64, len(p))}
	}
	for t := range T {
		ut := uj[t*U : (t+1)*U]
		for i := range axn {
			axn[i] = rng.NormFloat64()
		}
		for i := range ay {
			ay[i] = rng.NormFloat64()
		}
		for i, kk := range []Kernel{k, ref} {
			clear(g[i][2])
			kk.Reverse(1, p, q, x, ut, axn, ay, 1, cbar, g[i][0], g[i][1], g[i][2])
		}
		for b, what := range [3]string{"state", "input", "param"} {
			names := map[string][]string{"state": m.spec.State, "input": m.spec.Input, "param": m.spec.Params}[what]
			for i := range g[0][b] {
				a, r := g[0][b][i], g[1][b][i]
				if math.Abs(a-r) > 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(r))) || (a-a != 0) != (r-r != 0) {
					return fmt.Sprintf("%s; at its step %d the kernel's reverse step gives ∂/∂%s %s = %.12g, the interpreter's %.12g: the kernel %T is wrong, not the step definition",
						where, t, what, names[i], a, r, k)
				}
			}
		}
		if d := in.wrongPartial(m, p, q, x, ut); d != "" {
			return fmt.Sprintf("%s; at its step %d %s", where, t, d)
		}
		in.Forward(1, p, q, x, ut, xn, nil, 0)
		x, xn = xn, x
	}
	return where + "; no step's reverse and no instruction's partial derivatives disagree on their own (the rollout amplifies a small error, or it is ill-conditioned here)"
}

// wrongPartial runs the step at (p, q, x, u) for one lane and compares
// every instruction's partial derivatives with central differences of the
// instruction itself, skipping operands within h of a switch of it; it
// describes the first that disagrees, or returns "".
func (in *interp) wrongPartial(m *Model, p, q, x, u []float64) string {
	in.bind(1, p, q, x, u)
	in.run()
	nodes := in.p.nodes
	for i := int(in.p.firstOp); i < len(nodes); i++ {
		nd := nodes[i]
		if !nd.op.passesGradient() {
			continue
		}
		ops := [3]int32{nd.a, nd.b, nd.c}
		var v [3]float64
		for j := range nd.op.arity() {
			v[j] = in.val[ops[j]][0]
		}
		val := in.val[i][0]
		var d [3]float64
		d[0], d[1], d[2] = partials(nd.op, v[0], v[1], v[2], val)
		code, sw := branchCode(nd.op, v[0], v[1], v[2])
		for j := range nd.op.arity() {
			if nd.op == opWhere && j == 2 {
				continue
			}
			h := 1e-6 * math.Max(1, math.Abs(v[j]))
			var f [2]float64
			kink := false
			for s, sg := range [2]float64{1, -1} {
				w := v
				w[j] += sg * h
				f[s] = eval(nd.op, w[0], w[1], w[2])
				if c2, _ := branchCode(nd.op, w[0], w[1], w[2]); sw && c2 != code {
					kink = true
				}
			}
			num := (f[0] - f[1]) / (2 * h)
			if kink || num-num != 0 || d[j]-d[j] != 0 {
				continue
			}
			if math.Abs(d[j]-num) > 1e-5*math.Max(1, math.Max(math.Abs(d[j]), math.Abs(num))) {
				return fmt.Sprintf("%s has ∂/∂(operand %d) = %.12g, central differences %.12g", m.describe(int32(i)), j+1, d[j], num)
			}
		}
	}
	return ""
}
