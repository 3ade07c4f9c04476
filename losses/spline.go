package losses

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/interp"
	G "gorgonia.org/gorgonia"
)

// Spline is the planar curve through the ground-truth samples of one
// trajectory that the spline loss (Luo et al. eq. 7) measures distances to:
// x(u) and y(u) are natural cubic splines (gonum/interp.NaturalCubic) of the
// sample time u, so the curve passes through every sample and has continuous
// first and second derivatives, which the Newton step of the closest-point
// search and the implicit derivative of the closest point need.
//
// The closest-point search is global and robust: a bounding-volume hierarchy
// over the segments (each segment's box from its Bézier control points,
// which contain it) and each segment's capsule (around its chord, through
// the farthest control point) prune segments that cannot beat the best
// distance so far. On a remaining segment the signs of the Bernstein
// coefficients of the squared distance's derivative decide its shape
// exactly (closest.go: rising or falling, a knot; one peak, the nearer
// knot; one valley, Newton's method in a certified bracket), and only where
// they do not is the distance bracketed on a few samples and minimised by a
// safeguarded Newton iteration.
type Spline struct {
	u      []float64    // knots (sample times)
	cx, cy [][4]float64 // per segment: c0 + c1·h + c2·h² + c3·h³, h = u − u_i
	nodes  []bvhNode
	boxes  []box     // per segment, the box of its leaf
	caps   []capsule // per segment, a capsule around its chord that holds it
	bern   []bern    // per segment, the shape test's coefficients
}

type box struct{ x0, y0, x1, y1 float64 }

type bvhNode struct {
	b           box
	lo, hi      int // segments [lo, hi)
	left, right int // child node indices, −1 for a leaf
}

// NewSpline fits the curve through the points (x_i, y_i) at increasing
// parameters u_i (at least two, all finite).
func NewSpline(u, x, y []float64) (*Spline, error) {
	n := len(u)
	if n < 2 || len(x) != n || len(y) != n {
		return nil, fmt.Errorf("losses.NewSpline: %d parameters, %d x, %d y: want equal lengths of at least 2", n, len(x), len(y))
	}
	for i := range u {
		if !finite(u[i]) || !finite(x[i]) || !finite(y[i]) {
			return nil, fmt.Errorf("losses.NewSpline: sample %d is not finite", i)
		}
		if i > 0 && !(u[i] > u[i-1]) {
			return nil, fmt.Errorf("losses.NewSpline: parameters not strictly increasing at sample %d", i)
		}
	}
	s := &Spline{u: append([]float64(nil), u...)}
	var err error
	if s.cx, err = hermite(u, x); err != nil {
		return nil, err
	}
	if s.cy, err = hermite(u, y); err != nil {
		return nil, err
	}
	s.nodes = make([]bvhNode, 0, 2*n-3) // a binary tree over n − 1 leaves
	s.boxes = make([]box, n-1)
	s.build(0, n-1)
	s.bern = make([]bern, n-1)
	s.caps = make([]capsule, n-1)
	for i := range s.bern {
		s.bern[i] = s.newBern(i)
		s.caps[i] = s.newCapsule(i)
	}
	return s, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// hermite fits a natural cubic with gonum and converts it to per-segment
// power-basis coefficients from the values and slopes at the knots (gonum
// keeps its coefficients private and offers no second derivative).
func hermite(u, v []float64) ([][4]float64, error) {
	var nc interp.NaturalCubic
	if err := nc.Fit(u, v); err != nil {
		return nil, fmt.Errorf("losses.NewSpline: %w", err)
	}
	d := make([]float64, len(u))
	for i := range u {
		d[i] = nc.PredictDerivative(u[i])
	}
	c := make([][4]float64, len(u)-1)
	for i := range c {
		h := u[i+1] - u[i]
		m := (v[i+1] - v[i]) / h
		c[i] = [4]float64{v[i], d[i], (3*m - 2*d[i] - d[i+1]) / h, (d[i] + d[i+1] - 2*m) / (h * h)}
	}
	if !finite(c[0][1]) {
		return nil, errors.New("losses.NewSpline: spline fit is not finite")
	}
	return c, nil
}

// build makes the hierarchy over segments [lo, hi) and returns the node index.
func (s *Spline) build(lo, hi int) int {
	idx := len(s.nodes)
	s.nodes = append(s.nodes, bvhNode{lo: lo, hi: hi, left: -1, right: -1})
	if hi-lo == 1 {
		s.nodes[idx].b = s.segBox(lo)
		s.boxes[lo] = s.nodes[idx].b
		return idx
	}
	mid := (lo + hi) / 2
	l := s.build(lo, mid)
	r := s.build(mid, hi)
	a, b := s.nodes[l].b, s.nodes[r].b
	s.nodes[idx].left, s.nodes[idx].right = l, r
	s.nodes[idx].b = box{math.Min(a.x0, b.x0), math.Min(a.y0, b.y0), math.Max(a.x1, b.x1), math.Max(a.y1, b.y1)}
	return idx
}

// segBox bounds segment i by its Bézier control points.
func (s *Spline) segBox(i int) box {
	h := s.u[i+1] - s.u[i]
	bz := func(c [4]float64) (lo, hi float64) {
		p0 := c[0]
		p1 := c[0] + c[1]*h/3
		p3 := c[0] + h*(c[1]+h*(c[2]+h*c[3]))
		d3 := c[1] + h*(2*c[2]+3*h*c[3])
		p2 := p3 - d3*h/3
		return math.Min(math.Min(p0, p1), math.Min(p2, p3)), math.Max(math.Max(p0, p1), math.Max(p2, p3))
	}
	x0, x1 := bz(s.cx[i])
	y0, y1 := bz(s.cy[i])
	return box{x0, y0, x1, y1}
}

// dist2 is the squared distance from (px, py) to the box (0 inside). It
// is the hot spot of the closest-point search: comparisons rather than
// math.Max, which is not inlined (the values are finite).
func (b box) dist2(px, py float64) float64 {
	var dx, dy float64
	if d := b.x0 - px; d > 0 {
		dx = d
	} else if d := px - b.x1; d > 0 {
		dx = d
	}
	if d := b.y0 - py; d > 0 {
		dy = d
	} else if d := py - b.y1; d > 0 {
		dy = d
	}
	return dx*dx + dy*dy
}

// Range returns the parameter interval [u_0, u_last].
func (s *Spline) Range() (lo, hi float64) { return s.u[0], s.u[len(s.u)-1] }

// segment returns the segment index of u (clamped to the range).
func (s *Spline) segment(u float64) int {
	lo, hi := 0, len(s.u)-2
	for lo < hi {
		m := (lo + hi + 1) / 2
		if s.u[m] <= u {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return lo
}

// eval returns c, c′ and c″ on segment i at offset h.
func eval(c [4]float64, h float64) (v, d, dd float64) {
	v = c[0] + h*(c[1]+h*(c[2]+h*c[3]))
	d = c[1] + h*(2*c[2]+3*h*c[3])
	dd = 2*c[2] + 6*h*c[3]
	return
}

// At returns the point, first and second derivative of the curve at u.
func (s *Spline) At(u float64) (x, y, dx, dy, ddx, ddy float64) {
	i := s.segment(u)
	h := u - s.u[i]
	x, dx, ddx = eval(s.cx[i], h)
	y, dy, ddy = eval(s.cy[i], h)
	return
}

// ClosestMode says how the gradient of the spline loss treats the closest
// point (x_sp, y_sp) of eq. 7.
type ClosestMode int

const (
	// HoldClosest holds the closest point constant, as the paper does (§VI:
	// "estimating its derivative is not necessary").
	HoldClosest ClosestMode = iota
	// ImplicitClosest differentiates through the closest point, whose
	// parameter moves with the predicted point by the implicit function
	// theorem (Closest.DParam).
	ImplicitClosest
)

// The two modes give the same gradient of eq. 7 wherever the closest point
// is a stationary point of the distance: d/dP |P − c(U(P))| = (P − c)/d −
// ((P − c)·c′/d)·∂U/∂P, and (P − c)·c′ = 0 there (the envelope theorem). So
// the paper's simplification is exact for this loss, not an approximation;
// the implicit mode differs only by the residual of the closest-point
// search, and matters for losses that use the closest point otherwise.

// SplineLoss is the native spline loss of eq. 7 for one trajectory,
// L_sp = Σ_k |p_k − c(U_k)| with U_k the global closest-point parameter of
// p_k. hint, when non-nil, gives a guess of each U_k for the search (such as
// the time of p_k; see ClosestHint). When dpx is non-nil, w times the
// gradient is added to dpx, dpy (the mode decides whether the closest point
// moves). cps, when non-nil, receives the closest points. Slices of
// different lengths are an error.
func SplineLoss(s *Spline, px, py, hint []float64, w float64, mode ClosestMode, dpx, dpy []float64, cps []Closest) (float64, error) {
	if err := sameLen("SplineLoss", len(px), py); err != nil {
		return 0, err
	}
	if hint != nil {
		if err := sameLen("SplineLoss", len(px), hint); err != nil {
			return 0, err
		}
	}
	if err := gradLen("SplineLoss", len(px), dpx, dpy); err != nil {
		return 0, err
	}
	if cps != nil && len(cps) != len(px) {
		return 0, fmt.Errorf("losses.SplineLoss: %d closest points for %d points", len(cps), len(px))
	}
	var l float64
	for k := range px {
		u := math.NaN()
		if hint != nil {
			u = hint[k]
		}
		c := s.ClosestHint(px[k], py[k], u)
		if cps != nil {
			cps[k] = c
		}
		l += c.Dist
		if dpx == nil || c.Dist == 0 {
			continue
		}
		ex, ey := (px[k]-c.X)/c.Dist, (py[k]-c.Y)/c.Dist
		gx, gy := ex, ey
		if mode == ImplicitClosest {
			ux, uy := c.DParam(px[k], py[k])
			t := ex*c.DX + ey*c.DY
			gx -= t * ux
			gy -= t * uy
		}
		dpx[k] += w * gx
		dpy[k] += w * gy
	}
	return w * l, nil
}

// SplineNodes are the data of the graph form of eq. 7, refreshed before
// every run from a native closest-point search at the predicted points (the
// search is not a graph op). Arrays have the shape of the predicted points;
// FillSplineData fills one row.
type SplineNodes struct {
	CX, CY *G.Node // closest points c(U) (0 where mask is 0)
	// ImplicitClosest only: the predicted points P* the search ran at, the
	// tangents c′(U) and ∂U/∂P (Closest.DParam).
	PX, PY, TX, TY, KX, KY *G.Node
}

// SplineTerm builds eq. 7 in a graph: Σ mask ⊙ |p − c|. With HoldClosest,
// c is the data CX, CY; with ImplicitClosest it is the first-order expansion
//
//	c(p) = c* + c′·(∂U/∂P)·(p − P*),
//
// whose value at p = P* is c* and whose derivative is the implicit one, so
// autodiff gives the implicit-mode gradient exactly.
func SplineTerm(px, py *G.Node, d SplineNodes, mode ClosestMode, mask *G.Node) (n *G.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = nil, fmt.Errorf("losses.SplineTerm: %v", r)
		}
	}()
	cx, cy := d.CX, d.CY
	if mode == ImplicitClosest {
		du := G.Must(G.Add(G.Must(G.HadamardProd(d.KX, G.Must(G.Sub(px, d.PX)))), G.Must(G.HadamardProd(d.KY, G.Must(G.Sub(py, d.PY))))))
		cx = G.Must(G.Add(cx, G.Must(G.HadamardProd(d.TX, du))))
		cy = G.Must(G.Add(cy, G.Must(G.HadamardProd(d.TY, du))))
	}
	return maskedDistance("SplineTerm", px, py, cx, cy, mask)
}

// SplineData holds the arrays behind SplineNodes.
type SplineData struct {
	CX, CY, PX, PY, TX, TY, KX, KY []float64
}

// NewSplineData allocates arrays of n values.
func NewSplineData(n int) *SplineData {
	a := make([]float64, 8*n)
	return &SplineData{a[:n], a[n : 2*n], a[2*n : 3*n], a[3*n : 4*n], a[4*n : 5*n], a[5*n : 6*n], a[6*n : 7*n], a[7*n:]}
}

// Set stores the closest point c found for the predicted point (px, py) at
// index i.
func (d *SplineData) Set(i int, px, py float64, c Closest) {
	d.CX[i], d.CY[i], d.PX[i], d.PY[i], d.TX[i], d.TY[i] = c.X, c.Y, px, py, c.DX, c.DY
	d.KX[i], d.KY[i] = c.DParam(px, py)
}

// Smooth thins noisy samples to knots for a Spline: a knot at the first
// sample, every m-th sample and the last, each the value at its time of a
// local quadratic least-squares fit over the 2m+1 samples around it (fewer,
// one-sided, at the ends). An interpolating spline through every noisy
// camera sample zig-zags at the noise scale (3 mm noise between samples 5 mm
// apart), so the closest point of eq. 7 jumps between wiggles and the loss
// gets kinks; through smoothed knots the curve is the path, and the
// quadratic fit is unbiased on curved paths and at the ends. m ≤ 1 returns
// the samples unchanged (the paper's interpolating spline).
func Smooth(u, x, y []float64, m int) (ku, kx, ky []float64) {
	n := len(u)
	if m <= 1 || n < 3 {
		return u, x, y
	}
	var idx []int
	for i := 0; i < n-1; i += m {
		idx = append(idx, i)
	}
	if n-1-idx[len(idx)-1] < m/2 && len(idx) > 1 {
		idx = idx[:len(idx)-1] // no knot crowding the last
	}
	idx = append(idx, n-1)
	for _, c := range idx {
		lo, hi := max(c-m, 0), min(c+m, n-1)
		ku = append(ku, u[c])
		kx = append(kx, quadAt(u[lo:hi+1], x[lo:hi+1], u[c]))
		ky = append(ky, quadAt(u[lo:hi+1], y[lo:hi+1], u[c]))
	}
	return
}

// quadAt fits v ≈ a + b·s + c·s², s = t − t0, by least squares and returns a
// (a line through fewer than 4 points, the value itself for one).
func quadAt(t, v []float64, t0 float64) float64 {
	if len(t) == 1 {
		return v[0]
	}
	deg := 2
	if len(t) < 4 {
		deg = 1
	}
	// normal equations in the scaled variable s/h for conditioning
	h := math.Max(t[len(t)-1]-t0, t0-t[0])
	var A [3][3]float64
	var b [3]float64
	for i := range t {
		s := (t[i] - t0) / h
		p := [3]float64{1, s, s * s}
		for r := 0; r <= deg; r++ {
			b[r] += p[r] * v[i]
			for c := 0; c <= deg; c++ {
				A[r][c] += p[r] * p[c]
			}
		}
	}
	// Gaussian elimination (the system is small and positive definite)
	k := deg + 1
	for c := range k {
		for r := c + 1; r < k; r++ {
			f := A[r][c] / A[c][c]
			for cc := c; cc < k; cc++ {
				A[r][cc] -= f * A[c][cc]
			}
			b[r] -= f * b[c]
		}
	}
	var sol [3]float64
	for r := k - 1; r >= 0; r-- {
		s := b[r]
		for c := r + 1; c < k; c++ {
			s -= A[r][c] * sol[c]
		}
		sol[r] = s / A[r][r]
	}
	return sol[0]
}
