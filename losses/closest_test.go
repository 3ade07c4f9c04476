package losses

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// shapeCurves are warmCurves and the benchmark's driven paths (a spline
// through every 60-Hz sample and one through smoothed knots), in the order
// of their names.
func shapeCurves() []namedSpline {
	var out []namedSpline
	for name, mk := range warmCurves() {
		u, x, y := mk()
		s, err := NewSpline(u, x, y)
		if err != nil {
			panic(err)
		}
		out = append(out, namedSpline{name, s})
	}
	for _, c := range closestBenchCases() {
		out = append(out, namedSpline{c.name, c.s})
	}
	slices.SortFunc(out, func(a, b namedSpline) int { return strings.Compare(a.name, b.name) })
	return out
}

type namedSpline struct {
	name string
	s    *Spline
}

// denseShape samples g(h) = (c(h) − P)·c′(h) on 2001 points of segment i
// and returns the sign changes (inner values within eps of zero skipped:
// the ends, G(0) and G(1), keep their sign whatever their size) with the
// first and last signs.
func denseShape(s *Spline, i int, px, py, eps float64) (changes int, first, last float64) {
	H := s.u[i+1] - s.u[i]
	for k := 0; k <= 2000; k++ {
		x, dx, _ := eval(s.cx[i], H*float64(k)/2000)
		y, dy, _ := eval(s.cy[i], H*float64(k)/2000)
		g := (x-px)*dx + (y-py)*dy
		if math.Abs(g) <= eps && k > 0 && k < 2000 || g == 0 {
			continue
		}
		if first == 0 {
			first = g
		} else if (g > 0) != (last > 0) {
			changes++
		}
		last = g
	}
	return
}

// queries are points near segment i at several scales, and two beyond its
// centre of curvature (where the distance has a maximum on the segment).
func shapeQueries(s *Spline, i int, rng *rand.Rand) [][2]float64 {
	H := s.u[i+1] - s.u[i]
	x, y, dx, dy, ddx, ddy := s.At(s.u[i] + H*rng.Float64())
	var q [][2]float64
	for _, sc := range []float64{1e-5, 1e-3, 0.03, 0.5} {
		q = append(q, [2]float64{x + sc*rng.NormFloat64(), y + sc*rng.NormFloat64()})
	}
	v2 := dx*dx + dy*dy
	if cross := dx*ddy - dy*ddx; cross != 0 && v2 > 0 {
		r := v2 * math.Sqrt(v2) / cross // signed radius of curvature
		nx, ny := -dy/math.Sqrt(v2), dx/math.Sqrt(v2)
		for _, f := range []float64{1.5, 3} {
			q = append(q, [2]float64{x + f*r*nx, y + f*r*ny})
		}
	}
	return q
}

// The shape test is exact: where it decides (rising, falling, one valley,
// one peak) a dense sampling of the derivative of the squared distance has
// the same signs, the Bernstein coefficients it uses reproduce the
// derivative, and segMin's answer is the segment's global minimum (no
// sample of the dense grid nearer). Each shape occurs, and so does the
// unknown one (the sampled search's fallback).
func TestShapeIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	seen := map[shape]int{}
	for _, ns := range shapeCurves() {
		name, s := ns.name, ns.s
		for range 300 {
			i := rng.IntN(len(s.u) - 1)
			H := s.u[i+1] - s.u[i]
			b := &s.bern[i]
			for _, q := range shapeQueries(s, i, rng) {
				px, py := q[0], q[1]
				qx, qy := px-s.cx[i][0], py-s.cy[i][0]
				scale := b.S * (b.E + math.Abs(qx) + math.Abs(qy))
				// the Bernstein form equals G(t) = H·g(tH)
				for _, t0 := range []float64{0, 0.3, 0.77, 1} {
					var bg float64
					for k := range 6 {
						bk := b.A[k] - qx*b.X[k] - qy*b.Y[k]
						bg += bk * binom5[k] * math.Pow(t0, float64(k)) * math.Pow(1-t0, float64(5-k))
					}
					x, dx, _ := eval(s.cx[i], t0*H)
					y, dy, _ := eval(s.cy[i], t0*H)
					g := H * ((x-px)*dx + (y-py)*dy)
					if math.Abs(bg-g) > 1e-10*scale {
						t.Fatalf("%s, segment %d, t %v: Bernstein form %v, G %v", name, i, t0, bg, g)
					}
				}
				sh, _ := s.shape(i, px, py)
				seen[sh]++
				ch, first, last := denseShape(s, i, px, py, 1e-9*scale/H)
				ok := true
				switch sh {
				case shapeRising:
					ok = ch == 0 && first > 0
				case shapeFalling:
					ok = ch == 0 && first < 0
				case shapeValley:
					ok = ch == 1 && first < 0 && last > 0
				case shapePeak:
					ok = ch == 1 && first > 0 && last < 0
				}
				if !ok {
					t.Fatalf("%s, segment %d, P (%v, %v): shape %d, dense sampling %d sign changes from %v to %v", name, i, px, py, sh, ch, first, last)
				}
				var c Closest
				_, exact, _ := s.segMin(i, px, py, math.NaN(), &c)
				if exact != (sh != shapeUnknown) {
					t.Fatalf("%s: segMin says exact %v for shape %d", name, exact, sh)
				}
				if !exact {
					continue
				}
				dmin := math.Inf(1)
				for k := 0; k <= 2000; k++ {
					x, _, _ := eval(s.cx[i], H*float64(k)/2000)
					y, _, _ := eval(s.cy[i], H*float64(k)/2000)
					dmin = math.Min(dmin, math.Hypot(x-px, y-py))
				}
				if c.Dist > dmin+1e-12*(1+dmin) {
					t.Fatalf("%s, segment %d, P (%v, %v), shape %d: segMin %v, dense sampling %v", name, i, px, py, sh, c.Dist, dmin)
				}
			}
		}
	}
	t.Logf("shapes: rising %d, falling %d, valley %d, peak %d, unknown %d", seen[shapeRising], seen[shapeFalling], seen[shapeValley], seen[shapePeak], seen[shapeUnknown])
	for sh := shapeUnknown; sh <= shapePeak; sh++ {
		if seen[sh] == 0 {
			t.Errorf("shape %d never seen: the test does not exercise it", sh)
		}
	}
}

var binom5 = [6]float64{1, 5, 10, 10, 5, 1}

// A shape found at P′ with radius ρ (shapeRadius) holds at every P within
// ρ of P′: a dense sampling there has the same signs.
func TestShapeRadiusHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 32))
	checked := 0
	for _, ns := range shapeCurves() {
		name, s := ns.name, ns.s
		for range 200 {
			i := rng.IntN(len(s.u) - 1)
			H := s.u[i+1] - s.u[i]
			b := &s.bern[i]
			for _, q := range shapeQueries(s, i, rng) {
				sh, _, rho := s.shapeRadius(i, q[0], q[1], true)
				if sh == shapeUnknown || !(rho > 0) || math.IsInf(rho, 1) {
					continue
				}
				for range 4 {
					a := 2 * math.Pi * rng.Float64()
					px, py := q[0]+0.999*rho*math.Cos(a), q[1]+0.999*rho*math.Sin(a)
					qx, qy := px-s.cx[i][0], py-s.cy[i][0]
					ch, first, last := denseShape(s, i, px, py, 1e-9*b.S*(b.E+math.Abs(qx)+math.Abs(qy))/H)
					want := map[shape][3]float64{shapeRising: {0, 1, 1}, shapeFalling: {0, -1, -1}, shapeValley: {1, -1, 1}, shapePeak: {1, 1, -1}}[sh]
					if float64(ch) != want[0] || (first > 0) != (want[1] > 0) || (last > 0) != (want[2] > 0) {
						t.Fatalf("%s, segment %d: shape %d at (%v, %v), radius %v; at (%v, %v) %d sign changes from %v to %v", name, i, sh, q[0], q[1], rho, px, py, ch, first, last)
					}
					checked++
				}
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d points checked", checked)
	}
}

// ClosestWarm follows queries that slide along a driven path (1 mm a call,
// 5 mm to 3 cm off it, with 0.1-µm jitter), so that the answer moves from
// segment to segment under one certificate: ClosestWithin's answer at every
// call (to 1e-12), the same answer to the last bit for the same query twice,
// and the answer's segment changes on the warm path.
func TestClosestWarmSliding(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 33))
	for _, c := range closestBenchCases() {
		var m Warm
		moved := 0
		k0 := len(c.u) / 4
		for k := k0; k < k0+200; k++ {
			// the bench's predicted point at sample k, sliding: the query
			// at sample k is P_k itself; between samples, interpolate
			for sub := range 4 {
				f := float64(sub) / 4
				px := (1-f)*c.qx[k] + f*c.qx[k+1] + 1e-7*rng.NormFloat64()
				py := (1-f)*c.qy[k] + f*c.qy[k+1] + 1e-7*rng.NormFloat64()
				first, full := int32(-1), m.Full
				if len(m.near) > 0 {
					first = m.near[0].j
				}
				got := c.s.ClosestWarm(px, py, c.u[k0], 10, &m)
				want := c.s.ClosestWithin(px, py, c.u[k0], 10)
				if math.Abs(got.X-want.X) > 1e-12 || math.Abs(got.Y-want.Y) > 1e-12 || math.Abs(got.U-want.U) > 1e-12*(1+math.Abs(want.U)) || got.Interior != want.Interior {
					t.Fatalf("%s, sample %d.%d: warm %+v, full %+v", c.name, k, sub, got, want)
				}
				if again := c.s.ClosestWarm(px, py, c.u[k0], 10, &m); again != got {
					t.Fatalf("%s: the same query twice: %+v, then %+v", c.name, got, again)
				}
				if m.Full == full && first >= 0 && m.near[0].j != first {
					moved++
				}
			}
		}
		t.Logf("%s: %d warm, %d full searches; the answer changed segment %d times on the warm path", c.name, m.Warm, m.Full, moved)
		if moved < 5 || m.Warm < 4*m.Full {
			t.Errorf("%s: %d segment changes on the warm path, %d warm and %d full searches: not exercised", c.name, moved, m.Warm, m.Full)
		}
	}
}

// Each segment lies in its capsule (every point of a dense sampling within
// r of the chord), and the capsule is tight for a thin segment: r is below
// a tenth of the chord's length on the driven paths' smoothed splines.
func TestCapsuleHoldsSegment(t *testing.T) {
	for _, ns := range shapeCurves() {
		s := ns.s
		thin := 0
		for i := range s.caps {
			c := &s.caps[i]
			H := s.u[i+1] - s.u[i]
			for k := 0; k <= 400; k++ {
				x, _, _ := eval(s.cx[i], H*float64(k)/400)
				y, _, _ := eval(s.cy[i], H*float64(k)/400)
				if d := math.Sqrt(c.dist2(x, y)); d > c.r {
					t.Fatalf("%s, segment %d: a point %v from the chord, capsule radius %v", ns.name, i, d, c.r)
				}
			}
			if c.r < 0.1*math.Sqrt(c.bx*c.bx+c.by*c.by) {
				thin++
			}
		}
		if strings.HasSuffix(ns.name, "smooth6") && thin < len(s.caps)*9/10 {
			t.Errorf("%s: only %d of %d capsules thin", ns.name, thin, len(s.caps))
		}
	}
}
