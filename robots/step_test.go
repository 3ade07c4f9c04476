package robots

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/step/steptest"
)

var dragCar, linearDragCar, poseDragCar, dragTruth, dragLog = steptest.DragCar, steptest.LinearDragCar, steptest.PoseDragCar, steptest.DragTruth, steptest.DragLog

func dragModel(t testing.TB) *Step { return dragModelOf(t, dragCar) }

func dragModelOf(t testing.TB, model *dyn.Model) *Step {
	t.Helper()
	m, err := NewStepModel(StepModel{Name: "dragcar", Model: model, Dt: "dt", AfterStep: true, Pose: [3]string{"x", "y", "th"},
		Params:  []fit.Param{{Name: "tau", Unit: "s", Value: 0.5, Lower: 0.01, Upper: 5}, {Name: "k", Value: 1, Lower: 0.1, Upper: 5}, {Name: "d", Unit: "1/s", Value: 0.1, Lower: 0, Upper: 5}},
		Outputs: []Output{{Name: "x", Unit: "m"}, {Name: "y", Unit: "m"}}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestStepModelLibrary: a user's model as a library user reaches it:
// ReadParams strict, Identify within 3σ of the truth, Validate and
// Simulate on the same log.
func TestStepModelLibrary(t *testing.T) {
	s := dragModel(t)
	dir := t.TempDir()
	for _, c := range []struct{ file, want string }{
		{`{"tau": 0.3, "kk": 1}`, `key "kk"`},
		{`{"model": "mecanum", "tau": 0.3}`, `model "mecanum"`},
		{`{"tau": -1, "k": 1, "d": 0}`, `key "tau"`},
		{`{"tau": 0.3, "k": 1}`, `key "d"`},
	} {
		path := filepath.Join(dir, "p.json")
		if err := os.WriteFile(path, []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := s.ReadParams(path, ForPrediction)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming %s", c.file, err, c.want)
		}
	}
	path := dragLog(t, 3, 1500, 2)
	id, err := s.Identify(IdentifyRequest{Sources: []Source{{Path: path}}})
	if err != nil {
		t.Fatal(err)
	}
	if id.Refused != nil || id.Outcome != nil {
		t.Fatalf("refused %v, outcome %v", id.Refused, id.Outcome)
	}
	for k, p := range id.Report.Params {
		e := p.Value - dragTruth[k]
		t.Logf("%s = %.5g ± %.2g (truth %g, %+.2f σ)", p.Name, p.Value, p.Std, dragTruth[k], e/p.Std)
		if !(p.Std > 0) || math.Abs(e) > 3*p.Std {
			t.Errorf("%s = %v ± %v, truth %v", p.Name, p.Value, p.Std, dragTruth[k])
		}
	}
	runs, err := s.Validate(ValidateRequest{Params: id.Params, Sources: []Source{{Path: path}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 {
		t.Fatalf("%d runs validated", len(runs))
	}
	for _, r := range runs {
		for _, c := range r.Channels {
			if f, _, rms := c.Fit(); f < 99 || rms > 0.01 {
				t.Errorf("run %s %s: fit %.2f %%, RMS %.3g m", r.ID, c.Name, f, rms)
			}
		}
		if ep := r.Track.Endpoint(); !(ep < 0.03) {
			t.Errorf("run %s: endpoint error %v m", r.ID, ep)
		}
	}
	// lbfgsb (reverse-mode gradient) ends within 0.5σ of lsq.
	lb, err := s.Identify(IdentifyRequest{Sources: []Source{{Path: path}}, Method: "lbfgsb"})
	if err != nil {
		t.Fatal(err)
	}
	if lb.Outcome != nil || lb.Report.Status.Method != "lbfgsb" {
		t.Errorf("lbfgsb: outcome %v, status %+v", lb.Outcome, lb.Report.Status)
	}
	for k, q := range lb.Report.Params {
		ls := id.Report.Params[k]
		t.Logf("lbfgsb %s = %.6g (lsq %.6g ± %.2g); %d iterations against %d", q.Name, q.Value, ls.Value, ls.Std, lb.Report.Status.Iterations, id.Report.Status.Iterations)
		if math.Abs(q.Value-ls.Value) > 0.5*ls.Std {
			t.Errorf("lbfgsb %s = %v, lsq %v ± %v", q.Name, q.Value, ls.Value, ls.Std)
		}
	}
	// Linear drag: the fit is refused, its null direction named.
	lin, err := dragModelOf(t, linearDragCar).Identify(IdentifyRequest{Sources: []Source{{Path: path}}})
	if err != nil {
		t.Fatal(err)
	}
	if lin.Refused == nil || len(lin.Report.Null) == 0 {
		t.Errorf("linear drag: refused %v, null directions %v", lin.Refused, lin.Report.Null)
	} else {
		t.Logf("linear drag refused: %v; null direction %s", lin.Refused, lin.Report.Null[0].Text)
	}
	sim, err := s.Simulate(SimulateRequest{Params: id.Params, Source: Source{Path: path}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := sim.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "t,traj,x,y,th,v\n") {
		t.Errorf("simulated CSV starts %q", b.String()[:40])
	}
}

// TestNewStepModelErrors: a StepModel that does not match its step is an
// error naming what.
func TestNewStepModelErrors(t *testing.T) {
	ok := StepModel{Name: "dragcar", Model: dragCar, Dt: "dt",
		Params: []fit.Param{{Name: "tau", Value: 0.5, Lower: 0.01, Upper: 5}, {Name: "k", Value: 1, Lower: 0.1, Upper: 5}, {Name: "d", Value: 0.1, Lower: 0, Upper: 5}}}
	if _, err := NewStepModel(ok); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		change func(*StepModel)
		want   string
	}{
		{func(m *StepModel) { m.Params = m.Params[:2] }, "2 Params"},
		{func(m *StepModel) { m.Params = []fit.Param{m.Params[1], m.Params[0], m.Params[2]} }, `Params[0] is "k"`},
		{func(m *StepModel) {
			m.Params = append([]fit.Param{{Name: "tau", Value: 9, Lower: 0, Upper: 5}}, m.Params[1:]...)
		}, "outside its bounds"},
		{func(m *StepModel) { m.Dt = "" }, "Dt"},
		{func(m *StepModel) { m.Dt = "h" }, `Dt "h"`},
		{func(m *StepModel) { m.Outputs = []Output{{Name: "z"}} }, `"z"`},
		{func(m *StepModel) { m.Pose = [3]string{"x", "y", "psi"} }, `"psi"`},
		{func(m *StepModel) { m.Settings = map[string]float64{"T": 1} }, `"T"`},
	} {
		m := ok
		m.Params = append([]fit.Param(nil), ok.Params...)
		c.change(&m)
		if _, err := NewStepModel(m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one naming %s", err, c.want)
		}
	}
}

// TestStepDrive: a step model with Controls and a Pose whose lanes are
// outputs is a Driver: synthesis through the same step drives it around
// the 40-s circle of 0.5 m (measured 4.2 mm RMS, 22 mm max, 5.9 mm on
// time: looser than the built-in models, which seed synthesis with a
// steady-state inverse; this one starts from zero controls and from rest
// against its velocity lag); without a heading output the model says it
// cannot be driven.
func TestStepDrive(t *testing.T) {
	ctl := []control.Control{{Input: "u", Lo: -1, Hi: 2, Scale: 0.05}, {Input: "w", Lo: -2, Hi: 2, Scale: 0.1}}
	params := []fit.Param{{Name: "tau", Value: 0.1, Lower: 0.01, Upper: 5}, {Name: "k", Value: 1.1, Lower: 0.1, Upper: 5}, {Name: "d", Value: 0.2, Lower: 0, Upper: 5}}
	m, err := NewStepModel(StepModel{Name: "dragcar", Model: poseDragCar, Dt: "dt", AfterStep: true, Pose: [3]string{"x", "y", "th"},
		Params: params, Controls: ctl, DriveStep: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	var _ Driver = m
	d, err := m.Drive(m.Defaults(), DriveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !d.FixedStep || d.Dt != 0.02 || strings.Join(d.Columns, ",") != "u,w" {
		t.Errorf("drive %+v", d)
	}
	tr, _ := followRobot(t, d.Plan, d.Exact, control.Circle{R: 0.5, T: 40}, control.Tangent, 0, d.Dt)
	// On time: the distance to the reference of the same time, which a
	// robot left at rest would make tens of centimetres.
	if tr.RMS > 0.01 || tr.Max > 0.05 || tr.OnTimeRMS > 0.02 || tr.Coverage < 0.99 {
		t.Errorf("circle: RMS %.4f m, max %.4f m, on time %.4f m, coverage %.4f: want ≤ 0.01, 0.05, 0.02, ≥ 0.99", tr.RMS, tr.Max, tr.OnTimeRMS, tr.Coverage)
	}
	noHeading, err := NewStepModel(StepModel{Name: "dragcar", Model: dragCar, Dt: "dt", Pose: [3]string{"x", "y", "th"}, Params: params, Controls: ctl})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noHeading.Drive(noHeading.Defaults(), DriveOptions{}); err == nil || !strings.Contains(err.Error(), "cannot be driven") {
		t.Errorf("without a heading output: %v", err)
	}
}

// BenchmarkStepIdentify times a user's model's identify on 3 runs × 30 s
// (50-Hz commands, 25-Hz tracker) by each method, and reports their
// iterations.
func BenchmarkStepIdentify(b *testing.B) {
	s := dragModel(b)
	path := dragLog(b, 3, 1500, 2)
	for _, m := range s.Methods() {
		b.Run(m, func(b *testing.B) {
			var id *Identified
			var err error
			for range b.N {
				if id, err = s.Identify(IdentifyRequest{Sources: []Source{{Path: path}}, Method: m}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(id.Report.Status.Iterations), "iterations")
			b.ReportMetric(float64(id.Report.Evaluations), "evaluations")
		})
	}
}
