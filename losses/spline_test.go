package losses

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/interp"
	"gonum.org/v1/gonum/mat"
	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
)

// noisyArc is a camera trace like the paper's: a circular arc sampled at
// 60 Hz with σ = 3 mm noise.
func noisyArc(n int, seed uint64) (u, x, y []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range n {
		t := float64(i) / 60
		u = append(u, t)
		x = append(x, math.Sin(0.4*t)+0.003*rng.NormFloat64())
		y = append(y, 1-math.Cos(0.4*t)+0.2*t+0.003*rng.NormFloat64())
	}
	return
}

func TestSplineMatchesGonum(t *testing.T) {
	u, x, y := noisyArc(50, 1)
	s, err := NewSpline(u, x, y)
	if err != nil {
		t.Fatal(err)
	}
	var nx interp.NaturalCubic
	if err := nx.Fit(u, x); err != nil {
		t.Fatal(err)
	}
	for k := range 500 {
		q := u[0] + (u[len(u)-1]-u[0])*float64(k)/499
		sx, _, dx, _, _, _ := s.At(q)
		if math.Abs(sx-nx.Predict(q)) > 1e-12 || math.Abs(dx-nx.PredictDerivative(q)) > 1e-9 {
			t.Fatalf("u = %v: x %v vs gonum %v, x' %v vs %v", q, sx, nx.Predict(q), dx, nx.PredictDerivative(q))
		}
	}
	for i := range u {
		sx, sy, _, _, _, _ := s.At(u[i])
		if math.Abs(sx-x[i]) > 1e-12 || math.Abs(sy-y[i]) > 1e-12 {
			t.Fatalf("spline misses sample %d", i)
		}
	}
}

func TestNewSplineRejectsBadInput(t *testing.T) {
	for _, c := range []struct{ u, x, y []float64 }{
		{[]float64{0}, []float64{0}, []float64{0}},
		{[]float64{0, 0}, []float64{0, 1}, []float64{0, 1}},
		{[]float64{0, 1}, []float64{0, math.NaN()}, []float64{0, 1}},
		{[]float64{0, 1}, []float64{0}, []float64{0, 1}},
	} {
		if _, err := NewSpline(c.u, c.x, c.y); err == nil {
			t.Errorf("NewSpline(%v, %v, %v): no error", c.u, c.x, c.y)
		}
	}
}

// The search must never lose to brute force on a dense sampling: queries near
// the curve, far from it, and near a self-crossing (figure 8, where two
// branches compete).
func TestClosestAgainstBruteForce(t *testing.T) {
	curves := map[string]func() (u, x, y []float64){
		"noisy arc": func() ([]float64, []float64, []float64) { return noisyArc(200, 2) },
		"figure 8": func() (u, x, y []float64) {
			for i := range 80 {
				s := 2 * math.Pi * float64(i) / 79
				u = append(u, float64(i))
				x = append(x, math.Sin(s))
				y = append(y, math.Sin(s)*math.Cos(s))
			}
			return
		},
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for name, mk := range curves {
		u, x, y := mk()
		s, err := NewSpline(u, x, y)
		if err != nil {
			t.Fatal(err)
		}
		// Dense sampling: 400 points per segment.
		var bx, by []float64
		for i := 0; i+1 < len(u); i++ {
			for k := range 400 {
				cx, cy, _, _, _, _ := s.At(u[i] + (u[i+1]-u[i])*float64(k)/400)
				bx, by = append(bx, cx), append(by, cy)
			}
		}
		bx, by = append(bx, x[len(x)-1]), append(by, y[len(y)-1])
		worst := 0.0
		for q := range 300 {
			i := rng.IntN(len(x))
			scale := []float64{0.001, 0.02, 0.5}[q%3]
			px, py := x[i]+scale*rng.NormFloat64(), y[i]+scale*rng.NormFloat64()
			c := s.Closest(px, py)
			if ch := s.ClosestHint(px, py, u[rng.IntN(len(u))]); math.Abs(ch.Dist-c.Dist) > 1e-13 {
				t.Errorf("%s: a hint changed the answer: %v vs %v", name, ch.Dist, c.Dist)
			}
			bd := math.Inf(1)
			for k := range bx {
				bd = math.Min(bd, math.Hypot(px-bx[k], py-by[k]))
			}
			if c.Dist > bd+1e-12 {
				t.Errorf("%s: query (%v, %v): search %v, brute force %v", name, px, py, c.Dist, bd)
			}
			// and not much better than the dense sampling allows
			worst = math.Max(worst, bd-c.Dist)
			if cx, cy, _, _, _, _ := s.At(c.U); math.Hypot(cx-c.X, cy-c.Y) > 1e-12 {
				t.Errorf("%s: closest point is not c(U)", name)
			}
			if c.Interior && math.Abs((px-c.X)*c.DX+(py-c.Y)*c.DY) > 1e-10*math.Hypot(c.DX, c.DY) {
				t.Errorf("%s: interior closest point is not stationary", name)
			}
		}
		if worst > 1e-3 {
			t.Errorf("%s: the dense sampling is %v worse than the search: the brute force is not dense enough to check it", name, worst)
		}
	}
}

func TestClosestDParamMatchesFiniteDifferences(t *testing.T) {
	u, x, y := noisyArc(100, 4)
	s, _ := NewSpline(u, x, y)
	rng := rand.New(rand.NewPCG(5, 5))
	checked := 0
	for range 50 {
		i := 5 + rng.IntN(90)
		px, py := x[i]+0.01*rng.NormFloat64(), y[i]+0.01*rng.NormFloat64()
		c := s.Closest(px, py)
		if !c.Interior {
			continue
		}
		ux, uy := c.DParam(px, py)
		num := fd.Gradient(nil, func(p []float64) float64 { return s.Closest(p[0], p[1]).U }, []float64{px, py}, &fd.Settings{Formula: fd.Central, Step: 1e-7})
		fx, fy := num[0], num[1]
		if math.Abs(fx-ux) > 1e-5*(1+math.Abs(ux)) || math.Abs(fy-uy) > 1e-5*(1+math.Abs(uy)) {
			// a closest point jumping between branches has no derivative
			if math.Abs(fx) < 1e3 {
				t.Errorf("∂U/∂P = (%v, %v), central differences (%v, %v)", ux, uy, fx, fy)
			}
		}
		checked++
	}
	if checked < 30 {
		t.Fatalf("only %d interior queries", checked)
	}
}

// predicted points near the measured curve, as a function of a parameter
// vector (a shift and a scale of a reference trajectory), so that the
// gradient check exercises the loss through a chain like the model's.
func splineCase() (*Spline, func(p []float64) (px, py []float64)) {
	u, x, y := noisyArc(120, 6)
	s, _ := NewSpline(u, x, y)
	f := func(p []float64) (px, py []float64) {
		for i := range u {
			t := u[i]
			px = append(px, p[0]+math.Sin(p[2]*t))
			py = append(py, p[1]+1-math.Cos(p[2]*t)+0.2*t)
		}
		return
	}
	return s, f
}

func TestSplineLossGradientBothModes(t *testing.T) {
	s, f := splineCase()
	p0 := []float64{0.01, -0.02, 0.41}
	for _, mode := range []ClosestMode{HoldClosest, ImplicitClosest} {
		loss := func(p []float64) (float64, error) {
			px, py := f(p)
			return SplineLoss(s, px, py, nil, 0.8, mode, nil, nil, nil)
		}
		px, py := f(p0)
		dpx, dpy := make([]float64, len(px)), make([]float64, len(px))
		if _, err := SplineLoss(s, px, py, nil, 0.8, mode, dpx, dpy, nil); err != nil {
			t.Fatal(err)
		}
		// chain rule through f by central differences of f (exact enough: f is smooth)
		n := len(px)
		J := mat.NewDense(2*n, 3, nil) // ∂(px, py)/∂p
		fd.Jacobian(J, func(xy, p []float64) {
			x, y := f(p)
			copy(xy, x)
			copy(xy[n:], y)
		}, p0, &fd.JacobianSettings{Formula: fd.Central, Step: 1e-7})
		grad := make([]float64, 3)
		mat.NewVecDense(3, grad).MulVec(J.T(), mat.NewVecDense(2*n, append(dpx, dpy...)))
		chk, err := ad.CheckGrad(loss, grad, p0, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if chk.MaxRelErr > 1e-6 {
			t.Errorf("mode %d: %v", mode, chk)
		}
	}
}

// The graph forms of eqs. 6 and 7 equal the native losses in value and in
// gradient with respect to the predicted points, in both modes.
func TestGraphLossesMatchNative(t *testing.T) {
	s, f := splineCase()
	px0, py0 := f([]float64{0.01, -0.02, 0.41})
	n := len(px0)
	gx, gy := make([]float64, n), make([]float64, n)
	mask := make([]float64, n)
	for k := range n {
		gx[k], gy[k], _, _, _, _ = s.At(s.u[k])
		if k%3 != 1 { // only some rows count
			mask[k] = 1
		}
	}
	for _, mode := range []ClosestMode{HoldClosest, ImplicitClosest} {
		sd := NewSplineData(n)
		for k := range n {
			sd.Set(k, px0[k], py0[k], s.Closest(px0[k], py0[k]))
		}
		prog, err := ad.Compile([]ad.Param{{Name: "px", Shape: []int{n}}, {Name: "py", Shape: []int{n}}},
			func(g *ad.Graph, p []*G.Node) (*G.Node, error) {
				c := func(v []float64) *G.Node { return g.Const(v) }
				m := c(mask)
				lgt, err := GroundTruth(p[0], p[1], c(gx), c(gy), m)
				if err != nil {
					return nil, err
				}
				lsp, err := SplineTerm(p[0], p[1], SplineNodes{c(sd.CX), c(sd.CY), c(sd.PX), c(sd.PY), c(sd.TX), c(sd.TY), c(sd.KX), c(sd.KY)}, mode, m)
				if err != nil {
					return nil, err
				}
				return Weighted(DefaultWeights(), lsp, lgt)
			})
		if err != nil {
			t.Fatal(err)
		}
		x := append(append([]float64(nil), px0...), py0...)
		fg, grad, err := prog.ValueAndGrad(x)
		if err != nil {
			t.Fatal(err)
		}
		var sx, sy, qx, qy, hx, hy []float64
		var idx []int
		for k := range n {
			if mask[k] == 1 {
				sx, sy, qx, qy = append(sx, px0[k]), append(sy, py0[k]), append(qx, gx[k]), append(qy, gy[k])
				idx = append(idx, k)
			}
		}
		hx, hy = make([]float64, len(sx)), make([]float64, len(sx))
		ls, err1 := SplineLoss(s, sx, sy, nil, 0.8, mode, hx, hy, nil)
		lg, err2 := GroundTruthLoss(sx, sy, qx, qy, 0.2, hx, hy)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		fn := ls + lg
		if math.Abs(fg-fn) > 1e-12*math.Abs(fn) {
			t.Errorf("mode %d: graph %v, native %v", mode, fg, fn)
		}
		for i, k := range idx {
			if math.Abs(grad[k]-hx[i]) > 1e-12 || math.Abs(grad[n+k]-hy[i]) > 1e-12 {
				t.Fatalf("mode %d: gradient at %d: graph (%v, %v), native (%v, %v)", mode, k, grad[k], grad[n+k], hx[i], hy[i])
			}
		}
		for k := range n {
			if mask[k] == 0 && (grad[k] != 0 || grad[n+k] != 0) {
				t.Fatalf("masked row %d has gradient", k)
			}
		}
	}
}

func BenchmarkClosest(b *testing.B) {
	u, x, y := noisyArc(420, 7)
	s, _ := NewSpline(u, x, y)
	rng := rand.New(rand.NewPCG(8, 8))
	qx, qy := make([]float64, 420), make([]float64, 420)
	for i := range qx {
		qx[i], qy[i] = x[i]+0.01*rng.NormFloat64(), y[i]+0.01*rng.NormFloat64()
	}
	b.Run("hint", func(b *testing.B) {
		for range b.N {
			for i := range qx {
				s.ClosestHint(qx[i], qy[i], u[i])
			}
		}
	})
	b.Run("nohint", func(b *testing.B) {
		for range b.N {
			for i := range qx {
				s.Closest(qx[i], qy[i])
			}
		}
	})
	// the window search as Mecanum's fit calls it, and the same warm-started
	// with queries that move by 0.1 mm between passes (an optimiser's late
	// iterations); full and warm are the searches of each kind per pass
	b.Run("window", func(b *testing.B) {
		for range b.N {
			for i := range qx {
				s.ClosestWithin(qx[i], qy[i], u[i], 10)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		warm := make([]Warm, len(qx))
		for n := range b.N {
			d := 1e-4 * float64(n%2*2-1)
			for i := range qx {
				s.ClosestWarm(qx[i]+d, qy[i]-d, u[i], 10, &warm[i])
			}
		}
		var full, hits int
		for _, m := range warm {
			full, hits = full+m.Full, hits+m.Warm
		}
		b.ReportMetric(float64(full)/float64(b.N), "full/op")
		b.ReportMetric(float64(hits)/float64(b.N), "warm/op")
	})
}

// Smoothing recovers a quadratic path exactly (no bias on curves or at the
// ends) and reduces noise.
func TestSmooth(t *testing.T) {
	var u, x, y []float64
	for i := range 61 {
		s := float64(i) / 60
		u, x, y = append(u, s), append(x, 1+2*s-3*s*s), append(y, -s+0.5*s*s)
	}
	ku, kx, ky := Smooth(u, x, y, 6)
	if ku[0] != u[0] || ku[len(ku)-1] != u[len(u)-1] || len(ku) != 11 {
		t.Fatalf("knots %v", ku)
	}
	for i := range ku {
		s := ku[i]
		if math.Abs(kx[i]-(1+2*s-3*s*s)) > 1e-12 || math.Abs(ky[i]-(-s+0.5*s*s)) > 1e-12 {
			t.Fatalf("knot %d at %v: (%v, %v)", i, s, kx[i], ky[i])
		}
	}
	u, x, y = noisyArc(300, 9)
	_, kx, _ = Smooth(u, x, y, 6)
	ku, _, _ = Smooth(u, x, y, 6)
	var e2 float64
	for i := range ku {
		d := kx[i] - math.Sin(0.4*ku[i])
		e2 += d * d
	}
	if rms := math.Sqrt(e2 / float64(len(ku))); rms > 0.002 {
		t.Errorf("smoothed RMS error %v, noise 0.003", rms)
	}
}

// ClosestWithin finds the closest point among the segments overlapping
// [u − w, u + w] exactly as a brute-force scan of those segments (the
// hierarchy prunes nothing it should keep), on a figure 8 driven three
// times, whose laps pass over each other; w = +Inf is the global search.
func TestClosestWithinWindow(t *testing.T) {
	var u, x, y []float64
	for i := range 241 {
		s := 2 * math.Pi * float64(i) / 80
		u, x, y = append(u, float64(i)), append(x, math.Sin(s)), append(y, math.Sin(s)*math.Cos(s)+0.001*float64(i))
	}
	s, err := NewSpline(u, x, y)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	otherLap := 0
	for range 300 {
		i := rng.IntN(len(u))
		px, py := x[i]+0.3*rng.NormFloat64(), y[i]+0.3*rng.NormFloat64()
		w := 5 + 30*rng.Float64()
		c := s.ClosestWithin(px, py, u[i], w)
		best := math.Inf(1)
		for k := 0; k+1 < len(u); k++ {
			if u[k+1] < u[i]-w || u[k] > u[i]+w {
				continue
			}
			best = math.Min(best, s.refine(k, px, py).Dist)
		}
		if math.Abs(c.Dist-best) > 1e-13 || c.U < u[i]-w-1 || c.U > u[i]+w+1 {
			t.Fatalf("u %v ± %v: distance %v at U = %v, brute force over the window %v", u[i], w, c.Dist, c.U, best)
		}
		g := s.ClosestWithin(px, py, u[i], math.Inf(1))
		if g.Dist != s.Closest(px, py).Dist {
			t.Fatalf("an infinite window is not the global search")
		}
		if math.Abs(g.U-u[i]) > w {
			otherLap++
		}
	}
	if otherLap < 10 {
		t.Errorf("only %d queries whose global closest point lies outside the window: the test does not exercise it", otherLap)
	}
}

// warmCurves are the curves ClosestWarm is checked on: a noisy arc like a
// camera trace, a random walk, a figure 8 driven three times (its laps
// cross), a cusp (x = t², y = t³ through t = 0) and a stationary robot (one
// point plus 0.1-mm noise, so that every segment is near every query).
func warmCurves() map[string]func() (u, x, y []float64) {
	return map[string]func() (u, x, y []float64){
		"noisy arc": func() ([]float64, []float64, []float64) { return noisyArc(300, 11) },
		"random walk": func() (u, x, y []float64) {
			rng := rand.New(rand.NewPCG(12, 12))
			var px, py float64
			for i := range 150 {
				px, py = px+0.05*rng.NormFloat64(), py+0.05*rng.NormFloat64()
				u, x, y = append(u, float64(i)/10), append(x, px), append(y, py)
			}
			return
		},
		"figure 8": func() (u, x, y []float64) {
			for i := range 241 {
				s := 2 * math.Pi * float64(i) / 80
				u, x, y = append(u, float64(i)), append(x, math.Sin(s)), append(y, math.Sin(s)*math.Cos(s)+0.001*float64(i))
			}
			return
		},
		"cusp": func() (u, x, y []float64) {
			for i := range 81 {
				t := float64(i-40) / 40
				u, x, y = append(u, float64(i)), append(x, t*t), append(y, t*t*t)
			}
			return
		},
		"stationary": func() (u, x, y []float64) {
			rng := rand.New(rand.NewPCG(13, 13))
			for i := range 120 {
				u, x, y = append(u, float64(i)/60), append(x, 1+1e-4*rng.NormFloat64()), append(y, 2+1e-4*rng.NormFloat64())
			}
			return
		},
	}
}

// ClosestWarm gives ClosestWithin's answer (the same closest point to
// 1e-12, or the same distance where two segments tie) over queries that
// move like an optimiser's predicted points: mostly small steps, some large
// jumps, in a window and globally; and both its paths are taken (the warm
// one mostly on the arc and the cusp; on the crossing laps of the random
// walk and the figure 8 and on the stationary robot, other segments are
// near every query and the fallback runs often).
func TestClosestWarmMatchesFullSearch(t *testing.T) {
	for name, mk := range warmCurves() {
		u, x, y := mk()
		s, err := NewSpline(u, x, y)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(14, 14))
		for _, w := range []float64{math.Inf(1), 0.1 * (u[len(u)-1] - u[0])} {
			n := len(u)
			qx, qy := make([]float64, n), make([]float64, n)
			for k := range n {
				qx[k], qy[k] = x[k]+0.01*rng.NormFloat64(), y[k]+0.01*rng.NormFloat64()
			}
			warm := make([]Warm, n)
			var full, hits int
			for it := range 40 {
				step := []float64{1e-6, 1e-5, 1e-4, 1e-3}[rng.IntN(4)]
				if it%10 == 9 {
					step = 0.1 // a jump: most certificates fail
				}
				for k := range n {
					// a step, and a pull back toward the curve
					qx[k] += step*rng.NormFloat64() - 0.1*(qx[k]-x[k])
					qy[k] += step*rng.NormFloat64() - 0.1*(qy[k]-y[k])
					c := s.ClosestWarm(qx[k], qy[k], u[k], w, &warm[k])
					r := s.ClosestWithin(qx[k], qy[k], u[k], w)
					same := math.Abs(c.X-r.X) <= 1e-12 && math.Abs(c.Y-r.Y) <= 1e-12 && math.Abs(c.U-r.U) <= 1e-12*(1+math.Abs(r.U)) && c.Interior == r.Interior
					if !same && math.Abs(c.Dist-r.Dist) > 1e-13*(1+r.Dist) {
						t.Fatalf("%s, w %v, iteration %d, query %d (%v, %v): warm %+v, full %+v", name, w, it, k, qx[k], qy[k], c, r)
					}
				}
			}
			for _, m := range warm {
				full, hits = full+m.Full, hits+m.Warm
			}
			t.Logf("%s, w %v: %d warm, %d full searches", name, w, hits, full)
			if hits == 0 || ((name == "noisy arc" || name == "cusp") && hits < 2*full) {
				t.Errorf("%s, w %v: %d warm searches, %d full: the warm path is rarely taken", name, w, hits, full)
			}
			if full <= n {
				t.Errorf("%s, w %v: %d full searches for %d queries: the fallback is not exercised", name, w, full, n)
			}
		}
	}
}
