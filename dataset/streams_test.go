package dataset

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var testSpec = Spec{Columns: []Column{{Name: "t"}, {Name: "w1"}, {Name: "w2"},
	{Name: "x", Sparse: true}, {Name: "theta", Sparse: true}, {Name: "traj", Optional: true, Text: true}}, Time: "t", Group: "traj"}

func TestReadLogHoldsCommands(t *testing.T) {
	p := writeTemp(t, "log.csv", "t,w1,w2,x,theta\n0,,,0.5,0\n0.01,,,0.6,0\n0.02,1,2,,\n0.025,,,0.7,0.1\n0.03,3,4,,\n")
	var note bytes.Buffer
	tab, err := ReadLog(p, testSpec, LogOptions{Commands: []string{"w1", "w2"}, Note: &note})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 3 {
		t.Fatalf("%d rows, want 3 (2 before the first command dropped)", tab.Len())
	}
	if got := tab.Col("w1"); got[1] != 1 || got[2] != 3 || tab.Col("w2")[1] != 2 {
		t.Errorf("w1 = %v, w2 = %v: the command of line 4 must hold on line 5", got, tab.Col("w2"))
	}
	if !tab.Held(1) || tab.Held(0) || tab.Held(2) {
		t.Errorf("held rows wrong")
	}
	if tab.Line[1] != 5 || tab.Col("x")[1] != 0.7 {
		t.Errorf("line %d x %v", tab.Line[1], tab.Col("x")[1])
	}
	if !strings.Contains(note.String(), "2 rows before the first row with commands ignored (t = 0 … 0.01 s)") {
		t.Errorf("note %q", note.String())
	}
}

func TestReadLogPartialCommand(t *testing.T) {
	p := writeTemp(t, "log.csv", "t,w1,w2,x,theta\n0,1,2,0,0\n0.01,,5,,\n")
	_, err := ReadLog(p, testSpec, LogOptions{Commands: []string{"w1", "w2"}})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || pe.Column != "w1" || !errors.Is(err, ErrPartialCommand) {
		t.Fatalf("err = %v, want line 3 column w1 partial command", err)
	}
}

func TestReadLogNoCommands(t *testing.T) {
	p := writeTemp(t, "log.csv", "t,w1,w2,x,theta,traj\n0,1,2,0,0,a\n0.01,,,1,0,b\n")
	_, err := ReadLog(p, testSpec, LogOptions{Commands: []string{"w1", "w2"}})
	if !errors.Is(err, ErrNoCommands) || !strings.Contains(err.Error(), `"b"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestReadLogSensorsFileAndMap(t *testing.T) {
	cmd := writeTemp(t, "cmd.csv", "t,p1,p2,traj\n0,10,20,a\n0.02,30,40,a\n0,1,1,b\n0.02,2,2,b\n")
	cam := writeTemp(t, "cam.csv", "t,x,theta_deg,traj\n-0.01,0,170,a\n0.01,1,179,a\n0.02,2,-179,a\n0.03,3,-170,a\n0.005,5,0,b\n")
	m := &CommandMap{Columns: []string{"p2", "p1"}, Scale: []float64{0.5, -1}}
	var note bytes.Buffer
	tab, err := ReadLog(cmd, testSpec, LogOptions{Commands: []string{"w1", "w2"}, Map: m, Angles: []string{"theta"}, Sensors: cam, Note: &note})
	if err != nil {
		t.Fatal(err)
	}
	// run a: 0 (cmd), 0.01 (cam), 0.02 (both), 0.03 (cam); -0.01 dropped; run b: 0, 0.005, 0.02
	wantT := []float64{0, 0.01, 0.02, 0.03, 0, 0.005, 0.02}
	if got := tab.Col("t"); !equalF(got, wantT) {
		t.Fatalf("t = %v, want %v", got, wantT)
	}
	if w1 := tab.Col("w1"); !equalF(w1, []float64{10, 10, 20, 20, 0.5, 0.5, 1}) {
		t.Errorf("w1 = %v", w1)
	}
	if w2 := tab.Col("w2"); !equalF(w2, []float64{-10, -10, -30, -30, -1, -1, -2}) {
		t.Errorf("w2 = %v", w2)
	}
	th := tab.Col("theta")
	if math.Abs(th[2]-181*math.Pi/180) > 1e-12 || math.Abs(th[3]-190*math.Pi/180) > 1e-12 {
		t.Errorf("theta not unwrapped: %v", th)
	}
	if !math.IsNaN(th[0]) || tab.TextCol("traj")[5] != "b" {
		t.Errorf("theta %v traj %v", th, tab.TextCol("traj"))
	}
	// an error on a camera row names the camera file and its line
	err = tab.Errorf(3, "x", "bad")
	if !strings.Contains(err.Error(), "cam.csv: line 5") {
		t.Errorf("err = %v", err)
	}
	if !strings.Contains(note.String(), "1 row before") {
		t.Errorf("note %q", note.String())
	}
}

func TestReadLogMapMissingColumn(t *testing.T) {
	p := writeTemp(t, "log.csv", "t,p1,x,theta\n0,1,0,0\n")
	_, err := ReadLog(p, testSpec, LogOptions{Commands: []string{"w1", "w2"}, Map: &CommandMap{Columns: []string{"p1", "p9"}}})
	if !errors.Is(err, ErrMissingColumn) || !strings.Contains(err.Error(), `"p9"`) {
		t.Fatalf("err = %v", err)
	}
	_, err = ReadLog(p, testSpec, LogOptions{Commands: []string{"w1", "w2"}, Map: &CommandMap{Columns: []string{"p1"}}})
	if err == nil || !strings.Contains(err.Error(), "command_map") {
		t.Fatalf("err = %v", err)
	}
}

func TestReadLogBothAngleColumns(t *testing.T) {
	p := writeTemp(t, "log.csv", "t,w1,w2,x,theta,theta_deg\n0,1,1,0,0,0\n")
	_, err := ReadLog(p, testSpec, LogOptions{Commands: []string{"w1", "w2"}, Angles: []string{"theta"}})
	if !errors.Is(err, ErrDuplicateColumn) {
		t.Fatalf("err = %v", err)
	}
}

func equalF(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return true
}

func TestReadLogOffset(t *testing.T) {
	p := writeTemp(t, "log.csv", "t,w1,w2,x,theta\n0,1,1,0,0\n0.01,2,2,,\n0.02,3,3,1,0\n0.03,4,4,,\n")
	tab, err := ReadLog(p, testSpec, LogOptions{Commands: []string{"w1", "w2"}, Offset: 0.005})
	if err != nil {
		t.Fatal(err)
	}
	// commands at 0, 0.01, 0.02, 0.03; poses moved to 0.005 and 0.025
	if got := tab.Col("t"); !equalF(got, []float64{0, 0.005, 0.01, 0.02, 0.025, 0.03}) {
		t.Fatalf("t = %v", got)
	}
	if w := tab.Col("w1"); !equalF(w, []float64{1, 1, 2, 3, 3, 4}) {
		t.Errorf("w1 = %v", w)
	}
	x := tab.Col("x")
	if x[1] != 0 || x[4] != 1 || !math.IsNaN(x[0]) || !math.IsNaN(x[3]) {
		t.Errorf("x = %v", x)
	}
	if tab.Line[4] != 4 {
		t.Errorf("the shifted pose keeps its line: %v", tab.Line)
	}
}

func TestReadLogSensorFileErrors(t *testing.T) {
	cmd := writeTemp(t, "cmd.csv", "t,w1,w2,x,traj\n0,1,1,0,a\n0.1,1,1,0,a\n")
	cmdNoTraj := writeTemp(t, "cmd2.csv", "t,w1,w2\n0,1,1\n0.1,1,1\n")
	camOther := writeTemp(t, "cam.csv", "t,x,theta,traj\n0.05,1,0,z\n")
	camNoTraj := writeTemp(t, "cam2.csv", "t,x,theta\n0.05,1,0\n")
	camBad := writeTemp(t, "cam3.csv", "t,x,theta\n0.05,1,0\n0.04,1,0\n")
	o := LogOptions{Commands: []string{"w1", "w2"}}
	for _, c := range []struct {
		cmd, cam, want string
	}{
		{cmd, camOther, `run "z" is not in the commands file`},
		{cmd, camNoTraj, `missing column traj`},
		{cmdNoTraj, camBad, `cam3.csv: line 3, column "t": time 0.04 is not after 0.05`},
	} {
		o.Sensors = c.cam
		_, err := ReadLog(c.cmd, testSpec, o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s + %s: err = %v, want %q", c.cmd, c.cam, err, c.want)
		}
	}
}
