package losses

import (
	"math"
	"math/rand/v2"
	"testing"
)

// drivenPath is a camera trace of a driven robot: 0.4 m/s along a heading
// that turns unevenly, integrated at 240 Hz and sampled at 60 Hz for d
// seconds, with σ = 3 mm noise; figure8 drives a 1-m lemniscate instead, at
// the same speed, so that its path crosses itself (half a lap, ~7 s, apart).
// truth returns the noise-free position at time t.
func drivenPath(d float64, figure8 bool, seed uint64) (u, x, y []float64, truth func(t float64) (x, y float64)) {
	truth = func(t float64) (float64, float64) {
		if figure8 {
			s := 2 * math.Pi * t / 15 // ~6 m per lap at ~0.4 m/s
			return math.Sin(s), math.Sin(s) * math.Cos(s)
		}
		// heading θ(t) = 0.3 t + 0.4 (1 − cos 0.5 t), speed 0.4: closed form
		// is not needed, integrate finely
		var px, py float64
		const dt = 1.0 / 960
		for s := 0.0; s < t; s += dt {
			h := math.Min(dt, t-s)
			th := 0.3*(s+h/2) + 0.4*(1-math.Cos(0.5*(s+h/2)))
			px += 0.4 * h * math.Cos(th)
			py += 0.4 * h * math.Sin(th)
		}
		return px, py
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	n := int(d*60) + 1
	for i := range n {
		t := float64(i) / 60
		tx, ty := truth(t)
		u, x, y = append(u, t), append(x, tx+0.003*rng.NormFloat64()), append(y, ty+0.003*rng.NormFloat64())
	}
	return
}

// closestBenchCase is a spline like the Mecanum fit's and the predicted
// points of a trajectory that misses it by a few mm to a few cm (an error
// growing along the run, partly along the path), with the direction the
// optimiser moves them in.
type closestBenchCase struct {
	name   string
	s      *Spline
	u      []float64 // hint (the sample time) of each query
	qx, qy []float64
	dx, dy []float64 // direction of the optimiser's moves per query
}

func closestBenchCases() []closestBenchCase {
	var cs []closestBenchCase
	for _, c := range []struct {
		name    string
		d       float64
		figure8 bool
	}{{"path", 7, false}, {"figure8", 14, true}} {
		u, x, y, truth := drivenPath(c.d, c.figure8, 21)
		for _, every := range []int{1, 6} {
			ku, kx, ky := Smooth(u, x, y, every)
			s, err := NewSpline(ku, kx, ky)
			if err != nil {
				panic(err)
			}
			bc := closestBenchCase{name: c.name, s: s, u: u}
			if every > 1 {
				bc.name += "-smooth6"
			} else {
				bc.name += "-every"
			}
			for _, t := range u {
				px, py := truth(t)
				ax, ay := truth(t + 0.01)
				tx, ty := ax-px, ay-py
				tn := math.Hypot(tx, ty)
				tx, ty = tx/tn, ty/tn  // unit tangent
				off := 0.002 + 0.004*t // 2 mm to 3–6 cm
				ex, ey := math.Cos(0.4)*(-ty)+math.Sin(0.4)*tx, math.Cos(0.4)*tx+math.Sin(0.4)*ty
				bc.qx, bc.qy = append(bc.qx, px+off*ex), append(bc.qy, py+off*ey)
				bc.dx, bc.dy = append(bc.dx, t/c.d*math.Cos(1+t)), append(bc.dy, t/c.d*math.Sin(1+t))
			}
			cs = append(cs, bc)
		}
	}
	return cs
}

// BenchmarkClosestSearch is the cost of one closest-point search of the
// eq. 8 fit (window 10 s, as DefaultConfig), on a driven path and on a
// figure 8 that crosses itself, with the spline through every 60-Hz sample
// ("every", the paper's) and through knots every 6 samples ("smooth6",
// DefaultConfig's). Each pass searches every query once:
//
//   - window: ClosestWithin from the hierarchy's root (the exhaustive search);
//   - warm-late: ClosestWarm with the queries moving ±0.1 µm between passes
//     (an optimiser's late iterations, like eval-grad in models/mecanum);
//   - warm-converging: ClosestWarm with moves shrinking from 1 cm by 0.6 a
//     pass over 40 passes, then starting again (a whole identification).
//
// Reported per search: ns, refines (segments minimised by iteration) and,
// for the warm ones, the share of full searches.
func BenchmarkClosestSearch(b *testing.B) {
	const window = 10
	for _, c := range closestBenchCases() {
		nq := len(c.qx)
		report := func(b *testing.B, refines, full int) {
			per := float64(b.N * nq)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/per, "ns/search")
			b.ReportMetric(float64(refines)/per, "refines/search")
			if full >= 0 {
				b.ReportMetric(float64(full)/per, "full/search")
			}
		}
		b.Run(c.name+"/window", func(b *testing.B) {
			refines := 0
			var out Closest
			for n := range b.N {
				a := 1e-7 * float64(n%2*2-1)
				for k := range c.qx {
					c.s.closestWithin(c.qx[k]+a*c.dx[k], c.qy[k]+a*c.dy[k], c.u[k], window, -1, &refines, &out)
				}
			}
			report(b, refines, -1)
		})
		for _, mode := range []string{"warm-late", "warm-converging"} {
			b.Run(c.name+"/"+mode, func(b *testing.B) {
				warm := make([]Warm, nq)
				for n := range b.N {
					a := 1e-7 * float64(n%2*2-1)
					if mode == "warm-converging" {
						a = 0.01 * math.Pow(0.6, float64(n%40)) * float64(n%2*2-1)
					}
					for k := range c.qx {
						c.s.ClosestWarm(c.qx[k]+a*c.dx[k], c.qy[k]+a*c.dy[k], c.u[k], window, &warm[k])
					}
				}
				refines, full := 0, 0
				for _, m := range warm {
					refines, full = refines+m.Refines, full+m.Full
				}
				report(b, refines, full)
			})
		}
	}
}
