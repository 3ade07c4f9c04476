package control

import (
	"math"
	"math/rand/v2"
	"testing"
)

// closest equals the brute-force nearest sample, on a curve that crosses
// itself, for points near it, on it, and far from it, whatever the hint.
func TestClosestIsExact(t *testing.T) {
	n := 20000
	cx, cy := make([]float64, n+1), make([]float64, n+1)
	step := 0.0
	for i := range cx {
		s := 2 * math.Pi * float64(i) / float64(n)
		cx[i], cy[i] = 3*math.Sin(s), 3*math.Sin(s)*math.Cos(s) // a figure 8
		if i > 0 {
			step = math.Max(step, math.Hypot(cx[i]-cx[i-1], cy[i]-cy[i-1]))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 2000; k++ {
		j := rng.IntN(n + 1)
		spread := []float64{0, 0.01, 0.3, 5, 100}[k%5]
		x, y := cx[j]+spread*rng.NormFloat64(), cy[j]+spread*rng.NormFloat64()
		want, wi := math.Inf(1), 0
		for i := range cx {
			if d := (cx[i]-x)*(cx[i]-x) + (cy[i]-y)*(cy[i]-y); d < want {
				want, wi = d, i
			}
		}
		got, gi := closest(cx, cy, step, x, y, rng.IntN(n+1))
		if math.Abs(got-want) > 1e-12*(1+want) {
			t.Fatalf("point %d (%g, %g): closest %g at %d, brute force %g at %d", k, x, y, got, gi, want, wi)
		}
	}
}

// A long path (100 m through 10⁵ waypoints' worth of samples) is evaluated
// in time linear in the steps: the benchmark's time per step stays in
// microseconds (it was milliseconds with the brute-force search).
func BenchmarkTrackLongPath(b *testing.B) {
	p := longPath(b, 100)
	T := p.Duration()
	dt := 0.01
	steps := int(T / dt)
	poses := make([]Pose, steps)
	for k := range poses {
		x, y, _, _ := p.At(float64(k+1) * dt)
		poses[k] = Pose{X: x + 0.01, Y: y - 0.01}
	}
	b.ResetTimer()
	for range b.N {
		tr := Track(p, 0, dt, poses, nil)
		if !(tr.RMS < 0.02) {
			b.Fatalf("RMS %g", tr.RMS)
		}
	}
	b.ReportMetric(float64(steps), "steps")
}

// wiggle is a winding path of about length metres: a sine wave along x at
// about 0.7 m/s.
type wiggle struct{ T float64 }

func (w wiggle) At(t float64) (x, y, vx, vy float64) {
	return 0.5 * t, 2 * math.Sin(t/4), 0.5, 0.5 * math.Cos(t/4)
}
func (w wiggle) Duration() float64               { return w.T }
func (w wiggle) Heading(float64) (float64, bool) { return 0, false }
func (w wiggle) Name() string                    { return "wiggle" }

func longPath(tb testing.TB, length float64) Path {
	tb.Helper()
	return wiggle{T: length / 0.7}
}

// The 100-m path's metric agrees with the brute-force search it replaces.
func TestTrackLongPathAgrees(t *testing.T) {
	p := longPath(t, 30)
	dt := 0.05
	var poses []Pose
	for k := 0; float64(k+1)*dt <= p.Duration(); k++ {
		x, y, _, _ := p.At(float64(k+1) * dt)
		poses = append(poses, Pose{X: x + 0.02*math.Sin(float64(k)), Y: y - 0.03})
	}
	tr := Track(p, 0, dt, poses, nil)
	// brute force over the same dense samples
	n := 0
	{
		length := 0.0
		px, py, _, _ := p.At(0)
		for i := 1; i <= 2000; i++ {
			x, y, _, _ := p.At(p.Duration() * float64(i) / 2000)
			length += math.Hypot(x-px, y-py)
			px, py = x, y
		}
		n = max(2000, int(length/0.001))
	}
	cx, cy := make([]float64, n+1), make([]float64, n+1)
	for i := range cx {
		cx[i], cy[i], _, _ = p.At(p.Duration() * float64(i) / float64(n))
	}
	var sum float64
	for _, q := range poses {
		best, bi := math.Inf(1), 0
		for i := range cx {
			if d := (cx[i]-q.X)*(cx[i]-q.X) + (cy[i]-q.Y)*(cy[i]-q.Y); d < best {
				best, bi = d, i
			}
		}
		d := math.Sqrt(best)
		for _, j := range [2]int{bi - 1, bi + 1} {
			if j >= 0 && j <= n {
				d = math.Min(d, segmentDist(q.X, q.Y, cx[bi], cy[bi], cx[j], cy[j]))
			}
		}
		sum += d * d
	}
	if want := math.Sqrt(sum / float64(len(poses))); math.Abs(tr.RMS-want) > 1e-12 {
		t.Errorf("RMS %.15g, brute force %.15g", tr.RMS, want)
	}
}
