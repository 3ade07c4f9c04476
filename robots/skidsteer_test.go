package robots_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/robots"
)

// The skid-steer's sample log in two streams (models/skidsteer/testdata:
// 150 s on grass, Ordonez et al. Table 2, drifting visual odometry).
var grassLog = robots.Source{Path: "../models/skidsteer/testdata/commands.csv", Poses: "../models/skidsteer/testdata/vo.csv"}

// progressCount counts a Sink's progress lines.
type progressCount struct{ prog int }

func (c *progressCount) Warn(fit.Warning)        {}
func (c *progressCount) Progress(string, ...any) { c.prog++ }
func (c *progressCount) Done()                   {}

func grassParams(t *testing.T) skidsteer.Params {
	t.Helper()
	s, err := skidsteer.SurfaceByName("grass")
	if err != nil {
		t.Fatal(err)
	}
	return skidsteer.FromCoeffs(s.A[:])
}

func paramOf(t *testing.T, r fit.Report, name string) fit.Param {
	t.Helper()
	for _, p := range r.Params {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("report has no %s", name)
	return fit.Param{}
}

func TestSkidSteerIdentifyEKF(t *testing.T) {
	truth := grassParams(t)
	var sink progressCount
	for _, method := range []string{"", "ipem"} {
		out, err := robots.SkidSteer{}.Identify(robots.IdentifyRequest{Sources: []robots.Source{grassLog}, Method: method, Sink: &sink})
		if err != nil {
			t.Fatal(err)
		}
		if out.Refused != nil || out.Outcome != nil {
			t.Fatalf("refused %v, outcome %v", out.Refused, out.Outcome)
		}
		p, ok := out.Params.(skidsteer.Params)
		if !ok {
			t.Fatalf("params %T", out.Params)
		}
		a32 := paramOf(t, out.Report, "a32")
		if d := math.Abs(a32.Value - truth.A[2][1]); d > 0.1*math.Abs(truth.A[2][1]) || p.A[2][1] != a32.Value {
			t.Errorf("%q: a32 = %.4f (params %.4f), true %.4f", method, a32.Value, p.A[2][1], truth.A[2][1])
		}
		if !(a32.Std > 0) || a32.Std > 0.05 || !a32.Determined() {
			t.Errorf("%q: a32 σ %g, verdict %v", method, a32.Std, a32.Verdict())
		}
		if !strings.HasPrefix(out.Report.Method, "ipem (online EKF)") || out.Report.Status != nil {
			t.Errorf("%q: method %q, status %+v", method, out.Report.Method, out.Report.Status)
		}
		// the calibrated 2-s predictions beat the nominal ones
		var nom, cal float64
		line := out.Report.Lines[0]
		if _, err := fmt.Sscanf(line, "2-s prediction error (RMS): nominal %f m, calibrated %f m", &nom, &cal); err != nil || !(cal < nom) || math.Abs(cal-out.Report.Residual.RMS) > 5e-5 {
			t.Errorf("%q: %q (%v); residual %g", method, line, err, out.Report.Residual.RMS)
		}
	}
	if sink.prog == 0 {
		t.Error("no progress reported")
	}
}

func TestSkidSteerIdentifyBatchHeld(t *testing.T) {
	truth := grassParams(t)
	out, err := robots.SkidSteer{}.Identify(robots.IdentifyRequest{Sources: []robots.Source{grassLog}, Method: "batch",
		Free: []string{"a11", "a32"}, Plot: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.Outcome != nil {
		t.Fatalf("outcome %v", out.Outcome)
	}
	if st := out.Report.Status; st == nil || !st.Converged || st.Method != "batch" {
		t.Errorf("status %+v", st)
	}
	for _, p := range out.Report.Params {
		free := p.Name == "a11" || p.Name == "a32"
		if p.Held == free || (!free && (p.Value != 0 || p.Std != 0)) {
			t.Errorf("%s: held %v, value %g ± %g", p.Name, p.Held, p.Value, p.Std)
		}
	}
	if a32 := paramOf(t, out.Report, "a32"); math.Abs(a32.Value-truth.A[2][1]) > 0.15*math.Abs(truth.A[2][1]) {
		t.Errorf("a32 = %.4f, true %.4f", a32.Value, truth.A[2][1])
	}
	if f := out.Figure; f == nil || len(f.Series) != 4 || !f.Equal || len(f.Series[2].X) == 0 {
		t.Errorf("figure %+v", f)
	}
}

func TestSkidSteerIdentifyUsage(t *testing.T) {
	for _, c := range []struct {
		req  robots.IdentifyRequest
		want string
	}{
		{robots.IdentifyRequest{Method: "newton"}, `unknown -method "newton"`},
		{robots.IdentifyRequest{Fit: fit.Settings{MaxIter: 5}}, "-maxiter and -tol"},
		{robots.IdentifyRequest{Fix: []string{"a99"}}, "a99"},
		{robots.IdentifyRequest{Fix: []string{"a11"}}, "-fix/-free need -method batch"},
		{robots.IdentifyRequest{Sources: []robots.Source{{Path: grassLog.Path, AutoOffset: true}}}, "-offset auto"},
	} {
		if len(c.req.Sources) == 0 {
			c.req.Sources = []robots.Source{grassLog}
		}
		_, err := robots.SkidSteer{}.Identify(c.req)
		var ue robots.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a usage error with %q", c.req, err, c.want)
		}
	}
}

// Simulate writes the model's rollout from the log's first pose: the same
// poses as skidsteer.Simulate over the merged log.
func TestSkidSteerSimulate(t *testing.T) {
	p := grassParams(t)
	sim, err := robots.SkidSteer{}.Simulate(robots.SimulateRequest{Params: p, Source: grassLog})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := sim.Write(&b); err != nil {
		t.Fatal(err)
	}
	runs, err := skidsteer.ReadLog(grassLog.Path, skidsteer.LogOptions{Sensors: grassLog.Poses})
	if err != nil {
		t.Fatal(err)
	}
	l := runs[0].Log
	rows := strings.Split(strings.TrimSpace(b.String()), "\n")
	if rows[0] != "t,x,y,psi" || len(rows) != len(l.T)+1 {
		t.Fatalf("header %q, %d rows for %d", rows[0], len(rows)-1, len(l.T))
	}
	k0 := l.PoseRows()[0]
	want, err := skidsteer.Simulate(p, l.Pose[k0], l.T[k0:], l.Vc[k0:], l.Wc[k0:])
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{k0, k0 + 500, len(l.T) - 1} {
		f := strings.Split(rows[k+1], ",")
		x, _ := strconv.ParseFloat(f[1], 64)
		psi, _ := strconv.ParseFloat(f[3], 64)
		if math.Abs(x-want[k-k0].X) > 1e-9 || math.Abs(psi-want[k-k0].Psi) > 1e-9 {
			t.Errorf("row %d: x %g psi %g, want %g %g", k, x, psi, want[k-k0].X, want[k-k0].Psi)
		}
	}
	if _, err := (robots.SkidSteer{}).Simulate(robots.SimulateRequest{Params: "grass", Source: grassLog}); err == nil {
		t.Error("parameters of another type accepted")
	}
}

// The true coefficients predict the held-out poses better than the
// nominal model; the start state is estimated unless X0First.
func TestSkidSteerValidate(t *testing.T) {
	fitOf := func(p skidsteer.Params, x0 string) (float64, robots.ValidationRun) {
		runs, err := robots.SkidSteer{}.Validate(robots.ValidateRequest{Params: p, Sources: []robots.Source{grassLog}, X0: x0})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || len(runs[0].Channels) != 3 || runs[0].Channels[2].Name != "psi" {
			t.Fatalf("runs %+v", runs)
		}
		f, _, _ := runs[0].Channels[2].Fit()
		return f, runs[0]
	}
	truth, r := fitOf(grassParams(t), robots.X0Estimate)
	nominal, _ := fitOf(skidsteer.Params{}, robots.X0Estimate)
	if !(truth > nominal) || !(truth > 50) {
		t.Errorf("psi fit: true a %.1f %%, nominal %.1f %%", truth, nominal)
	}
	_, first := fitOf(grassParams(t), robots.X0First)
	if first.Start[0] != r.Channels[0].Meas[0] || first.Start[0] == r.Start[0] {
		t.Errorf("start: first %v, estimated %v, first measured x %g", first.Start, r.Start, r.Channels[0].Meas[0])
	}
	if r.Track.Duration() < 100 {
		t.Errorf("track spans %g s", r.Track.Duration())
	}
}

func TestSkidSteerReadParams(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.json")
	if err := os.WriteFile(path, []byte(`{"model": "skidsteer", "r": 0.1, "track": 0.5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _, err := robots.SkidSteer{}.ReadParams(path, robots.ForStart)
	if err != nil || p.(skidsteer.Params).Track != 0.5 {
		t.Errorf("for start: %+v, %v", p, err)
	}
	if _, _, err := (robots.SkidSteer{}).ReadParams(path, robots.ForPrediction); err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("for prediction without a: %v", err)
	}
}
