package terra

import (
	"errors"
	"math"
)

// Torques returns the steady-turn torques of the inner and outer sides for
// one command, with their gradients with respect to μ_o, μ_i, K, the slip
// coefficients and the commands (forward-mode, exact to rounding; the shift
// S_o of the turn centre enters through the implicit function theorem on the
// lateral force balance).
func (m *Model) Torques(c Command) (Result, error) { return m.torques(c, 0) }

// torques is Torques with a first guess of S_o (a warm start).
func (m *Model) torques(c Command, guess float64) (Result, error) {
	if err := checkCommand(c); err != nil {
		return Result{}, err
	}
	q := m.quad()
	so, bal := m.solveSo(c, q, guess)
	t := evaluate(m, c, dualInputs(m, c), seed(so, dSo), q)
	r := m.result(c, so, bal, t.tauI.v, t.tauO.v, t.fI.v, t.fO.v, t.v, t.omega, t.rwI, t.rwO, t.vyI)
	// dS_o/dθ = −(∂g/∂θ)/(∂g/∂S_o) when S_o solves the balance.
	var ds [NumGrad]float64
	if gs := t.g.d[dSo]; bal && gs != 0 {
		for i := range ds {
			ds[i] = -t.g.d[i] / gs
		}
	}
	for i := range NumGrad {
		r.DTauI[i] = t.tauI.d[i] + t.tauI.d[dSo]*ds[i]
		r.DTauO[i] = t.tauO.d[i] + t.tauO.d[dSo]*ds[i]
	}
	return r, nil
}

// TorquesValue is Torques without the gradient (the plain float64 model; the
// same definition evaluated in float64).
func (m *Model) TorquesValue(c Command) (Result, error) { return m.torquesValue(c, 0) }

func (m *Model) torquesValue(c Command, guess float64) (Result, error) {
	if err := checkCommand(c); err != nil {
		return Result{}, err
	}
	q := m.quad()
	so, bal := m.solveSo(c, q, guess)
	t := evaluate(m, c, floatInputs(m, c), fl(so), q)
	return m.result(c, so, bal, float64(t.tauI), float64(t.tauO), float64(t.fI), float64(t.fO), t.v, t.omega, t.rwI, t.rwO, t.vyI), nil
}

func (m *Model) result(c Command, so float64, bal bool, ti, to, fi, fo, v, om, rwI, rwO, vyI float64) Result {
	return Result{TauI: ti, TauO: to, FI: fi, FO: fo, OmegaI: rwI / m.Vehicle.R, OmegaO: rwO / m.Vehicle.R,
		V: v, Omega: om, So: so, Balanced: bal, InnerSkids: vyI > 0, CCW: c.Wc >= 0}
}

func checkCommand(c Command) error {
	for _, v := range []float64{c.Vc, c.Wc, c.Theta, c.Psi} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("terra: command is not finite")
		}
	}
	if math.Abs(c.Theta) >= math.Pi/2 {
		return errors.New("terra: slope must be within (−90°, 90°)")
	}
	return nil
}

// solveSo finds the turn-centre shift that balances the lateral forces: the
// secant method from the guess (the residual is nearly linear in S_o), and
// Illinois regula falsi on [−l/2, l/2], where the residual decreases, when
// the secant leaves that interval. With no root inside (the side forces
// cannot hold the turn: the robot slides out), it returns the end of smaller
// residual and false.
func (m *Model) solveSo(c Command, q Quadrature, guess float64) (float64, bool) {
	in := floatInputs(m, c)
	g := func(s float64) float64 { return float64(evaluate(m, c, in, fl(s), q).g) }
	h := (m.Vehicle.L + m.Vehicle.Pl) / 2
	tol := 1e-11 * h
	s0 := math.Max(-h, math.Min(h, guess))
	s1 := s0 + 1e-3
	if s1 > h {
		s1 = s0 - 1e-3
	}
	g0, g1 := g(s0), g(s1)
	for range 12 {
		if g1 == 0 {
			return s1, true
		}
		if g1 == g0 {
			break
		}
		s2 := s1 - g1*(s1-s0)/(g1-g0)
		if !(s2 >= -h && s2 <= h) {
			break
		}
		s0, g0 = s1, g1
		s1, g1 = s2, g(s2)
		if math.Abs(s1-s0) < tol {
			return s1, true
		}
	}
	a, b := -h, h
	ga, gb := g(a), g(b)
	if ga == 0 {
		return a, true
	}
	if gb == 0 {
		return b, true
	}
	if math.Signbit(ga) == math.Signbit(gb) {
		// A straight line has no lateral force at any shift: S_o = 0.
		if math.Abs(ga) < 1e-9 && math.Abs(gb) < 1e-9 {
			return 0, true
		}
		if math.Abs(ga) < math.Abs(gb) {
			return a, false
		}
		return b, false
	}
	side := 0
	for range 200 {
		s := (a*gb - b*ga) / (gb - ga)
		gs := g(s)
		if gs == 0 || b-a < tol {
			return s, true
		}
		if math.Signbit(gs) == math.Signbit(ga) {
			a, ga = s, gs
			if side == -1 {
				gb /= 2
			}
			side = -1
		} else {
			b, gb = s, gs
			if side == 1 {
				ga /= 2
			}
			side = 1
		}
		if math.Abs(gs) < 1e-12*m.Vehicle.W {
			return s, true
		}
	}
	return (a + b) / 2, true
}
