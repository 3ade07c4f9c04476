package losses

import "math"

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
	var c Closest
	s.closestWithin(px, py, u, w, -1, nil, &c)
	return c
}

// window returns the parameter interval of ClosestWithin's window.
func window(u, w float64) (lo, hi float64) {
	if !math.IsNaN(u) && !math.IsInf(w, 1) {
		return u - w, u + w
	}
	return math.Inf(-1), math.Inf(1)
}

// closestWithin is ClosestWithin into best, also returning the answer's
// segment and its offset h = U − u_i on it; seed, when not −1, is a
// candidate segment (of the window, or the hint's) minimised first, such as
// the last answer's, whose distance prunes the walk; nref, when not nil,
// counts the segments minimised by iteration.
//
// Its answer is the best over the window's segments of refine's answer on
// each (ties aside): a segment is skipped only when its box or its capsule,
// which contain it, is no nearer than the best point found so far. The
// hierarchy is walked depth first, the nearer child first, from an
// explicit stack.
func (s *Spline) closestWithin(px, py, u, w float64, seed int, nref *int, best *Closest) (seg int, h float64) {
	*best = Closest{Dist: math.Inf(1)}
	wlo, whi := window(u, w)
	bestD2 := math.Inf(1)
	hint, seg, h := -1, -1, math.NaN()
	var c Closest
	if !math.IsNaN(u) {
		hint = s.segment(u)
		var iter bool
		h, _, iter = s.segMin(hint, px, py, math.NaN(), best)
		countIf(nref, iter)
		bestD2 = best.Dist * best.Dist
		seg = hint
	}
	if seed >= 0 && seed != hint {
		hj, _, iter := s.segMin(seed, px, py, math.NaN(), &c)
		countIf(nref, iter)
		if d2 := c.Dist * c.Dist; d2 < bestD2 {
			*best, bestD2, seg, h = c, d2, seed, hj
		}
	}
	type entry struct {
		n  int32
		d2 float64 // the node's box distance² (a lower bound of its segments')
	}
	var stack [64]entry // the hierarchy's depth + 1 at most
	stack[0] = entry{0, s.nodes[0].b.dist2(px, py)}
	for sp := 1; sp > 0; {
		sp--
		e := stack[sp]
		nd := &s.nodes[e.n]
		if e.d2 >= bestD2 || s.u[nd.hi] < wlo || s.u[nd.lo] > whi {
			continue
		}
		if nd.left < 0 {
			if nd.lo == hint || nd.lo == seed || s.caps[nd.lo].beyond(px, py, best.Dist) {
				continue
			}
			hj, _, iter := s.segMin(nd.lo, px, py, math.NaN(), &c)
			countIf(nref, iter)
			if d2 := c.Dist * c.Dist; d2 < bestD2 {
				*best, bestD2, seg, h = c, d2, nd.lo, hj
			}
			continue
		}
		l, r := nd.left, nd.right
		dl, dr := s.nodes[l].b.dist2(px, py), s.nodes[r].b.dist2(px, py)
		if dr < dl {
			l, r, dl, dr = r, l, dr, dl
		}
		stack[sp] = entry{int32(r), dr}
		stack[sp+1] = entry{int32(l), dl}
		sp += 2
	}
	lo, hi := s.Range()
	best.Interior = best.U > lo && best.U < hi
	return seg, h
}

// Warm is the memory of one query point's closest-point search between
// calls of Spline.ClosestWarm: the segments near the point P′ of its last
// full search (the answer's first), each with a lower bound of its
// distance, a certificate (the distance from P′ to the nearest box of any
// other window segment), the shape of the answer's segment and how far it
// holds, and the last answer with its derivative ∂U/∂P (where Newton's
// method starts next time). The zero value is empty.
type Warm struct {
	near  []nearSeg // the answer's segment first, then in increasing at
	clear float64
	// near[0]'s shape, certain while P is within rho of (sx, sy)
	sh0         shape
	rho, sx, sy float64
	// the last answer: its offset on near[0], its query point and ∂U/∂P
	h, lx, ly, kx, ky float64
	u, w              float64
	px, py            float64 // P′
	// Full and Warm count the full searches and the certified warm ones,
	// Refines the segments minimised by iteration (Newton's method or the
	// sampled search) in both.
	Full, Warm, Refines int
}

// warmRoom is the room for near segments that NewWarms gives each memory.
const warmRoom = 8

// NewWarms returns n memories for ClosestWarm whose near sets share one
// allocation (room for warmRoom segments each; a longer set grows its
// own). A fit's first search of every point fills them all at once: with
// memories of their own (the zero Warm) the near sets grew segment by
// segment, and the allocations were 40 % of those first searches' time
// (1,263 points of three 7-s runs).
func NewWarms(n int) []Warm {
	w := make([]Warm, n)
	buf := make([]nearSeg, n*warmRoom)
	for i := range w {
		w[i].near = buf[i*warmRoom : i*warmRoom : (i+1)*warmRoom]
	}
	return w
}

// nearSeg is a segment of a Warm's near set with a lower bound lb of its
// distance from a point C = (cx, cy), and at = lb − |C − P′| (a bound from
// P′); h is the offset of its valley's minimum where Spline.Branches last
// found one (Newton's start there next time), NaN otherwise.
type nearSeg struct {
	j                 int32
	lb, cx, cy, at, h float64
}

func countIf(n *int, b bool) {
	if n != nil && b {
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
//
// With m's certificate from an earlier point P′ (δ = |P − P′|):
//   - no window segment outside m's near set comes nearer to P than
//     clear − δ (a box contains its segment, and a distance changes by at
//     most δ);
//   - a near segment with a lower bound lb of its distance from a point C
//     comes no nearer than lb − |P − C|, so it is skipped, not minimised,
//     when that is no less than the best distance so far, and so is one
//     whose box or capsule is no nearer than the best (lb is the larger of
//     the box's and the capsule's distances from C = P′ at first; once the
//     segment is minimised at some P with a known shape, its exact minimum
//     there, with C = P); the near segments are kept in increasing order of
//     lb − |C − P′| ≤ lb − |P − C| + δ, so the first one that cannot beat the
//     best by that bound ends the scan;
//   - the answer's segment keeps its shape (Spline.shapeRadius) within
//     the radius ρ of the point where it was last tested, so its test is
//     skipped there.
//
// The answer's segment is minimised first, Newton's method starting from
// the last answer moved to first order (U + ∂U/∂P·(P − P_last)): one step
// when P moved little. When the best of the near segments' answers is
// nearer than clear − δ it is ClosestWithin's answer (each near segment's
// distance is refine's, as in the full search), found without a walk down
// the hierarchy. Otherwise it runs the full search and renews the
// certificate: the near set is every segment whose box lies within 2·d + ℓ
// of P (d the distance found, ℓ the diagonal of the answer's segment's box,
// so that the answer's neighbours are in), at most the 16 nearest, and
// clear the distance to the nearest box outside it. Several branches of a
// path that passes the same place twice are all near, so a closed loop
// keeps its certificate.
//
// Same answer as ClosestWithin up to ties (a closest point on a knot shared
// by two segments: the same point to rounding) and to the tolerance of
// Newton's method (1e-13 of the segment's parameter length: in a valley,
// both searches converge to its one root from different starts, so the
// last bits may differ). The same query twice in a row gets the same
// answer to the last bit. m nil is ClosestWithin; u and w must be the same
// at every call with one m (a change discards the certificate).
func (s *Spline) ClosestWarm(px, py, u, w float64, m *Warm) Closest {
	if m == nil {
		return s.ClosestWithin(px, py, u, w)
	}
	var best Closest
	if len(m.near) > 0 && (m.u == u || math.IsNaN(m.u) && math.IsNaN(u)) && m.w == w {
		ex, ey := px-m.px, py-m.py
		delta := math.Sqrt(ex*ex + ey*ey)
		slack := warmSlack * (m.clear + delta + math.Abs(px) + math.Abs(py))
		if room := m.clear - delta - slack; room > 0 {
			i0 := int(m.near[0].j)
			h0 := m.h + m.kx*(px-m.lx) + m.ky*(py-m.ly)
			var bh float64
			var iter, exact0 bool
			if px == m.lx && py == m.ly {
				// the last query again: the same answer, to the last bit
				// (every answer is point(i, h, P))
				bh = m.h
				s.point(i0, bh, px, py, &best)
				sx, sy := px-m.sx, py-m.sy
				exact0 = m.sh0 != shapeUnknown && sx*sx+sy*sy < m.rho*m.rho
			} else if sx, sy := px-m.sx, py-m.sy; m.sh0 != shapeUnknown && sx*sx+sy*sy < m.rho*m.rho {
				// near[0]'s shape is the one found within rho: no test
				bh, iter = s.byShape(i0, m.sh0, px, py, h0, &best)
				exact0 = true
			} else {
				var t0 float64
				m.sh0, t0, m.rho = s.shapeRadius(i0, px, py, true)
				m.sx, m.sy = px, py
				bh, exact0, iter = s.minByShape(i0, m.sh0, t0, px, py, h0, &best)
			}
			countIf(&m.Refines, iter)
			d0 := best.Dist
			bi := 0
			{
				bestD2 := d0 * d0
				var c Closest
				unsorted := false
				for k := 1; k < len(m.near); k++ {
					e := &m.near[k]
					if e.at-delta-slack >= best.Dist {
						break // near[1:] is in increasing order of at
					}
					if r := e.lb - slack - best.Dist; r > 0 {
						dx, dy := px-e.cx, py-e.cy
						if r*r >= dx*dx+dy*dy {
							continue
						}
					}
					j := int(e.j)
					if s.boxes[j].dist2(px, py) >= bestD2 || s.caps[j].beyond(px, py, best.Dist) {
						continue
					}
					h, exact, iter := s.segMin(j, px, py, math.NaN(), &c)
					countIf(&m.Refines, iter)
					if d2 := c.Dist * c.Dist; d2 < bestD2 {
						best, bestD2, bi, bh = c, d2, k, h
					} else if exact {
						// its exact minimum at P bounds it near P
						e.lb, e.cx, e.cy, e.at = c.Dist, px, py, c.Dist-delta
						if near := m.near; near[k-1].at > e.at && k > 1 || k+1 < len(near) && near[k+1].at < e.at {
							unsorted = true
						}
					}
				}
				if unsorted {
					sortAt(m.near)
				}
			}
			if best.Dist < room {
				m.Warm++
				if bi != 0 {
					// the answer moved to another near segment: it goes first
					// (its shape is tested next time), the old first keeps a
					// lower bound: its exact minimum at P, or its box's
					// distance from P
					lb := d0
					if !exact0 {
						lb = math.Sqrt(s.boxes[i0].dist2(px, py))
					}
					m.near[0], m.near[bi] = m.near[bi], nearSeg{int32(i0), lb, px, py, lb - delta, math.NaN()}
					sortAt(m.near)
					m.sh0 = shapeUnknown
				}
				lo, hi := s.Range()
				best.Interior = best.U > lo && best.U < hi
				m.remember(&best, bh, px, py)
				return best
			}
		}
	}
	seed := -1
	if len(m.near) > 0 && (m.u == u || math.IsNaN(m.u) && math.IsNaN(u)) && m.w == w {
		seed = int(m.near[0].j) // a candidate of the same window
	}
	i, h := s.closestWithin(px, py, u, w, seed, &m.Refines, &best)
	m.Full++
	m.u, m.w, m.px, m.py = u, w, px, py
	b := s.boxes[i]
	r := 2*best.Dist + math.Hypot(b.x1-b.x0, b.y1-b.y0)
	// lower bounds of the near segments' distances from P′: their boxes'
	// distances, raised to their exact minima as the warm path finds them
	m.near, m.clear = s.nearSegments(px, py, u, w, i, r*r, m.near[:0])
	sortAt(m.near)
	m.sh0, _, m.rho = s.shapeRadius(i, px, py, true)
	m.sx, m.sy = px, py
	m.remember(&best, h, px, py)
	return best
}

// remember keeps the answer c (offset h on near[0]) at P and ∂U/∂P there
// (Closest.DParam, with one division: a start, not a result).
func (m *Warm) remember(c *Closest, h, px, py float64) {
	m.h, m.lx, m.ly, m.kx, m.ky = h, px, py, 0, 0
	den := c.DX*c.DX + c.DY*c.DY - ((px-c.X)*c.DDX + (py-c.Y)*c.DDY)
	if c.Interior && den > 0 {
		inv := 1 / den
		m.kx, m.ky = c.DX*inv, c.DY*inv
	}
}

// sortAt puts near[1:] in increasing order of at (insertion: it is short
// and nearly sorted).
func sortAt(near []nearSeg) {
	for k := 2; k < len(near); k++ {
		e := near[k]
		p := k
		for ; p > 1 && near[p-1].at > e.at; p-- {
			near[p] = near[p-1]
		}
		near[p] = e
	}
}

// nearSegments appends to near the candidates of closestWithin (the window's
// segments and the hint's) whose box lies within √r2 of P = (px, py),
// segment i first, at most warmNear of them (those whose boxes are
// nearest), each with its lower bound from P (the larger of its box's
// distance and its capsule's, capsule.lower), and
// returns them with the distance to the nearest box of a candidate left out
// (+Inf for none).
func (s *Spline) nearSegments(px, py, u, w float64, i int, r2 float64, near []nearSeg) ([]nearSeg, float64) {
	wlo, whi := window(u, w)
	clear2 := math.Inf(1)
	base := len(near)
	near = append(near, nearSeg{int32(i), s.boxes[i].dist2(px, py), px, py, 0, math.NaN()}) // squared until the end
	// add keeps candidate j at squared box distance e among the warmNear − 1
	// nearest others; a candidate left out lowers clear2. Once the set is
	// full, far is the kept segment (not i) whose box is farthest, at
	// squared distance farE: a nearer candidate takes its place.
	far, farE := -1, math.Inf(1)
	findFar := func() {
		far, farE = base+1, near[base+1].lb
		for k := base + 2; k < len(near); k++ {
			if near[k].lb > farE {
				far, farE = k, near[k].lb
			}
		}
	}
	add := func(j int, e float64) {
		switch {
		case len(near)-base < warmNear:
			near = append(near, nearSeg{int32(j), e, px, py, 0, math.NaN()})
			if len(near)-base == warmNear {
				findFar()
			}
		case e >= farE:
			clear2 = min(clear2, e)
		default:
			clear2 = min(clear2, farE)
			near[far] = nearSeg{int32(j), e, px, py, 0, math.NaN()}
			findFar()
		}
	}
	type entry struct {
		n  int32
		e2 float64
	}
	var stack [64]entry // the hierarchy's depth + 1 at most; nearer child on top
	stack[0] = entry{0, s.nodes[0].b.dist2(px, py)}
	for sp := 1; sp > 0; {
		sp--
		en := stack[sp]
		nd := &s.nodes[en.n]
		if s.u[nd.hi] < wlo || s.u[nd.lo] > whi {
			continue
		}
		if nd.left < 0 && nd.lo == i {
			continue
		}
		e := en.e2
		if e >= r2 || e >= farE {
			// nothing below is kept (farE is +Inf until the set is full)
			clear2 = min(clear2, e)
			continue
		}
		if nd.left < 0 {
			add(nd.lo, e)
			continue
		}
		l, r := nd.left, nd.right
		dl, dr := s.nodes[l].b.dist2(px, py), s.nodes[r].b.dist2(px, py)
		if dr < dl {
			l, r, dl, dr = r, l, dr, dl
		}
		stack[sp], stack[sp+1] = entry{int32(r), dr}, entry{int32(l), dl}
		sp += 2
	}
	if !math.IsNaN(u) {
		if h := s.segment(u); h != i && (s.u[h+1] < wlo || s.u[h] > whi) {
			// outside the window: a candidate all the same
			if e := s.boxes[h].dist2(px, py); e < r2 {
				add(h, e)
			} else {
				clear2 = min(clear2, e)
			}
		}
	}
	for k := base; k < len(near); k++ {
		e := &near[k]
		e.lb = max(math.Sqrt(e.lb), s.caps[e.j].lower(px, py))
		e.at = e.lb
	}
	return near, math.Sqrt(clear2)
}

// capsule is the set of points within r of the chord from (ax, ay) to
// (ax + bx, ay + by): inv = 1/|b|² (0 for a point).
type capsule struct{ ax, ay, bx, by, inv, r float64 }

// newCapsule bounds segment i by the capsule around its chord (the knots)
// through the farthest of its Bézier control points: a capsule is convex,
// so it holds their convex hull, which holds the segment. r is enlarged by
// 1e-12 of itself and of the coordinates for rounding.
func (s *Spline) newCapsule(i int) capsule {
	H := s.u[i+1] - s.u[i]
	cx, cy := s.cx[i], s.cy[i]
	bx, _, _ := eval(cx, H)
	by, _, _ := eval(cy, H)
	c := capsule{ax: cx[0], ay: cy[0], bx: bx - cx[0], by: by - cy[0]}
	if l2 := c.bx*c.bx + c.by*c.by; l2 > 0 {
		c.inv = 1 / l2
	}
	// the inner control points c0 + c′(0)·H/3 and c(H) − c′(H)·H/3
	_, dx1, _ := eval(cx, H)
	_, dy1, _ := eval(cy, H)
	for _, p := range [2][2]float64{{cx[0] + cx[1]*H/3, cy[0] + cy[1]*H/3}, {bx - dx1*H/3, by - dy1*H/3}} {
		c.r = max(c.r, math.Sqrt(c.dist2(p[0], p[1])))
	}
	c.r += 1e-12 * (c.r + math.Abs(c.ax) + math.Abs(c.ay) + math.Abs(bx) + math.Abs(by))
	return c
}

// dist2 is the squared distance from (px, py) to the chord.
func (c *capsule) dist2(px, py float64) float64 {
	qx, qy := px-c.ax, py-c.ay
	t := (qx*c.bx + qy*c.by) * c.inv
	if t < 0 {
		t = 0
	} else if t > 1 {
		t = 1
	}
	qx, qy = qx-t*c.bx, qy-t*c.by
	return qx*qx + qy*qy
}

// beyond reports whether every point of the segment is at least d from
// (px, py): the chord's distance less r is no less (√e − r ≥ d ⇔
// e ≥ (d + r)², d ≥ 0).
func (c *capsule) beyond(px, py, d float64) bool {
	t := d + c.r
	return c.dist2(px, py) >= t*t
}

// lower is the capsule's lower bound of the segment's distance from
// (px, py) (0 inside).
func (c *capsule) lower(px, py float64) float64 {
	return max(0, math.Sqrt(c.dist2(px, py))-c.r)
}

// bern is what the shape test of one segment needs. With t = h/H ∈ [0, 1],
// e(t) = c(u_i + tH) − c(u_i) and q = P − c(u_i), the derivative of the
// squared distance on the segment has the sign of
//
//	G(t) = (e(t) − q)·e′(t) = e·e′ − q·e′,
//
// a degree-5 polynomial whose Bernstein coefficients are linear in q:
// β_k = A_k − q_x·X_k − q_y·Y_k (A those of e·e′, X and Y those of e′
// raised to degree 5). S and E bound |e′| and |e| (sums of the absolute
// power-basis coefficients), for the rounding of the β_k.
type bern struct {
	A, X, Y [6]float64
	S, E    float64
	invN    [6]float64 // 1/|(X_k, Y_k)|: how fast β_k changes with P
}

// newBern computes segment i's bern from its power-basis coefficients.
func (s *Spline) newBern(i int) bern {
	H := s.u[i+1] - s.u[i]
	var b bern
	for d, c := range [2][4]float64{s.cx[i], s.cy[i]} {
		a1, a2, a3 := c[1]*H, c[2]*H*H, c[3]*H*H*H
		// e·e′ = (e²/2)′ and e′ in the power basis of t
		p := [6]float64{0, a1 * a1, 3 * a1 * a2, 4*a1*a3 + 2*a2*a2, 5 * a2 * a3, 3 * a3 * a3}
		r := [6]float64{a1, 2 * a2, 3 * a3}
		pb, rb := toBernstein5(p), toBernstein5(r)
		for k := range 6 {
			b.A[k] += pb[k]
		}
		if d == 0 {
			b.X = rb
		} else {
			b.Y = rb
		}
		b.S += math.Abs(a1) + 2*math.Abs(a2) + 3*math.Abs(a3)
		b.E += math.Abs(a1) + math.Abs(a2) + math.Abs(a3)
	}
	for k := range 6 {
		b.invN[k] = 1 / math.Hypot(b.X[k], b.Y[k])
	}
	return b
}

// toBernstein5 converts power-basis coefficients on [0, 1] to Bernstein
// ones of degree 5: b_k = Σ_{i≤k} C(k, i)/C(5, i)·p_i.
func toBernstein5(p [6]float64) [6]float64 {
	binom := [6][6]float64{{1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}, {1, 4, 6, 4, 1}, {1, 5, 10, 10, 5, 1}}
	var b [6]float64
	for k := range 6 {
		for i := 0; i <= k; i++ {
			b[k] += binom[k][i] / binom[5][i] * p[i]
		}
	}
	return b
}

// shape classifies the squared distance from P on a segment.
type shape uint8

const (
	shapeUnknown shape = iota // not certain: the sampled search decides
	shapeRising               // increasing on the segment: minimum at its start
	shapeFalling              // decreasing: minimum at its end
	shapeValley               // one stationary point, a minimum, inside
	shapePeak                 // one stationary point, a maximum: minimum at an end
)

// shape classifies the squared distance from P on segment i by the signs
// of the Bernstein coefficients β_k of its derivative (bern). A polynomial
// on [0, 1] has no more roots inside than its Bernstein coefficients have
// sign changes, and the same parity (Descartes' rule of signs in the
// Bernstein basis), and the first and last coefficients are its values at
// the ends. So all β_k > 0 (< 0) is rising (falling) and exactly one change
// from − to + (+ to −) is one simple root, a minimum (maximum). Each β_k
// counts only when it is farther from zero than a bound of its rounding
// (1e-12 of the magnitudes of its terms, and of the coordinates for q's
// own rounding); otherwise the shape is unknown. For a valley, t0 is the
// root of the control polygon (Newton's start without a better one).
func (s *Spline) shape(i int, px, py float64) (sh shape, t0 float64) {
	sh, t0, _ = s.shapeRadius(i, px, py, false)
	return
}

// shapeRadius is shape, also returning (when radius is set) ρ, the distance
// P may move with the shape unchanged: β_k moves by at most |(X_k, Y_k)|
// times P's move and is farther than its rounding bound from zero by
// |β_k| − tol, so no coefficient changes sign within ρ = min_k (|β_k| −
// tol)/|(X_k, Y_k)| (0 for an unknown shape).
func (s *Spline) shapeRadius(i int, px, py float64, radius bool) (sh shape, t0, rho float64) {
	b := &s.bern[i]
	x0, y0 := s.cx[i][0], s.cy[i][0]
	qx, qy := px-x0, py-y0
	tol := b.S * (1e-12*(b.E+math.Abs(qx)+math.Abs(qy)) + 1e-15*(math.Abs(px)+math.Abs(py)+math.Abs(x0)+math.Abs(y0)))
	changes, at := 0, 0
	var prev, bk0, bk1 float64
	rho = math.Inf(1)
	for k := range 6 {
		bk := b.A[k] - qx*b.X[k] - qy*b.Y[k]
		if !(bk > tol || bk < -tol) {
			return shapeUnknown, 0, 0
		}
		if radius {
			rho = min(rho, (math.Abs(bk)-tol)*b.invN[k])
		}
		if k > 0 && (bk > 0) != (prev > 0) {
			changes++
			if changes > 1 {
				return shapeUnknown, 0, 0
			}
			at, bk0, bk1 = k-1, prev, bk
		}
		prev = bk
	}
	switch {
	case changes == 0 && prev > 0:
		return shapeRising, 0, rho
	case changes == 0:
		return shapeFalling, 0, rho
	case bk0 < 0:
		return shapeValley, (float64(at) + bk0/(bk0-bk1)) / 5, rho
	default:
		return shapePeak, 0, rho
	}
}

// refine minimises the squared distance from P on segment i (segMin
// without a start).
func (s *Spline) refine(i int, px, py float64) Closest {
	var c Closest
	s.segMin(i, px, py, math.NaN(), &c)
	return c
}

// segMin minimises the squared distance from P on segment i into c and
// returns the closest point's offset h on the segment, whether it is
// certainly the segment's global minimum (exact: the shape is known), and
// whether it took an iteration. By shape (byShape): rising, falling and
// peak are decided at the knots; a valley by Newton's method from h0 when
// it lies inside the segment (a warm start), from the control polygon's
// root otherwise; an unknown shape by the sampled search.
func (s *Spline) segMin(i int, px, py, h0 float64, c *Closest) (h float64, exact, iter bool) {
	sh, t0 := s.shape(i, px, py)
	return s.minByShape(i, sh, t0, px, py, h0, c)
}

// minByShape is segMin for the shape sh of segment i at P (t0 the valley's
// start without h0).
func (s *Spline) minByShape(i int, sh shape, t0, px, py, h0 float64, c *Closest) (h float64, exact, iter bool) {
	if sh == shapeUnknown {
		h = s.sampled(i, px, py)
		s.point(i, h, px, py, c)
		return h, false, true
	}
	if H := s.u[i+1] - s.u[i]; !(h0 > 0 && h0 < H) {
		h0 = t0 * H
	}
	h, iter = s.byShape(i, sh, px, py, h0, c)
	return h, true, iter
}

// byShape is segMin for a segment whose shape sh is known: the start knot
// (rising), the end knot (falling), the nearer of the two (peak: no
// stationary point but a maximum), or Newton's method in the bracket
// [0, H] that the shape certifies from h0 (valley; the middle when h0 is
// not inside).
func (s *Spline) byShape(i int, sh shape, px, py, h0 float64, c *Closest) (h float64, iter bool) {
	H := s.u[i+1] - s.u[i]
	switch sh {
	case shapeFalling:
		h = H
	case shapePeak:
		x0, y0 := s.cx[i][0]-px, s.cy[i][0]-py
		x1, _, _ := eval(s.cx[i], H)
		y1, _, _ := eval(s.cy[i], H)
		x1, y1 = x1-px, y1-py
		if x1*x1+y1*y1 < x0*x0+y0*y0 {
			h = H
		}
	case shapeValley:
		if !(h0 > 0 && h0 < H) {
			h0 = 0.5 * H
		}
		return s.newton(i, px, py, h0, 0, H, c), true
	}
	s.point(i, h, px, py, c)
	return h, false
}

// newton finds the root of (c(h) − P)·c′(h) in the bracket [a, b] (negative
// at a, positive at b; the only one in a valley) from h: Newton's method,
// falling back to bisection whenever a step leaves the bracket or the
// curvature is not positive. It stops after a step below 1e-13 of the
// segment's parameter length (tol), or after a Newton step s whose error
// estimate |g″|·s²/(2g′) (Newton's error is quadratic in the step) is below
// tol/10 while s is small (≤ 1e-3 of the segment, so that g″ is about
// constant over it), or at a bracket narrower than tol; the point after
// that step goes into c and its offset is returned.
func (s *Spline) newton(i int, px, py, h, a, b float64, c *Closest) float64 {
	H := s.u[i+1] - s.u[i]
	tol := 1e-13 * H
	cx, cy := s.cx[i], s.cy[i]
	for range 60 {
		x, dx, ddx := eval(cx, h)
		y, dy, ddy := eval(cy, h)
		ex, ey := x-px, y-py
		g := ex*dx + ey*dy // half the derivative of the squared distance
		if g > 0 {
			b = h
		} else if g < 0 {
			a = h
		} else {
			break
		}
		gp := dx*dx + dy*dy + ex*ddx + ey*ddy
		hn := h - g/gp
		if !(gp > 0) || !(hn > a && hn < b) {
			hn = 0.5 * (a + b)
		} else if st := math.Abs(hn - h); st <= 1e-3*H {
			g2 := 3*(dx*ddx+dy*ddy) + 6*(ex*cx[3]+ey*cy[3]) // g″
			if math.Abs(g2)*st*st <= 0.2*tol*gp {
				h = hn
				break
			}
		}
		if math.Abs(hn-h) <= tol || b-a <= tol {
			h = hn
			break
		}
		h = hn
	}
	s.point(i, h, px, py, c)
	return h
}

// sampled minimises the squared distance on segment i where its shape is
// not certain: the best of five samples brackets the minimum, then Newton's
// method on the derivative, falling back to bisection whenever a Newton
// step leaves the bracket or the curvature is not positive. It returns the
// offset h.
func (s *Spline) sampled(i int, px, py float64) float64 {
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
	// is that end: no iteration.
	slope := func(h float64) float64 {
		x, dx, _ := eval(cx, h)
		y, dy, _ := eval(cy, h)
		return (x-px)*dx + (y-py)*dy
	}
	if (kb == 0 && slope(0) >= 0) || (kb == m && slope(H) <= 0) {
		return h
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
	return h
}

// point sets c to the point at offset h on segment i (Interior false).
func (s *Spline) point(i int, h, px, py float64, c *Closest) {
	c.U = s.u[i] + h
	c.X, c.DX, c.DDX = eval(s.cx[i], h)
	c.Y, c.DY, c.DDY = eval(s.cy[i], h)
	ex, ey := px-c.X, py-c.Y
	c.Dist = math.Sqrt(ex*ex + ey*ey)
	c.Interior = false
}

// Reset empties m, keeping its near set's room: the zero Warm, for a
// query point unrelated to the last.
func (m *Warm) Reset() { *m = Warm{near: m.near[:0]} }

// Seed gives m, an empty memory, the certificate of prev, a memory of the
// same spline searched for a nearby point (the neighbouring camera
// sample's), for m's queries with window (u, w). Where both windows hold
// the whole curve, the near set and the clearance are statements about
// prev's point P′ and the curve alone, so they hold for m too: its first
// query then takes the warm path when it lies within the clearance of P′,
// where it would otherwise walk the hierarchy twice (the search and the
// certificate). On the demo-like logs a fit's first closest points cost
// three times the later ones. It reports whether it seeded m (not when m
// has a memory, prev has none, or a window leaves part of the curve out).
func (s *Spline) Seed(m, prev *Warm, u, w float64) bool {
	if len(m.near) > 0 || len(prev.near) == 0 || !s.whole(prev.u, prev.w) || !s.whole(u, w) {
		return false
	}
	near := append(m.near[:0], prev.near...)
	*m = *prev
	m.near, m.u, m.w = near, u, w
	m.Full, m.Warm, m.Refines = 0, 0, 0
	return true
}

// whole reports whether the window (u, w) holds every segment.
func (s *Spline) whole(u, w float64) bool {
	lo, hi := window(u, w)
	return lo <= s.u[0] && hi >= s.u[len(s.u)-1]
}
