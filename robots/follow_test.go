package robots

import (
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/opt"
)

// synthesizeAndTrack plans with m and executes the controls on the same
// exact model from the plan's start.
func synthesizeAndTrack(t *testing.T, m mecanum.Drive, path control.Path, mode control.HeadingMode, theta0 float64) (control.Tracking, *control.Result, *control.Plan) {
	t.Helper()
	p, err := control.NewPlan(m, path, mode, theta0, 4, 1.0/240, 30)
	if err != nil {
		t.Fatal(err)
	}
	s, err := control.NewSynthesizer(p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Synthesize(nil, opt.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Controls {
		for _, w := range c {
			if math.Abs(w) > p.Wmax+1e-9 {
				t.Fatalf("command %g outside ±%g", w, p.Wmax)
			}
		}
	}
	poses, vel := control.Execute(m, p.Start, res.Controls, p.N, p.Dt)
	tr := control.Track(p.Path, 0, p.Dt, poses, vel)
	t.Logf("%s %s: %d iterations, %d evaluations, %v; RMS %.2f mm, max %.2f mm, on time %.2f mm, coverage %.3f, reversed right %.3f, forward left %.3f",
		path.Name(), mode, res.Opt.Iterations, res.Opt.FuncEvaluations, res.Opt.Runtime, 1e3*tr.RMS, 1e3*tr.Max, 1e3*tr.OnTimeRMS, tr.Coverage, tr.ReversedRight, tr.ForwardLeft)
	return tr, res, p
}

// The figure-8 target: 40 s, 4 segments/s, right lobe reversed,
// μ = [0.6, 0.7, 0.8, 0.9], default wheel limit, start aligned.
func TestFigure8ReversedTargets(t *testing.T) {
	tr, _, _ := synthesizeAndTrack(t, testRobot, control.Figure8{A: 1, T: 40}, control.Figure8ReverseRight, 2.35619)
	if tr.RMS > 0.015 || tr.Max > 0.05 || tr.OnTimeRMS > 0.03 {
		t.Errorf("tracking RMS %.4f m, max %.4f m, on-time RMS %.4f m: want ≤ 0.015, 0.05, 0.03", tr.RMS, tr.Max, tr.OnTimeRMS)
	}
	if tr.Coverage < 0.999 {
		t.Errorf("coverage %.4f: the whole curve must be covered", tr.Coverage)
	}
	if tr.ReversedRight < 0.85 || tr.ForwardLeft < 0.85 {
		t.Errorf("reversed on %.3f of the right lobe, forward on %.3f of the left: want ≥ 0.85", tr.ReversedRight, tr.ForwardLeft)
	}
}

func TestCircleTangentTargets(t *testing.T) {
	tr, _, _ := synthesizeAndTrack(t, testRobot, control.Circle{R: 0.5, T: 40}, control.Tangent, -1.5708)
	if tr.RMS > 0.01 || tr.Max > 0.03 || tr.Coverage < 0.999 {
		t.Errorf("circle: RMS %.4f m, max %.4f m, coverage %.4f: want ≤ 0.01, 0.03, 1", tr.RMS, tr.Max, tr.Coverage)
	}
}

// With command-dependent friction the same synthesis holds the figure 8.
func TestFigure8WithFrictionModel(t *testing.T) {
	m := testRobot
	m.Friction = toyFriction{a: [4]float64{0.55, 0.65, 0.75, 0.85}}
	tr, _, _ := synthesizeAndTrack(t, m, control.Figure8{A: 1, T: 40}, control.Figure8ReverseRight, 2.35619)
	if tr.RMS > 0.015 || tr.Max > 0.05 || tr.ReversedRight < 0.85 || tr.ForwardLeft < 0.85 {
		t.Errorf("with a friction model: %+v", tr)
	}
}
