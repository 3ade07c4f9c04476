package robots

import (
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/opt"
)

// Chunked synthesis of the 40-s figure 8 in 10-s chunks (5-s look-ahead)
// tracks the path as well as planning it whole would: the Mecanum graph
// synthesizer with the right lobe reversed, and the skid-steer through
// Robot (started along the path). Chunks of this size are what follow uses
// on long paths (ChunkSeconds), scaled down to keep the test fast.
func TestChunkedSynthesisTracks(t *testing.T) {
	p, err := control.NewPlan(testRobot, control.Figure8{A: 1, T: 40}, control.Figure8ReverseRight, 2.35619, 4, 1.0/240, 30)
	if err != nil {
		t.Fatal(err)
	}
	res, err := control.SynthesizeChunked(p, 40, 60, opt.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Wheels) != p.K || res.Chunks != 4 {
		t.Fatalf("%d segments in %d chunks, want %d in 4", len(res.Wheels), res.Chunks, p.K)
	}
	poses, vel := control.Execute(testRobot, p.Start, res.Wheels, p.N, p.Dt)
	tr := control.Track(p.Path, 0, p.Dt, poses, vel)
	t.Logf("mecanum, 4 chunks: RMS %.2f mm, max %.2f mm, reversed %.3f, %d iterations, %v", 1e3*tr.RMS, 1e3*tr.Max, tr.ReversedRight, res.Iterations, res.Runtime)
	if tr.RMS > 0.005 || tr.Max > 0.03 || tr.ReversedRight < 0.85 || tr.ForwardLeft < 0.85 {
		t.Errorf("mecanum chunked: RMS %.4f m, max %.4f m, reversed %.3f, forward %.3f", tr.RMS, tr.Max, tr.ReversedRight, tr.ForwardLeft)
	}

	r := testSkidSteer(t)
	rp, err := control.NewRobotPlan(r, control.Figure8{A: 1, T: 40}, control.Tangent, math.Pi/4, 4, 1.0/240)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := control.SynthesizeRobotChunked(rp, 40, 60, opt.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x0, _ := r.StartState(rp.Start)
	rposes, rvel, _, err := r.Execute(x0, rr.Controls, rp.N, rp.Dt)
	if err != nil {
		t.Fatal(err)
	}
	rt := control.TrackRobot(r, rp.Path, 0, rp.Dt, rposes, rvel)
	t.Logf("skidsteer, %d chunks: RMS %.2f mm, max %.2f mm, %d iterations, %v", rr.Chunks, 1e3*rt.RMS, 1e3*rt.Max, rr.Iterations, rr.Runtime)
	if len(rr.Controls) != rp.K || rt.RMS > 0.005 || rt.Max > 0.02 {
		t.Errorf("skidsteer chunked: %d segments, RMS %.4f m, max %.4f m", len(rr.Controls), rt.RMS, rt.Max)
	}
}
