package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// One wheel command of 1e308 drives the prediction out of float64's range:
// validate refuses, naming the output, instead of printing fit % −Inf with
// exit 0; and the initial-state estimate does not hang in the SVD on the
// overflowing residuals (issue 26.4).
func TestValidateRefusesOverflow(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../models/mecanum/testdata/commands.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	f := strings.Split(lines[29], ",")
	f[1] = "1e308"
	lines[29] = strings.Join(f, ",")
	log := writeFile(t, dir, "c.csv", strings.Join(lines, "\n"))
	params := filepath.Join(dir, "p.json")
	pb, _ := json.Marshal(mecanum.DefaultParams())
	os.WriteFile(params, pb, 0o644)
	st, out, errOut := runCLI("validate", "-model", "mecanum", "-params", params, "-data", log, "-poses", "../models/mecanum/testdata/camera.csv")
	if st != 1 || !strings.Contains(errOut, "left its range") || strings.Contains(out, "Inf") {
		t.Errorf("status %d, stdout %q, stderr %q", st, out, errOut)
	}
}

// One motion-capture sample 1.9 m off is a warning naming its line and
// columns (issue 26.2); the clean log has none.
func TestTireOutlierWarned(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../models/tire/testdata/jackal.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	head := strings.Split(lines[0], ",")
	ycol := -1
	for i, h := range head {
		if h == "y" {
			ycol = i
		}
	}
	row := 300 // a line with a pose
	for ; row < len(lines); row++ {
		if f := strings.Split(lines[row], ","); len(f) > ycol && f[ycol] != "" {
			break
		}
	}
	f := strings.Split(lines[row], ",")
	var y float64
	if _, err := fmt.Sscan(f[ycol], &y); err != nil {
		t.Fatal(err)
	}
	f[ycol] = fmt.Sprint(y + 1.9)
	lines[row] = strings.Join(f, ",")
	log := writeFile(t, dir, "j.csv", strings.Join(lines, "\n"))
	st, _, errOut := runCLI("identify", "-model", "tire", "-data", log, "-out", filepath.Join(dir, "p.json"))
	want := fmt.Sprintf("line %d: columns x, y: the position lies", row+1)
	if !strings.Contains(errOut, want) {
		t.Errorf("status %d, stderr %q: want %q", st, errOut, want)
	}
	_, _, clean := runCLI("identify", "-model", "tire", "-data", "../models/tire/testdata/jackal.csv", "-out", filepath.Join(dir, "q.json"))
	if strings.Contains(clean, "columns x, y") {
		t.Errorf("clean log: status %d, %q", st, clean)
	}
}

// A measured velocity of 1e30 m/s on one row of a Pioneer log is warned by
// line and column (issue 26.4: it passed with a changed delay and no
// warning); the sample log itself has no spike.
func TestPioneerSpikeWarned(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../models/pioneer/testdata/p3dx.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	f := strings.Split(lines[200], ",") // t,v_ref,w_ref,v,w,traj
	f[3] = "1e30"
	lines[200] = strings.Join(f, ",")
	log := writeFile(t, dir, "p.csv", strings.Join(lines, "\n"))
	_, _, errOut := runCLI("identify", "-model", "pioneer", "-data", log, "-out", filepath.Join(dir, "p.json"))
	if !strings.Contains(errOut, "line 201: column v: 1e+30 jumps") {
		t.Errorf("stderr %q", errOut)
	}
	st, _, clean := runCLI("identify", "-model", "pioneer", "-data", "../models/pioneer/testdata/p3dx.csv", "-out", filepath.Join(dir, "q.json"))
	if st != 0 || strings.Contains(clean, "jumps") {
		t.Errorf("clean log: status %d, %q", st, clean)
	}
}

// inspect refuses channels the log does not have and an offset that leaves
// no camera pose beside the commands, instead of ranking maps (issue 26.4).
func TestInspectRefusals(t *testing.T) {
	m := "../models/mecanum/testdata/"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-channels", "w1,w2,w3,q9"}, `column "q9": missing column: no channel "q9"`},
		{[]string{"-offset", "1000"}, "0 camera pose(s) fall within the commands' time span"},
	} {
		args := append([]string{"inspect", "-model", "mecanum", "-data", m + "commands.csv", "-poses", m + "camera.csv", "-quiet"}, c.args...)
		st, out, errOut := runCLI(args...)
		if st != 1 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: status %d, stdout %q, stderr %q", c.args, st, out, errOut)
		}
	}
}

// simulate warns of the time gaps it bridges, naming the line after each
// (issue 26.4: a row at t = 1e308 held the last command silently); the
// sample log has none.
func TestSimulateWarnsGaps(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../models/skidsteer/testdata/commands.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	lines = append(lines, "1e308,0.2,0")
	log := writeFile(t, dir, "c.csv", strings.Join(lines, "\n")+"\n")
	params := filepath.Join(dir, "p.json")
	pb, _ := json.Marshal(skidsteer.FromCoeffs(make([]float64, 9)))
	os.WriteFile(params, pb, 0o644)
	st, _, errOut := runCLI("simulate", "-model", "skidsteer", "-params", params, "-controls", log, "-out", filepath.Join(dir, "t.csv"))
	want := fmt.Sprintf("line %d: a time gap of 1e+308 s", len(lines))
	if st != 0 || !strings.Contains(errOut, want) {
		t.Errorf("status %d, stderr %q: want %q", st, errOut, want)
	}
	_, _, clean := runCLI("simulate", "-model", "skidsteer", "-params", params, "-controls", "../models/skidsteer/testdata/commands.csv", "-out", filepath.Join(dir, "u.csv"))
	if strings.Contains(clean, "time gap") {
		t.Errorf("sample log: %q", clean)
	}
}

// A glitch in a logged wheel speed (the tyre model's input, integrated into
// every later pose) is warned by line and column; the sample log has none.
func TestTireWheelSpikeWarned(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../models/tire/testdata/jackal.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	f := strings.Split(lines[400], ",") // t,wl,wr,x,y,psi,traj
	f[1] = "40"
	lines[400] = strings.Join(f, ",")
	log := writeFile(t, dir, "j.csv", strings.Join(lines, "\n"))
	_, _, errOut := runCLI("identify", "-model", "tire", "-data", log, "-out", filepath.Join(dir, "p.json"))
	if !strings.Contains(errOut, "line 401: column wl: 40 jumps") {
		t.Errorf("stderr %q", errOut)
	}
}
