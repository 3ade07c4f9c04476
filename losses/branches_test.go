package losses

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteBranches is Branches by exhaustion: every window segment other
// than c's, minimised from scratch, its minimum kept when it lies inside
// the segment (or on an end of the curve) below c.Dist + r.
func bruteBranches(s *Spline, px, py, u, w, r float64, c Closest, seg int) []float64 {
	wlo, whi := window(u, w)
	lo, hi := s.Range()
	var us []float64
	for i := range len(s.u) - 1 {
		if i == seg || s.u[i+1] < wlo || s.u[i] > whi {
			continue
		}
		var b Closest
		h, _, _ := s.segMin(i, px, py, math.NaN(), &b)
		H := s.u[i+1] - s.u[i]
		if b.Dist < c.Dist+r && (h > 0 && h < H || b.U == lo || b.U == hi) {
			us = append(us, b.U)
		}
	}
	slices.Sort(us)
	return us
}

// Branches finds exactly the other branches that an exhaustive search
// finds (the same minima, to Newton's tolerance), on the warm path (a
// query that moves little: the near set, Newton's method from the last
// valley) and on the walk (a radius beyond the certificate), on curves
// that pass their own path again (a figure 8, a random walk, the
// driven paths), with and without a window.
func TestBranchesAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 61))
	var found, queries, walks int
	for _, c := range shapeCurves() {
		s := c.s
		lo, hi := s.Range()
		x0, y0, _, _, _, _ := s.At(lo)
		x1, y1, _, _, _, _ := s.At(hi)
		size := math.Hypot(x1-x0, y1-y0) + 1e-3
		for _, w := range []float64{math.Inf(1), 0.2 * (hi - lo)} {
			for range 30 {
				u := lo + (hi-lo)*rng.Float64()
				x, y, _, _, _, _ := s.At(u)
				px, py := x+0.01*size*rng.NormFloat64(), y+0.01*size*rng.NormFloat64()
				var m Warm
				for step := range 6 {
					// a point that slides: the warm path and the last valleys
					px += 1e-4 * size * rng.NormFloat64()
					py += 1e-4 * size * rng.NormFloat64()
					cl := s.ClosestWarm(px, py, u, w, &m)
					for _, r := range []float64{1e-3 * size, 0.02 * size, 0.3 * size} {
						dx, dy := px-m.px, py-m.py
						if cl.Dist+r >= m.clear-math.Hypot(dx, dy) {
							walks++
						}
						got := s.Branches(px, py, r, cl, &m, nil)
						var gu []float64
						for _, b := range got {
							gu = append(gu, b.U)
							if b.Dist >= cl.Dist+r || b.Dist < cl.Dist*(1-1e-12)-1e-15 {
								t.Fatalf("%s: branch at %g, distance %g: the nearest is %g, r %g", c.name, b.U, b.Dist, cl.Dist, r)
							}
						}
						slices.Sort(gu)
						want := bruteBranches(s, px, py, u, w, r, cl, int(m.near[0].j))
						if len(gu) != len(want) {
							t.Fatalf("%s, step %d, r %g: branches at %v, exhaustive %v (nearest at %g)", c.name, step, r, gu, want, cl.U)
						}
						for k := range gu {
							if math.Abs(gu[k]-want[k]) > 1e-9*(hi-lo) {
								t.Fatalf("%s: branch at %.15g, exhaustive %.15g", c.name, gu[k], want[k])
							}
						}
						found += len(gu)
						queries++
					}
				}
			}
		}
	}
	t.Logf("%d queries, %d branches, %d beyond the certificate", queries, found, walks)
	if found < queries/10 || walks < queries/20 || walks > queries-queries/20 {
		t.Errorf("%d branches and %d walks in %d queries: not exercised", found, walks, queries)
	}
}

// A memory seeded from the neighbouring query's (Spline.Seed) gives
// ClosestWithin's answers, and two thirds of first queries or more take
// the warm path; a window that leaves part of the curve out is not seeded.
func TestWarmSeed(t *testing.T) {
	for _, c := range closestBenchCases() {
		n := 400
		warm := NewWarms(n)
		seeded, full := 0, 0
		lo, hi := c.s.Range()
		for k := range n {
			px, py := c.qx[k], c.qy[k]
			if k > 0 && c.s.Seed(&warm[k], &warm[k-1], c.u[k], 100*(hi-lo)) {
				seeded++
			}
			got := c.s.ClosestWarm(px, py, c.u[k], 100*(hi-lo), &warm[k])
			want := c.s.ClosestWithin(px, py, c.u[k], 100*(hi-lo))
			if math.Abs(got.X-want.X) > 1e-12 || math.Abs(got.Y-want.Y) > 1e-12 || got.Interior != want.Interior {
				t.Fatalf("%s, query %d: seeded %+v, full %+v", c.name, k, got, want)
			}
			full += warm[k].Full
			if k > 0 && c.s.Seed(&warm[k], &warm[k-1], c.u[k], 100*(hi-lo)) {
				t.Fatalf("%s: a memory with a near set was seeded again", c.name)
			}
		}
		t.Logf("%s: %d of %d seeded, %d full searches", c.name, seeded, n, full)
		if seeded != n-1 || full > n/3 { // unseeded, every first query is a full search
			t.Errorf("%s: %d of %d seeded, %d full searches", c.name, seeded, n, full)
		}
		var m Warm
		if c.s.Seed(&m, &warm[n-1], c.u[0], 0.1*(hi-lo)) {
			t.Errorf("%s: seeded for a window of a tenth of the curve", c.name)
		}
	}
}
