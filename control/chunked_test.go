package control

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/opt"
)

// Chunked synthesis of the 40-s figure 8 in 10-s chunks (5-s look-ahead)
// tracks the path as well as planning it whole would: the Mecanum graph
// synthesizer with the right lobe reversed, and the skid-steer through
// Robot (started along the path). Chunks of this size are what follow uses
// on long paths (ChunkSeconds), scaled down to keep the test fast.
func TestChunkedSynthesisTracks(t *testing.T) {
	p, err := NewPlan(testRobot, Figure8{A: 1, T: 40}, Figure8ReverseRight, 2.35619, 4, 1.0/240, 30)
	if err != nil {
		t.Fatal(err)
	}
	res, err := SynthesizeChunked(p, 40, 60, opt.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Wheels) != p.K || res.Chunks != 4 {
		t.Fatalf("%d segments in %d chunks, want %d in 4", len(res.Wheels), res.Chunks, p.K)
	}
	poses, vel := testRobot.Execute(p.Start, res.Wheels, p.N, p.Dt)
	tr := Track(p.Path, 0, p.Dt, poses, vel)
	t.Logf("mecanum, 4 chunks: RMS %.2f mm, max %.2f mm, reversed %.3f, %d iterations, %v", 1e3*tr.RMS, 1e3*tr.Max, tr.ReversedRight, res.Iterations, res.Runtime)
	if tr.RMS > 0.005 || tr.Max > 0.03 || tr.ReversedRight < 0.85 || tr.ForwardLeft < 0.85 {
		t.Errorf("mecanum chunked: RMS %.4f m, max %.4f m, reversed %.3f, forward %.3f", tr.RMS, tr.Max, tr.ReversedRight, tr.ForwardLeft)
	}

	r := testSkidSteer(t)
	rp, err := NewRobotPlan(r, Figure8{A: 1, T: 40}, Tangent, math.Pi/4, 4, 1.0/240)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := SynthesizeRobotChunked(rp, 40, 60, opt.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x0, _ := r.StartState(rp.Start)
	rposes, rvel, _, err := r.Execute(x0, rr.Controls, rp.N, rp.Dt)
	if err != nil {
		t.Fatal(err)
	}
	rt := TrackRobot(r, rp.Path, 0, rp.Dt, rposes, rvel)
	t.Logf("skidsteer, %d chunks: RMS %.2f mm, max %.2f mm, %d iterations, %v", rr.Chunks, 1e3*rt.RMS, 1e3*rt.Max, rr.Iterations, rr.Runtime)
	if len(rr.Controls) != rp.K || rt.RMS > 0.005 || rt.Max > 0.02 {
		t.Errorf("skidsteer chunked: %d segments, RMS %.4f m, max %.4f m", len(rr.Controls), rt.RMS, rt.Max)
	}
}

func TestChunksAndStepLimit(t *testing.T) {
	if every, horizon, chunked := Chunks(160, 4); chunked || every != 240 || horizon != 280 {
		t.Errorf("Chunks(160, 4) = %d, %d, %v", every, horizon, chunked)
	}
	if _, _, chunked := Chunks(40000, 4); !chunked {
		t.Error("a 10,000-s path at 4 segments/s is not chunked")
	}
	if err := CheckSteps("figure8", 40, 1.0/240); err != nil {
		t.Error(err)
	}
	for _, d := range []float64{1e6, math.Inf(1), math.NaN()} {
		if err := CheckSteps("figure8", d, 1.0/240); err == nil || !strings.Contains(err.Error(), "figure8: the path lasts") {
			t.Errorf("duration %v: %v", d, err)
		}
	}
}

// A waypoint that jumps 10⁶ m, or that needs more than MaxWaypointSpeed, is
// refused naming the file, its line and column; a long but slow path reads.
func TestWaypointJumpsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		csv, want string
	}{
		{"t,x,y\n0,0,0\n1,0.5,0\n2,1000000,0\n3,1000000.5,0\n", `line 4, column "x"`},
		{"# comment\nt,x,y\n0,0,0\n0.001,0,0.2\n", `line 4, column "y"`},
		{"t,x,y\n0,0,0\n1,0,1e308\n2,0,-1e308\n", `line 3, column "y"`},
		{"t,x,y\n0,0,0\n1e-300,1,0\n", `line 3, column "x"`},
	} {
		f := filepath.Join(dir, "ref.csv")
		os.WriteFile(f, []byte(c.csv), 0o644)
		_, err := ReadWaypoints(f)
		if err == nil || !strings.Contains(err.Error(), f) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "jumps") {
			t.Errorf("%q: %v, want the file and %s", c.csv, err, c.want)
		}
	}
	f := filepath.Join(dir, "slow.csv")
	os.WriteFile(f, []byte("t,x,y\n0,0,0\n1e6,1e6,0\n"), 0o644)
	if _, err := ReadWaypoints(f); err != nil {
		t.Errorf("1 m/s over 10⁶ s: %v", err)
	}
}
