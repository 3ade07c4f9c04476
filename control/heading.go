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

// Sample samples p at n+1 uniform times 0, T/n, …, T with the given heading
// mode. theta0 is the initial heading (the -theta0 flag); it fixes the
// heading of Fixed and is the branch (mod 2π) the others are unwrapped from.
func Sample(p Path, n int, mode HeadingMode, theta0 float64) (*Reference, error) {
	if n < 1 {
		return nil, fmt.Errorf("control: %d waypoints", n)
	}
	r := &Reference{Mode: mode, Theta0: theta0}
	T := p.Duration()
	raw := make([]float64, n+1)
	for i := 0; i <= n; i++ {
		t := T * float64(i) / float64(n)
		x, y, vx, vy := p.At(t)
		r.T = append(r.T, t)
		r.X, r.Y = append(r.X, x), append(r.Y, y)
		r.VX, r.VY = append(r.VX, vx), append(r.VY, vy)
		rev := mode == Figure8ReverseRight && x > 1e-12
		// At the crossing itself (x ≈ 0) keep the previous sample's sense.
		if mode == Figure8ReverseRight && math.Abs(x) <= 1e-12 && i > 0 {
			rev = r.Reverse[i-1]
		}
		if mode == Figure8ReverseRight && i == 0 {
			xn, _, _, _ := p.At(T / float64(4*n))
			rev = xn > 0
		}
		r.Reverse = append(r.Reverse, rev)
		if th, ok := p.Heading(t); ok {
			raw[i] = th
			continue
		}
		switch mode {
		case Fixed:
			raw[i] = theta0
		default:
			phi := math.Atan2(vy, vx)
			if math.Hypot(vx, vy) < 1e-12 && i > 0 {
				raw[i] = raw[i-1]
				continue
			}
			th := phi - math.Pi/2
			if rev {
				th = phi + math.Pi/2
			}
			raw[i] = th
		}
	}
	r.Theta = Unwrap(raw)
	// Shift the unwrapped sequence onto theta0's branch.
	if len(r.Theta) > 0 {
		k := math.Round((theta0 - r.Theta[0]) / (2 * math.Pi))
		for i := range r.Theta {
			r.Theta[i] += 2 * math.Pi * k
		}
	}
	return r, nil
}
