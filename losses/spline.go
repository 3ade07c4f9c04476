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
// which contain it) prunes segments that cannot beat the best distance so
// far; on a remaining segment the squared distance is bracketed on a few
// samples and minimised by a safeguarded Newton iteration.
type Spline struct {
	u      []float64    // knots (sample times)
	cx, cy [][4]float64 // per segment: c0 + c1·h + c2·h² + c3·h³, h = u − u_i
	nodes  []bvhNode
	boxes  []box // per segment, the box of its leaf
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
	s.build(0, n-1)
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
		if s.boxes == nil {
			s.boxes = make([]box, len(s.u)-1)
		}
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

// Closest is the point of a Spline closest to a query point P.
type Closest struct {
	U        float64 // curve parameter of the closest point
	X, Y     float64 // the closest point c(U)
	Dist     float64 // |P − c(U)|
	DX, DY   float64 // c′(U)
	DDX, DDY float64 // c″(U)
	// Interior: U lies strictly inside the parameter range, so the
	// stationarity condition (P − c(U))·c′(U) = 0 holds and U moves with P.
	Interior bool
}

// DParam returns ∂U/∂P by the implicit function theorem applied to
// (P − c(U))·c′(U) = 0:
//
//	∂U/∂P = c′ᵀ / (|c′|² − (P − c)·c″),
//
// zero at an end of the range (U is pinned there) or where the denominator,
// the curvature of the squared distance, is not positive.
func (c Closest) DParam(px, py float64) (dux, duy float64) {
	if !c.Interior {
		return 0, 0
	}
	den := c.DX*c.DX + c.DY*c.DY - ((px-c.X)*c.DDX + (py-c.Y)*c.DDY)
	if !(den > 0) {
		return 0, 0
	}
	return c.DX / den, c.DY / den
}

// Closest finds the point of the curve closest to (px, py), globally.
func (s *Spline) Closest(px, py float64) Closest { return s.ClosestHint(px, py, math.NaN()) }

// ClosestHint is Closest with a guess u of the answer's parameter (e.g.
// the time of the predicted point): the segment of u is searched first, so
// that its distance prunes most of the hierarchy. The result is the global
// closest point whatever the hint; NaN means no hint.
func (s *Spline) ClosestHint(px, py, u float64) Closest {
	return s.ClosestWithin(px, py, u, math.Inf(1))
}

// ClosestWithin is ClosestHint restricted to the part of the curve whose
// parameter lies within w of u: the segments that overlap [u − w, u + w].
// On a long curve that wanders back over itself, the global search of a
// point far from the curve visits most of the hierarchy (a time quadratic
// in the curve's length over a whole fit); the window keeps each search to
// the segments near u. w = +Inf (or a NaN u) is the global search.
func (s *Spline) ClosestWithin(px, py, u, w float64) Closest {
	c, _ := s.closestWithin(px, py, u, w, nil)
	return c
}

// window returns the parameter interval of ClosestWithin's window.
func window(u, w float64) (lo, hi float64) {
	if !math.IsNaN(u) && !math.IsInf(w, 1) {
		return u - w, u + w
	}
	return math.Inf(-1), math.Inf(1)
}

// closestWithin is ClosestWithin, also returning the answer's segment.
//
// Its answer is the best over the window's segments of refine's answer on
// each (ties aside): a segment is skipped only when its box, which contains
// it, is no nearer than the best point found so far.
func (s *Spline) closestWithin(px, py, u, w float64, nref *int) (Closest, int) {
	best := Closest{Dist: math.Inf(1)}
	wlo, whi := window(u, w)
	bestD2 := math.Inf(1)
	hint, bestSeg := -1, -1
	if !math.IsNaN(u) {
		hint = s.segment(u)
		best = s.refine(hint, px, py)
		count(nref)
		bestD2 = best.Dist * best.Dist
		bestSeg = hint
	}
	var visit func(n int)
	visit = func(n int) {
		nd := &s.nodes[n]
		if nd.b.dist2(px, py) >= bestD2 || s.u[nd.hi] < wlo || s.u[nd.lo] > whi {
			return
		}
		if nd.left < 0 {
			if nd.lo == hint {
				return
			}
			c := s.refine(nd.lo, px, py)
			count(nref)
			if d2 := c.Dist * c.Dist; d2 < bestD2 {
				best, bestD2, bestSeg = c, d2, nd.lo
			}
			return
		}
		l, r := nd.left, nd.right
		if s.nodes[r].b.dist2(px, py) < s.nodes[l].b.dist2(px, py) {
			l, r = r, l
		}
		visit(l)
		visit(r)
	}
	visit(0)
	lo, hi := s.Range()
	best.Interior = best.U > lo && best.U < hi
	return best, bestSeg
}

// Warm is the memory of one query point's closest-point search between
// calls of Spline.ClosestWarm: the segments near the point of its last full
// search (the answer's first) and a certificate, the distance from that
// point to the nearest box of any other window segment. The zero value is
// empty.
type Warm struct {
	near   []int32 // the answer's segment first; empty: no certificate
	u, w   float64
	px, py float64
	clear  float64
	// Full and Warm count the full searches and the certified warm ones,
	// Refines the segments minimised by iteration in both.
	Full, Warm, Refines int
}

func count(n *int) {
	if n != nil {
		*n++
	}
}

// warmSlack covers the rounding of the boxes and of the distances in the
// certificate's test, relative to the coordinates' size (the boxes and the
// points are exact up to a few ulps of it).
const warmSlack = 1e-12

// warmNear is the most segments a Warm keeps near its point.
const warmNear = 16

// ClosestWarm is ClosestWithin(px, py, u, w) for a query that moves little
// between calls, such as a predicted pose over an optimiser's iterations.
// With m's certificate from an earlier point P′, no window segment outside
// m's near set comes nearer to P than clear − |P − P′| (a box contains its
// segment, and a distance changes by at most |P − P′|), so when the best of
// refine's answers on the near segments (those whose box is nearer than the
// best so far) is nearer than that, it is ClosestWithin's answer: a few
// cubic evaluations instead of a walk down the hierarchy. Otherwise it runs
// the full search and renews the certificate: the near set is every
// segment whose box lies within 2·d + ℓ of P (d the distance found, ℓ the
// diagonal of the answer's segment's box, so that the answer's neighbours
// are in), at most the 16 nearest, and clear the distance to the nearest
// box outside it. Several branches of a path that passes the same place
// twice are all near, so a closed loop keeps its certificate.
//
// Same answer as ClosestWithin up to ties (a closest point on a knot shared
// by two segments: the same point to rounding). m nil is ClosestWithin; u
// and w must be the same at every call with one m (a change discards the
// certificate).
func (s *Spline) ClosestWarm(px, py, u, w float64, m *Warm) Closest {
	if m == nil {
		return s.ClosestWithin(px, py, u, w)
	}
	if len(m.near) > 0 && (m.u == u || math.IsNaN(m.u) && math.IsNaN(u)) && m.w == w {
		delta := math.Hypot(px-m.px, py-m.py)
		scale := m.clear + delta + math.Abs(px) + math.Abs(py)
		if room := m.clear - delta - warmSlack*scale; room > 0 {
			best := s.refine(int(m.near[0]), px, py)
			m.Refines++
			bestD2 := best.Dist * best.Dist
			for _, j := range m.near[1:] {
				if s.boxes[j].dist2(px, py) >= bestD2 {
					continue
				}
				m.Refines++
				if c := s.refine(int(j), px, py); c.Dist*c.Dist < bestD2 {
					best, bestD2 = c, c.Dist*c.Dist
				}
			}
			if best.Dist < room {
				m.Warm++
				lo, hi := s.Range()
				best.Interior = best.U > lo && best.U < hi
				return best
			}
		}
	}
	c, i := s.closestWithin(px, py, u, w, &m.Refines)
	m.Full++
	m.u, m.w, m.px, m.py = u, w, px, py
	b := s.boxes[i]
	r := 2*c.Dist + math.Hypot(b.x1-b.x0, b.y1-b.y0)
	m.near, m.clear = s.nearSegments(px, py, u, w, i, r*r, m.near[:0])
	return c
}

// nearSegments appends to near the candidates of closestWithin (the window's
// segments and the hint's) whose box lies within √r2 of (px, py), segment i
// first, at most warmNear of them (the nearest), and returns them with the
// distance to the nearest box of a candidate left out (+Inf for none).
func (s *Spline) nearSegments(px, py, u, w float64, i int, r2 float64, near []int32) ([]int32, float64) {
	wlo, whi := window(u, w)
	clear2 := math.Inf(1)
	near = append(near, int32(i))
	add := func(j int) {
		if j == i {
			return
		}
		if e := s.boxes[j].dist2(px, py); e < r2 {
			near = append(near, int32(j))
		} else {
			clear2 = math.Min(clear2, e)
		}
	}
	var visit func(n int)
	visit = func(n int) {
		nd := &s.nodes[n]
		if s.u[nd.hi] < wlo || s.u[nd.lo] > whi {
			return
		}
		if e := nd.b.dist2(px, py); e >= r2 {
			clear2 = math.Min(clear2, e)
			return
		}
		if nd.left < 0 {
			add(nd.lo)
			return
		}
		visit(nd.left)
		visit(nd.right)
	}
	visit(0)
	if !math.IsNaN(u) {
		if h := s.segment(u); s.u[h+1] < wlo || s.u[h] > whi {
			add(h) // outside the window: a candidate all the same
		}
	}
	if len(near) > warmNear {
		// keep i and the warmNear − 1 others whose boxes are nearest: cut is
		// the warmNear-th smallest box distance of the others (top holds the
		// smallest ones in increasing order)
		var top [warmNear]float64
		k := 0
		for _, j := range near[1:] {
			e := s.boxes[j].dist2(px, py)
			if k == warmNear && e >= top[k-1] {
				continue
			}
			if k < warmNear {
				k++
			}
			p := k - 1
			for ; p > 0 && top[p-1] > e; p-- {
				top[p] = top[p-1]
			}
			top[p] = e
		}
		cut := top[warmNear-1]
		kept := near[:1]
		for _, j := range near[1:] {
			if s.boxes[j].dist2(px, py) < cut {
				kept = append(kept, j)
			}
		}
		near, clear2 = kept, math.Min(clear2, cut)
	}
	return near, math.Sqrt(clear2)
}

// refine minimises the squared distance on segment i: the best of five
// samples brackets the minimum, then Newton's method on the derivative,
// falling back to bisection whenever a Newton step leaves the bracket or the
// curvature is not positive.
func (s *Spline) refine(i int, px, py float64) Closest {
	H := s.u[i+1] - s.u[i]
	cx, cy := s.cx[i], s.cy[i]
	f := func(h float64) float64 {
		x, _, _ := eval(cx, h)
		y, _, _ := eval(cy, h)
		return (x-px)*(x-px) + (y-py)*(y-py)
	}
	const m = 4
	kb, fb := 0, math.Inf(1)
	for k := 0; k <= m; k++ {
		if v := f(H * float64(k) / m); v < fb {
			kb, fb = k, v
		}
	}
	a := H * float64(max(kb-1, 0)) / m
	b := H * float64(min(kb+1, m)) / m
	h := H * float64(kb) / m
	// A minimum at an end of the segment with the distance growing into it
	// is that end: no iteration (the common case for the segments next to
	// the closest one).
	slope := func(h float64) float64 {
		x, dx, _ := eval(cx, h)
		y, dy, _ := eval(cy, h)
		return (x-px)*dx + (y-py)*dy
	}
	if (kb == 0 && slope(0) >= 0) || (kb == m && slope(H) <= 0) {
		return s.point(i, h, px, py)
	}
	for range 60 {
		x, dx, ddx := eval(cx, h)
		y, dy, ddy := eval(cy, h)
		g := (x-px)*dx + (y-py)*dy // half the derivative of the squared distance
		if g > 0 {
			b = math.Min(b, h)
		} else if g < 0 {
			a = math.Max(a, h)
		} else {
			break
		}
		gp := dx*dx + dy*dy + (x-px)*ddx + (y-py)*ddy
		hn := h - g/gp
		if !(gp > 0) || !(hn > a && hn < b) {
			hn = 0.5 * (a + b)
		}
		if math.Abs(hn-h) <= 1e-13*H || b-a <= 1e-13*H {
			h = hn
			break
		}
		h = hn
	}
	if fh := f(h); !(fh <= fb) {
		h = H * float64(kb) / m
	}
	return s.point(i, h, px, py)
}

func (s *Spline) point(i int, h, px, py float64) Closest {
	var c Closest
	c.U = s.u[i] + h
	c.X, c.DX, c.DDX = eval(s.cx[i], h)
	c.Y, c.DY, c.DDY = eval(s.cy[i], h)
	c.Dist = math.Hypot(px-c.X, py-c.Y)
	return c
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
