package mecanum

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dataset"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Raw channels through a command map, a camera file on its own clock
// merged by time with an offset, the heading in degrees.
func TestReadLogStreams(t *testing.T) {
	cmds := writeFile(t, "cmd.csv", "t,p1,p2,p3,p4\n0,10,20,30,40\n0.1,10,20,30,40\n0.2,0,0,0,0\n")
	cam := writeFile(t, "cam.csv", "t,x,y,theta_deg\n5.05,0,0,0\n5.15,0.01,0,90\n")
	m := &dataset.CommandMap{Columns: []string{"p3", "p4", "p2", "p1"}, Scale: []float64{0.1, -0.1, -0.1, 0.1}}
	runs, err := ReadLog(cmds, LogOptions{NeedPose: true, Map: m, Sensors: cam, Offset: -5})
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	if r.Len() != 5 || len(r.Camera()) != 2 {
		t.Fatalf("%d rows, camera rows %v; want 5 and 2", r.Len(), r.Camera())
	}
	if w := r.W[1]; w != [4]float64{3, -4, -2, 1} {
		t.Errorf("mapped (held) command at t = %v: %v, want [3 −4 −2 1]", r.T[1], w)
	}
	if k := r.Camera()[1]; math.Abs(r.Theta[k]-math.Pi/2) > 1e-12 || math.Abs(r.T[k]-0.15) > 1e-12 {
		t.Errorf("camera row at t = %v, θ = %v; want 0.15, π/2", r.T[k], r.Theta[k])
	}
	if isCmd := r.CommandRows(); isCmd == nil || isCmd(1) || !isCmd(2) {
		t.Error("Commands does not tell the camera rows from the command rows")
	}
	// a partial camera pose is an error naming the camera file's line
	bad := writeFile(t, "bad.csv", "t,x,y,theta\n0.05,0,,0\n")
	if _, err := ReadLog(cmds, LogOptions{NeedPose: true, Map: m, Sensors: bad}); err == nil || !strings.Contains(err.Error(), bad+`: line 2, column "y"`) {
		t.Errorf("partial camera pose: err = %v", err)
	}
}

func TestReadParamsWarnings(t *testing.T) {
	path := writeFile(t, "p.json", `{"model": "mecanum", "mu": [0.5, 0.5, 0.5, 0.5], "g": 3.7}`)
	p, warnings, err := ReadParams(path, true)
	if err != nil || p.G != 3.7 {
		t.Fatalf("p %+v, err %v", p, err)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "g: ") {
		t.Errorf("warnings %q, want one about g", warnings)
	}
	other := writeFile(t, "o.json", `{"model": "skidsteer", "a": [[0,0,0],[0,0,0],[0,0,0]]}`)
	if _, _, err := ReadParams(other, false); err == nil || !strings.Contains(err.Error(), "model") || strings.Contains(err.Error(), `"a"`) {
		t.Errorf("another model's file: err = %v, want it reported by its model key", err)
	}
}

func TestReadStreams(t *testing.T) {
	st, err := ReadStreams("testdata/commands.csv", LogOptions{Sensors: "testdata/camera.csv", Offset: 99})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.CmdT) != 1921 || len(st.W) != 1921 || len(st.CamT) != 481 || len(st.Theta) != 481 {
		t.Fatalf("%d command rows, %d camera rows; want 1921, 481", len(st.CmdT), len(st.CamT))
	}
	if st.CamT[0] != 0 || math.Abs(st.Theta[1]-0.03*math.Pi/180) > 1e-12 {
		t.Errorf("camera not on its own clock or theta_deg not converted: t0 %v, θ1 %v", st.CamT[0], st.Theta[1])
	}
	cmds := writeFile(t, "cmd.csv", "t,w1,w2,w3,w4,traj\n0,1,1,1,1,a\n0.1,1,1,1,1,a\n0,2,2,2,2,b\n")
	cam := writeFile(t, "cam.csv", "t,x,y,theta,traj\n0,0,0,0,b\n")
	if _, err := ReadStreams(cmds, LogOptions{Sensors: cam}); err == nil || !strings.Contains(err.Error(), `the first run of the poses is "b", of the commands "a"`) {
		t.Errorf("first runs of two trajs: err = %v", err)
	}
	cam = writeFile(t, "cam.csv", "t,x,y,theta,traj\n0,0,0,0,a\n0.05,0,0,0,a\n0,1,1,1,b\n")
	st, err = ReadStreams(cmds, LogOptions{Sensors: cam})
	if err != nil || len(st.CmdT) != 2 || len(st.CamT) != 2 {
		t.Errorf("first run of each stream: %+v, %v", st, err)
	}
}
