package terra

import (
	"errors"
	"fmt"
	"math"
)

// Table is the torque and power look-up table a planner uses (§4.3): the
// model evaluated at a fixed forward speed Vc on N commanded yaw rates
// evenly spaced over [−Wmax, Wmax], interpolated by cubic Hermite
// polynomials on the exact derivatives ∂/∂ω_c of Torques.
type Table struct {
	Vc, Wmax float64
	Wc       []float64
	// per node: left and right torques, drawn power and their ∂/∂ω_c
	TauL, TauR, P    []float64
	DTauL, DTauR, DP []float64
	MTR              float64 // the model's minimum turn radius at Vc (m; 0: none)
}

// NewTable tabulates m at forward speed vc over n ≥ 3 yaw rates in
// [−wmax, wmax].
func (m *Model) NewTable(vc, wmax float64, n int) (*Table, error) {
	if n < 3 || !(wmax > 0) || !(vc > 0) || math.IsInf(wmax, 0) || math.IsInf(vc, 0) {
		return nil, fmt.Errorf("terra: table needs vc > 0, wmax > 0 and n ≥ 3 (got %g, %g, %d)", vc, wmax, n)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	t := &Table{Vc: vc, Wmax: wmax}
	var err error
	for k := range n {
		wc := -wmax + 2*wmax*float64(k)/float64(n-1)
		r, err := m.Torques(Command{Vc: vc, Wc: wc})
		if err != nil {
			return nil, err
		}
		pI, dpI, dwI := m.Vehicle.SidePower(r.TauI, r.OmegaI)
		pO, dpO, dwO := m.Vehicle.SidePower(r.TauO, r.OmegaO)
		// ∂ω/∂ω_c of the nominal inverse on the effective rolling radius.
		sgn := 1.0
		if wc < 0 {
			sgn = -1
		}
		dOmI := -sgn * m.Vehicle.B / 2 * (1 + m.A[0]) / m.Vehicle.R
		dOmO := sgn * m.Vehicle.B / 2 * (1 + m.A[0]) / m.Vehicle.R
		p, dp := 0.0, 0.0
		if pI > 0 {
			p += pI
			dp += dpI*r.DTauI[dWc-0] + dwI*dOmI
		}
		if pO > 0 {
			p += pO
			dp += dpO*r.DTauO[dWc] + dwO*dOmO
		}
		tl, tr, dl, dr := r.TauI, r.TauO, r.DTauI[dWc], r.DTauO[dWc]
		if !r.CCW {
			tl, tr, dl, dr = tr, tl, dr, dl
		}
		t.Wc = append(t.Wc, wc)
		t.TauL, t.TauR, t.P = append(t.TauL, tl), append(t.TauR, tr), append(t.P, p)
		t.DTauL, t.DTauR, t.DP = append(t.DTauL, dl), append(t.DTauR, dr), append(t.DP, dp)
	}
	if t.MTR, err = m.MTR(vc); err != nil {
		return nil, err
	}
	return t, nil
}

// ErrOutside is returned for a yaw rate outside the table.
var ErrOutside = errors.New("terra: yaw rate outside the table")

func (t *Table) hermite(y, dy []float64, wc float64) (float64, float64) {
	n := len(t.Wc)
	h := t.Wc[1] - t.Wc[0]
	s := (wc - t.Wc[0]) / h
	k := int(math.Floor(s))
	k = max(0, min(k, n-2))
	u := s - float64(k)
	u2, u3 := u*u, u*u*u
	h00, h10, h01, h11 := 2*u3-3*u2+1, u3-2*u2+u, -2*u3+3*u2, u3-u2
	v := h00*y[k] + h10*h*dy[k] + h01*y[k+1] + h11*h*dy[k+1]
	d00, d10, d01, d11 := 6*u2-6*u, 3*u2-4*u+1, -6*u2+6*u, 3*u2-2*u
	d := (d00*y[k]+d01*y[k+1])/h + d10*dy[k] + d11*dy[k+1]
	return v, d
}

// Power returns the drawn power at yaw rate wc and its derivative; outside
// [−Wmax, Wmax] the end value (and ErrOutside).
func (t *Table) Power(wc float64) (float64, float64, error) {
	if math.IsNaN(wc) {
		return 0, 0, ErrOutside
	}
	if wc < -t.Wmax || wc > t.Wmax {
		c := math.Max(-t.Wmax, math.Min(t.Wmax, wc))
		p, _ := t.hermite(t.P, t.DP, c)
		return p, 0, ErrOutside
	}
	p, d := t.hermite(t.P, t.DP, wc)
	return p, d, nil
}

// Torques returns the interpolated left and right torques at wc.
func (t *Table) Torques(wc float64) (left, right float64) {
	wc = math.Max(-t.Wmax, math.Min(t.Wmax, wc))
	left, _ = t.hermite(t.TauL, t.DTauL, wc)
	right, _ = t.hermite(t.TauR, t.DTauR, wc)
	return
}
