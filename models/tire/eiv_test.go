package tire

import (
	"gonum.org/v1/gonum/diff/fd"
	"math"
	"math/rand/v2"
	"testing"
)

// NoiseStd recovers the generator's encoder and motion-capture noise from
// the log alone (second differences, MAD), within 10 %, with poses on every
// row or on every second, and finds a noise-free log's wheel speeds nearly
// noise-free; the example's log (encoder 0.005 rad/s, rounded to 10⁻⁴) too.
func TestEstimateNoise(t *testing.T) {
	lino, _ := surfaces()
	for _, sd := range []float64{1e-12, 0.01, 0.05} {
		var runs []*Run
		for i, mv := range Maneuvers()[:4] {
			mv.Duration = math.Min(mv.Duration, 5)
			// poses on every row, and (the last two runs) on every second
			r, err := Synthesize(lino, mv, SynthConfig{Seed: uint64(i + 40), WheelStd: sd, PoseEvery: 1 + i/2})
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
	runs, err := ReadLog("testdata/jackal.csv", LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rs []*Run
	for i := range runs {
		rs = append(rs, &runs[i])
	}
	n := EstimateNoise(rs)
	t.Logf("testdata/jackal.csv: %+v", n)
	if math.Abs(n.Wheel/0.005-1) > 0.1 || math.Abs(n.Position/0.001-1) > 0.1 || math.Abs(n.Heading/0.005-1) > 0.1 {
		t.Errorf("testdata/jackal.csv (0.005 rad/s, 1 mm, 5 mrad): estimated %+v", n)
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
		num := fd.Derivative(func(d float64) float64 {
			xd := append([]float64(nil), x...)
			xd[k] += d
			l, err := e.eval(xd, nil)
			if err != nil {
				t.Fatal(err)
			}
			return l
		}, 0, &fd.Settings{Formula: fd.Central, Step: h})
		// truncation O(h²) and rounding of L: 100·ε·L/h
		if d := math.Abs(num - g[k]); d > 1e-5*math.Abs(num)+100*2.2e-16*L/h {
			t.Errorf("coordinate %d: gradient %.10g, central difference %.10g", k, g[k], num)
		} else {
			t.Logf("coordinate %d: gradient %.10g, central difference %.10g", k, g[k], num)
		}
	}
}

// Where the wheel-speed noise dominates the slip: on the straight (steady
// 0.4 m/s after a 0.2-s ramp) the slip is nil and the noise of 0.05 rad/s
// dominates nearly everywhere; on the square's turns in place the wheels
// slip sideways and lengthwise far above the noise, and noiseDominance
// finds spans only on its straights.
func TestNoiseDominance(t *testing.T) {
	lino, _ := surfaces()
	mvs := Maneuvers()
	straight, square := mvs[0], mvs[5]
	var runs []*Run
	for _, mv := range []Maneuver{straight, square} {
		r, err := Synthesize(lino, mv, SynthConfig{Seed: 1, WheelStd: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	wl := [][]float64{runs[0].WL, runs[1].WL}
	wr := [][]float64{runs[0].WR, runs[1].WR}
	spans, frac, err := noiseDominance(lino, runs, wl, wr, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	rows := [2]int{}
	for _, s := range spans {
		rows[s.Run] += s.Rows
		if s.Run == 1 && math.Mod(s.From, 4.5) >= 2.5 && math.Mod(s.To, 4.5) >= 2.5 && s.To-s.From < 2 {
			t.Errorf("a span inside a turn in place of the square: %+v", s)
		}
	}
	t.Logf("fraction %.2f; straight %d of %d rows, square %d of %d rows; %d spans", frac, rows[0], len(runs[0].T), rows[1], len(runs[1].T), len(spans))
	if rows[0] < len(runs[0].T)*8/10 {
		t.Errorf("straight: noise dominates on %d of %d rows, want most", rows[0], len(runs[0].T))
	}
	if rows[1] > len(runs[1].T)*6/10 {
		t.Errorf("square: noise dominates on %d of %d rows: the turns in place slip", rows[1], len(runs[1].T))
	}
	if !(frac > 0 && frac < 1) {
		t.Errorf("fraction %v", frac)
	}
}

// Errors in variables on the generator: four Table I maneuvers (up to 6 s)
// on lino at the default encoder noise (0.05 rad/s) and on carpet at
// 0.03 rad/s, noise levels estimated from the log. μ, Kx, Ky come back
// within 15 %, and the joint problem's σ covers the truth (|error| ≤ 3σ).
func TestIdentifyErrorsInVariables(t *testing.T) {
	if testing.Short() {
		t.Skip("two joint fits of about a minute each")
	}
	lino, carpet := surfaces()
	for _, c := range []struct {
		truth Params
		noise float64
	}{{lino, 0.05}, {carpet, 0.03}} {
		var runs []*Run
		for i, k := range []int{1, 2, 4, 5} {
			mv := Maneuvers()[k]
			mv.Duration = math.Min(mv.Duration, 6)
			r, err := Synthesize(c.truth, mv, SynthConfig{Seed: uint64(i + 50), WheelStd: c.noise})
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, r)
		}
		res, err := Identify(Jackal(), runs, IdentifyOptions{ErrorsInVariables: true})
		if err != nil {
			t.Fatal(err)
		}
		if e := math.Abs(res.Noise.Wheel/c.noise - 1); e > 0.1 {
			t.Errorf("encoder noise %g: estimated %g", c.noise, res.Noise.Wheel)
		}
		want := []float64{c.truth.Mu, c.truth.Kx, c.truth.Ky}
		for k, v := range res.Value {
			e := v/want[k] - 1
			t.Logf("μ=%v, %g rad/s: %-2s = %8.4g ± %.3g (truth %g, %+.1f %%, %.2fσ); plain fit %8.4g ± %.3g (%+.1f %%)", c.truth.Mu, c.noise, res.Free[k], v, res.Std[k], want[k], 100*e,
				(v-want[k])/res.Std[k], res.Plain[k], res.PlainStd[k], 100*(res.Plain[k]/want[k]-1))
			if math.Abs(e) > 0.15 {
				t.Errorf("μ=%v, %g rad/s: %s = %.4g, truth %g: %+.1f %%, goal 15 %%", c.truth.Mu, c.noise, res.Free[k], v, want[k], 100*e)
			}
			if !(math.Abs(v-want[k]) <= 3*res.Std[k]) {
				t.Errorf("μ=%v, %g rad/s: %s = %.4g ± %.3g does not cover the truth %g (%.1fσ)", c.truth.Mu, c.noise, res.Free[k], v, res.Std[k], want[k], (v-want[k])/res.Std[k])
			}
		}
		if !res.Opt.Status.Converged() {
			t.Errorf("μ=%v, %g rad/s: the joint fit did not converge: %v after %d iterations", c.truth.Mu, c.noise, res.Opt.Status, res.Opt.Iterations)
		}
		if len(res.WL) != len(runs) || len(res.WL[0]) != len(runs[0].T) {
			t.Errorf("estimated speeds: %d runs", len(res.WL))
		}
		t.Logf("noise %+v, λmin %.3g, %d iterations (%v), noise dominates %.0f %% of rows (%d spans), %v; warnings %q", res.Noise, res.EIVLambdaMin, res.Opt.Iterations, res.Opt.Status,
			100*res.NoiseDominated, len(res.NoiseSpans), res.Runtime, res.Warnings)
	}
}

// The change of variables of the joint problem (eiv_precond.go): its
// gradient in v against central differences of the loss through x(v), and
// the preconditioned fit converges (opt's tolerance) where the fit in
// (θ, z) stops at its iteration limit, at a loss no higher; carpet at the
// default encoder noise (0.05 rad/s), three maneuvers of up to 4 s.
func TestEIVPreconditioned(t *testing.T) {
	if testing.Short() {
		t.Skip("three joint fits")
	}
	_, carpet := surfaces()
	var runs []*Run
	for i, k := range []int{2, 4, 5} {
		mv := Maneuvers()[k]
		mv.Duration = math.Min(mv.Duration, 4)
		r, err := Synthesize(carpet, mv, SynthConfig{Seed: uint64(i + 70), WheelStd: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	// the gradient in v
	f, err := newFit(Jackal(), runs, []int{0, 1, 2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	e := newEIVFit(f, Noise{Wheel: 0.05, Position: 0.001, Heading: 0.005})
	x0 := make([]float64, 3+e.nz)
	copy(x0, f.x0())
	c, err := e.newPrecond(x0, 40)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	v := make([]float64, len(x0))
	for k := range v {
		v[k] = 0.3 * rng.NormFloat64()
	}
	gx, gv := make([]float64, len(v)), make([]float64, len(v))
	if _, err := e.eval(c.x(v), gx); err != nil {
		t.Fatal(err)
	}
	c.grad(gx, gv)
	for _, k := range []int{0, 1, 2, 3, 4, 3 + rng.IntN(e.nz), 3 + rng.IntN(e.nz)} {
		h := 1e-4
		vp := append([]float64(nil), v...)
		vp[k] += h
		lp, _ := e.eval(c.x(vp), nil)
		vp[k] -= 2 * h
		lm, _ := e.eval(c.x(vp), nil)
		fd := (lp - lm) / (2 * h)
		if d := math.Abs(fd - gv[k]); d > 1e-5*math.Abs(fd)+1e-6*(1+math.Abs(lp))/h {
			t.Errorf("v coordinate %d: gradient %.10g, central difference %.10g", k, gv[k], fd)
		}
	}
	res, err := Identify(Jackal(), runs, IdentifyOptions{ErrorsInVariables: true})
	if err != nil {
		t.Fatal(err)
	}
	eivUnpreconditioned = true
	direct, err := Identify(Jackal(), runs, IdentifyOptions{ErrorsInVariables: true})
	eivUnpreconditioned = false
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{carpet.Mu, carpet.Kx, carpet.Ky}
	for k, v := range res.Value {
		t.Logf("%-2s = %8.4g ± %.3g (truth %g, %+.1f %%, %.2fσ); in (θ, z) %8.4g (%+.1f %%); plain %8.4g (%+.1f %%)", res.Free[k], v, res.Std[k], want[k], 100*(v/want[k]-1),
			(v-want[k])/res.Std[k], direct.Value[k], 100*(direct.Value[k]/want[k]-1), res.Plain[k], 100*(res.Plain[k]/want[k]-1))
		if math.Abs(v/want[k]-1) > 0.15 || !(math.Abs(v-want[k]) <= 3*res.Std[k]) {
			t.Errorf("%s = %.4g ± %.3g, truth %g", res.Free[k], v, res.Std[k], want[k])
		}
	}
	t.Logf("preconditioned: %d iterations (%v), loss %.8g, %v; in (θ, z): %d iterations (%v), loss %.8g, %v",
		res.Opt.Iterations, res.Opt.Status, res.Loss, res.Runtime, direct.Opt.Iterations, direct.Opt.Status, direct.Loss, direct.Runtime)
	if !res.Opt.Status.Converged() {
		t.Errorf("the preconditioned joint fit did not converge: %v after %d iterations", res.Opt.Status, res.Opt.Iterations)
	}
	if res.Loss > direct.Loss*(1+1e-6) {
		t.Errorf("preconditioned loss %.10g above the direct fit's %.10g", res.Loss, direct.Loss)
	}
}
