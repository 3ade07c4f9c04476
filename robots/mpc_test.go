package robots

import (
	"testing"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/opt"
)

// The true robot's friction depends on the command (a plausible shape for the
// paper's observation that μ varies between trajectories); the planner uses
// constant μ. Open loop plans once and executes blind; MPC re-plans from the
// measured pose every second. MPC must beat open loop on the executed error.
func TestMPCBeatsOpenLoopOnMismatchedRobot(t *testing.T) {
	if testing.Short() {
		t.Skip("closed loop over 40 s")
	}
	truth := testRobot
	truth.Friction = toyFriction{a: [4]float64{0.52, 0.75, 0.7, 0.95}}
	path := control.Figure8{A: 1, T: 40}
	p, err := control.NewPlan(testRobot, path, control.Figure8ReverseRight, 2.35619, 4, 1.0/240, 30)
	if err != nil {
		t.Fatal(err)
	}
	s, err := control.NewSynthesizer(p)
	if err != nil {
		t.Fatal(err)
	}
	open, err := s.Synthesize(nil, opt.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	poses, vel := control.Execute(truth, p.Start, open.Controls, p.N, p.Dt)
	ol := control.Track(path, 0, p.Dt, poses, vel)
	p2, _ := control.NewPlan(testRobot, path, control.Figure8ReverseRight, 2.35619, 4, 1.0/240, 30)
	m, err := control.RunMPC(p2, truth, control.MPCSettings{Noise: 0.003, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cl := control.Track(path, 0, p.Dt, m.Poses, m.Velocity)
	t.Logf("open loop executed: RMS %.1f mm, max %.1f mm, on time %.1f mm", 1e3*ol.RMS, 1e3*ol.Max, 1e3*ol.OnTimeRMS)
	t.Logf("MPC executed (%d re-plans, %v): RMS %.1f mm, max %.1f mm, on time %.1f mm, reversed %.2f/%.2f", m.Replans, m.Runtime, 1e3*cl.RMS, 1e3*cl.Max, 1e3*cl.OnTimeRMS, cl.ReversedRight, cl.ForwardLeft)
	if !(cl.RMS < ol.RMS) || !(cl.OnTimeRMS < ol.OnTimeRMS) {
		t.Errorf("MPC RMS %.4f / on time %.4f does not beat open loop %.4f / %.4f", cl.RMS, cl.OnTimeRMS, ol.RMS, ol.OnTimeRMS)
	}
	if len(m.Poses) != p.K*p.N {
		t.Errorf("MPC executed %d steps, want %d", len(m.Poses), p.K*p.N)
	}
}
