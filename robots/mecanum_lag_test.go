package robots_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/robots"
)

// writeMecanumLagLog writes four runs of a Mecanum robot whose wheels
// follow their commands through a lag of truth.Tau (commands switching
// every second, camera poses with 2 mm noise at 30 Hz).
func writeMecanumLagLog(t *testing.T, truth mecanum.Params) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("t,w1,w2,w3,w4,x,y,theta,traj\n")
	cmds := [][4]float64{{10, 10, 10, 10}, {-10, 10, -10, 10}, {8, -8, -8, 8}, {12, 6, 6, 12}, {-6, -12, -12, -6}}
	for k := range 4 {
		spec := mecanum.SynthSpec{ID: fmt.Sprint(k), Duration: 4, Rate: 60, Every: 2, Noise: 0.002, HeadNoise: 0.005, Seed: uint64(k + 1),
			Commands: func(t float64) [4]float64 { return cmds[(k+int(t))%len(cmds)] }}
		run, _ := mecanum.Synthesize(truth, spec)
		cell := func(v float64) string {
			if math.IsNaN(v) {
				return ""
			}
			return fmt.Sprintf("%.6f", v)
		}
		for i := range run.T {
			w := run.W[i]
			fmt.Fprintf(&b, "%.6f,%g,%g,%g,%g,%s,%s,%s,%d\n", run.T[i], w[0], w[1], w[2], w[3], cell(run.X[i]), cell(run.Y[i]), cell(run.Theta[i]), k)
		}
	}
	path := filepath.Join(t.TempDir(), "lag.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// -lag auto finds a wheel lag of 0.25 s on synthetic data with it, and the
// fit with it leaves the camera noise where the fit without leaves more;
// the parameter file records tau and simulate uses it; -lag S holds it.
func TestMecanumLag(t *testing.T) {
	truth := mecanum.DefaultParams()
	truth.Mu = []float64{0.3, 0.5, 0.7, 0.4}
	truth.Tau = 0.25
	path := writeMecanumLagLog(t, truth)
	src := robots.Source{Path: path}
	o := robots.DefaultMecanumOptions()
	plain, err := robots.Mecanum{}.IdentifyWith(robots.IdentifyRequest{Sources: []robots.Source{src}, AllowUndetermined: true}, o)
	if err != nil {
		t.Fatal(err)
	}
	o, err = robots.ParseMecanumOptions(map[string]string{"lag": "auto"})
	if err != nil {
		t.Fatal(err)
	}
	lag, err := robots.Mecanum{}.IdentifyWith(robots.IdentifyRequest{Sources: []robots.Source{src}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if lag.Refused != nil || lag.Outcome != nil {
		t.Fatalf("refused %v, outcome %v", lag.Refused, lag.Outcome)
	}
	p := lag.Params.(mecanum.Params)
	t.Logf("τ = %.4f s (0.25), μ = %.4f; camera RMS %.4g m with the lag, %.4g m without (μ %.4f)", p.Tau, p.Mu, lag.Report.Residual.RMS, plain.Report.Residual.RMS, plain.Params.(mecanum.Params).Mu)
	if math.Abs(p.Tau-0.25) > 0.02 {
		t.Errorf("τ = %g, truth 0.25", p.Tau)
	}
	for j, m := range p.Mu {
		if math.Abs(m-truth.Mu[j]) > 0.03 {
			t.Errorf("μ%d = %g, truth %g", j+1, m, truth.Mu[j])
		}
	}
	// the summary's camera residual (each run from its fitted start pose)
	// is the camera noise with the lag (it read 23 mm while Predict lagged
	// the lagged commands again)
	if r := lag.Report.Residual.RMS; !(r < 0.003 && r < plain.Report.Residual.RMS/3) {
		t.Errorf("camera residual %g m with the lag, %g m without (noise 2 mm)", r, plain.Report.Residual.RMS)
	}
	// validated from each run's first camera pose: the lag's parameters
	// predict the camera to a few of its 2-mm noise, the plain ones not
	posRMS := func(p robots.Params) float64 {
		runs, err := robots.Mecanum{}.Validate(robots.ValidateRequest{Params: p, Sources: []robots.Source{src}, X0: robots.X0First})
		if err != nil {
			t.Fatal(err)
		}
		s, n := 0.0, 0
		for _, r := range runs {
			for c := range 2 {
				_, _, rms := r.Channels[c].Fit()
				s += rms * rms
				n++
			}
		}
		return math.Sqrt(s / float64(n))
	}
	eLag, ePlain := posRMS(p), posRMS(plain.Params)
	t.Logf("validate x, y RMS: %.4g m with the lag, %.4g m without", eLag, ePlain)
	if !(eLag < 0.006 && eLag < ePlain/3) {
		t.Errorf("validate x, y RMS %g m with the lag, %g m without (noise 2 mm)", eLag, ePlain)
	}
	var tau bool
	for _, q := range lag.Report.Params {
		tau = tau || (q.Name == "tau" && q.StdReason != "")
	}
	if !tau {
		t.Errorf("the report lacks tau: %+v", lag.Report.Params)
	}
	// -lag S holds τ
	o, _ = robots.ParseMecanumOptions(map[string]string{"lag": "0.25"})
	held, err := robots.Mecanum{}.IdentifyWith(robots.IdentifyRequest{Sources: []robots.Source{src}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if q := held.Report.Params[len(held.Report.Params)-1]; q.Name != "tau" || !q.Held || held.Params.(mecanum.Params).Tau != 0.25 {
		t.Errorf("-lag 0.25: %+v", q)
	}
	for _, bad := range []string{"-1", "x", "11"} {
		if _, err := robots.ParseMecanumOptions(map[string]string{"lag": bad}); err == nil || !strings.Contains(err.Error(), "-lag") {
			t.Errorf("-lag %s: err = %v", bad, err)
		}
	}
}
