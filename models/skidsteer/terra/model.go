package terra

import (
	"fmt"
	"math"
)

// Quadrature is the resolution of the contact-patch integrals of eqs. 6–7:
// composite Gauss–Legendre with Panels panels of Points nodes along the patch
// length (where the shear stress rises steeply from the entry edge when K is
// small) and Across nodes across its width (where the integrand is smooth).
type Quadrature struct{ Panels, Points, Across int }

// DefaultQuadrature: 4 panels × 4 nodes along, 1 across, 16 nodes per patch.
// TestQuadratureConverges pins its torques within 0.5 % of a 64 × 5 × 4 rule
// over Fig. 6's radii at 0.2 and 0.6 m/s on vinyl (K = 0.4 mm), asphalt
// (K = 1.6 mm) and a K = 0.1 mm surface (measured: 0.36 %; 8 × 3 × 2, three
// times the work, gives 0.21 %).
var DefaultQuadrature = Quadrature{Panels: 4, Points: 4, Across: 1}

// Model is the steady-turn terramechanic model of Ordonez et al. §2.3: the
// vehicle, the surface, the slip coefficients a11..a33 of the calibrated
// kinematics (eqs. 2–3, the layout of skidsteer.Params.Coeffs) and the
// quadrature. The zero Quadrature means DefaultQuadrature.
type Model struct {
	Vehicle Vehicle
	Surface Surface
	A       [9]float64
	Quad    Quadrature
}

// Command is one steady turn: commanded forward speed Vc (m/s) and yaw rate
// Wc (rad/s, CCW positive), on a slope Theta (rad) with the robot heading Psi
// (rad) measured from the uphill direction, CCW (eq. 14).
type Command struct{ Vc, Wc, Theta, Psi float64 }

// NumGrad is the number of derivatives a Result carries, in the order of
// GradNames.
const NumGrad = dSo

// GradNames name the entries of Result.DTauI and Result.DTauO.
var GradNames = [NumGrad]string{"mu_o", "mu_i", "K", "a11", "a12", "a13", "a21", "a22", "a23", "a31", "a32", "a33", "vc", "wc"}

// Result is the steady turn's wheel-side torques (N·m, eq. 4 without the
// inertial term) and what they came from.
type Result struct {
	TauI, TauO   float64          // inner and outer side torques
	DTauI, DTauO [NumGrad]float64 // their gradients (GradNames)
	FI, FO       float64          // tractive forces of eqs. 6–7 (N)
	OmegaI       float64          // inner wheel speed from the nominal inverse (eq. 1), rad/s
	OmegaO       float64          // outer wheel speed, rad/s
	V, Omega     float64          // actual forward speed and yaw rate (eqs. 2–3)
	So           float64          // longitudinal shift of the turn centre ahead of the CG (m)
	Balanced     bool             // the lateral force balance has a root within the wheel base
	InnerSkids   bool             // the inner wheels skid (ground faster than wheel surface)
	CCW          bool             // inner is the left side
}

// Left and Right return the torques by side: the inner side is the left in a
// CCW turn (Wc ≥ 0), the right in a CW turn.
func (r Result) Left() float64 {
	if r.CCW {
		return r.TauI
	}
	return r.TauO
}

// Right is the right side's torque.
func (r Result) Right() float64 {
	if r.CCW {
		return r.TauO
	}
	return r.TauI
}

// Validate checks the vehicle, the surface, the slip coefficients and the
// quadrature.
func (m *Model) Validate() error {
	if err := m.Vehicle.Validate(); err != nil {
		return err
	}
	if err := m.Surface.Validate(); err != nil {
		return err
	}
	for i, a := range m.A {
		if math.IsNaN(a) || math.IsInf(a, 0) || math.Abs(a) > 10 {
			return fmt.Errorf("slip coefficient a%d%d = %g out of range [-10, 10]", i/3+1, i%3+1, a)
		}
	}
	q := m.quad()
	if q.Panels < 1 || q.Points < 1 || q.Points > 8 || q.Across < 1 || q.Across > 8 {
		return fmt.Errorf("quadrature %+v: want ≥ 1 panel and 1–8 nodes", q)
	}
	return nil
}

func (m *Model) quad() Quadrature {
	if m.Quad == (Quadrature{}) {
		return DefaultQuadrature
	}
	return m.Quad
}

// terms are the quantities of one evaluation at a given turn-centre shift.
type terms[T num[T]] struct {
	tauI, tauO, fI, fO, g   T
	v, omega, rwI, rwO, vyI float64
}

// inputs are the model's differentiable inputs in the arithmetic T.
type inputs[T num[T]] struct {
	muO, muI, k, vc, wc T
	a                   [9]T
}

func floatInputs(m *Model, c Command) inputs[fl] {
	in := inputs[fl]{muO: fl(m.Surface.MuO), muI: fl(m.Surface.MuI), k: fl(m.Surface.K), vc: fl(c.Vc), wc: fl(c.Wc)}
	for i := range in.a {
		in.a[i] = fl(m.A[i])
	}
	return in
}

func dualInputs(m *Model, c Command) inputs[dual] {
	in := inputs[dual]{muO: seed(m.Surface.MuO, dMuO), muI: seed(m.Surface.MuI, dMuI), k: seed(m.Surface.K, dK),
		vc: seed(c.Vc, dVc), wc: seed(c.Wc, dWc)}
	for i := range in.a {
		in.a[i] = seed(m.A[i], dA+i)
	}
	return in
}

// evaluate is eqs. 5–14 at the turn-centre shift so (m ahead of the CG),
// written once for both arithmetics. In the frame of a CCW turn (a CW turn is
// mirrored: Cx changes sign, inner and outer are the right and left sides)
// x points away from the turn centre and y forward; a point (x, y) of a patch
// relative to the CG slides over the ground with (eq. 11)
//
//	V_x = −(y + so)·Ω,   V_y = v + x·Ω − r·ω
//
// (v, Ω the actual velocities of eqs. 2–3; r·ω the wheel surface speed from
// the nominal inverse of eq. 1).
func evaluate[T num[T]](m *Model, c Command, in inputs[T], so T, q Quadrature) terms[T] {
	veh := &m.Vehicle
	var z T
	sgn := 1.0
	if c.Wc < 0 {
		sgn = -1
	}
	a := &in.a
	vw := in.vc.mul(in.wc)
	// eqs. 2–3: actual forward speed and yaw rate (lateral terms a21..a23
	// do not enter: the lateral velocity here is S_o·Ω, from the balance).
	v := in.vc.add(a[0].mul(in.vc)).add(a[1].mul(in.wc)).add(a[2].mul(vw))
	om := in.wc.add(a[6].mul(in.vc)).add(a[7].mul(in.wc)).add(a[8].mul(vw)).scale(sgn)
	wcm := in.wc.scale(sgn)
	cx := sgn * veh.Cx
	// eq. 1 inverted: wheel surface speeds of the inner and outer sides, on
	// the effective rolling radius r·(1 + a11): the forward slip of a
	// straight run (a11·vc) is a rolling-radius calibration, since a wheel
	// that transmits no force cannot slip.
	roll := a[0].addc(1)
	rwI := in.vc.sub(wcm.scale(veh.B / 2)).mul(roll)
	rwO := in.vc.add(wcm.scale(veh.B / 2)).mul(roll)

	mass := veh.W / Gravity
	wn := veh.W * math.Cos(c.Theta)
	// Normal loads: static split by the CG offsets, plus the centripetal
	// load transfer m·v·Ω·h/B from the inner to the outer side.
	dn := om.mul(v).scale(mass * veh.H / veh.B)
	nI := dn.scale(-1).addc(wn * (veh.B/2 - cx) / veh.B)
	nO := dn.addc(wn * (veh.B/2 + cx) / veh.B)
	front := (veh.L/2 + veh.Cy) / veh.L
	area := veh.Pl * veh.Bw

	// Patch edges relative to the CG: the front patch spans
	// [n_a − p_l, n_a] with n_a = l/2 − C_y, l = L + p_l (eq. 7's limits
	// with y measured from the CG instead of the turn centre).
	la := (veh.L+veh.Pl)/2 - veh.Cy
	lb := la - veh.L
	var fI, fO, flat T
	for side := range 2 {
		mu, n, rw, xc := in.muI, nI, rwI, -veh.B/2-cx
		if side == 1 {
			mu, n, rw, xc = in.muO, nO, rwO, veh.B/2-cx
		}
		// Wheel surface speed away from 0: a wheel at rest under a moving
		// patch has infinite contact time (shear saturates); 1e-4 m/s
		// keeps the sign and the saturation.
		rwv := rw.value()
		if math.Abs(rwv) < 1e-4 {
			rw = rw.addc(math.Copysign(1e-4, rwv+0) - rwv)
		}
		var fl, ft T
		for pi, top := range [2]float64{la, lb} {
			share := front
			if pi == 1 {
				share = 1 - front
			}
			p := n.scale(share / area) // uniform pressure per patch
			pmu := p.mul(mu)
			// The tread enters at the front edge when it turns forwards,
			// at the rear edge when backwards.
			ye := top
			if rw.value() < 0 {
				ye = top - veh.Pl
			}
			var lon, lat T = z.from(0), z.from(0)
			patch(q, top-veh.Pl, top, veh.Bw, func(yq, xq, wq float64) {
				x := xc + xq
				// eqs. 8–9 with the entry edge ye: the contact time t and
				// the yaw φ = Ω·t turned since the tread point touched down.
				t := z.from(ye - yq).div(rw)
				phi := om.mul(t)
				yt := z.from(yq).sub(so) // y from the turn centre
				ye2 := z.from(ye).sub(so)
				sp, cp := phi.sin(), phi.cos()
				ex := v.mul(t).mul(phi.cosc()).add(cp.addc(-1).scale(x)).sub(yt.mul(sp))
				ey := v.mul(t).mul(phi.sinc()).add(sp.scale(x)).sub(ye2).add(yt.mul(cp))
				eps := ex.mul(ex).add(ey.mul(ey)).addc(1e-18).sqrt() // eq. 10
				tau := pmu.mul(z.from(1).sub(eps.div(in.k).scale(-1).exp()))
				// eqs. 11–12: the stress opposes the sliding velocity.
				vx := yt.mul(om).scale(-1)
				vy := v.add(om.scale(x)).sub(rw)
				sn := vx.mul(vx).add(vy.mul(vy)).addc(1e-12).sqrt()
				lon = lon.sub(tau.mul(vy).div(sn).scale(wq))
				lat = lat.sub(tau.mul(vx).div(sn).scale(wq))
			})
			fl = fl.add(lon)
			ft = ft.add(lat)
		}
		flat = flat.add(ft)
		if side == 0 {
			fI = fl
		} else {
			fO = fl
		}
	}
	// Rolling and drive-train resistance opposing each side's rotation.
	frI := nI.mul(rwI.scale(1 / veh.VRoll).tanh()).scale(veh.Crr)
	frO := nO.mul(rwO.scale(1 / veh.VRoll).tanh()).scale(veh.Crr)
	// eq. 14: the slope's pull, split by the lateral CG position.
	gs := veh.R * veh.W * math.Sin(c.Theta) * math.Cos(c.Psi) / veh.B
	tauI := fI.add(frI).scale(veh.R).addc(gs * (veh.B/2 - cx))
	tauO := fO.add(frO).scale(veh.R).addc(gs * (veh.B/2 + cx))
	// Lateral balance: friction + gravity = −m·v·Ω (centripetal).
	glat := -sgn * veh.W * math.Sin(c.Theta) * math.Sin(c.Psi)
	g := flat.add(om.mul(v).scale(mass)).addc(glat)
	vyI := v.value() + om.value()*xcI(veh, cx) - rwI.value()
	return terms[T]{tauI: tauI, tauO: tauO, fI: fI, fO: fO, g: g, v: v.value(), omega: sgn * om.value(),
		rwI: rwI.value(), rwO: rwO.value(), vyI: vyI}
}

func xcI(v *Vehicle, cx float64) float64 { return -v.B/2 - cx }

// patch integrates over y ∈ [lo, hi] (length) and x ∈ [−w/2, w/2] (width)
// with the composite Gauss–Legendre rule q, calling f at each node with its
// weight.
func patch(q Quadrature, lo, hi, w float64, f func(y, x, wt float64)) {
	ny, wy := gaussLegendre(q.Points)
	nx, wx := gaussLegendre(q.Across)
	h := (hi - lo) / float64(q.Panels)
	for p := range q.Panels {
		c := lo + (float64(p)+0.5)*h
		for i := range ny {
			y := c + ny[i]*h/2
			for j := range nx {
				f(y, nx[j]*w/2, wy[i]*wx[j]*h*w/4)
			}
		}
	}
}
