package robots_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/robots"
)

// wheelchairLog is three minutes of Park et al.'s training commands driving
// a wheelchair with ζ = (0.40, 0.008, 0.26, 6.0, 4.5, 0.20), 1 cm/s encoder
// noise and 1.5 ms clock jitter (its testdata/gen.go).
const wheelchairLog = "../models/diffdrive/calibrate/testdata/wheelchair.csv"

var wheelchairTruth = diffdrive.Paper().WithZeta([6]float64{0.40, 0.008, 0.26, 6.0, 4.5, 0.20})

// ddSink keeps what a model hands to its Sink.
type ddSink struct {
	warns    []fit.Warning
	progress int
	notes    bytes.Buffer
}

func (s *ddSink) Warn(w fit.Warning)       { s.warns = append(s.warns, w) }
func (s *ddSink) Progress(string, ...any)  { s.progress++ }
func (s *ddSink) Done()                    {}
func (s *ddSink) Note(line string)         { s.notes.WriteString(line + "\n") }
func (s *ddSink) warnings() (out []string) { return ddWarnings(s.warns) }
func ddWarnings(ws []fit.Warning) (out []string) {
	for _, w := range ws {
		out = append(out, w.String())
	}
	return out
}

func ddWriteFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDiffDriveReadParams(t *testing.T) {
	var m robots.DiffDrive
	// c2 = 0.02 is legal but unusual: a warning naming the file and key.
	p := ddWriteFile(t, "p.json", `{"model": "diffdrive", "c1": 0.43, "c2": 0.02, "alpha": 0.23, "beta": 6.5, "gamma": 4.1, "mu": 0.17}`)
	v, ws, err := m.ReadParams(p, robots.ForPrediction)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.(diffdrive.Params); got.C2 != 0.02 || got.H != 0.06 || got.L != 0.55 {
		t.Errorf("read %+v", got)
	}
	if len(ws) != 1 || !strings.HasPrefix(ws[0].String(), p+`, key "c2": `) {
		t.Errorf("warnings %q, want one about key c2 of %s", ddWarnings(ws), p)
	}
	// A start may leave ζ to the paper's values; a prediction may not.
	start := ddWriteFile(t, "s.json", `{"model": "diffdrive", "mu": 0.3}`)
	v, _, err = m.ReadParams(start, robots.ForStart)
	if err != nil || v.(diffdrive.Params).Mu != 0.3 || v.(diffdrive.Params).C1 != diffdrive.Paper().C1 {
		t.Errorf("ForStart: %+v, %v", v, err)
	}
	if _, _, err := m.ReadParams(start, robots.ForPrediction); err == nil || !strings.Contains(err.Error(), "s.json") || !strings.Contains(err.Error(), "c1") {
		t.Errorf("ForPrediction without c1: %v", err)
	}
}

// A library user's round trip: identify from the wheelchair log, then
// validate and simulate with what was identified.
func TestDiffDriveIdentifyValidateSimulate(t *testing.T) {
	var m robots.DiffDrive
	sink := &ddSink{}
	out, err := m.Identify(robots.IdentifyRequest{Sources: []robots.Source{{Path: wheelchairLog}}, Plot: true, Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	if out.Refused != nil || out.Outcome != nil {
		t.Fatalf("refused %v, outcome %v", out.Refused, out.Outcome)
	}
	rep := out.Report
	if rep.Model != "diffdrive" || rep.Method != "lbfgsb" || rep.Status == nil || !rep.Status.Converged || len(rep.Params) != 6 {
		t.Fatalf("report %+v", rep)
	}
	for _, p := range rep.Params {
		if !math.IsNaN(p.Std) || !strings.Contains(p.StdReason, "eq. 22") || p.Held || p.Undetermined {
			t.Errorf("%s: σ %v (%q), held %v, undetermined %v", p.Name, p.Std, p.StdReason, p.Held, p.Undetermined)
		}
	}
	if !strings.Contains(sink.notes.String(), "resampled 3000 rows onto a uniform grid of 2999") || sink.progress == 0 || len(sink.warns) != 0 {
		t.Errorf("notes %q, %d progress lines, warnings %q", sink.notes.String(), sink.progress, sink.warnings())
	}
	got := out.Params.(diffdrive.Params)
	t.Logf("ζ = %.4g, mean |error| %.4g", got.Zeta(), rep.Residual.RMS)
	// The log's 180 s determine c1, μ and the steady speeds (eq. 18) well;
	// α, β, γ trade off along the steady-state ridge.
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"c1", got.C1, wheelchairTruth.C1, 0.03},
		{"mu", got.Mu, wheelchairTruth.Mu, 0.05},
		{"v∞(30)", got.SteadySpeed(30), wheelchairTruth.SteadySpeed(30), 0.03},
		{"v∞(60)", got.SteadySpeed(60), wheelchairTruth.SteadySpeed(60), 0.03},
	} {
		if math.Abs(c.got/c.want-1) > c.tol {
			t.Errorf("%s = %.4g, truth %.4g (more than %.0f %% off)", c.name, c.got, c.want, 100*c.tol)
		}
	}
	if rep.Residual.RMS > 0.05 || out.Figure == nil || len(out.Figure.Channels) != 2 || out.Figure.Channels[0].Name != "v" {
		t.Errorf("mean |error| %g, figure %+v", rep.Residual.RMS, out.Figure)
	}

	// validate: the identified model predicts v and ω of its own log;
	// the estimated start is at least as good as the first sample.
	val := func(x0 string) []robots.ValidationRun {
		runs, err := m.Validate(robots.ValidateRequest{Params: got, ParamsPath: "p.json", Sources: []robots.Source{{Path: wheelchairLog}}, X0: x0})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || len(runs[0].Channels) != 2 || runs[0].ID != "" || len(runs[0].Start) != 2 {
			t.Fatalf("validation runs %+v", runs)
		}
		return runs
	}
	est, first := val(robots.X0Estimate), val(robots.X0First)
	fe, _, _ := est[0].Channels[0].Fit()
	ff, _, _ := first[0].Channels[0].Fit()
	fw, _, _ := est[0].Channels[1].Fit()
	t.Logf("fit v %.2f %% (first sample %.2f %%), ω %.2f %%", fe, ff, fw)
	if fe < 95 || fw < 90 || fe < ff-1e-9 {
		t.Errorf("fit v %.2f %% (first %.2f %%), ω %.2f %%: want ≥ 95 %%, ≥ first, ω ≥ 90 %%", fe, ff, fw)
	}
	if ep := est[0].Track.Endpoint(); !(ep < 2) {
		t.Errorf("dead-reckoned endpoint error %g m", ep)
	}

	// simulate: a uniform log (the wheelchair's clock jitters, which
	// simulate refuses, naming the row) rolled out as p.Simulate does.
	if _, err := m.Simulate(robots.SimulateRequest{Params: got, Source: robots.Source{Path: wheelchairLog}}); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("jittered controls: %v", err)
	}
	var b strings.Builder
	b.WriteString("t,uf,ul\n")
	uf, ul := make([]float64, 200), make([]float64, 200)
	for k := range uf {
		uf[k], ul[k] = 40, 20*math.Sin(float64(k)/20)
		fmt.Fprintf(&b, "%g,%g,%g\n", float64(k)*0.06, uf[k], ul[k])
	}
	sim, err := m.Simulate(robots.SimulateRequest{Params: got, Source: robots.Source{Path: ddWriteFile(t, "c.csv", b.String())}})
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	if err := sim.Write(&csv); err != nil {
		t.Fatal(err)
	}
	tab, err := dataset.Read(&csv, "sim", dataset.Spec{Time: "t", Columns: []dataset.Column{{Name: "t"}, {Name: "vr"}, {Name: "vl"}, {Name: "v"}, {Name: "w"}}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := got.Simulate(diffdrive.State{}, uf, ul)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 200 {
		t.Fatalf("%d rows", tab.Len())
	}
	for k := range 200 {
		if tab.Col("v")[k] != want.V[k] || tab.Col("w")[k] != want.W[k] {
			t.Fatalf("row %d: v, w = %g, %g; Simulate gives %g, %g", k, tab.Col("v")[k], tab.Col("w")[k], want.V[k], want.W[k])
		}
	}
}

func TestDiffDriveIdentifyRefuses(t *testing.T) {
	var m robots.DiffDrive
	src := []robots.Source{{Path: wheelchairLog}}
	usage := func(name string, err error) {
		t.Helper()
		var ue robots.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%s: %v, want a UsageError", name, err)
		}
	}
	_, err := m.Identify(robots.IdentifyRequest{Sources: src, Options: map[string]string{"cw": "x"}})
	usage("-cw x", err)
	_, err = m.IdentifyWith(robots.IdentifyRequest{Sources: src}, robots.DiffDriveOptions{CW: math.Inf(1)})
	usage("c_ω = Inf", err)
	_, err = m.Identify(robots.IdentifyRequest{Sources: append(src, src...)})
	usage("two logs", err)
	_, err = m.Identify(robots.IdentifyRequest{Sources: []robots.Source{{Path: wheelchairLog, AutoOffset: true}}})
	usage("-offset auto", err)
	_, err = m.Identify(robots.IdentifyRequest{Sources: src, Fix: []string{"c1"}, Method: "cmaes"})
	usage("-fix with cmaes", err)
	_, err = m.Identify(robots.IdentifyRequest{Sources: src, Fix: []string{"nu"}})
	usage("-fix nu", err)
	if o, err := robots.ParseDiffDriveOptions(map[string]string{"cw": "0.5"}); err != nil || o.CW != 0.5 {
		t.Errorf("-cw 0.5: %+v, %v", o, err)
	}
	// Without turning commands c1, c2 are undetermined: refused after
	// the report, which says so.
	tab, err := dataset.ReadFile(wheelchairLog, dataset.Spec{Time: "t", Columns: []dataset.Column{{Name: "t"}, {Name: "uf"}, {Name: "ul"}, {Name: "vr"}, {Name: "vl"}}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("t,uf,ul,vr,vl\n")
	straight, err := wheelchairTruth.Simulate(diffdrive.State{}, tab.Col("uf")[:600], make([]float64, 600))
	if err != nil {
		t.Fatal(err)
	}
	for k := range 600 {
		fmt.Fprintf(&b, "%g,%g,0,%g,%g\n", float64(k)*0.06, tab.Col("uf")[k], straight.VR[k], straight.VL[k])
	}
	out, err := m.Identify(robots.IdentifyRequest{Sources: []robots.Source{{Path: ddWriteFile(t, "straight.csv", b.String())}}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Refused == nil || !strings.Contains(out.Refused.Error(), "c1, c2 not determined") {
		t.Errorf("refused: %v", out.Refused)
	}
	for _, p := range out.Report.Params {
		if want := p.Name == "c1" || p.Name == "c2"; p.Undetermined != want {
			t.Errorf("%s undetermined %v, want %v", p.Name, p.Undetermined, want)
		}
	}
}

func TestDiffDriveDrive(t *testing.T) {
	var m robots.DiffDrive
	p := diffdrive.Paper()
	d, err := m.Drive(p, robots.DriveOptions{ParamsPath: "p.json"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Dt != p.H || !d.FixedStep || strings.Join(d.Columns, ",") != "uf,ul" || strings.Join(d.Pose, ",") != "x,y,theta" ||
		!strings.Contains(d.Planned, "friction surrogate") || d.Truth != nil || d.Plan.Controls[0].Hi != robots.DefaultJoystickMax {
		t.Errorf("drive %+v", d)
	}
	// The plan drives the exact model along a circle.
	plan, err := control.NewRobotPlan(d.Plan, control.Circle{R: 1, T: 12}, control.Tangent, 0, 1/(4*p.H), d.Dt)
	if err != nil {
		t.Fatal(err)
	}
	f, err := control.FollowRobot(plan, d.Exact, control.FollowSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if tr := f.Predicted.Tracking; tr.RMS > 0.02 {
		t.Errorf("predicted tracking RMS %.4g m", tr.RMS)
	}
	for _, c := range []struct {
		name string
		o    robots.DriveOptions
		want string
	}{
		{"dt", robots.DriveOptions{Dt: 0.01, Set: map[string]bool{"dt": true}}, "steps by its h = 0.06 s"},
		{"umax", robots.DriveOptions{Umax: 0, Set: map[string]bool{"umax": true}}, "-umax 0"},
		{"band", robots.DriveOptions{Band: -1, Set: map[string]bool{"band": true}}, "-band -1"},
	} {
		var ue robots.UsageError
		if _, err := m.Drive(p, c.o); !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a UsageError with %q", c.name, err, c.want)
		}
	}
	other := p
	other.H = 0.05
	if _, err := m.Drive(p, robots.DriveOptions{Truth: other, TruthPath: "true.json", ParamsPath: "p.json"}); err == nil || !strings.HasPrefix(err.Error(), "true.json: h = 0.05") {
		t.Errorf("truth stepping otherwise: %v", err)
	}
	d, err = m.Drive(p, robots.DriveOptions{Truth: &p, Band: 0, Set: map[string]bool{"band": true}})
	if err != nil || d.Truth == nil || d.Planned != "" {
		t.Errorf("exact plan with a truth: %+v, %v", d, err)
	}
}
