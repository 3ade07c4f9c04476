package terra

import (
	"errors"
	"fmt"
	"math"
)

// SidePower is eqs. 25–26 for one side: P = ω·τ + R_e·i² with the motor
// current i = τ/(K_T·g_r·η). It also returns ∂P/∂τ and ∂P/∂ω.
func (v *Vehicle) SidePower(tau, omega float64) (p, dTau, dOmega float64) {
	k := v.Kt * v.Gr * v.Eta
	i := tau / k
	return omega*tau + v.Re*i*i, omega + 2*v.Re*i/k, tau
}

// Drawn is the power a side draws from the battery: the apparatus recovers
// nothing (Fig. 7), so a side whose motors act as generators draws zero.
func Drawn(p float64) float64 { return math.Max(p, 0) }

// Power returns the power of the inner and outer sides of a steady turn and
// the total drawn (eqs. 25–26).
func (m *Model) Power(r Result) (pI, pO, drawn float64) {
	pI, _, _ = m.Vehicle.SidePower(r.TauI, r.OmegaI)
	pO, _, _ = m.Vehicle.SidePower(r.TauO, r.OmegaO)
	return pI, pO, Drawn(pI) + Drawn(pO)
}

// Energy integrates the drawn power over a trajectory of piecewise-constant
// commands (command k held for dt[k] seconds): E = ∫ P dt (§4.3).
func (m *Model) Energy(cmds []Command, dt []float64) (float64, error) {
	if len(cmds) != len(dt) {
		return 0, fmt.Errorf("terra: %d commands, %d durations", len(cmds), len(dt))
	}
	e := 0.0
	for k, c := range cmds {
		if !(dt[k] >= 0) {
			return 0, fmt.Errorf("terra: duration %d is %g", k, dt[k])
		}
		r, err := m.TorquesValue(c)
		if err != nil {
			return 0, err
		}
		_, _, p := m.Power(r)
		e += p * dt[k]
	}
	return e, nil
}

// MTR is the minimum turn radius at forward speed vc (§4.2): the largest
// radius whose outer torque needs more than 95 % of the torque limit, over
// CCW and CW turns, located to 0.1 % by bisection after a logarithmic scan
// of 1000 m down to 0.05 m. Zero means no restriction in that range.
func (m *Model) MTR(vc float64) (float64, error) {
	if !(vc > 0) || math.IsInf(vc, 0) {
		return 0, errors.New("terra: MTR needs a forward speed > 0")
	}
	thr := 0.95 * m.Vehicle.TauMax
	over := func(rho, dir float64) (bool, error) {
		r, err := m.TorquesValue(Command{Vc: vc, Wc: dir * vc / rho})
		return r.TauO > thr, err
	}
	best := 0.0
	const n = 80
	for _, dir := range []float64{1, -1} {
		prev := 1000.0
		for k := range n + 1 {
			rho := math.Pow(10, 3-4.30103*float64(k)/n) // 1000 m … 0.05 m
			o, err := over(rho, dir)
			if err != nil {
				return 0, err
			}
			if o {
				lo, hi := rho, prev // over at lo, not at hi
				if k == 0 {
					lo = hi
				}
				for hi/lo > 1.001 {
					mid := math.Sqrt(lo * hi)
					if o, err := over(mid, dir); err != nil {
						return 0, err
					} else if o {
						lo = mid
					} else {
						hi = mid
					}
				}
				best = math.Max(best, lo)
				break
			}
			prev = rho
		}
	}
	return best, nil
}
