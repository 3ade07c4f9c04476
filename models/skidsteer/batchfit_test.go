package skidsteer

import (
	"math"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/fit"
)

// FitBatch on the grass log: every method lowers the batch loss from the
// nominal start, held coefficients stay at their start, and L-BFGS-B finds
// a32 near its true value.
func TestFitBatch(t *testing.T) {
	runs, err := ReadLog("testdata/commands.csv", LogOptions{Sensors: "testdata/vo.csv"})
	if err != nil {
		t.Fatal(err)
	}
	iv, err := runs[0].Intervals(1, 400)
	if err != nil {
		t.Fatal(err)
	}
	grass, _ := SurfaceByName("grass")
	var held [NumCoeffs]bool
	for k := range held {
		held[k] = CoeffNames[k] != "a32" && CoeffNames[k] != "a11"
	}
	iters := 0
	res, cal, err := FitBatch(iv, IPEMConfig{}, "batch", held, fit.Settings{}, func(int, float64) { iters++ })
	if err != nil {
		t.Fatal(err)
	}
	if !res.Status.Converged() || iters == 0 {
		t.Errorf("status %v after %d iterations seen", res.Status, iters)
	}
	for k, v := range cal.A {
		if held[k] && v != 0 {
			t.Errorf("held %s = %g", CoeffNames[k], v)
		}
	}
	if d := math.Abs(cal.A[7] - grass.A[7]); d > 0.15*math.Abs(grass.A[7]) {
		t.Errorf("a32 = %.4f, true %.4f", cal.A[7], grass.A[7])
	}
	b, err := NewBatchIntervals(iv, IPEMConfig{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	f0 := b.Native(make([]float64, NumCoeffs))
	for _, m := range []string{"neldermead", "cmaes"} {
		res, _, err := FitBatch(iv, IPEMConfig{}, m, held, fit.Settings{MaxIter: 30, AllowUnconverged: true}, nil)
		if err != nil {
			t.Errorf("%s: %v", m, err)
		} else if !(res.F < f0) {
			t.Errorf("%s: loss %g from %g", m, res.F, f0)
		}
	}
	if _, _, err := FitBatch(iv, IPEMConfig{}, "newton", held, fit.Settings{}, nil); err == nil || !strings.Contains(err.Error(), "newton") {
		t.Errorf("unknown method: %v", err)
	}
}
