package skidsteer

import (
	"encoding/json"
	"math"
	"math/rand/v2"
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
	long := lagParams()
	long.Delay = 1.2 // 24 periods of 0.05 s
	if _, err := PredictWindows(runs[:1], long, WindowOptions{Inputs: Commanded}); err == nil || !strings.Contains(err.Error(), "longer than 20 log periods") {
		t.Errorf("delay beyond the register: err = %v", err)
	}
	if _, err := PredictCommanded(runs[0], long); err == nil || !strings.Contains(err.Error(), "longer than 20 log periods") {
		t.Errorf("delay beyond the register (native): err = %v", err)
	}
}

// Windows of a horizon follow each other from pose row to pose row.
func TestWindowRows(t *testing.T) {
	tt := make([]float64, 50)
	x := make([]float64, 50)
	for i := range tt {
		tt[i] = 0.1 * float64(i)
		x[i] = math.NaN()
		if i%2 == 0 {
			x[i] = float64(i)
		}
	}
	z := make([]float64, 50)
	l, err := NewLog(tt, z, z, x, x, x)
	if err != nil {
		t.Fatal(err)
	}
	got := windowRows(l, 1, false)
	// pose rows 0, 2, …, 48; a 1-s horizon is 10 rows
	want := [][2]int{{0, 10}, {10, 20}, {20, 30}, {30, 40}}
	if len(got) != len(want) {
		t.Fatalf("windows %v, want %v", got, want)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("window %d: %v, want %v", k, got[k], want[k])
		}
	}
	if w := windowRows(l, 0, false); len(w) != 1 || w[0] != [2]int{0, 48} {
		t.Errorf("whole run: %v", w)
	}
	// a repeated pose is no measurement with SkipRepeats
	l.Pose[48] = l.Pose[46]
	if w := windowRows(l, 0, true); w[0] != [2]int{0, 46} {
		t.Errorf("with the last pose stale: %v, want [0 46]", w)
	}
}

// From measured speeds, FitWindows recovers the slip coefficients of
// Simulate's data within their σ, over 2-s windows of long runs.
func TestFitWindowsMeasured(t *testing.T) {
	g, _ := SurfaceByName("grass")
	truth := FromCoeffs(g.A[:])
	truth.A[0][0], truth.A[2][1] = -0.08, -0.35
	rng := rand.New(rand.NewPCG(4, 4))
	var runs []*Log
	for r := range 4 {
		tt, vc, wc := RandomCommands(400, 0.05, 1, uint64(r+1))
		ps, err := Simulate(truth, Pose{}, tt, vc, wc)
		if err != nil {
			t.Fatal(err)
		}
		x, y, psi := make([]float64, len(tt)), make([]float64, len(tt)), make([]float64, len(tt))
		for i, q := range ps {
			x[i], y[i], psi[i] = q.X+0.005*rng.NormFloat64(), q.Y+0.005*rng.NormFloat64(), q.Psi+0.005*rng.NormFloat64()
		}
		l, err := NewLog(tt, vc, wc, x, y, psi)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, l)
	}
	f, err := FitWindows(runs, Params{}, WindowOptions{Horizon: 2, WeightPsi: 1})
	if err != nil {
		t.Fatal(err)
	}
	if f.Windows < 30 {
		t.Fatalf("%d windows", f.Windows)
	}
	want := truth.Coeffs()
	for i, n := range f.Names {
		if z := math.Abs(f.Value[i]-want[i]) / f.Std[i]; !(z < 4) {
			t.Errorf("%s = %g ± %g, truth %g", n, f.Value[i], f.Std[i], want[i])
		}
	}
	nom, err := PredictWindows(runs, Params{}, WindowOptions{Horizon: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !(f.TrainRMS < EndpointRMS(nom)/3) {
		t.Errorf("calibrated RMS %g, nominal %g", f.TrainRMS, EndpointRMS(nom))
	}
}

// PredictCommanded starts from the run's first pose and measured speeds.
func TestPredictCommanded(t *testing.T) {
	p := lagParams()
	runs := syntheticLagRuns(p, 1, 0, 9)
	l := runs[0]
	got, err := PredictCommanded(l, p)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range got {
		if math.Abs(q.X-l.Pose[i].X)+math.Abs(q.Y-l.Pose[i].Y)+math.Abs(q.Psi-l.Pose[i].Psi) > 1e-12 {
			t.Fatalf("row %d: %+v, want %+v", i, q, l.Pose[i])
		}
	}
	l.WlCmd = nil
	if _, err := PredictCommanded(l, p); err == nil || !strings.Contains(err.Error(), "wl_cmd") {
		t.Errorf("no commands: err = %v", err)
	}
}

// Without measured wheel speeds a run's first window starts from rest.
func TestFitWindowsFromRest(t *testing.T) {
	truth := lagParams()
	truth.Delay = 0.08
	var runs []*Log
	for k := range 60 {
		tt, wl, wr, _ := lagCase(uint64(500+k), 40, 0.05)
		ps, err := SimulateCommanded(truth, Pose{}, [2]float64{}, tt, wl, wr)
		if err != nil {
			t.Fatal(err)
		}
		x, y, psi := make([]float64, len(tt)), make([]float64, len(tt)), make([]float64, len(tt))
		for i, q := range ps {
			x[i], y[i], psi[i] = q.X, q.Y, q.Psi
		}
		l, err := NewLog(tt, make([]float64, len(tt)), make([]float64, len(tt)), x, y, psi)
		if err != nil {
			t.Fatal(err)
		}
		l.WlCmd, l.WrCmd = wl, wr
		runs = append(runs, l)
	}
	f, err := FitWindows(runs, Params{R: truth.R, Track: truth.Track}, WindowOptions{Inputs: Commanded, WeightPsi: 1, FitTau: true, FitDelay: true})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f.Params.Tau-truth.Tau) > 1e-4 || math.Abs(f.Params.Delay-truth.Delay) > 1e-4 || f.TrainRMS > 1e-5 {
		t.Errorf("from rest: τ = %g, delay = %g (truth %g, %g), RMS %g m", f.Params.Tau, f.Params.Delay, truth.Tau, truth.Delay, f.TrainRMS)
	}
}
