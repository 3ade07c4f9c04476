package fit

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A rollout x(t) = x0·e^(−t) + t measured with noise: the estimated start
// is near the truth and better than the first (noisy) sample; the
// channels returned are those of the estimate.
func TestEstimateStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const x0 = 0.7
	var ts, ys []float64
	for k := range 200 {
		tk := 0.02 * float64(k)
		ts, ys = append(ts, tk), append(ys, x0*math.Exp(-tk)+tk+0.05*rng.NormFloat64())
	}
	ys[0] += 0.2 // a bad first sample
	predict := func(s []float64) ([]Channel, error) {
		c := Channel{Name: "x", Unit: "m"}
		for k, tk := range ts {
			c.Add(0, tk, ys[k], s[0]*math.Exp(-tk)+tk)
		}
		return []Channel{c}, nil
	}
	s, chs, err := EstimateStart([]float64{ys[0]}, predict)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s[0]-x0) > 0.05 {
		t.Errorf("estimated start %.4f, true %.4f (first sample %.4f)", s[0], x0, ys[0])
	}
	_, _, r1 := chs[0].Fit()
	first, _ := predict([]float64{ys[0]})
	_, _, r0 := first[0].Fit()
	if !(r1 < r0) {
		t.Errorf("RMS from the estimate %.4f not below the first sample's %.4f", r1, r0)
	}
}

// A start the data cannot move (no samples depend on it) keeps x0.
func TestEstimateStartFlat(t *testing.T) {
	predict := func(s []float64) ([]Channel, error) {
		c := Channel{Name: "y"}
		for k := range 10 {
			c.Add(0, float64(k), float64(k%3), 1)
		}
		return []Channel{c}, nil
	}
	s, _, err := EstimateStart([]float64{3}, predict)
	if err != nil || s[0] != 3 {
		t.Errorf("start %v, err %v", s, err)
	}
}

// KStep: a prediction that is the measured path rotated and shifted has
// zero k-step errors but a non-zero endpoint error; a run shorter than the
// horizon has none.
func TestTrackKStep(t *testing.T) {
	var tr Track
	c, s := math.Cos(0.3), math.Sin(0.3)
	for k := range 101 {
		tk := 0.05 * float64(k)
		m := [3]float64{tk, 0.2 * tk * tk, 0.4 * tk}
		p := [3]float64{1 + c*m[0] - s*m[1], -2 + s*m[0] + c*m[1], m[2] + 0.3}
		tr.Add(tk, m, p)
	}
	ks := tr.KStep(2)
	if len(ks) != 61 {
		t.Fatalf("%d 2-s predictions over 5 s at 20 Hz, want 61", len(ks))
	}
	for _, e := range ks {
		if e > 1e-9 {
			t.Fatalf("k-step error %g of a rigidly moved prediction", e)
		}
	}
	if tr.Endpoint() < 1 {
		t.Errorf("endpoint %g", tr.Endpoint())
	}
	if ks := tr.KStep(6); ks != nil || !math.IsNaN(RMS(ks)) {
		t.Errorf("a 6-s horizon on a 5-s run: %v", ks)
	}
	// a wrong turn rate shows in the k-step error
	tr.Pred[100][0] += 0.1
	if e := tr.KStep(2); e[len(e)-1] < 0.09 {
		t.Errorf("last k-step error %g, want ≈ 0.1", e[len(e)-1])
	}
}

// DeadReckon: equal speeds give equal poses; a straight line at 1 m/s for
// 2 s ends at x = 2.
func TestDeadReckon(t *testing.T) {
	ts := []float64{0, 1, 2}
	v, w := []float64{1, 1, 1}, []float64{0, 0, 0}
	tr := DeadReckon(ts, v, w, v, w)
	if tr.Meas[2] != [3]float64{2, 0, 0} || tr.Endpoint() != 0 {
		t.Errorf("%+v", tr)
	}
}
