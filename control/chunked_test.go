package control

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
