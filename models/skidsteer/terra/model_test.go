package terra

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// asphaltA is Ordonez et al. Table 2's asphalt row (the default kinematics
// of these tests; the paper does not print its vinyl calibration).
var asphaltA = [9]float64{15e-3, -0.4e-3, -10e-3, 7e-3, 15e-3, -7e-3, 5e-3, -405e-3, 119e-3}

func testModel(s Surface) Model { return Model{Vehicle: FSUBot, Surface: s, A: asphaltA} }

// Fig. 6's radii (m).
var fig6Radii = []float64{0.2, 0.3, 0.4, 0.5, 1, 1.5, 2, 3, 4, 5, 7, 10, 20, 50, 100, 300, 500, 700, 1000}

func TestGradientMatchesCentralDifferences(t *testing.T) {
	for _, s := range []Surface{Vinyl, Asphalt} {
		for _, c := range []Command{{Vc: 0.6, Wc: 0.24}, {Vc: 0.2, Wc: -0.5}, {Vc: 0.6, Wc: 0.01}, {Vc: 0.4, Wc: 3.0},
			{Vc: 0.6, Wc: 0.3, Theta: 0.1, Psi: 0.7}} {
			m := testModel(s)
			r, err := m.Torques(c)
			if err != nil {
				t.Fatal(err)
			}
			for i := range NumGrad {
				f := func(h float64) (float64, float64) {
					mm, cc := m, c
					switch {
					case i == dMuO:
						mm.Surface.MuO += h
					case i == dMuI:
						mm.Surface.MuI += h
					case i == dK:
						mm.Surface.K += h
					case i < dVc:
						mm.A[i-dA] += h
					case i == dVc:
						cc.Vc += h
					default:
						cc.Wc += h
					}
					rr, err := mm.TorquesValue(cc)
					if err != nil {
						t.Fatal(err)
					}
					return rr.TauI, rr.TauO
				}
				x := []float64{s.MuO, s.MuI, s.K, 0, 0, 0, 0, 0, 0, 0, 0, 0, c.Vc, c.Wc}[i]
				if i >= dA && i < dVc {
					x = m.A[i-dA]
				}
				h := 1e-6 * math.Max(math.Abs(x), 1e-2)
				J := mat.NewDense(2, 1, nil)
				fd.Jacobian(J, func(y, d []float64) { y[0], y[1] = f(d[0]) }, []float64{0}, &fd.JacobianSettings{Formula: fd.Central, Step: h})
				fdI, fdO := J.At(0, 0), J.At(1, 0)
				for _, p := range [][3]float64{{r.DTauI[i], fdI, r.TauI}, {r.DTauO[i], fdO, r.TauO}} {
					if math.Abs(p[0]-p[1]) > 1e-5*(math.Abs(p[1])+1e-3*(1+math.Abs(p[2]))/math.Max(math.Abs(x), 1e-2)) {
						t.Errorf("%+v %+v d/d%s: forward mode %.9g, central differences %.9g", s, c, GradNames[i], p[0], p[1])
					}
				}
			}
		}
	}
}

func TestValueEqualsDualValue(t *testing.T) {
	m := testModel(Asphalt)
	for _, rho := range fig6Radii {
		c := Command{Vc: 0.2, Wc: 0.2 / rho}
		a, _ := m.Torques(c)
		b, _ := m.TorquesValue(c)
		if math.Abs(a.TauI-b.TauI) > 1e-12 || math.Abs(a.TauO-b.TauO) > 1e-12 {
			t.Errorf("ρ = %g: dual (%g, %g) vs float (%g, %g)", rho, a.TauI, a.TauO, b.TauI, b.TauO)
		}
	}
}

func TestQuadratureConverges(t *testing.T) {
	for _, s := range []Surface{Vinyl, Asphalt, {MuO: 0.5, MuI: 0.4, K: 0.0001}} {
		m := testModel(s)
		fine := m
		fine.Quad = Quadrature{Panels: 64, Points: 5, Across: 4}
		worst := 0.0
		for _, rho := range fig6Radii {
			for _, v := range []float64{0.2, 0.6} {
				c := Command{Vc: v, Wc: v / rho}
				a, _ := m.TorquesValue(c)
				b, _ := fine.TorquesValue(c)
				scale := math.Max(math.Abs(b.TauO), 0.5)
				e := math.Max(math.Abs(a.TauI-b.TauI), math.Abs(a.TauO-b.TauO)) / scale
				worst = math.Max(worst, e)
			}
		}
		t.Logf("%+v: worst relative torque error of the default quadrature %.2e", s, worst)
		if worst > 5e-3 {
			t.Errorf("%+v: default quadrature off by %.2e (> 0.5 %%) from 64×5×4", s, worst)
		}
	}
}

func TestStraightLineIsRollingResistance(t *testing.T) {
	m := testModel(Vinyl)
	m.A = [9]float64{0.02} // forward slip only: a rolling-radius calibration
	r, err := m.Torques(Command{Vc: 0.6})
	if err != nil {
		t.Fatal(err)
	}
	v := FSUBot
	want := v.R * v.Crr * v.W * (v.B/2 - v.Cx) / v.B * math.Tanh(0.6*1.02/v.VRoll)
	if math.Abs(r.TauI-want) > 1e-9 || math.Abs(r.FI) > 1e-9 {
		t.Errorf("straight line: τ_i = %g (F_i = %g), want rolling resistance %g", r.TauI, r.FI, want)
	}
}

func TestMirrorCW(t *testing.T) {
	m := testModel(Asphalt)
	m.Vehicle.Cx = 0
	for _, w := range []float64{0.05, 0.4, 2} {
		m.A = [9]float64{0, 0, 0, 0, 0, 0, 0, -0.4, 0.1} // a31 = 0: no yaw at wc = 0
		a, _ := m.TorquesValue(Command{Vc: 0.5, Wc: w})
		b, _ := m.TorquesValue(Command{Vc: 0.5, Wc: -w})
		if math.Abs(a.TauI-b.TauI) > 1e-12 || math.Abs(a.TauO-b.TauO) > 1e-12 || a.Left() != b.Right() {
			t.Errorf("wc = ±%g: CCW (%g, %g), CW (%g, %g)", w, a.TauI, a.TauO, b.TauI, b.TauO)
		}
	}
}

func TestSlopeTerm(t *testing.T) {
	m := testModel(Vinyl)
	flat, _ := m.TorquesValue(Command{Vc: 0.3, Wc: 0.1})
	th := 0.1
	up, _ := m.TorquesValue(Command{Vc: 0.3, Wc: 0.1, Theta: th})
	// The slope adds eq. 14's pull and reduces the normal load by cos θ.
	pull := FSUBot.R * FSUBot.W * math.Sin(th)
	got := up.TauI + up.TauO - flat.TauI - flat.TauO
	if math.Abs(got-pull) > 0.01*pull+(1-math.Cos(th))*math.Abs(flat.TauI+flat.TauO)*1.5 {
		t.Errorf("uphill adds %g N·m, eq. 14 gives %g", got, pull)
	}
}

// Fig. 6's qualitative shape: the outer side always drives; the inner side
// brakes (skids) in sharp turns and drives (slips) in shallow ones; torques
// grow as the radius shrinks.
func TestFig6Regimes(t *testing.T) {
	m := testModel(Vinyl)
	prevO := math.Inf(1)
	for _, rho := range fig6Radii {
		r, _ := m.TorquesValue(Command{Vc: 0.2, Wc: 0.2 / rho})
		if r.TauO <= 0 {
			t.Errorf("ρ = %g: outer torque %g ≤ 0", rho, r.TauO)
		}
		if r.TauO > prevO+1e-9 {
			t.Errorf("ρ = %g: outer torque %g grows with the radius", rho, r.TauO)
		}
		prevO = r.TauO
		if rho <= 2 && (r.TauI >= 0 || !r.InnerSkids) {
			t.Errorf("ρ = %g: inner torque %g (skids %v), want a skidding, braking inner side", rho, r.TauI, r.InnerSkids)
		}
		if rho >= 100 && r.TauI <= 0 {
			t.Errorf("ρ = %g: inner torque %g, want the rolling resistance's sign", rho, r.TauI)
		}
		if !r.Balanced {
			t.Errorf("ρ = %g: lateral forces not balanced", rho)
		}
	}
}

func TestFitRecoversSurface(t *testing.T) {
	// Torque-vs-radius data from the asphalt surface with noise; the fit
	// starts from vinyl.
	truth := testModel(Asphalt)
	var data []Sample
	seedv := uint64(7)
	noise := func() float64 { // deterministic uniform noise ±0.05 N·m
		seedv = seedv*6364136223846793005 + 1442695040888963407
		return (float64(seedv>>11)/float64(1<<53) - 0.5) * 0.1
	}
	for _, rho := range fig6Radii {
		c := Command{Vc: 0.2, Wc: 0.2 / rho}
		r, _ := truth.TorquesValue(c)
		data = append(data, Sample{Cmd: c, TauI: r.TauI + noise(), TauO: r.TauO + noise()})
	}
	start := testModel(Vinyl)
	s, info, err := Fit(start, data)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fitted %+v in %d iterations, %d evaluations, RMS %.3f N·m, %v", s, info.Iterations, info.Evaluations, info.RMS, info.Time)
	if math.Abs(s.MuO/Asphalt.MuO-1) > 0.05 || math.Abs(s.MuI/Asphalt.MuI-1) > 0.05 || math.Abs(s.K/Asphalt.K-1) > 0.3 {
		t.Errorf("fitted %+v, true %+v", s, Asphalt)
	}
	if info.RMS > 0.06 {
		t.Errorf("RMS %g above the noise", info.RMS)
	}
}

func TestMTR(t *testing.T) {
	m := testModel(Asphalt)
	mtr, err := m.MTR(0.6)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("asphalt MTR %.3f m", mtr)
	r, _ := m.TorquesValue(Command{Vc: 0.6, Wc: 0.6 / (mtr * 0.999)})
	r2, _ := m.TorquesValue(Command{Vc: 0.6, Wc: 0.6 / (mtr * 1.002)})
	if !(r.TauO > 0.95*4.6) || r2.TauO > 0.95*4.6 {
		t.Errorf("MTR %g: τ_o just inside %g, just outside %g", mtr, r.TauO, r2.TauO)
	}
	v := testModel(Vinyl)
	if mv, _ := v.MTR(0.6); mv != 0 {
		t.Errorf("vinyl MTR %g, want no restriction", mv)
	}
}

func TestTablePowerAndDerivative(t *testing.T) {
	m := testModel(Asphalt)
	tb, err := m.NewTable(0.6, 1.0, 101)
	if err != nil {
		t.Fatal(err)
	}
	for _, wc := range []float64{-0.73, -0.2, 0.013, 0.31, 0.77} {
		p, d, err := tb.Power(wc)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := m.TorquesValue(Command{Vc: 0.6, Wc: wc})
		_, _, want := m.Power(r)
		if math.Abs(p-want) > 2e-3*want {
			t.Errorf("wc = %g: table power %g, model %g", wc, p, want)
		}
		num := fd.Derivative(func(w float64) float64 {
			p, _, _ := tb.Power(w)
			return p
		}, wc, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		if math.Abs(num-d) > 1e-5*(1+math.Abs(num)) {
			t.Errorf("wc = %g: table dP/dwc %g, central differences %g", wc, d, num)
		}
	}
	if _, _, err := tb.Power(1.5); err != ErrOutside {
		t.Errorf("outside the table: %v", err)
	}
}

func TestPowerEq25(t *testing.T) {
	v := FSUBot
	p, dt, dw := v.SidePower(2, 5)
	i := 2 / (v.Kt * v.Gr * v.Eta)
	if math.Abs(p-(10+v.Re*i*i)) > 1e-12 || math.Abs(dw-2) > 0 || math.Abs(dt-(5+2*v.Re*i/(v.Kt*v.Gr*v.Eta))) > 1e-12 {
		t.Errorf("SidePower(2, 5) = %g, %g, %g", p, dt, dw)
	}
}

func TestBadInput(t *testing.T) {
	m := testModel(Vinyl)
	if _, err := m.Torques(Command{Vc: math.NaN()}); err == nil {
		t.Error("NaN command accepted")
	}
	m.Surface.K = -1
	if err := m.Validate(); err == nil {
		t.Error("negative K accepted")
	}
	if _, _, err := Fit(testModel(Vinyl), nil); err == nil {
		t.Error("empty fit accepted")
	}
}

func TestEnergyOfTrajectory(t *testing.T) {
	m := testModel(Asphalt)
	cmds := []Command{{Vc: 0.6}, {Vc: 0.6, Wc: 0.3}, {Vc: 0.6, Wc: -0.5}}
	dt := []float64{2, 1.5, 0.5}
	e, err := m.Energy(cmds, dt)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for k, c := range cmds {
		r, _ := m.TorquesValue(c)
		pI, pO, drawn := m.Power(r)
		if drawn != math.Max(pI, 0)+math.Max(pO, 0) {
			t.Errorf("drawn %g from sides %g, %g", drawn, pI, pO)
		}
		want += drawn * dt[k]
	}
	if math.Abs(e-want) > 1e-12*want || !(e > 0) {
		t.Errorf("energy %g, want %g", e, want)
	}
	if _, err := m.Energy(cmds, dt[:2]); err == nil {
		t.Error("mismatched lengths accepted")
	}
	if _, err := m.Energy(cmds[:1], []float64{-1}); err == nil {
		t.Error("negative duration accepted")
	}
}

func TestTriplets(t *testing.T) {
	m := testModel(Vinyl)
	tr, err := m.Triplets(0.6, 0.2, 1000, 30)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) != 30 || math.Abs(tr[0].Rho-0.2) > 1e-12 || math.Abs(tr[29].Rho-1000) > 1e-9 {
		t.Fatalf("radii %g … %g (%d)", tr[0].Rho, tr[len(tr)-1].Rho, len(tr))
	}
	r, _ := m.TorquesValue(Command{Vc: 0.6, Wc: 0.6 / tr[7].Rho})
	if r.TauI != tr[7].TauI || r.TauO != tr[7].TauO {
		t.Errorf("triplet 7 %+v, model (%g, %g)", tr[7], r.TauI, r.TauO)
	}
	if _, err := m.Triplets(0.6, 1, 1, 30); err == nil {
		t.Error("empty radius range accepted")
	}
}
