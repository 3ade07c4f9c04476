package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Issue 28, Deliver 4: a wrong layout does not pass silently. DRIVE's
// windows (real data) concatenated without their window column: on a
// running clock the poses jump back to the start every 2 s, restarting the
// clock the time goes back; either way the message says traj. The stale
// poses are counted once for the file, not once per window.
func TestLayoutWithoutTraj(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "experiments", "real-warthog", "testdata", "windows-sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	// 12 windows: 7 of their 11 jumps back are long enough to tell from
	// motion (10× the median step and 5 cm)
	// window,calib_step,t,cmd_left,cmd_right,meas_left,meas_right,x,y,yaw,steady
	var running, restart strings.Builder
	running.WriteString("t,wl,wr,x,y,psi\n")
	restart.WriteString("t,wl,wr,x,y,psi\n")
	w, n := "", -1
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if f[0] != w {
			w, n = f[0], n+1
		}
		if n >= 12 {
			break
		}
		tt, _ := strconv.ParseFloat(f[2], 64)
		rest := strings.Join([]string{f[5], f[6], f[7], f[8], f[9]}, ",")
		fmt.Fprintf(&running, "%.2f,%s\n", tt+2*float64(n), rest)
		fmt.Fprintf(&restart, "%s,%s\n", f[2], rest)
	}
	dir := t.TempDir()
	init := filepath.Join(dir, "w.json")
	os.WriteFile(init, []byte(`{"model": "skidsteer", "r": 0.3, "track": 1.08}`), 0o644)
	run1 := filepath.Join(dir, "running.csv")
	os.WriteFile(run1, []byte(running.String()), 0o644)
	_, stdout, stderr := runCLI("identify", "-model", "skidsteer", "-data", run1, "-init", init, "-allow-undetermined", "-out", filepath.Join(dir, "p.json"))
	if !strings.Contains(stdout, "1 run(s)") || !strings.Contains(stderr, "jump back to the run's start 7 time(s) (lines 42, 122, 162, …)") || !strings.Contains(stderr, "traj") {
		t.Errorf("windows on a running clock without traj: no warning naming traj\n%s%s", stdout, stderr)
	}
	run2 := filepath.Join(dir, "restart.csv")
	os.WriteFile(run2, []byte(restart.String()), 0o644)
	st, _, stderr := runCLI("identify", "-model", "skidsteer", "-data", run2, "-init", init, "-out", filepath.Join(dir, "q.json"))
	if st == 0 || !strings.Contains(stderr, "line 42") || !strings.Contains(stderr, "need a traj column") {
		t.Errorf("windows restarting the clock without traj: status %d, %s", st, stderr)
	}
	st, _, stderr = runCLI("identify", "-model", "skidsteer", "-data", filepath.Join("..", "experiments", "real-warthog", "testdata", "windows-sample.csv"),
		"-init", init, "-columns", "traj=window,wl=meas_left,wr=meas_right,psi=yaw", "-out", filepath.Join(dir, "r.json"))
	if st != 0 || strings.Count(stderr, "repeat the previous pose") != 1 || !strings.Contains(stderr, "over 60 runs") {
		t.Errorf("stale poses of 60 windows: status %d, want one warning for the file:\n%s", st, stderr)
	}
}

// A stretch of driving by hand (moving with zero commands) is named with
// its time span before the unit check it misleads.
func TestManualDrivingNamedBeforeUnits(t *testing.T) {
	var s strings.Builder
	s.WriteString("t,vc,wc,x,y,psi\n")
	x := 0.0
	for k := range 400 {
		tt := 0.05 * float64(k)
		vc := 0.5
		if tt >= 8 && tt < 18 {
			vc = 0 // pushed along by hand at 1 m/s
		}
		if k > 0 {
			v := 0.5
			if tt >= 8 && tt < 18 {
				v = 1
			}
			x += v * 0.05
		}
		fmt.Fprintf(&s, "%.2f,%g,0,%.4f,0,0\n", tt, vc, x)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "manual.csv")
	os.WriteFile(log, []byte(s.String()), 0o644)
	_, _, stderr := runCLI("identify", "-model", "skidsteer", "-data", log, "-allow-undetermined", "-out", filepath.Join(dir, "p.json"))
	i := strings.Index(stderr, "moves while every command is zero for 9.95 s in 1 stretch(es) (8.0–17.9 s")
	j := strings.Index(stderr, "distance travelled")
	if i < 0 || j >= 0 && j < i {
		t.Errorf("manual driving not named first:\n%s", stderr)
	}
}

// A run far outside the others' endpoint errors is named by its traj
// (issue 28: one window commanded backwards whose ICP moves 4 m forwards
// dominated the mean, unflagged). Here window 15's poses are made to run
// ahead of its commands.
func TestValidateNamesOutlierRuns(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "experiments", "real-warthog", "testdata", "windows-sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var out strings.Builder
	out.WriteString(lines[0] + "\n")
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if f[0] == "15" { // x: 5 m ahead by the window's end
			x, _ := strconv.ParseFloat(f[7], 64)
			tt, _ := strconv.ParseFloat(f[2], 64)
			f[7] = strconv.FormatFloat(x+2.5*tt, 'f', 6, 64)
		}
		out.WriteString(strings.Join(f, ",") + "\n")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "w.csv")
	os.WriteFile(log, []byte(out.String()), 0o644)
	p := filepath.Join(dir, "p.json")
	os.WriteFile(p, []byte(`{"model": "skidsteer", "r": 0.3, "track": 1.08, "a": [[0,0,0],[0,0,0],[0,0,0]],
  "columns": {"traj": "window", "wl": "meas_left", "wr": "meas_right", "psi": "yaw"}}`), 0o644)
	// calibrated on the training windows, validated on the test windows
	cal := filepath.Join(dir, "cal.json")
	if st, _, stderr := runCLI("identify", "-model", "skidsteer", "-data", log, "-init", p, "-where", "calib_step%2=0", "-out", cal); st != 0 {
		t.Fatalf("identify: %d %s", st, stderr)
	}
	p = cal
	st, _, stderr := runCLI("validate", "-model", "skidsteer", "-data", log, "-params", p, "-x0", "first", "-where", "calib_step%2=1")
	if st != 0 || !strings.Contains(stderr, "end far from the others' endpoint errors") || !strings.Contains(stderr, ": 15 (") {
		t.Errorf("status %d; the outlier window 15 is not named:\n%s", st, stderr)
	}
	st, _, stderr = runCLI("validate", "-model", "skidsteer", "-data", filepath.Join("..", "experiments", "real-warthog", "testdata", "windows-sample.csv"), "-params", p, "-x0", "first", "-where", "calib_step%2=1")
	if st != 0 || strings.Contains(stderr, ": 15 (") {
		t.Errorf("status %d; window 15 named without the disturbance:\n%s", st, stderr)
	}
}
