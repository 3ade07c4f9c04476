package control

import "math"

// Tracking measures how an executed (or predicted) trajectory follows its
// path: the numbers `wheelgrad follow` prints and the experiments tabulate.
type Tracking struct {
	RMS, Max      float64 // distance to the curve (m), over every integration step
	OnTimeRMS     float64 // distance to the reference point of the same time (m)
	OnTimeMax     float64
	Coverage      float64 // fraction of the path whose closest executed point lies within 5 cm
	ReversedRight float64 // figure8-reverse-right: share of right-lobe steps driven backwards
	ForwardLeft   float64 // … and of left-lobe steps driven forwards
	FinalDistance float64 // distance from the last pose to the path's end point
	Steps         int
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
	for i := range cx {
		cx[i], cy[i], _, _ = p.At(T * float64(i) / float64(n))
	}
	covered := make([]bool, n+1)
	var sum, sumT float64
	var revR, totR, fwdL, totL int
	for k, q := range poses {
		t := t0 + float64(k+1)*dt
		// Closest sample by brute force over the whole curve: evaluation is
		// not a hot path, and a local search could lock onto the wrong
		// branch where the figure 8 crosses itself.
		best, bi := math.Inf(1), 0
		for i := range cx {
			d := (cx[i]-q.X)*(cx[i]-q.X) + (cy[i]-q.Y)*(cy[i]-q.Y)
			if d < best {
				best, bi = d, i
			}
		}
		d := math.Sqrt(best)
		sum += d * d
		tr.Max = math.Max(tr.Max, d)
		for i := max(0, bi-2); i <= min(n, bi+2); i++ {
			if d <= 0.05 {
				covered[i] = true
			}
		}
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
