package robots_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/tire"
	"github.com/wheelgrad/wheelgrad/robots"
)

// jackal.csv: a Jackal on carpet, μ = 0.45, Kx = 220, Ky = 160
// (models/tire/testdata/gen.go), two maneuvers as traj runs.
const tireLog = "../models/tire/testdata/jackal.csv"

// The tyre adapter as a library user calls it: identify the truth of the
// sample log within 3 % and within 4σ, simulate, validate, and
// re-estimate μ online.
func TestTireAdapter(t *testing.T) {
	if testing.Short() {
		t.Skip("identifies (~2 s)")
	}
	var m robots.Tire
	src := []robots.Source{{Path: tireLog}}
	out, err := m.IdentifyWith(robots.IdentifyRequest{Sources: src}, robots.TireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Refused != nil || out.Outcome != nil {
		t.Fatalf("refused %v, outcome %v", out.Refused, out.Outcome)
	}
	p := out.Params.(tire.Params)
	r := out.Report
	if r.Model != "tire" || r.Status == nil || !r.Status.Converged || r.Residual.Name != "pose position" || !(r.Residual.RMS > 0 && r.Residual.RMS < 0.005) {
		t.Errorf("report: model %q, status %+v, residual %+v", r.Model, r.Status, r.Residual)
	}
	truth := map[string]float64{"mu": 0.45, "Kx": 220, "Ky": 160}
	file := map[string]float64{"mu": p.Mu, "Kx": p.Kx, "Ky": p.Ky}
	if len(r.Params) != 3 {
		t.Fatalf("params %+v", r.Params)
	}
	for _, q := range r.Params {
		want := truth[q.Name]
		if math.Abs(q.Value/want-1) > 0.03 || !(q.Std > 0) || math.Abs(q.Value-want) > 4*q.Std || q.Value != file[q.Name] || !q.Determined() {
			t.Errorf("%s = %.4g ± %.2g (file %.4g), truth %g", q.Name, q.Value, q.Std, file[q.Name], want)
		}
	}
	if out.Figure != nil {
		t.Errorf("a figure without Plot")
	}

	sim, err := m.Simulate(robots.SimulateRequest{Params: p, Source: src[0]})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := sim.Write(&b); err != nil {
		t.Fatal(err)
	}
	in, _ := os.ReadFile(tireLog)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if lines[0] != "t,x,y,psi,u,v,r,traj" || len(lines) != len(strings.Split(strings.TrimSpace(string(in)), "\n")) {
		t.Errorf("simulated CSV: header %q, %d lines", lines[0], len(lines))
	}

	runs, err := m.Validate(robots.ValidateRequest{Params: p, Sources: src})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	for _, run := range runs {
		for _, c := range run.Channels {
			if f, _, _ := c.Fit(); !(f > 90) {
				t.Errorf("run %s, %s: fit %.1f %%", run.ID, c.Name, f)
			}
		}
		if e := run.Track.Endpoint(); !(e < 0.05) {
			t.Errorf("run %s: endpoint error %g m", run.ID, e)
		}
	}

	// online from the identified parameters: one line per batch and
	// their timing, μ near the truth, no optimiser status
	on, err := m.IdentifyWith(robots.IdentifyRequest{Sources: src, Init: p, Plot: true}, robots.TireOptions{Online: true, Batch: 4})
	if err != nil {
		t.Fatal(err)
	}
	or := on.Report
	mu := on.Params.(tire.Params).Mu
	if or.Status != nil || len(or.Params) != 1 || or.Params[0].Value != mu || math.Abs(mu-0.45) > 0.15 {
		t.Errorf("online: status %v, params %+v, file μ %g", or.Status, or.Params, mu)
	}
	if n := len(or.Lines); n < 4 || !strings.Contains(or.Lines[n-1], "batches of 4 s") || !strings.HasPrefix(or.Lines[0], "run 1  t =") {
		t.Errorf("online lines %q", or.Lines)
	}
	if f := on.Figure; f == nil || len(f.Series) != 2 || len(f.Series[0].X) != len(or.Lines)-1 {
		t.Errorf("online figure %+v", f)
	}
}

// Options: defaults, bad values and combinations are UsageErrors (before
// any log is read).
func TestTireOptions(t *testing.T) {
	o, err := robots.ParseTireOptions(nil)
	if err != nil || o != (robots.TireOptions{Batch: 2}) {
		t.Errorf("defaults %+v, %v", o, err)
	}
	o, err = robots.ParseTireOptions(map[string]string{"online": "true", "batch": "0.5", "eiv": "false", "wheel-noise": "0"})
	if err != nil || !o.Online || o.Batch != 0.5 {
		t.Errorf("%+v, %v", o, err)
	}
	var ue robots.UsageError
	for _, bad := range []map[string]string{{"batch": "-1"}, {"batch": "Inf"}, {"wheel-noise": "-0.1"}, {"eiv": "maybe"}} {
		if _, err := robots.ParseTireOptions(bad); !errors.As(err, &ue) {
			t.Errorf("%v: %v", bad, err)
		}
	}
	var m robots.Tire
	for _, c := range []struct {
		req  robots.IdentifyRequest
		o    robots.TireOptions
		want string
	}{
		{robots.IdentifyRequest{}, robots.TireOptions{Online: true, EIV: true}, "-eiv"},
		{robots.IdentifyRequest{Fit: fit.Settings{MaxIter: 5}}, robots.TireOptions{Online: true}, "-maxiter"},
		{robots.IdentifyRequest{}, robots.TireOptions{WheelNoise: 0.05}, "-eiv only"},
		{robots.IdentifyRequest{Method: "cmaes"}, robots.TireOptions{}, "lbfgsb only"},
		{robots.IdentifyRequest{Fix: []string{"mu", "Kx", "Ky"}}, robots.TireOptions{}, "no parameter"},
		{robots.IdentifyRequest{Sources: []robots.Source{{Path: tireLog, AutoOffset: true}}}, robots.TireOptions{}, "-offset auto"},
	} {
		_, err := m.IdentifyWith(c.req, c.o)
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %+v: %v, want a usage error with %q", c.req, c.o, err, c.want)
		}
	}
}
