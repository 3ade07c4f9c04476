package fit

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// noisyCircle samples a circle of radius 1 m at 60 Hz for 10 s with white
// position noise sigma.
func noisyCircle(sigma float64, seed uint64) (t, x, y []float64, rows []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for k := range 600 {
		tk := float64(k) / 60
		t = append(t, tk)
		x = append(x, math.Cos(0.5*tk)+sigma*rng.NormFloat64())
		y = append(y, math.Sin(0.5*tk)+sigma*rng.NormFloat64())
		rows = append(rows, k)
	}
	return t, x, y, rows
}

// rmsNoise is the second-difference RMS estimate PoseNoise replaced.
func rmsNoise(x, y []float64, rows []int) float64 {
	var s float64
	n := 0
	for i := 2; i < len(rows); i++ {
		a, b, c := rows[i-2], rows[i-1], rows[i]
		dx, dy := x[c]-2*x[b]+x[a], y[c]-2*y[b]+y[a]
		s += dx*dx + dy*dy
		n += 2
	}
	return math.Sqrt(s / float64(n) / 6)
}

// PoseNoise recovers white noise on a curved path, and one 0.5-m outlier
// moves it by a few per cent where it makes the RMS estimate ~5× too large.
func TestPoseNoiseMAD(t *testing.T) {
	const sigma = 0.003
	_, x, y, rows := noisyCircle(sigma, 7)
	got := PoseNoise(x, y, rows)
	// 2·598 second differences, correlated in threes: the MAD's relative
	// sampling error is about 1.65/sqrt(2·598/3) ≈ 8 %
	if math.Abs(got/sigma-1) > 0.2 {
		t.Errorf("PoseNoise %.4g m, want %.4g m within 20 %%", got, sigma)
	}
	x[300] += 0.5
	out := PoseNoise(x, y, rows)
	if math.Abs(out/got-1) > 0.05 {
		t.Errorf("one outlier moved PoseNoise from %.4g to %.4g m", got, out)
	}
	if r := rmsNoise(x, y, rows); r < 3*sigma {
		t.Errorf("the RMS estimate with the outlier is %.4g m: the test no longer shows an outlier's effect", r)
	}
	if v := PoseNoise(x, y, rows[:2]); !math.IsNaN(v) {
		t.Errorf("two samples: %g, want NaN", v)
	}
	// a noise-free uniformly accelerated path has constant second
	// differences: no noise
	for k := range x {
		x[k], y[k] = 0.01*float64(k*k), 0
	}
	if v := PoseNoise(x, y, rows); v > 1e-9 {
		t.Errorf("noise-free parabola: %g, want 0", v)
	}
}

// A pose sensor at half the log's rate re-logs its last value (DRIVE's
// Warthog: 52 % of the rows): the repeats are counted and skipped, so the
// noise is that of the fresh samples, not 0 (the MAD of half exact zeros).
func TestPoseNoiseStalePoses(t *testing.T) {
	const sigma = 0.003
	_, x, y, rows := noisyCircle(sigma, 11)
	th := make([]float64, len(x))
	for k := range th {
		th[k] = 0.5*float64(k)/60 + sigma*float64(k%7-3)/3
	}
	for k := 1; k < len(x); k += 2 {
		x[k], y[k], th[k] = x[k-1], y[k-1], th[k-1]
	}
	if n := StalePoses(x, y, rows); n != len(rows)/2 {
		t.Errorf("StalePoses = %d, want %d", n, len(rows)/2)
	}
	if got := PoseNoise(x, y, rows); math.Abs(got/sigma-1) > 0.25 {
		t.Errorf("PoseNoise with stale repeats %.4g m, want %.4g m within 25 %%", got, sigma)
	}
	if got := AngleNoise(th, rows); !(got > 0) {
		t.Errorf("AngleNoise with stale repeats %.4g rad, want > 0", got)
	}
}

func TestChordScaleUnits(t *testing.T) {
	tt := []float64{0, 0.1, 0.2, 0.6, 1.2}
	x := []float64{0, 0.05, 0.1, 0.3, 0.6}
	y := make([]float64, 5)
	th := []float64{3.1, 3.1, 3.1, -3.1, -3.0}
	d, turn := Chord(tt, x, y, th, []int{0, 1, 2, 3, 4}, 0.5)
	// samples at t = 0, 0.6, 1.2: 0.3 + 0.3 m; heading 3.1 → −3.1 wraps to
	// 0.083, then 0.1
	if math.Abs(d-0.6) > 1e-12 || math.Abs(turn-(2*math.Pi-6.2+0.1)) > 1e-12 {
		t.Errorf("Chord: %g m, %g rad", d, turn)
	}
	deg := []float64{0, 0, 0, 90, 180}
	if _, turn := Chord(tt, x, y, deg, []int{0, 1, 2, 3, 4}, 0.5); turn != 180 {
		t.Errorf("degrees: turn %g, want 180 (not unwrapped)", turn)
	}
	if ws := Scale("a.csv", "distance", 10, 1, "too big", "too small"); len(ws) != 1 || ws[0].String() != "a.csv: the measured distance is 10× what the commands predict: too big" {
		t.Errorf("Scale big: %v", ws)
	}
	if ws := Scale("a.csv", "distance", 0.1, 1, "too big", "too small"); len(ws) != 1 || !strings.HasSuffix(ws[0].Msg, "too small") {
		t.Errorf("Scale small: %v", ws)
	}
	if ws := Scale("a.csv", "distance", 0.8, 1, "too big", "too small"); ws != nil {
		t.Errorf("Scale 0.8: %v", ws)
	}
	ms := []float64{0, 10, 20, 30}
	if ws := TimeUnits("a.csv", ms); len(ws) != 1 || ws[0].File != "a.csv" || !strings.Contains(ws[0].Msg, "milliseconds") {
		t.Errorf("TimeUnits ms: %v", ws)
	}
	if ws := TimeUnits("a.csv", []float64{0, 0.01, 0.02}); ws != nil {
		t.Errorf("TimeUnits s: %v", ws)
	}
	if m := MaxAbs([]float64{1, math.NaN(), -3}, nil, []float64{2}); m != 3 {
		t.Errorf("MaxAbs %g", m)
	}
	if ws := ResidualNoise("pose", 0.5, 0.003, 0.02, "m"); len(ws) != 1 || !strings.Contains(ws[0].Msg, "167×") {
		t.Errorf("ResidualNoise: %v", ws)
	}
	if ws := ResidualNoise("pose", 0.01, 0.0001, 0.02, "m"); ws != nil {
		t.Errorf("ResidualNoise below the floor: %v", ws)
	}
	if err := NoMotion("a.csv", "w is zero"); !strings.HasPrefix(err.Error(), "a.csv: w is zero: nothing in the log excites") {
		t.Errorf("NoMotion: %v", err)
	}
}

// AngleNoise recovers white heading noise through a wrap-around and an
// outlier; a heading in degrees scatters by far more than 0.1.
func TestAngleNoise(t *testing.T) {
	const sigma = 0.005
	rng := rand.New(rand.NewPCG(3, 4))
	var th, deg []float64
	var rows []int
	for k := range 600 {
		a := math.Remainder(0.02*float64(k)+sigma*rng.NormFloat64(), 2*math.Pi) // turns and wraps
		th = append(th, a)
		deg = append(deg, a*180/math.Pi)
		rows = append(rows, k)
	}
	th[200] += 1
	if got := AngleNoise(th, rows); math.Abs(got/sigma-1) > 0.2 {
		t.Errorf("AngleNoise %.4g rad, want %.4g within 20 %%", got, sigma)
	}
	if got := AngleNoise(deg, rows); got < 0.1 {
		t.Errorf("degrees: AngleNoise %.4g, want > 0.1", got)
	}
	if v := AngleNoise(th, rows[:2]); !math.IsNaN(v) {
		t.Errorf("two samples: %g", v)
	}
}

// Two planted outliers are found, and nothing else on 600 samples of
// normal noise.
func TestPoseOutliers(t *testing.T) {
	const sigma = 0.003
	_, x, y, rows := noisyCircle(sigma, 9)
	if got := PoseOutliers(nil, x, y, rows, 6, 0); len(got) != 0 {
		t.Errorf("clean log: outliers at %v", got)
	}
	x[100] += 0.05
	y[400] -= 0.03
	if got := PoseOutliers(nil, x, y, rows, 6, 0); len(got) != 2 || got[0] != 100 || got[1] != 400 {
		t.Errorf("outliers at %v, want [100 400]", got)
	}
	if got := PoseOutliers(nil, x, y, rows[:2], 6, 0); got != nil {
		t.Errorf("two samples: %v", got)
	}
}
