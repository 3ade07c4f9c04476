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

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/robots"
)

// The example log of models/mecanum: commands at 240 Hz and a camera file
// of its own, generated with μ = 0.62, 0.48, 0.71, 0.55 (testdata/gen.go).
var (
	mecCommands = filepath.Join("..", "models", "mecanum", "testdata", "commands.csv")
	mecCamera   = filepath.Join("..", "models", "mecanum", "testdata", "camera.csv")
	mecTrueMu   = []float64{0.62, 0.48, 0.71, 0.55}
)

// mecTrueParams writes the generating parameters to a file and reads them
// back through the adapter, as a face does.
func mecTrueParams(t *testing.T) (robots.Params, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "true.json")
	if err := os.WriteFile(path, []byte(`{"model": "mecanum", "mu": [0.62, 0.48, 0.71, 0.55]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, ws, err := robots.Mecanum{}.ReadParams(path, robots.ForPrediction)
	if err != nil || len(ws) != 0 {
		t.Fatalf("ReadParams: %v (warnings %v)", err, ws)
	}
	if got := p.(mecanum.Params).Mu; len(got) != 4 || got[2] != 0.71 {
		t.Fatalf("mu %v", got)
	}
	return p, path
}

func TestMecanumReadParamsWarningsAndErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"model": "mecanum", "mu": [0.5, 0.5, 0.5, 0.5], "nosuchkey": 1}`), 0o644)
	if _, _, err := (robots.Mecanum{}).ReadParams(bad, robots.ForPrediction); err == nil || !strings.Contains(err.Error(), "nosuchkey") {
		t.Errorf("unknown key: %v", err)
	}
	nomu := filepath.Join(dir, "nomu.json")
	os.WriteFile(nomu, []byte(`{"model": "mecanum"}`), 0o644)
	if _, _, err := (robots.Mecanum{}).ReadParams(nomu, robots.ForPrediction); err == nil {
		t.Error("a file without mu was accepted for prediction")
	}
	p, _, err := robots.Mecanum{}.ReadParams(nomu, robots.ForStart)
	if def := mecanum.DefaultParams().Mu; err != nil || fmt.Sprint(p.(mecanum.Params).Mu) != fmt.Sprint(def) {
		t.Errorf("a start without mu: %v, %v (want the default μ %v)", p, err, def)
	}
}

func TestMecanumSimulateMatchesModel(t *testing.T) {
	p, path := mecTrueParams(t)
	sim, err := robots.Mecanum{}.Simulate(robots.SimulateRequest{Params: p, ParamsPath: path,
		Source: robots.Source{Path: mecCommands, Poses: mecCamera}, Plot: true})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := sim.Write(&b); err != nil {
		t.Fatal(err)
	}
	tab, err := dataset.Read(&b, "sim.csv", dataset.Spec{Columns: []dataset.Column{{Name: "t"}, {Name: "x"}, {Name: "y"}, {Name: "theta"}}, Time: "t"})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := mecanum.ReadLog(mecCommands, mecanum.LogOptions{Sensors: mecCamera})
	if err != nil {
		t.Fatal(err)
	}
	x, y, th := mecanum.Simulate(p.(mecanum.Params), &runs[0])
	if tab.Len() != len(x) {
		t.Fatalf("%d rows, the model %d", tab.Len(), len(x))
	}
	for k := range x {
		if math.Abs(tab.Col("x")[k]-x[k]) > 1e-9 || math.Abs(tab.Col("y")[k]-y[k]) > 1e-9 || math.Abs(tab.Col("theta")[k]-th[k]) > 1e-9 {
			t.Fatalf("row %d: %v %v %v, the model %v %v %v", k, tab.Col("x")[k], tab.Col("y")[k], tab.Col("theta")[k], x[k], y[k], th[k])
		}
	}
	robots.CheckFigure(t, "simulate", sim.Figure, 2) // camera and prediction
	if pr := sim.Figure.Series[1]; pr.Name != "prediction" || len(pr.X) != len(x) || pr.X[len(x)-1] != x[len(x)-1] {
		t.Errorf("the figure's prediction %q has %d points, the simulation %d", pr.Name, len(pr.X), len(x))
	}
}

// With the true parameters the prediction of the camera poses is as good as
// the camera's noise (2 mm, 0.3°) allows; with μ off by 0.3 it is worse.
func TestMecanumValidate(t *testing.T) {
	p, path := mecTrueParams(t)
	src := robots.Source{Path: mecCommands, Poses: mecCamera}
	runs, err := robots.Mecanum{}.Validate(robots.ValidateRequest{Params: p, ParamsPath: path, Sources: []robots.Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || len(runs[0].Channels) != 3 || len(runs[0].Start) != 3 {
		t.Fatalf("runs %+v", runs)
	}
	for _, c := range runs[0].Channels {
		f, _, rms := c.Fit()
		t.Logf("%s: fit %.2f %%, RMS %.4g %s", c.Name, f, rms, c.Unit)
		// the camera's noise: 2 mm in x, y, 0.3° = 0.0052 rad in theta
		if c.Unit == "m" && (!(rms < 0.003) || !(f > 95)) {
			t.Errorf("%s: RMS %.4g m, fit %.2f %% with the true parameters", c.Name, rms, f)
		}
		if c.Unit == "rad" && !(rms < 0.007) {
			t.Errorf("%s: RMS %.4g rad with the true parameters", c.Name, rms)
		}
	}
	if e := runs[0].Track.Endpoint(); !(e < 0.01) {
		t.Errorf("endpoint error %.4g m", e)
	}
	off := p.(mecanum.Params)
	off.Mu = []float64{0.3, 0.8, 0.4, 0.9}
	worse, err := robots.Mecanum{}.Validate(robots.ValidateRequest{Params: off, Sources: []robots.Source{src}, X0: robots.X0First})
	if err != nil {
		t.Fatal(err)
	}
	_, _, good := runs[0].Channels[0].Fit()
	_, _, bad := worse[0].Channels[0].Fit()
	if !(bad > 3*good) {
		t.Errorf("x RMS %.4g m with wrong μ, %.4g m with the true ones", bad, good)
	}
	// -offset auto: the camera is on the commands' clock, so the onset
	// offset is small, and said as a note.
	auto := src
	auto.AutoOffset = true
	n := &noteSink{}
	if _, err := (robots.Mecanum{}).Validate(robots.ValidateRequest{Params: p, Sources: []robots.Source{auto}, Sink: n}); err != nil {
		t.Fatal(err)
	}
	if len(n.notes) == 0 || !strings.Contains(n.notes[0], "offset") || !strings.Contains(n.notes[0], "motion onset") {
		t.Errorf("notes %q", n.notes)
	}
}

// noteSink keeps what a model says.
type noteSink struct {
	notes []string
	warns []fit.Warning
}

func (s *noteSink) Warn(w fit.Warning)      { s.warns = append(s.warns, w) }
func (s *noteSink) Progress(string, ...any) {}
func (s *noteSink) Done()                   {}
func (s *noteSink) Note(l string)           { s.notes = append(s.notes, l) }

// Identify through the adapter as a library user: μ within a few σ of the
// generating values, each determined, and the typed options' errors.
func TestMecanumIdentify(t *testing.T) {
	src := robots.Source{Path: mecCommands, Poses: mecCamera}
	n := &noteSink{}
	out, err := robots.Mecanum{}.IdentifyWith(robots.IdentifyRequest{Sources: []robots.Source{src}, Sink: n, Plot: true}, robots.DefaultMecanumOptions())
	if err != nil {
		t.Fatal(err)
	}
	if out.Refused != nil || out.Outcome != nil {
		t.Fatalf("refused %v, outcome %v", out.Refused, out.Outcome)
	}
	rep := out.Report
	if len(rep.Params) != 4 || rep.Status == nil || !rep.Status.Converged {
		t.Fatalf("report %+v", rep)
	}
	for j, q := range rep.Params {
		t.Logf("%s = %.4f ± %.4f (true %.2f)", q.Name, q.Value, q.Std, mecTrueMu[j])
		if q.Verdict() != fit.Determined || !(q.Std > 0) || !(math.Abs(q.Value-mecTrueMu[j]) < 4*q.Std) {
			t.Errorf("%s = %.4f ± %.4f (%v), true %.2f", q.Name, q.Value, q.Std, q.Verdict(), mecTrueMu[j])
		}
	}
	if !(rep.Residual.RMS > 0.001 && rep.Residual.RMS < 0.004) {
		t.Errorf("camera residual %.4g m (noise 2 mm)", rep.Residual.RMS)
	}
	if got := out.Params.(mecanum.Params).Mu; got[0] != rep.Params[0].Value {
		t.Errorf("params %v, report %v", got, rep.Params[0].Value)
	}
	robots.CheckFigure(t, "identify", out.Figure, 5)
	// -loss squared: μ within 4 σ of the truth, σ from Gauss–Newton over μ
	// and the start poses.
	o := robots.DefaultMecanumOptions()
	o.Loss = "squared"
	sq, err := robots.Mecanum{}.IdentifyWith(robots.IdentifyRequest{Sources: []robots.Source{src}}, o)
	if err != nil {
		t.Fatal(err)
	}
	for j, q := range sq.Report.Params {
		t.Logf("squared: %s = %.4f ± %.4f (true %.2f)", q.Name, q.Value, q.Std, mecTrueMu[j])
		if !(q.Std > 0) || q.Verdict() != fit.Determined || !(math.Abs(q.Value-mecTrueMu[j]) < 4*q.Std) {
			t.Errorf("squared: %s = %.4f ± %v (%v, %q), true %.2f", q.Name, q.Value, q.Std, q.Verdict(), q.StdReason, mecTrueMu[j])
		}
	}
	// -offset auto: the offset is reported (this log's camera is on the
	// commands' clock: the onset offset, -0.06 s, absorbs the model's
	// spin-up and costs accuracy, measured 8 mm of residual instead of 3)
	auto := src
	auto.AutoOffset = true
	ao, err := robots.Mecanum{}.IdentifyWith(robots.IdentifyRequest{Sources: []robots.Source{auto}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(ao.Report.Lines, "\n"), "motion onset") {
		t.Errorf("the onset offset is not reported: %q", ao.Report.Lines)
	}
	// usage mistakes
	for _, c := range []struct {
		opts map[string]string
		req  robots.IdentifyRequest
		want string
	}{
		{map[string]string{"pose": "loose"}, robots.IdentifyRequest{}, "-pose must be"},
		{map[string]string{"prior": "-1"}, robots.IdentifyRequest{}, "-prior must be"},
		{map[string]string{"loss": "squared", "grad": "autodiff"}, robots.IdentifyRequest{}, "go with the eq8 loss"},
		{nil, robots.IdentifyRequest{Method: "cmaes", Fix: []string{"mu1"}}, "need -method lbfgsb"},
		{nil, robots.IdentifyRequest{Fix: []string{"mu9"}}, "mu9"},
		{map[string]string{"loss": "squared"}, robots.IdentifyRequest{Fix: []string{"mu1"}}, "-fix/-free go with the eq8 loss"},
	} {
		c.req.Options, c.req.Sources = c.opts, []robots.Source{src}
		_, err := robots.Mecanum{}.Identify(c.req)
		var ue robots.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %+v: %v, want a usage error with %q", c.opts, c.req, err, c.want)
		}
	}
}

// Inspect finds the wiring of real-like recordings (PWM channels p1..p4 in
// another order and sign, a camera on its own clock) and says that a wrong
// declared map contradicts the motion.
func TestMecanumInspect(t *testing.T) {
	dir := t.TempDir()
	var srcs []robots.Source
	for i, w := range mecanum.RealLikeTrain[:3] {
		s := mecanum.RealLikeRecording(w, 0, 5+uint64(i))
		s.Duration = 1.5
		r := mecanum.SynthesizeRealLike(mecanum.DefaultParams(), s)
		ch, c, mh, m := r.Columns()
		src := robots.Source{Path: filepath.Join(dir, fmt.Sprintf("cmd%d.csv", i)), Poses: filepath.Join(dir, fmt.Sprintf("cam%d.csv", i)), AutoOffset: true}
		for _, f := range []struct {
			path string
			h    []string
			c    [][]float64
		}{{src.Path, ch, c}, {src.Poses, mh, m}} {
			var b bytes.Buffer
			if err := dataset.WriteCSV(&b, f.h, f.c); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		srcs = append(srcs, src)
	}
	wrong := mecanum.DefaultParams()
	wrong.CommandMap = &dataset.CommandMap{Columns: []string{"p1", "p2", "p3", "p4"}, Scale: []float64{0.1, 0.1, 0.1, 0.1}}
	n := &noteSink{}
	r, err := robots.Mecanum{}.Inspect(robots.InspectRequest{Sources: srcs, Params: wrong, ParamsPath: "wrong.json", Top: 3, Sink: n})
	if err != nil {
		t.Fatal(err)
	}
	if r.Tried != 384 || len(r.Best) != 3 || len(r.Offsets) != 3 {
		t.Fatalf("inspection %+v", r)
	}
	b := r.Best[0]
	t.Logf("best: %v RMS %.4f m, %s; declared RMS %.4f m, rank %d", b.Map, b.RMS, b.Fit, r.Declared.RMS, r.DeclaredRank)
	if fmt.Sprint(b.Map.Columns) != "[p3 p4 p2 p1]" || fmt.Sprint(b.Map.Scale) != "[0.1 -0.1 -0.1 0.1]" {
		t.Errorf("best map %v, want the true wiring p3, p4, p2, p1 with signs +, −, −, +", b.Map)
	}
	if !r.Contradicts || r.DeclaredRank == 1 || !(r.Declared.RMS > 1.5*b.RMS) {
		t.Errorf("the wrong declared map: rank %d, RMS %.4f m, contradicts %v", r.DeclaredRank, r.Declared.RMS, r.Contradicts)
	}
	if _, err := (robots.Mecanum{}).Inspect(robots.InspectRequest{Sources: srcs, Channels: []string{"p1", "p2"}, Top: 1}); err == nil || !strings.Contains(err.Error(), "want 4") {
		t.Errorf("two channels: %v", err)
	}
}

// -grad analytic runs the paper's Algorithm 2 (issue 23.5: it ran the
// generated gradient under that name); the generated default, Algorithm 2
// and the autodiff graph reach the same μ.
func TestMecanumGradEngines(t *testing.T) {
	src := robots.Source{Path: mecCommands, Poses: mecCamera}
	mu := map[string][]float64{}
	for _, g := range []string{"generated", "analytic", "autodiff"} {
		o := robots.DefaultMecanumOptions()
		o.Grad = g
		out, err := robots.Mecanum{}.IdentifyWith(robots.IdentifyRequest{Sources: []robots.Source{src}}, o)
		if err != nil {
			t.Fatalf("-grad %s: %v", g, err)
		}
		for _, p := range out.Report.Params {
			mu[g] = append(mu[g], p.Value)
		}
		want := map[string]string{"generated": "generated from the step", "analytic": "Algorithm 2", "autodiff": "autodiff"}[g]
		if !strings.Contains(out.Report.Method, want) {
			t.Errorf("-grad %s: method %q does not say %q", g, out.Report.Method, want)
		}
	}
	for _, g := range []string{"analytic", "autodiff"} {
		for j := range mu[g] {
			if d := math.Abs(mu[g][j] - mu["generated"][j]); d > 1e-4 {
				t.Errorf("-grad %s: μ%d = %.6f, generated %.6f", g, j+1, mu[g][j], mu["generated"][j])
			}
		}
	}
	if _, err := robots.ParseMecanumOptions(map[string]string{"grad": "adjoint"}); err == nil {
		t.Error("-grad adjoint accepted")
	}
}
