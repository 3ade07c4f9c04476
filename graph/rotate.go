package graph

import (
	"math"

	G "gorgonia.org/gorgonia"
)

// Rotate2D rotates the planar vectors (x, y) by the angles theta,
// elementwise:
//
//	xr = cos θ·x − sin θ·y,   yr = sin θ·x + cos θ·y.
//
// It maps body-frame velocities to the world frame, the rotation block of
// Luo et al. eq. 5 (pose update of the mecanum robot) and of every
// unicycle/differential-drive kinematic step. x and y must have the same
// shape (vectors over a batch or over time, or matrices [B, T]); theta is a
// scalar (one heading for all) or of that shape. The gradient flows to
// theta, x and y.
func Rotate2D(theta, x, y *G.Node) (xr, yr *G.Node, err error) {
	const fn = "Rotate2D"
	if err := checkInput(fn, "x", x); err != nil {
		return nil, nil, err
	}
	if err := checkInput(fn, "y", y); err != nil {
		return nil, nil, err
	}
	if xs, ys := x.Shape(), y.Shape(); !sameShape(xs, ys) {
		return nil, nil, wrap(fn, shapeError("y", ys, xs))
	}
	if err := checkOperand(fn, "theta", x, theta); err != nil {
		return nil, nil, err
	}
	var b builder
	c := b.do(G.Cos(theta))
	s := b.do(G.Sin(theta))
	xr = b.do(G.Sub(b.do(G.HadamardProd(c, x)), b.do(G.HadamardProd(s, y))))
	yr = b.do(G.Add(b.do(G.HadamardProd(s, x)), b.do(G.HadamardProd(c, y))))
	if b.err != nil {
		return nil, nil, wrap(fn, b.err)
	}
	return xr, yr, nil
}

// Rotate2DFloat is the native twin of Rotate2D for one vector.
func Rotate2DFloat(theta, x, y float64) (xr, yr float64) {
	s, c := math.Sincos(theta)
	return c*x - s*y, s*x + c*y
}
