package losses

import "math"

// Branches appends to out the other branches of the distance from P to
// the curve near its closest point c: each local minimum of the distance
// inside a window segment other than c's (Closest of that minimum, its
// Interior set as Closest's), whose distance is below c.Dist + r. m and c
// are ClosestWarm's memory and answer for the same P, u and w, just
// returned.
//
// Where a curve passes near the same place twice, or wiggles within the
// noise it was fitted to, the distance is the smaller of two or more
// branches, each smooth, and the closest point jumps from one to the
// other as P moves: a model of the distance that knows one branch misses
// every jump (see the mecanum package's second stage, which keeps these
// branches in its subproblem). A minimum on a segment's end is not a
// branch: it lies on the neighbour, whose own minimum it is or which
// continues downhill to c's.
//
// After ClosestWarm, every window segment outside m's near set is at least
// clear − |P − P′| from P, so when c.Dist + r is below that only the near
// set is minimised (those whose lower bound lies below c.Dist + r);
// otherwise the hierarchy is walked, pruning boxes no nearer than
// c.Dist + r.
func (s *Spline) Branches(px, py, r float64, c Closest, m *Warm, out []Closest) []Closest {
	if len(m.near) == 0 || !(r > 0) {
		return out
	}
	lim := c.Dist + r
	i0 := m.near[0].j
	dx, dy := px-m.px, py-m.py
	delta := math.Sqrt(dx*dx + dy*dy)
	slack := warmSlack * (m.clear + delta + math.Abs(px) + math.Abs(py))
	if lim < m.clear-delta-slack {
		for k := 1; k < len(m.near); k++ {
			e := &m.near[k]
			if e.at-delta-slack >= lim {
				break // near[1:] is in increasing order of at
			}
			if lb := e.lb - slack - lim; lb > 0 {
				ex, ey := px-e.cx, py-e.cy
				if lb*lb >= ex*ex+ey*ey {
					continue
				}
			}
			out, e.h = s.branchOn(int(e.j), px, py, lim, e.h, out)
		}
		return out
	}
	wlo, whi := window(m.u, m.w)
	lim2 := lim * lim
	var stack [64]int32 // the hierarchy's depth + 1 at most
	for sp := 1; sp > 0; {
		sp--
		nd := &s.nodes[stack[sp]]
		if nd.b.dist2(px, py) >= lim2 || s.u[nd.hi] < wlo || s.u[nd.lo] > whi {
			continue
		}
		if nd.left < 0 {
			if int32(nd.lo) != i0 {
				out, _ = s.branchOn(nd.lo, px, py, lim, math.NaN(), out)
			}
			continue
		}
		stack[sp], stack[sp+1] = int32(nd.left), int32(nd.right)
		sp += 2
	}
	return out
}

// branchOn appends segment i's minimum of the distance from P when it lies
// inside the segment (or on an end of the curve) below lim, Newton's
// method in a valley starting from h0 (when inside the segment), and
// returns the valley's offset (NaN for none).
func (s *Spline) branchOn(i int, px, py, lim, h0 float64, out []Closest) ([]Closest, float64) {
	if s.caps[i].beyond(px, py, lim) {
		return out, math.NaN()
	}
	sh, t0 := s.shape(i, px, py)
	if sh != shapeValley && sh != shapeUnknown && i > 0 && i < len(s.u)-2 {
		return out, math.NaN() // its minimum is on a knot, not the curve's end
	}
	var b Closest
	h, _, _ := s.minByShape(i, sh, t0, px, py, h0, &b)
	if !(b.Dist < lim) {
		return out, h
	}
	lo, hi := s.Range()
	if H := s.u[i+1] - s.u[i]; h > 0 && h < H || b.U == lo || b.U == hi {
		b.Interior = b.U > lo && b.U < hi
		out = append(out, b)
	}
	return out, h
}
