package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/robots"
)

// ζ* of Park et al. and the asphalt slip of Ordonez et al. (Table 2).
const (
	followDiffDriveParams = `{"model": "diffdrive", "c1": 0.4265, "c2": 0.006491, "alpha": 0.2315, "beta": 6.548,
		"gamma": 4.073, "mu": 0.1676, "l": 0.55, "h": 0.06}`
	followSkidSteerParams = `{"model": "skidsteer", "a": [[0.015, -0.0004, -0.010], [0.007, 0.015, -0.007], [0.005, -0.405, 0.119]]}`
)

// readControls reads a controls CSV and checks its rows: every step of dt
// plus the final time, values piecewise constant over segments of n rows
// and within ±bound of each column, the start pose on the first row only.
func readControls(t *testing.T, path string, cols []string, pose []string, steps, n int, dt float64, bound []float64, start [3]float64) {
	t.Helper()
	spec := dataset.Spec{Time: "t", Columns: []dataset.Column{{Name: "t"}}}
	for _, c := range cols {
		spec.Columns = append(spec.Columns, dataset.Column{Name: c})
	}
	for _, c := range pose {
		spec.Columns = append(spec.Columns, dataset.Column{Name: c, Sparse: true})
	}
	tab, err := dataset.ReadFile(path, spec)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != steps+1 || math.Abs(tab.Col("t")[steps]-float64(steps)*dt) > 1e-9 {
		t.Fatalf("%d rows ending at t = %g, want %d ending at %g", tab.Len(), tab.Col("t")[tab.Len()-1], steps+1, float64(steps)*dt)
	}
	for i, c := range pose {
		if v := tab.Col(c); v[0] != start[i] || !math.IsNaN(v[1]) {
			t.Errorf("%s: first rows %g, %g: want the start %g, then empty", c, v[0], v[1], start[i])
		}
	}
	for j, c := range cols {
		v := tab.Col(c)
		for k := range steps {
			if k%n != 0 && v[k] != v[k-1] {
				t.Fatalf("%s changes inside a segment at row %d", c, k)
			}
			if math.Abs(v[k]) > bound[j] {
				t.Fatalf("%s = %g outside ±%g", c, v[k], bound[j])
			}
		}
	}
}

// FORMATS.md (contract additions): follow -model diffdrive writes t,uf,ul
// at the model's h, which simulate accepts unchanged; its v, w integrated
// into the unicycle pose from -theta0 drive the path within the predicted
// error.
func TestFollowDiffDriveRoundTripThroughSimulate(t *testing.T) {
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", followDiffDriveParams)
	ctl := filepath.Join(dir, "c.csv")
	traj := filepath.Join(dir, "t.csv")
	png := filepath.Join(dir, "f.png")
	const theta0 = 0.785398
	st, _, errOut := runCLI("follow", "-model", "diffdrive", "-params", params, "-path", "figure8", "-theta0", "0.785398", "-out", ctl, "-plot", png)
	if st != 0 {
		t.Fatalf("follow: status %d: %s", st, errOut)
	}
	t.Logf("follow:\n%s", errOut)
	for _, want := range []string{"segments of 4 steps (0.24 s), the path over 40.08 s", "planned (friction surrogate", "predicted (exact friction):", "RMS"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	// 167 segments of 4 steps of 0.06 s.
	readControls(t, ctl, []string{"uf", "ul"}, []string{"x", "y", "theta"}, 668, 4, 0.06, []float64{robots.DefaultJoystickMax, robots.DefaultJoystickMax}, [3]float64{0, 0, theta0})
	if b, err := os.ReadFile(png); err != nil || len(b) < 1000 {
		t.Errorf("plot: %v", err)
	}
	st, _, errOut = runCLI("simulate", "-model", "diffdrive", "-params", params, "-controls", ctl, "-out", traj)
	if st != 0 {
		t.Fatalf("simulate: %s", errOut)
	}
	tab, err := dataset.ReadFile(traj, dataset.Spec{Time: "t", Columns: []dataset.Column{{Name: "t"}, {Name: "v"}, {Name: "w"}}})
	if err != nil {
		t.Fatal(err)
	}
	// Row k is the state before command k; the pose after step k integrates
	// row k's v, w (explicit Euler, the model's pose).
	v, w := tab.Col("v"), tab.Col("w")
	p := control.Pose{Theta: theta0}
	var poses []control.Pose
	var vel [][2]float64
	for k := 0; k+1 < tab.Len(); k++ {
		vx, vy := v[k]*math.Cos(p.Theta), v[k]*math.Sin(p.Theta)
		p = control.Pose{X: p.X + 0.06*vx, Y: p.Y + 0.06*vy, Theta: p.Theta + 0.06*w[k]}
		poses, vel = append(poses, p), append(vel, [2]float64{vx, vy})
	}
	tr := control.Track(control.Figure8{A: 1, T: 40.08}, 0, 0.06, poses, vel)
	t.Logf("simulated: RMS %.2f mm, max %.2f mm, on time %.2f mm, end %.2f mm from the path's end", 1e3*tr.RMS, 1e3*tr.Max, 1e3*tr.OnTimeRMS, 1e3*tr.FinalDistance)
	if tr.RMS > 0.005 || tr.Max > 0.02 || tr.FinalDistance > 0.02 {
		t.Errorf("simulated controls: RMS %.4f m, max %.4f m, end %.4f m: want ≤ 0.005, 0.02, 0.02", tr.RMS, tr.Max, tr.FinalDistance)
	}
}

// follow -model skidsteer writes t,vc,wc with the start pose, which
// simulate starts from; the simulated pose follows the path.
func TestFollowSkidSteerRoundTripThroughSimulate(t *testing.T) {
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", followSkidSteerParams)
	ctl := filepath.Join(dir, "c.csv")
	traj := filepath.Join(dir, "t.csv")
	st, _, errOut := runCLI("follow", "-model", "skidsteer", "-params", params, "-path", "figure8", "-duration", "20",
		"-theta0", "0.785398", "-out", ctl)
	if st != 0 {
		t.Fatalf("follow: status %d: %s", st, errOut)
	}
	t.Logf("follow:\n%s", errOut)
	if !strings.Contains(errOut, "predicted:") || !strings.Contains(errOut, "RMS") {
		t.Errorf("no tracking report: %s", errOut)
	}
	readControls(t, ctl, []string{"vc", "wc"}, []string{"x", "y", "psi"}, 4800, 60, 1.0/240, []float64{robots.DefaultSkidSteerVmax, robots.DefaultSkidSteerWmax}, [3]float64{0, 0, 0.785398})
	st, _, errOut = runCLI("simulate", "-model", "skidsteer", "-params", params, "-controls", ctl, "-out", traj)
	if st != 0 {
		t.Fatalf("simulate: %s", errOut)
	}
	tab, err := dataset.ReadFile(traj, dataset.Spec{Time: "t", Columns: []dataset.Column{{Name: "t"}, {Name: "x"}, {Name: "y"}, {Name: "psi"}}})
	if err != nil {
		t.Fatal(err)
	}
	x, y, psi := tab.Col("x"), tab.Col("y"), tab.Col("psi")
	if x[0] != 0 || y[0] != 0 || psi[0] != 0.785398 {
		t.Errorf("simulated start (%g, %g, %g), want (0, 0, 0.785398)", x[0], y[0], psi[0])
	}
	var poses []control.Pose
	var vel [][2]float64
	for k := 1; k < tab.Len(); k++ {
		poses = append(poses, control.Pose{X: x[k], Y: y[k], Theta: psi[k]})
		vel = append(vel, [2]float64{(x[k] - x[k-1]) * 240, (y[k] - y[k-1]) * 240})
	}
	tr := control.Track(control.Figure8{A: 1, T: 20}, 0, 1.0/240, poses, vel)
	t.Logf("simulated: RMS %.2f mm, max %.2f mm, on time %.2f mm", 1e3*tr.RMS, 1e3*tr.Max, 1e3*tr.OnTimeRMS)
	if tr.RMS > 0.005 || tr.Max > 0.02 || tr.Coverage < 0.999 || tr.FinalDistance > 0.01 {
		t.Errorf("simulated controls: %+v", tr)
	}
}

// -mpc drives a true differential drive (exact friction, other ζ) in
// closed loop and reports both runs.
func TestFollowDiffDriveMPC(t *testing.T) {
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", followDiffDriveParams)
	truth := writeFile(t, dir, "true.json", strings.Replace(followDiffDriveParams, `"mu": 0.1676`, `"mu": 0.21`, 1))
	ctl := filepath.Join(dir, "c.csv")
	st, _, errOut := runCLI("follow", "-model", "diffdrive", "-params", params, "-path", "circle", "-duration", "12", "-mpc", truth, "-out", ctl)
	if st != 0 {
		t.Fatalf("follow: status %d: %s", st, errOut)
	}
	t.Logf("follow:\n%s", errOut)
	for _, want := range []string{"open loop, executed on the true robot:", "MPC: ", "MPC, executed on the true robot:"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	readControls(t, ctl, []string{"uf", "ul"}, []string{"x", "y", "theta"}, 200, 4, 0.06, []float64{robots.DefaultJoystickMax, robots.DefaultJoystickMax}, [3]float64{0, 0, 0})
}

func TestFollowModelFlags(t *testing.T) {
	dir := t.TempDir()
	dd := writeFile(t, dir, "dd.json", followDiffDriveParams)
	ss := writeFile(t, dir, "ss.json", followSkidSteerParams)
	mec := writeFile(t, dir, "m.json", followParams)
	out := filepath.Join(dir, "out.csv")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-model", "mecanum", "-params", mec, "-umax", "50"}, "-umax applies to -model diffdrive only"},
		{[]string{"-model", "diffdrive", "-params", dd, "-wmax", "10"}, "-wmax applies to -model mecanum and skidsteer only"},
		{[]string{"-model", "diffdrive", "-params", dd, "-vmax", "1"}, "-vmax applies to -model skidsteer only"},
		{[]string{"-model", "skidsteer", "-params", ss, "-band", "0.1"}, "-band applies to -model diffdrive only"},
		{[]string{"-model", "diffdrive", "-params", dd, "-dt", "0.01"}, "steps by its h = 0.06 s"},
		{[]string{"-model", "diffdrive", "-params", dd, "-umax", "0"}, "-umax 0"},
		{[]string{"-model", "diffdrive", "-params", dd, "-band", "-1"}, "-band -1"},
		{[]string{"-model", "skidsteer", "-params", ss, "-vmax", "-2"}, "-vmax -2"},
		{[]string{"-model", "skidsteer", "-params", ss, "-rate", "7"}, "whole number"},
		{[]string{"-model", "tank", "-params", ss}, "unknown -model"},
	} {
		args := append([]string{"follow", "-path", "circle", "-out", out}, c.args...)
		st, _, errOut := runCLI(args...)
		if st != 2 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: status %d, stderr %q; want 2 and %q on one line", c.args, st, errOut, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%q: an output file was left behind", c.args)
		}
	}
	// A bad parameter file is a runtime failure that names it.
	bad := writeFile(t, dir, "bad.json", `{"model": "diffdrive", "c1": -1}`)
	st, _, errOut := runCLI("follow", "-model", "diffdrive", "-params", bad, "-path", "circle", "-out", out)
	if st != 1 || !strings.Contains(errOut, "bad.json") {
		t.Errorf("bad params: status %d, stderr %q", st, errOut)
	}
}
