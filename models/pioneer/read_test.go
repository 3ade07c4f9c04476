package pioneer

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadLog(t *testing.T) {
	path := writeFile(t, "log.csv", "t,v_ref,w_ref,v,w,traj\n0,0.1,0,0,0,a\n0.1,0.1,0,,,a\n0,0.2,0,0,0,b\n0.1,0.2,0,0.05,0,b\n")
	runs, err := ReadLog(path, LogOptions{NeedMeasured: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[1].ID != "b" || runs[1].Row != 2 || !math.IsNaN(runs[0].V[1]) || runs[1].V[1] != 0.05 {
		t.Fatalf("runs %+v", runs)
	}
	// Check's row errors come back positioned: row 1 of run b is line 5
	runs[1].T[1] = 0.4
	if err := runs[1].Err(runs[1].Check(0.1)); err == nil || !strings.Contains(err.Error(), `line 5, column "t"`) {
		t.Errorf("positioned error: %v", err)
	}
	for name, c := range map[string]struct {
		text string
		need bool
		want string
	}{
		"w without v": {"t,v_ref,w_ref,w\n0,0,0,0\n", false, `column "v": missing column "v" (v and w go together)`},
		"no measured": {"t,v_ref,w_ref\n0,0,0\n", true, `identify needs the measured velocities`},
		"row pair":    {"t,v_ref,w_ref,v,w\n0,0,0,0,0\n0.1,0,0,0,\n", false, `line 3, column "w": empty cell: v and w go together on a row`},
	} {
		path := writeFile(t, "bad.csv", c.text)
		_, err := ReadLog(path, LogOptions{NeedMeasured: c.need})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), path) {
			t.Errorf("%s: err = %v, want %s: ... %s", name, err, path, c.want)
		}
	}
}

// A separate file of measurements is merged by time, with an offset of its
// clock; the references hold over the measurement rows.
func TestReadLogMeasuredStream(t *testing.T) {
	refs := writeFile(t, "refs.csv", "t,v_ref,w_ref\n0,0.1,0\n0.1,0.2,0\n0.2,0.3,0\n")
	meas := writeFile(t, "meas.csv", "t,v,w\n1.05,0.01,0\n1.15,0.02,0\n")
	runs, err := ReadLog(refs, LogOptions{Sensors: meas, Offset: -1})
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	want := []float64{0, 0.05, 0.1, 0.15, 0.2}
	if len(r.T) != len(want) {
		t.Fatalf("t = %v, want %v", r.T, want)
	}
	for i := range want {
		if math.Abs(r.T[i]-want[i]) > 1e-12 {
			t.Fatalf("t = %v, want %v", r.T, want)
		}
	}
	if r.Vref[1] != 0.1 || r.V[1] != 0.01 || !math.IsNaN(r.V[2]) || r.CommandRows() == nil || r.CommandRows()(1) {
		t.Errorf("merged run %+v", r)
	}
}
