package calibrate

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/diffdrive"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Wheel speeds sampled on rows of their own are interpolated onto the
// command rows; command rows outside the samples' span are dropped.
func TestReadLogGrid(t *testing.T) {
	path := writeFile(t, "log.csv", "t,uf,ul,vr,vl\n0,10,0,,\n0.03,,,0.3,0.1\n0.06,20,0,,\n0.09,,,0.9,0.3\n0.12,30,0,,\n")
	runs, err := ReadLog(path, LogOptions{NeedSpeeds: true})
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	if len(r.T) != 1 || r.T[0] != 0.06 || r.UF[0] != 20 || math.Abs(r.VR[0]-0.6) > 1e-12 || math.Abs(r.VL[0]-0.2) > 1e-12 {
		t.Fatalf("grid run %+v, want the one command row at 0.06 with vr 0.6, vl 0.2", r)
	}
	sync := writeFile(t, "sync.csv", "t,uf,ul,vr,vl\n0,1,0,0,0\n0.06,1,0,,0\n")
	if _, err := ReadLog(sync, LogOptions{NeedSpeeds: true}); err == nil || !strings.Contains(err.Error(), `line 3, column "vr": empty cell`) {
		t.Errorf("synchronous log with an empty speed: err = %v", err)
	}
	half := writeFile(t, "half.csv", "t,uf,ul,vr\n0,1,0,0\n0.06,1,0,0\n")
	if _, err := ReadLog(half, LogOptions{}); err == nil || !strings.Contains(err.Error(), "needs both vr and vl") {
		t.Errorf("vr without vl: err = %v", err)
	}
}

func TestUniform(t *testing.T) {
	path := writeFile(t, "log.csv", "t,uf,ul,vr,vl,traj\n0,1,0,0,0,a\n0.06,1,0,0,0,a\n0,1,0,0,0,b\n0.06,1,0,0,0,b\n0.13,1,0,0,0,b\n")
	runs, err := ReadLog(path, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckUniform(runs[:1], 0.06); err != nil {
		t.Errorf("uniform run a: %v", err)
	}
	if err := CheckUniform(runs, 0.06); err == nil || !strings.Contains(err.Error(), `line 6, column "t": time step 0.07`) {
		t.Errorf("run b's last step: err = %v", err)
	}
	// jitter within 20 % is resampled: commands held, speeds interpolated
	r := Run{T: []float64{0, 0.07, 0.12, 0.18}, UF: []float64{1, 2, 3, 4}, UL: []float64{0, 0, 0, 0}, VR: []float64{0, 0.7, 1.2, 1.8}, VL: []float64{0, 0, 0, 0}}
	lg, worst, err := Resample(r, 0.06, "h")
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(worst-0.01) > 1e-12 || len(lg.UF) != 4 || lg.UF[1] != 1 || math.Abs(lg.VR[1]-0.6) > 1e-12 || lg.UF[2] != 3 {
		t.Errorf("resampled %+v (worst %v)", lg, worst)
	}
	r.T[1] = 0.1
	if _, _, err := Resample(r, 0.06, "h = 0.06 s"); err == nil || !strings.Contains(err.Error(), "row 1: time step 0.1 s from the previous row, but the model steps by h = 0.06 s") {
		t.Errorf("a step off by 67 %%: err = %v", err)
	}
	slow := Run{T: []float64{0, 0.1, 0.2, 0.3}}
	if err := CheckStep(slow, 0.06, "h = 0.06 s"); err == nil || !strings.Contains(err.Error(), "median step is 0.1 s") {
		t.Errorf("median step unlike h: err = %v", err)
	}
}

func TestReadParams(t *testing.T) {
	path := writeFile(t, "p.json", `{"model": "diffdrive", "c1": 0.5}`)
	p, _, err := diffdrive.ReadParams(path, false)
	if err != nil || p.C1 != 0.5 || p.Beta != diffdrive.Paper().Beta {
		t.Fatalf("p %+v, err %v; want c1 0.5 over the paper's values", p, err)
	}
	if _, _, err := diffdrive.ReadParams(path, true); err == nil || !strings.Contains(err.Error(), `"c2"`) {
		t.Errorf("needZeta without c2: err = %v", err)
	}
}
