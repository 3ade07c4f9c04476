package control

import (
	"errors"
	"fmt"
	"math"
)

// Tracking measures how an executed (or predicted) trajectory follows its
// path: the numbers `wheelgrad follow` prints and the experiments tabulate.
type Tracking struct {
	RMS, Max      float64 // distance to the curve (m), over every integration step
	OnTimeRMS     float64 // distance to the reference point of the same time (m)
	OnTimeMax     float64
	Coverage      float64 // fraction of the path within 5 cm of the executed trajectory (poses joined by straight steps)
	ReversedRight float64 // figure8-reverse-right: share of right-lobe steps driven backwards
	ForwardLeft   float64 // … and of left-lobe steps driven forwards
	FinalDistance float64 // distance from the last pose to the path's end point
	Steps         int
	// Travelled is the length of the executed trajectory (m) and PathLength
	// the path's: a robot that never moves sits on a path through its start
	// at distance 0, so RMS alone cannot tell it from a perfect follower
	// (Followed can).
	Travelled, PathLength float64
	extent                float64 // diagonal of the path's bounding box (m)
}

// Followed returns an error when the trajectory does not follow the path:
// it travels less than half the path's length and its on-time error
// exceeds a quarter of the path's extent (a robot that never moves, held
// by stiction or by bounds that leave it too little speed).
func (t Tracking) Followed() error {
	if t.Steps == 0 {
		return errors.New("control: no step to follow the path with")
	}
	if t.Travelled >= 0.5*t.PathLength || t.OnTimeRMS <= 0.25*t.extent {
		return nil
	}
	return fmt.Errorf("control: the robot travels %.3g m of the path's %.3g m, %.3g m RMS from where it should be: it does not follow the path",
		t.Travelled, t.PathLength, t.OnTimeRMS)
}

// Track evaluates poses (pose k at time (k+1)·dt from the start, path time
// t0 + (k+1)·dt) against path p. vel holds the world velocity of each step
// (for the direction-of-travel test); it may be nil.
func Track(p Path, t0, dt float64, poses []Pose, vel [][2]float64) Tracking {
	var tr Tracking
	tr.Steps = len(poses)
	if len(poses) == 0 {
		return tr
	}
	// Dense samples of the curve for closest-point queries: ~1 mm apart.
	T := p.Duration()
	length := 0.0
	px, py, _, _ := p.At(0)
	for i := 1; i <= 2000; i++ {
		x, y, _, _ := p.At(T * float64(i) / 2000)
		length += math.Hypot(x-px, y-py)
		px, py = x, y
	}
	n := max(2000, int(length/0.001))
	cx := make([]float64, n+1)
	cy := make([]float64, n+1)
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range cx {
		cx[i], cy[i], _, _ = p.At(T * float64(i) / float64(n))
		if i > 0 {
			tr.PathLength += math.Hypot(cx[i]-cx[i-1], cy[i]-cy[i-1])
		}
		minX, maxX = math.Min(minX, cx[i]), math.Max(maxX, cx[i])
		minY, maxY = math.Min(minY, cy[i]), math.Max(maxY, cy[i])
	}
	tr.extent = math.Hypot(maxX-minX, maxY-minY)
	step := 0.0 // the longest chord between neighbouring samples
	for i := 1; i <= n; i++ {
		step = math.Max(step, math.Hypot(cx[i]-cx[i-1], cy[i]-cy[i-1]))
	}
	covered := make([]bool, n+1)
	var sum, sumT float64
	var revR, totR, fwdL, totL int
	bprev := 0 // the closest sample to the previous pose
	// A closed curve (circle, figure 8) is covered across its end: sample
	// n is sample 0.
	closed := math.Hypot(cx[n]-cx[0], cy[n]-cy[0]) < 1e-9
	wrap := func(i int) int {
		if closed {
			return ((i % n) + n) % n
		}
		return i
	}
	for k, q := range poses {
		t := t0 + float64(k+1)*dt
		if k > 0 {
			tr.Travelled += math.Hypot(q.X-poses[k-1].X, q.Y-poses[k-1].Y)
		}
		best, bi := closest(cx, cy, step, q.X, q.Y, bprev)
		// Covered: the samples within coverRadius of the executed step from
		// the previous pose to this one, from the closest samples of both
		// outwards along the curve (the poses alone leave gaps between them
		// at a coarse step).
		prev, bp := q, bi
		if k > 0 {
			prev, bp = poses[k-1], bprev
		}
		near := func(i int) bool {
			return segmentDist2(cx[i], cy[i], prev.X, prev.Y, q.X, q.Y) <= coverRadius*coverRadius
		}
		a, b := min(bp, bi), max(bp, bi)
		if closed && b-a > n/2 {
			a, b = b, a+n // the shorter way round
		}
		for (closed || a > 0) && b-a < n && near(wrap(a-1)) {
			a--
		}
		for (closed || b < n) && b-a < n && near(wrap(b+1)) {
			b++
		}
		for i := a; i <= b; i++ {
			if j := wrap(i); !covered[j] && near(j) {
				covered[j] = true
			}
		}
		bprev = bi
		// The distance to the curve between the samples: to the chords on
		// either side of the closest sample (1 mm apart, so within
		// 1 mm²/(8·radius of curvature) of the curve itself).
		d := math.Sqrt(best)
		for _, j := range [2]int{bi - 1, bi + 1} {
			if j >= 0 && j <= n {
				d = math.Min(d, segmentDist(q.X, q.Y, cx[bi], cy[bi], cx[j], cy[j]))
			}
		}
		sum += d * d
		tr.Max = math.Max(tr.Max, d)
		rx, ry, _, _ := p.At(math.Min(t, T))
		dt2 := math.Hypot(q.X-rx, q.Y-ry)
		sumT += dt2 * dt2
		tr.OnTimeMax = math.Max(tr.OnTimeMax, dt2)
		if vel != nil {
			v := vel[k]
			speed := math.Hypot(v[0], v[1])
			if speed > 1e-6 {
				fwd := (-math.Sin(q.Theta)*v[0] + math.Cos(q.Theta)*v[1]) / speed
				if rx > 0.05 { // clearly on the right lobe
					totR++
					if fwd < 0 {
						revR++
					}
				} else if rx < -0.05 {
					totL++
					if fwd > 0 {
						fwdL++
					}
				}
			}
		}
	}
	tr.RMS = math.Sqrt(sum / float64(len(poses)))
	tr.OnTimeRMS = math.Sqrt(sumT / float64(len(poses)))
	if closed {
		covered[n] = covered[0]
	}
	c := 0
	for _, b := range covered {
		if b {
			c++
		}
	}
	tr.Coverage = float64(c) / float64(len(covered))
	if totR > 0 {
		tr.ReversedRight = float64(revR) / float64(totR)
	}
	if totL > 0 {
		tr.ForwardLeft = float64(fwdL) / float64(totL)
	}
	ex, ey, _, _ := p.At(T)
	last := poses[len(poses)-1]
	tr.FinalDistance = math.Hypot(last.X-ex, last.Y-ey)
	return tr
}

// closest returns the squared distance from (x, y) to the nearest sample of
// the curve (cx, cy) and its index (the first of equals). It is exact — a
// local search could lock onto the wrong branch where the figure 8 crosses
// itself — but not brute force: neighbouring samples are at most step
// apart, so a sample at distance D from the point has no sample within
// (D − best)/step indices of it nearer than the best found so far, and the
// scan skips them. Starting from the previous pose's nearest sample (hint),
// a point near the curve costs a few hundred distances on a 10⁵-sample
// path instead of 10⁵ (issue 26: a 100-m path took 42 s to evaluate).
func closest(cx, cy []float64, step, x, y float64, hint int) (float64, int) {
	hint = min(max(hint, 0), len(cx)-1)
	bestD := math.Hypot(cx[hint]-x, cy[hint]-y)
	bi := hint
	for i := 0; i < len(cx); {
		d := math.Hypot(cx[i]-x, cy[i]-y)
		if d < bestD || (d == bestD && i < bi) {
			bestD, bi = d, i
		}
		skip := 1
		if step > 0 {
			if k := (d - bestD) / step; k > 1 {
				skip = int(math.Min(k, float64(len(cx))))
			}
		}
		i += skip
	}
	return bestD * bestD, bi
}

// coverRadius is the distance within which a point of the path counts as
// covered by the executed trajectory (m).
const coverRadius = 0.05

// segmentDist is the distance from (px, py) to the segment from (ax, ay) to
// (bx, by).
func segmentDist(px, py, ax, ay, bx, by float64) float64 {
	return math.Sqrt(segmentDist2(px, py, ax, ay, bx, by))
}

// segmentDist2 is the square of segmentDist.
func segmentDist2(px, py, ax, ay, bx, by float64) float64 {
	ux, uy := bx-ax, by-ay
	l2 := ux*ux + uy*uy
	s := 0.0
	if l2 > 0 {
		s = math.Max(0, math.Min(1, ((px-ax)*ux+(py-ay)*uy)/l2))
	}
	dx, dy := px-ax-s*ux, py-ay-s*uy
	return dx*dx + dy*dy
}
