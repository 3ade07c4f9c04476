package control

import (
	"fmt"
	"math"
)

// HeadingMode says which way the robot faces while it follows a path.
type HeadingMode string

const (
	// Tangent: the forward axis along the direction of travel.
	Tangent HeadingMode = "tangent"
	// Fixed: the heading stays at its initial value (the robot translates).
	Fixed HeadingMode = "fixed"
	// Figure8ReverseRight: the right lobe (x > 0) driven backwards, the left
	// lobe forwards (Luo et al. §VII-B's robustness test); at each crossing the
	// heading turns half a revolution while the robot moves at its fastest.
	Figure8ReverseRight HeadingMode = "figure8-reverse-right"
)

// ParseHeading checks a -heading flag value.
func ParseHeading(s string) (HeadingMode, error) {
	switch m := HeadingMode(s); m {
	case Tangent, Fixed, Figure8ReverseRight:
		return m, nil
	}
	return "", fmt.Errorf("unknown heading mode %q (tangent, fixed, figure8-reverse-right)", s)
}

// Reference is a path sampled at the waypoint times: the targets of the
// synthesis loss.
type Reference struct {
	T       []float64
	X, Y    []float64
	VX, VY  []float64
	Theta   []float64 // desired heading, unwrapped; NaN where the mode sets none
	Reverse []bool    // the robot should drive backwards here
	Mode    HeadingMode
	Theta0  float64
}

// DefaultHeadingRamp is the time (s) over which figure8-reverse-right's
// desired heading turns half a revolution at a lobe change, centred on the
// crossing. A step would ask for an infinite turn rate and, worse, give the
// heading loss 1 − cos Δθ no gradient at Δθ = π; over 3 s the turn needs
// ~1.6 rad/s peak, which fits next to the translation in a 30 rad/s wheel
// budget for the 40-s figure 8.
const DefaultHeadingRamp = 3.0

// Sample samples p at n+1 uniform times 0, T/n, …, T with the given heading
// mode and DefaultHeadingRamp. theta0 is the initial heading (the -theta0
// flag); it fixes the heading of Fixed and is the branch (mod 2π) the others
// are unwrapped from.
func Sample(p Path, n int, mode HeadingMode, theta0 float64) (*Reference, error) {
	return SampleRamp(p, n, mode, theta0, DefaultHeadingRamp)
}

// SampleRamp is Sample with the lobe-change ramp of figure8-reverse-right
// given in seconds. The desired heading is θd = unwrap(φ) − π/2 + π·ρ(t): φ
// the direction of travel, ρ = 1 on the right lobe (x > 0) and 0 on the
// left, ramped smoothly (C¹ cubic) across each interior crossing.
func SampleRamp(p Path, n int, mode HeadingMode, theta0, ramp float64) (*Reference, error) {
	if n < 1 {
		return nil, fmt.Errorf("control: %d waypoints", n)
	}
	if mode == Figure8ReverseRight && !(ramp > 0) {
		return nil, fmt.Errorf("control: heading ramp %g s must be positive", ramp)
	}
	r := &Reference{Mode: mode, Theta0: theta0}
	T := p.Duration()
	// Lobe changes are found on the whole path's clock: a receding-horizon
	// window that starts at a crossing must still see the ramp around it.
	base, off := p, 0.0
	if sh, ok := p.(shifted); ok {
		base, off = sh.Path, sh.t0
	}
	var switches []switchPoint
	if mode == Figure8ReverseRight {
		switches = lobeChanges(base)
	}
	phi := make([]float64, n+1)
	for i := 0; i <= n; i++ {
		t := T * float64(i) / float64(n)
		x, y, vx, vy := p.At(t)
		r.T = append(r.T, t)
		r.X, r.Y = append(r.X, x), append(r.Y, y)
		r.VX, r.VY = append(r.VX, vx), append(r.VY, vy)
		if math.Hypot(vx, vy) < 1e-12 && i > 0 {
			phi[i] = phi[i-1]
		} else {
			phi[i] = math.Atan2(vy, vx)
		}
	}
	phi = Unwrap(phi)
	r.Theta = make([]float64, n+1)
	r.Reverse = make([]bool, n+1)
	for i, t := range r.T {
		if th, ok := p.Heading(t); ok {
			r.Theta[i] = th
			continue
		}
		switch mode {
		case Fixed:
			r.Theta[i] = theta0
		case Tangent:
			r.Theta[i] = phi[i] - math.Pi/2
		case Figure8ReverseRight:
			rho := reverseShare(base, math.Min(t+off, base.Duration()), switches, ramp)
			r.Reverse[i] = rho > 0.5
			r.Theta[i] = phi[i] - math.Pi/2 + math.Pi*rho
		}
	}
	if mode != Fixed {
		r.Theta = Unwrap(r.Theta)
	}
	// Put the sequence on theta0's branch.
	k := math.Round((theta0 - r.Theta[0]) / (2 * math.Pi))
	for i := range r.Theta {
		r.Theta[i] += 2 * math.Pi * k
	}
	return r, nil
}

// switchPoint is an interior time where the path crosses x = 0 between lobes.
type switchPoint struct {
	t          float64
	toReversed bool // entering the right lobe
}

// lobeChanges finds the interior crossings of x = 0 by a scan and bisection.
func lobeChanges(p Path) []switchPoint {
	T := p.Duration()
	const m = 4000
	var out []switchPoint
	side := func(t float64) float64 { x, _, _, _ := p.At(t); return x }
	prev := side(T / m)
	for i := 2; i < m; i++ {
		t := T * float64(i) / m
		cur := side(t)
		if (prev > 0) != (cur > 0) {
			a, b := t-T/m, t
			for range 60 {
				c := (a + b) / 2
				if (side(c) > 0) == (prev > 0) {
					a = c
				} else {
					b = c
				}
			}
			out = append(out, switchPoint{t: (a + b) / 2, toReversed: cur > 0})
		}
		prev = cur
	}
	return out
}

// reverseShare is ρ(t): 1 on the right lobe, 0 on the left, with a cubic
// ramp of the given width centred on each interior crossing.
func reverseShare(p Path, t float64, sw []switchPoint, ramp float64) float64 {
	for _, s := range sw {
		if math.Abs(t-s.t) < ramp/2 {
			u := (t - s.t) / ramp // in (−1/2, 1/2)
			step := 0.5 + 1.5*u - 2*u*u*u
			if s.toReversed {
				return step
			}
			return 1 - step
		}
	}
	// Away from crossings: which lobe. At the very ends (t = 0, t = T the path
	// sits on x = 0), look just inside.
	tt := math.Min(math.Max(t, 1e-6*p.Duration()), p.Duration()*(1-1e-6))
	x, _, _, _ := p.At(tt)
	if math.Abs(x) < 1e-12 {
		return 0
	}
	if x > 0 {
		return 1
	}
	return 0
}
