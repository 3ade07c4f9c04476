package fit

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// WriteText is validate's text report: header, channel table, per-run
// errors, the clipped horizon and the warnings.
func TestValidationWriteText(t *testing.T) {
	var c Channel
	for k, m := range []float64{0, 1, 2, 3} {
		c.Add(0, float64(k), m, m+0.1)
	}
	c.Name, c.Unit = "x", "m"
	v := &Validation{Model: "toy", X0: "first", Channels: []Channel{c}, Horizon: 3, Asked: 5, Clipped: true,
		Runs: []RunMetrics{{ID: "1", Samples: 4, Duration: 3, Endpoint: 0.1, KStep: 0.05, KStepN: 2}, {ID: "2", Samples: 1, Endpoint: math.NaN(), Note: "too short"}}}
	var b strings.Builder
	v.WriteText(&b, "p.json", "a.csv,b.csv", 2)
	f, n, r := c.Fit()
	want := "toy validate: p.json on a.csv,b.csv (simulated from each run's first state)\n" +
		"  output       fit %     NRMSE    RMS error  samples\n" +
		fmt.Sprintf("  x        %9.2f %9.4f %9.4g m         4\n", f, n, r) +
		"  per run (position errors; k-step: the model restarted from the measured pose 3 s before each pose):\n" +
		"  -horizon 5 s clipped to the longest run, 3 s\n" +
		"  run 1: 4 samples over 3.000 s; endpoint 0.1000 m; 3-s error 0.0500 m RMS over 2 predictions\n" +
		"  run 2: 1 samples over 0.000 s; endpoint n/a (no measured pose); 3-s error n/a (too short)\n" +
		"  2 warning(s) (on stderr)\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	// y = 0..3, ŷ = y + 0.1: ‖y − ŷ‖ = 0.2, ‖y − ȳ‖ = √5.
	if math.Abs(r-0.1) > 1e-12 || math.Abs(f-100*(1-0.2/math.Sqrt(5))) > 1e-9 {
		t.Errorf("RMS error %g, fit %g %%", r, f)
	}
}
