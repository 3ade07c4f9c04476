package skidsteer

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// A wheel-speed log with wl_cmd, wr_cmd keeps the measured and commanded
// speeds per run; one of the two alone is an error naming the other.
func TestReadLogCommandedWheelSpeeds(t *testing.T) {
	path := writeFile(t, "log.csv", "t,wl,wr,wl_cmd,wr_cmd,x,y,psi,traj\n0,1,3,2,4,0,0,0,a\n0.1,2,2,2,4,0.1,0,0,a\n0,0,0,5,5,0,0,0,b\n0.1,1,1,5,5,0.1,0,0,b\n")
	runs, err := ReadLog(path, LogOptions{Params: Params{R: 0.2, Track: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs", len(runs))
	}
	b := runs[1].Log
	if b.WlCmd[0] != 5 || b.WrCmd[1] != 5 || b.Wl[1] != 1 || len(b.Wl) != 2 || runs[0].WlCmd[0] != 2 || runs[0].Wr[0] != 3 {
		t.Errorf("runs: %+v %+v", runs[0].Log, b)
	}
	// measured speeds still give vc, wc
	if math.Abs(b.Vc[1]-0.2) > 1e-12 {
		t.Errorf("vc %v", b.Vc)
	}
	bad := writeFile(t, "bad.csv", "t,wl,wr,wl_cmd\n0,1,3,2\n")
	if _, err := ReadLog(bad, LogOptions{Params: Params{R: 0.2, Track: 0.5}}); err == nil || !strings.Contains(err.Error(), "wr_cmd") || !strings.Contains(err.Error(), filepath.Base(bad)) {
		t.Errorf("wl_cmd without wr_cmd: err = %v", err)
	}
	nan := writeFile(t, "nan.csv", "t,wl,wr,wl_cmd,wr_cmd\n0,1,3,2,4\n0.1,1,3,2,500\n")
	if _, err := ReadLog(nan, LogOptions{Params: Params{R: 0.2, Track: 0.5}}); err == nil || !strings.Contains(err.Error(), `line 3, column "wr_cmd"`) {
		t.Errorf("wr_cmd out of range: err = %v", err)
	}
	// a log without them reads as before
	plain := writeFile(t, "plain.csv", "t,wl,wr\n0,1,3\n0.1,2,2\n")
	runs, err = ReadLog(plain, LogOptions{Params: Params{R: 0.2, Track: 0.5}})
	if err != nil || runs[0].WlCmd != nil {
		t.Errorf("plain log: %v, %+v", err, runs)
	}
}

// tau and delay are optional keys of the parameter file: read back as
// written, negative values are errors naming the key.
func TestParamsLagKeys(t *testing.T) {
	p := lagParams()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, "p.json", string(b))
	q, _, err := ReadParams(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if q.Tau != p.Tau || q.Delay != p.Delay {
		t.Errorf("read τ %g, delay %g; wrote %g, %g", q.Tau, q.Delay, p.Tau, p.Delay)
	}
	plain, _ := json.Marshal(FromCoeffs(make([]float64, NumCoeffs)))
	if strings.Contains(string(plain), "tau") || strings.Contains(string(plain), "delay") {
		t.Errorf("a file without a lag gained keys: %s", plain)
	}
	neg := writeFile(t, "n.json", `{"model":"skidsteer","a":[[0,0,0],[0,0,0],[0,0,0]],"tau":-1}`)
	if _, _, err := ReadParams(neg, true); err == nil || !strings.Contains(err.Error(), "tau") {
		t.Errorf("tau = -1: err = %v", err)
	}
}

// Commanded windows need commanded speeds, r and track.
func TestFitWindowsErrors(t *testing.T) {
	runs := syntheticLagRuns(lagParams(), 3, 0, 5)
	runs[1].WlCmd = nil
	if _, err := FitWindows(runs, Params{R: 0.3, Track: 1}, WindowOptions{Inputs: Commanded}); err == nil || !strings.Contains(err.Error(), "wl_cmd") {
		t.Errorf("no wl_cmd: err = %v", err)
	}
	if _, err := PredictWindows(runs[:1], Params{}, WindowOptions{Inputs: Commanded}); err == nil || !strings.Contains(err.Error(), "track") {
		t.Errorf("no r, track: err = %v", err)
	}
}
