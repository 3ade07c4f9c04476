package skidsteer

import (
	"fmt"
	"math"
)

// Pose is a planar pose: position (m) and heading ψ (rad, counter-clockwise).
type Pose struct{ X, Y, Psi float64 }

// Velocity returns the actual body velocities of eqs. 2–3 for the commands
// vc (m/s) and wc (rad/s): forward, lateral (to the robot's left) and yaw rate.
func Velocity(a []float64, vc, wc float64) (fwd, lat, yaw float64) {
	vw := vc * wc
	fwd = vc + a[0]*vc + a[1]*wc + a[2]*vw
	lat = a[3]*vc + a[4]*wc + a[5]*vw
	yaw = wc + a[6]*vc + a[7]*wc + a[8]*vw
	return
}

// Step advances p by dt under constant commands: explicit Euler with the
// heading at the start of the step (FORMATS.md).
func Step(a []float64, p Pose, vc, wc, dt float64) Pose {
	fwd, lat, yaw := Velocity(a, vc, wc)
	c, s := math.Cos(p.Psi), math.Sin(p.Psi)
	return Pose{
		X:   p.X + dt*(c*fwd-s*lat),
		Y:   p.Y + dt*(s*fwd+c*lat),
		Psi: p.Psi + dt*yaw,
	}
}

// Simulate rolls the model from pose0 over the command rows t, vc, wc
// (commands hold from t[i] to t[i+1]) and returns the pose at every row time,
// before that row's command acts; the last row's command has no duration.
func Simulate(p Params, pose0 Pose, t, vc, wc []float64) ([]Pose, error) {
	n := len(t)
	if len(vc) != n || len(wc) != n {
		return nil, fmt.Errorf("skidsteer: %d times, %d vc, %d wc", n, len(vc), len(wc))
	}
	a := p.Coeffs()
	out := make([]Pose, n)
	if n == 0 {
		return out, nil
	}
	out[0] = pose0
	for i := 0; i+1 < n; i++ {
		out[i+1] = Step(a, out[i], vc[i], wc[i], t[i+1]-t[i])
	}
	return out, nil
}

// Windows is a batch of W short integration windows of up to S Euler steps
// each, stored step-major (step s of window w at index s·W + w). A window
// shorter than S is padded with dt = 0, which leaves its pose unchanged.
// Each window starts from the pose (0, 0, 0): by the rotation invariance of
// the model, its end pose is the pose change expressed in the frame of the
// window's first pose, whatever that pose was.
type Windows struct {
	W, S       int
	Vc, Wc, Dt []float64
}

// NewWindows allocates W windows of S steps, all padding.
func NewWindows(w, s int) *Windows {
	return &Windows{W: w, S: s, Vc: make([]float64, w*s), Wc: make([]float64, w*s), Dt: make([]float64, w*s)}
}

// Set stores the commands of window w (len(vc) ≤ S steps) and pads the rest.
func (ws *Windows) Set(w int, vc, wc, dt []float64) {
	for s := range ws.S {
		i := s*ws.W + w
		if s < len(vc) {
			ws.Vc[i], ws.Wc[i], ws.Dt[i] = vc[s], wc[s], dt[s]
		} else {
			ws.Vc[i], ws.Wc[i], ws.Dt[i] = 0, 0, 0
		}
	}
}

// Predict integrates every window with the coefficients a (nine values, or
// 9·W values: coefficient j of window w at a[j·W + w], as in the lanes of
// BuildWindows) and returns the end poses relative to the start.
func (ws *Windows) Predict(a []float64) []Pose {
	out := make([]Pose, ws.W)
	aw := make([]float64, NumCoeffs)
	for w := range ws.W {
		coeffs := a
		if len(a) != NumCoeffs {
			for j := range NumCoeffs {
				aw[j] = a[j*ws.W+w]
			}
			coeffs = aw
		}
		var p Pose
		for s := range ws.S {
			i := s*ws.W + w
			p = Step(coeffs, p, ws.Vc[i], ws.Wc[i], ws.Dt[i])
		}
		out[w] = p
	}
	return out
}

// JacobianNative integrates one window's steps from (0, 0, 0) and returns the
// end pose and its Jacobian with respect to the nine coefficients (row-major
// 3×9: rows x, y, ψ), by forward-mode differentiation of the Euler steps.
// It is the hot-loop twin of GraphJacobian, tested against it and against
// finite differences of Simulate.
func JacobianNative(a, vc, wc, dt []float64, jac *[3 * NumCoeffs]float64) Pose {
	var sx, sy, sp [NumCoeffs]float64
	var p Pose
	for k := range vc {
		h := dt[k]
		if h == 0 {
			continue
		}
		v, w := vc[k], wc[k]
		vw := v * w
		fwd, lat, yaw := Velocity(a, v, w)
		c, s := math.Cos(p.Psi), math.Sin(p.Psi)
		// d(x)/da: -s·ψ'·fwd + c·fwd' - c·ψ'·lat - s·lat'; fwd' and lat'
		// are the features (v, w, vw) in their own rows of a.
		for j := range NumCoeffs {
			dp := sp[j]
			sx[j] += h * (-s*dp*fwd - c*dp*lat)
			sy[j] += h * (c*dp*fwd - s*dp*lat)
		}
		f := [3]float64{v, w, vw}
		for j := range 3 {
			sx[j] += h * c * f[j]
			sy[j] += h * s * f[j]
			sx[3+j] -= h * s * f[j]
			sy[3+j] += h * c * f[j]
			sp[6+j] += h * f[j]
		}
		p = Pose{X: p.X + h*(c*fwd-s*lat), Y: p.Y + h*(s*fwd+c*lat), Psi: p.Psi + h*yaw}
	}
	copy(jac[0:9], sx[:])
	copy(jac[9:18], sy[:])
	copy(jac[18:27], sp[:])
	return p
}

// Relative returns the pose b in the frame of pose a (heading change wrapped
// to (−π, π]).
func Relative(a, b Pose) Pose {
	c, s := math.Cos(a.Psi), math.Sin(a.Psi)
	dx, dy := b.X-a.X, b.Y-a.Y
	return Pose{X: c*dx + s*dy, Y: -s*dx + c*dy, Psi: Wrap(b.Psi - a.Psi)}
}

// Compose returns the pose d (given in the frame of a) in the world frame.
func Compose(a, d Pose) Pose {
	c, s := math.Cos(a.Psi), math.Sin(a.Psi)
	return Pose{X: a.X + c*d.X - s*d.Y, Y: a.Y + s*d.X + c*d.Y, Psi: a.Psi + d.Psi}
}

// Wrap maps an angle to (−π, π].
func Wrap(x float64) float64 {
	x = math.Mod(x+math.Pi, 2*math.Pi)
	if x <= 0 {
		x += 2 * math.Pi
	}
	return x - math.Pi
}
