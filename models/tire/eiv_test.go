package tire

import (
	"math"
	"math/rand/v2"
	"testing"
)

// NoiseStd recovers the generator's encoder and motion-capture noise from
// the log alone (second differences, MAD), within 10 %, and finds a
// noise-free log's wheel speeds nearly noise-free.
func TestEstimateNoise(t *testing.T) {
	lino, _ := surfaces()
	for _, sd := range []float64{1e-12, 0.01, 0.05} {
		var runs []*Run
		for i, mv := range Maneuvers()[:4] {
			mv.Duration = math.Min(mv.Duration, 5)
			r, err := Synthesize(lino, mv, SynthConfig{Seed: uint64(i + 40), WheelStd: sd})
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, r)
		}
		n := EstimateNoise(runs)
		t.Logf("encoder %g rad/s: estimated %+v", sd, n)
		if sd < 1e-6 {
			if n.Wheel > 0.002 {
				t.Errorf("noise-free wheel speeds: estimated %g rad/s", n.Wheel)
			}
		} else if e := math.Abs(n.Wheel/sd - 1); e > 0.1 {
			t.Errorf("encoder %g rad/s: estimated %g (%.0f %% off)", sd, n.Wheel, 100*e)
		}
		if e := math.Abs(n.Position/0.001 - 1); e > 0.1 {
			t.Errorf("position noise 1 mm: estimated %g m", n.Position)
		}
		if e := math.Abs(n.Heading/0.005 - 1); e > 0.1 {
			t.Errorf("heading noise 5 mrad: estimated %g rad", n.Heading)
		}
	}
}

// The joint loss's gradient (generated reverse pass: tyre parameters,
// every step's wheel speeds, the initial velocity) against central
// differences of the native rollout, at a point off the optimum in θ and z.
func TestEIVGradient(t *testing.T) {
	lino, _ := surfaces()
	var runs []*Run
	for i, k := range []int{2, 5} {
		mv := Maneuvers()[k]
		mv.Duration = 1.5
		r, err := Synthesize(lino, mv, SynthConfig{Seed: uint64(i + 3), WheelStd: 0.05, PoseEvery: 2})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	p := Jackal()
	f, err := newFit(p, runs, []int{0, 1, 2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	e := newEIVFit(f, Noise{Wheel: 0.05, Position: 0.001, Heading: 0.005})
	rng := rand.New(rand.NewPCG(9, 9))
	x := make([]float64, 3+e.nz)
	copy(x, f.x0())
	for k := 3; k < len(x); k++ {
		x[k] = rng.NormFloat64()
	}
	g := make([]float64, len(x))
	L, err := e.eval(x, g)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("loss %g", L)
	check := []int{0, 1, 2, e.off[0], e.off[0] + 1, e.off[1], e.off[1] + 1}
	for range 8 {
		check = append(check, 3+rng.IntN(e.nz))
	}
	for _, k := range check {
		h := 1e-4 * math.Max(1, math.Abs(x[k]))
		xp := append([]float64(nil), x...)
		xp[k] += h
		lp, err1 := e.eval(xp, nil)
		xp[k] -= 2 * h
		lm, err2 := e.eval(xp, nil)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		fd := (lp - lm) / (2 * h)
		// truncation O(h²) and rounding of L: 100·ε·L/h
		if d := math.Abs(fd - g[k]); d > 1e-5*math.Abs(fd)+100*2.2e-16*L/h {
			t.Errorf("coordinate %d: gradient %.10g, central difference %.10g", k, g[k], fd)
		} else {
			t.Logf("coordinate %d: gradient %.10g, central difference %.10g", k, g[k], fd)
		}
	}
}
