package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/cli/stage"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// writeSkidsteerLog writes a synthetic asphalt log (random commands, 10-Hz
// visual odometry) as FORMATS.md CSV.
func writeSkidsteerLog(t *testing.T, dir string, n int) string {
	t.Helper()
	tt, vc, wc := skidsteer.RandomCommands(n, 0.01, 5, 4)
	l, _ := skidsteer.Generate(skidsteer.Table2[0].A[:], tt, vc, wc, 10, skidsteer.SurfaceNoise("asphalt"), 4)
	path := filepath.Join(dir, "log.csv")
	err := stage.WriteFileAtomic(path, func(w io.Writer) error {
		cw := dataset.NewWriter(w)
		cw.WriteHeader("t", "vc", "wc", "x", "y", "psi")
		for i := range l.T {
			x, y, p := math.NaN(), math.NaN(), math.NaN()
			if l.HasPose[i] {
				x, y, p = l.Pose[i].X, l.Pose[i].Y, l.Pose[i].Psi
			}
			cw.WriteRow(dataset.Num(l.T[i]), dataset.Num(l.Vc[i]), dataset.Num(l.Wc[i]), dataset.Num(x), dataset.Num(y), dataset.Num(p))
		}
		return cw.Flush()
	})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSkidsteerIdentifyAndSimulate(t *testing.T) {
	dir := t.TempDir()
	logPath := writeSkidsteerLog(t, dir, 40)
	truth := skidsteer.Table2[0].A
	for _, method := range []string{"", "ekf", "batch"} {
		out := filepath.Join(dir, "p"+method+".json")
		png := filepath.Join(dir, "p"+method+".png")
		args := []string{"identify", "-model", "skidsteer", "-data", logPath, "-out", out, "-plot", png}
		if method != "" {
			args = append(args, "-method", method)
		}
		st, stdout, errOut := runCLI(args...)
		if st != 0 {
			t.Fatalf("identify %s: status %d, stderr %q", method, st, errOut)
		}
		var p skidsteer.Params
		if err := dataset.ReadJSONFile(out, &p, true); err != nil {
			t.Fatal(err)
		}
		if p.Model != "skidsteer" || p.Cov == nil || p.Std == nil {
			t.Fatalf("identify %s wrote %+v", method, p)
		}
		if d := math.Abs(p.A[2][1] - truth[7]); d > 0.1*math.Abs(truth[7]) {
			t.Errorf("identify %s: a32 = %.4f, true %.4f", method, p.A[2][1], truth[7])
		}
		if !strings.Contains(stdout, "2-s prediction error") {
			t.Errorf("identify %s: summary %q", method, stdout)
		}
		if _, err := os.Stat(png); err != nil {
			t.Errorf("identify %s: no plot: %v", method, err)
		}
	}
	// simulate from the log's first pose with the true coefficients stays
	// within the visual-odometry drift of the log over its first seconds.
	pj := filepath.Join(dir, "true.json")
	b, _ := json.Marshal(skidsteer.FromCoeffs(truth[:]))
	os.WriteFile(pj, b, 0o644)
	traj := filepath.Join(dir, "traj.csv")
	if st, _, errOut := runCLI("simulate", "-model", "skidsteer", "-params", pj, "-controls", logPath, "-out", traj); st != 0 {
		t.Fatalf("simulate: status %d, stderr %q", st, errOut)
	}
	sim, err := dataset.ReadFile(traj, dataset.Spec{Columns: []dataset.Column{{Name: "t"}, {Name: "x"}, {Name: "y"}, {Name: "psi"}}, Time: "t"})
	if err != nil {
		t.Fatal(err)
	}
	logTab, _ := dataset.ReadFile(logPath, skidsteer.LogSpec(false))
	if sim.Len() != logTab.Len() {
		t.Fatalf("simulate wrote %d rows for %d", sim.Len(), logTab.Len())
	}
	i := 100 // 1 s in
	if d := math.Hypot(sim.Col("x")[i]-logTab.Col("x")[i], sim.Col("y")[i]-logTab.Col("y")[i]); d > 0.05 {
		t.Errorf("simulated pose at 1 s is %.3f m from the log", d)
	}
}

func TestSkidsteerBadInput(t *testing.T) {
	dir := t.TempDir()
	w := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	good := w("good.json", `{"model":"skidsteer","a":[[0,0,0],[0,0,0],[0,-0.4,0.1]]}`)
	cases := []struct {
		name, file, want string
		simulate         bool
		params           string
	}{
		{"letters", w("a.csv", "t,vc,wc,x,y,psi\n0,0.2,0,0,0,0\n0.1,abc,0,,,\n"), `line 3, column "vc"`, false, ""},
		{"time", w("b.csv", "t,vc,wc,x,y,psi\n0,0.2,0,0,0,0\n0,0.2,0,,,\n"), `line 3, column "t"`, false, ""},
		{"missing vc", w("c.csv", "t,wc,x,y,psi\n0,0,0,0,0\n"), `"vc"`, false, ""},
		{"empty", w("d.csv", ""), "d.csv", false, ""},
		{"NaN", w("e.csv", "t,vc,wc\n0,NaN,0\n1,0,0\n"), `line 2, column "vc"`, true, good},
		{"half pose", w("f.csv", "t,vc,wc,x,y,psi\n0,0.2,0,0,0,0\n0.1,0.2,0,1,,0\n0.2,0.2,0,1,1,1\n"), `line 3, column "y"`, false, ""},
		{"x without psi", w("g.csv", "t,vc,wc,x,y\n0,0.2,0,0,0\n"), `column "psi"`, true, good},
		{"one pose", w("h.csv", "t,vc,wc,x,y,psi\n0,0.2,0,0,0,0\n0.1,0.2,0,,,\n"), "h.csv: line 3", false, ""},
		{"huge command", w("i.csv", "t,vc,wc\n0,0,0\n1,1e9,0\n"), `line 3, column "vc"`, true, good},
		{"bad params", w("j.csv", "t,vc,wc\n0,0,0\n1,0,0\n"), "bad.json", true, w("bad.json", `{"model":"skidsteer","a":[[0,0,0],[0,0,0],[0,-0.4,"x"]]}`)},
		{"params range", w("k.csv", "t,vc,wc\n0,0,0\n1,0,0\n"), "a33", true, w("range.json", `{"model":"skidsteer","a":[[0,0,0],[0,0,0],[0,-0.4,1e6]]}`)},
		{"wrong model", w("l.csv", "t,vc,wc\n0,0,0\n1,0,0\n"), "model", true, w("model.json", `{"model":"mecanum","a":[[0,0,0],[0,0,0],[0,0,0]]}`)},
	}
	for _, c := range cases {
		out := filepath.Join(dir, c.name+".out")
		var args []string
		if c.simulate {
			args = []string{"simulate", "-model", "skidsteer", "-params", c.params, "-controls", c.file, "-out", out}
		} else {
			args = []string{"identify", "-model", "skidsteer", "-data", c.file, "-out", out}
		}
		st, _, errOut := runCLI(args...)
		if st != 1 {
			t.Errorf("%s: status %d, want 1 (stderr %q)", c.name, st, errOut)
		}
		if !strings.Contains(errOut, c.want) || strings.Count(strings.TrimRight(errOut, "\n"), "\n") > 0 {
			t.Errorf("%s: stderr %q, want one line containing %s", c.name, errOut, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: output file written", c.name)
		}
	}
	if st, _, errOut := runCLI("identify", "-model", "skidsteer", "-data", "x.csv", "-method", "newton"); st != 2 {
		t.Errorf("unknown method: status %d, stderr %q", st, errOut)
	}
}

// TestSkidsteerShortRunsNoPrediction: runs shorter than the 2-s horizon
// have no 2-s prediction; the summary says so (it printed "nominal 0.0000
// m, calibrated 0.0000 m" for 1.95-s windows), and -plot, having nothing to
// draw, is an error that writes nothing.
func TestSkidsteerShortRunsNoPrediction(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(writeSkidsteerLog(t, dir, 40))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var sb strings.Builder
	sb.WriteString(lines[0] + ",traj\n")
	for _, l := range lines[1:] {
		tt, err := strconv.ParseFloat(strings.SplitN(l, ",", 2)[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "%s,%d\n", l, int(tt/1.5)) // runs of 1.5 s
	}
	short := filepath.Join(dir, "short.csv")
	if err := os.WriteFile(short, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "p.json")
	st, stdout, errOut := runCLI("identify", "-model", "skidsteer", "-data", short, "-out", out)
	if st != 0 {
		t.Fatalf("identify: status %d, stderr %q", st, errOut)
	}
	if !strings.Contains(stdout, "2-s prediction error: n/a (no run's poses span 2 s") || strings.Contains(stdout, "0.0000 m") {
		t.Errorf("summary %q", stdout)
	}
	out2, png := filepath.Join(dir, "p2.json"), filepath.Join(dir, "e.png")
	st, _, errOut = runCLI("identify", "-model", "skidsteer", "-data", short, "-out", out2, "-plot", png)
	if st != 1 || !strings.Contains(errOut, "no 2-s prediction to plot") {
		t.Errorf("identify -plot: status %d, stderr %q", st, errOut)
	}
	for _, p := range []string{out2, png} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written after a failed -plot", p)
		}
	}
}

// A raw ROS export (DRIVE's Warthog: ros_time in ns, a quaternion, an
// all-zero first row) goes through simulate with -columns and -where only;
// mistakes in the map are one-line errors.
func TestColumnsFlagsRawExport(t *testing.T) {
	dir := t.TempDir()
	params := filepath.Join(dir, "p.json")
	os.WriteFile(params, []byte(`{"model":"skidsteer","a":[[0,0,0],[0,0,0],[0,-0.4,0]],"r":0.3,"track":1.08}`), 0o644)
	raw := "../dataset/testdata/warthog-raw.csv"
	cols := "t=ros_time:ns,wl=meas_left_vel,wr=meas_right_vel,x=icp_pos_x,y=icp_pos_y,psi=quat(icp_quat_x,icp_quat_y,icp_quat_z,icp_quat_w)"
	out := filepath.Join(dir, "traj.csv")
	st, _, errOut := runCLI("simulate", "-model", "skidsteer", "-params", params, "-controls", raw, "-columns", cols, "-where", "ros_time>0", "-from", "0.5", "-out", out)
	if st != 0 {
		t.Fatalf("status %d: %s", st, errOut)
	}
	tab, err := dataset.ReadFile(out, dataset.Spec{Columns: []dataset.Column{{Name: "t"}, {Name: "x"}}, Time: "t"})
	if err != nil {
		t.Fatal(err)
	}
	// 50 rows after the zero row, the first 0.5 s (10 rows) cut
	if tab.Len() != 40 {
		t.Errorf("%d trajectory rows, want 40", tab.Len())
	}
	for _, c := range []struct {
		args []string
		st   int
		want string
	}{
		{[]string{"-columns", cols}, 1, `line 2, column "icp_quat_w"`},
		{[]string{"-columns", "t=ros_time:weeks"}, 2, `unknown unit "weeks"`},
		{[]string{"-columns", cols, "-where", "calib_state<idle"}, 2, "compares numbers"},
		{[]string{"-columns", cols, "-where", "ros_time>0", "-from", "2", "-to", "1"}, 2, "-to 1 must be after -from 2"},
		{[]string{"-columns", "t=ros_time:ns,wl=left_vel"}, 1, "missing column"},
	} {
		args := append([]string{"simulate", "-model", "skidsteer", "-params", params, "-controls", raw, "-out", filepath.Join(dir, "bad.csv")}, c.args...)
		st, _, errOut := runCLI(args...)
		if st != c.st || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimRight(errOut, "\n"), "\n") > 0 {
			t.Errorf("%v: status %d, stderr %q; want %d and one line with %q", c.args, st, errOut, c.st, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.csv")); err == nil {
		t.Error("a failed simulate wrote its output")
	}
}
