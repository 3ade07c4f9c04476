package skidsteer

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

func TestReadLogRuns(t *testing.T) {
	path := writeFile(t, "log.csv", "# two runs\nt,vc,wc,x,y,psi_deg,traj\n0,0.5,0.1,0,0,0,a\n0.1,0.5,0.1,,,,a\n0.2,0.5,0.1,0.1,0,0.6,a\n0,1,0,1,2,90,b\n0.1,1,0,,,,b\n")
	runs, err := ReadLog(path, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].ID != "a" || runs[1].ID != "b" || runs[1].Row != 3 || len(runs[1].T) != 2 {
		t.Fatalf("runs: %+v", runs)
	}
	if got := runs[1].PoseRows(); len(got) != 1 || math.Abs(runs[1].Pose[0].Psi-math.Pi/2) > 1e-12 {
		t.Errorf("run b: pose rows %v, psi %v (psi_deg 90 should read as π/2)", got, runs[1].Pose[0].Psi)
	}
	// a row error found by the model names the file's line (row 1 of run b is line 7)
	err = runs[1].Err(&dataset.RowError{Row: 1, Column: "vc", Msg: "too fast"})
	if want := `line 7, column "vc": too fast`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Err = %v, want it to contain %q", err, want)
	}
}

func TestReadLogWheelSpeeds(t *testing.T) {
	path := writeFile(t, "log.csv", "t,wl,wr\n0,1,3\n0.1,2,2\n")
	if _, err := ReadLog(path, LogOptions{}); err == nil || !strings.Contains(err.Error(), "wheel speeds wl, wr") {
		t.Fatalf("no r, track: err = %v", err)
	}
	if _, err := ReadLog(path, LogOptions{ParamsFile: "p.json"}); err == nil || !strings.HasPrefix(err.Error(), "p.json: ") {
		t.Fatalf("no r, track in p.json: err = %v, want it to name p.json", err)
	}
	runs, err := ReadLog(path, LogOptions{Params: Params{R: 0.2, Track: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	l := runs[0].Log
	// vc = r(wl+wr)/2, wc = r(wr−wl)/track
	if math.Abs(l.Vc[0]-0.4) > 1e-12 || math.Abs(l.Wc[0]-0.8) > 1e-12 || l.Wc[1] != 0 {
		t.Errorf("vc %v, wc %v; want 0.4, 0.8 then wc 0", l.Vc, l.Wc)
	}
}

func TestReadLogCommandMap(t *testing.T) {
	raw := writeFile(t, "raw.csv", "t,left,right\n0,10,20\n0.1,10,20\n")
	m := &dataset.CommandMap{Columns: []string{"left", "right"}, Scale: []float64{0.1, -0.01}}
	runs, err := ReadLog(raw, LogOptions{Params: Params{CommandMap: m}})
	if err != nil {
		t.Fatal(err)
	}
	if l := runs[0].Log; math.Abs(l.Vc[0]-1) > 1e-12 || math.Abs(l.Wc[0]+0.2) > 1e-12 {
		t.Errorf("mapped vc %v, wc %v; want 1, −0.2", l.Vc, l.Wc)
	}
	// a file in the model's own commands (follow's output) is read without the map
	own := writeFile(t, "own.csv", "t,vc,wc\n0,0.3,0.1\n0.1,0.3,0.1\n")
	runs, err = ReadLog(own, LogOptions{Params: Params{CommandMap: m}})
	if err != nil || runs[0].Vc[0] != 0.3 {
		t.Fatalf("own commands with a map: %v, %v", runs, err)
	}
}

func TestReadLogErrors(t *testing.T) {
	for name, c := range map[string]struct{ text, want string }{
		"pose group":      {"t,vc,wc,x,y\n0,1,0,0,0\n", `line 1, column "psi": missing column (x, y and psi go together)`},
		"partial pose":    {"t,vc,wc,x,y,psi\n0,1,0,0,0,0\n0.1,1,0,1,,0\n", `line 3, column "y": pose is incomplete`},
		"command range":   {"t,vc,wc\n0,1,0\n0.1,1000,0\n", `line 3, column "vc": command 1000 is not finite or beyond ±100`},
		"time backwards":  {"t,vc,wc\n0,1,0\n0.2,1,0\n0.1,1,0\n", `line 4, column "t"`},
		"not a number":    {"t,vc,wc\n0,fast,0\n", `line 2, column "vc"`},
		"missing command": {"t,vc\n0,1\n", `column "wc"`},
	} {
		path := writeFile(t, "log.csv", c.text)
		_, err := ReadLog(path, LogOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), path) {
			t.Errorf("%s: err = %v, want %s: ... %s", name, err, path, c.want)
		}
	}
}

func TestReadParams(t *testing.T) {
	path := writeFile(t, "p.json", `{"model": "skidsteer", "a": [[1.5, 0, 0], [0, 0, 0], [0, -0.3, 0]]}`)
	p, warnings, err := ReadParams(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.A[0][0] != 1.5 || p.A[2][1] != -0.3 {
		t.Errorf("a = %v", p.A)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "a: a11 = 1.5") {
		t.Errorf("warnings %q, want one about a11", warnings)
	}
	empty := writeFile(t, "e.json", `{"model": "skidsteer"}`)
	if _, _, err := ReadParams(empty, true); err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("needA without a: err = %v", err)
	}
	if p, _, err := ReadParams(empty, false); err != nil || p.A != [3][3]float64{} {
		t.Errorf("without needA: %v, %v; want the nominal model", p.A, err)
	}
	other := writeFile(t, "o.json", `{"model": "tire", "a": [[0,0,0],[0,0,0],[0,0,0]]}`)
	if _, _, err := ReadParams(other, false); err == nil || !strings.Contains(err.Error(), "model") {
		t.Errorf("another model's file: err = %v", err)
	}
	badMap := writeFile(t, "m.json", `{"model": "skidsteer", "command_map": {"columns": ["a"]}}`)
	if _, _, err := ReadParams(badMap, false); err == nil || !strings.HasPrefix(err.Error(), badMap+": command_map") {
		t.Errorf("bad command map: err = %v", err)
	}
}

// A raw ROS export (the Warthog of DRIVE: ros_time in ns, wheel speeds and an
// ICP pose with a quaternion, an all-zero first row) is read through a column
// map, with a row filter, without a script.
func TestReadLogColumnMapRawExport(t *testing.T) {
	m, err := dataset.ParseColumnMap("t=ros_time:ns,wl=meas_left_vel,wr=meas_right_vel,x=icp_pos_x,y=icp_pos_y,psi=quat(icp_quat_x,icp_quat_y,icp_quat_z,icp_quat_w)")
	if err != nil {
		t.Fatal(err)
	}
	m.Where = []dataset.Filter{{Column: "ros_time", Op: ">", Value: "0"}}
	runs, err := ReadLog("../../dataset/testdata/warthog-raw.csv", LogOptions{Params: Params{R: 0.3, Track: 1.08}, Columns: m})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || len(runs[0].T) != 50 || runs[0].Row != 0 {
		t.Fatalf("runs: %d, first of %d rows", len(runs), len(runs[0].T))
	}
	r := runs[0]
	// Line 44 (row 41): vc = r(wl+wr)/2
	// and wc = r(wr−wl)/track from the logged meas_left_vel, meas_right_vel.
	wl, wr := -0.31852258848896514, -0.06544984694978735
	if math.Abs(r.Vc[41]-0.3*(wl+wr)/2) > 1e-12 || math.Abs(r.Wc[41]-0.3*(wr-wl)/1.08) > 1e-12 {
		t.Errorf("row 41: vc %v, wc %v", r.Vc[41], r.Wc[41])
	}
	if math.Abs(r.T[1]-r.T[0]-0.0504573) > 1e-6 {
		t.Errorf("time step %.7f s, want 0.0504573", r.T[1]-r.T[0])
	}
	if len(r.PoseRows()) != 50 || math.Abs(r.Pose[0].Psi-0.648032366525074) > 1e-12 {
		t.Errorf("poses: %d rows, psi0 %.15f", len(r.PoseRows()), r.Pose[0].Psi)
	}
	// A bad value names the logged column it came from.
	if err := r.Err(&dataset.RowError{Row: 3, Column: "wl", Msg: "bad"}); err == nil || !strings.Contains(err.Error(), `line 6, column "meas_left_vel"`) {
		t.Errorf("Err = %v", err)
	}
}
