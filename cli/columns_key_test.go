package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// DRIVE's windows (real Warthog data, 30 training and 30 test windows)
// with the layout given once, in the parameter file's "columns" object:
// identify carries it into its output, validate reads the test windows
// with it, and a -columns flag overrides an entry (issue 28, Deliver 3).
func TestParameterFileColumnsKey(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join("..", "experiments", "real-warthog", "testdata", "windows-sample.csv")
	init := filepath.Join(dir, "warthog.json")
	// psi's source is wrong on purpose: the flag below puts it right.
	os.WriteFile(init, []byte(`{"model": "skidsteer", "r": 0.3, "track": 1.08,
  "columns": {"traj": "window", "wl": "meas_left", "wr": "meas_right", "psi": "heading"}}`), 0o644)
	out := filepath.Join(dir, "fit.json")
	st, _, stderr := runCLI("identify", "-model", "skidsteer", "-data", data, "-init", init, "-where", "calib_step%2=0", "-out", out)
	if st == 0 || !strings.Contains(stderr, "psi") {
		t.Fatalf("a map naming an absent psi source: status %d, %s", st, stderr)
	}
	st, stdout, stderr := runCLI("identify", "-model", "skidsteer", "-data", data, "-init", init, "-where", "calib_step%2=0", "-columns", "psi=yaw", "-out", out)
	if st != 0 {
		t.Fatalf("identify: status %d\n%s%s", st, stdout, stderr)
	}
	// the summary names the columns the inputs came from (issue 28.6)
	if !strings.Contains(stdout, "inputs: vc, wc from the measured wheel speeds wl (column meas_left), wr (column meas_right) (r = 0.3 m, track = 1.08 m)") {
		t.Errorf("the summary does not name the input columns:\n%s", stdout)
	}
	if !strings.Contains(stdout, "30 run(s)") {
		t.Errorf("identify did not read 30 training windows:\n%s", stdout)
	}
	m, raw, err := dataset.ReadColumnsKey(out)
	if err != nil || m == nil || raw["wl"] != "meas_left" || raw["psi"] != "heading" {
		t.Fatalf("the output's columns: %v %v", raw, err)
	}
	// validate with the output file: the carried map (psi again overridden)
	perRun := filepath.Join(dir, "per-run.csv")
	st, stdout, stderr = runCLI("validate", "-model", "skidsteer", "-data", data, "-params", out, "-where", "calib_step%2=1", "-columns", "psi=yaw", "-x0", "first", "-per-run", perRun)
	if st != 0 {
		t.Fatalf("validate: status %d\n%s%s", st, stdout, stderr)
	}
	tab, err := dataset.ReadFile(perRun, dataset.Spec{Columns: []dataset.Column{{Name: "run", Text: true}, {Name: "endpoint_error"}}})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 30 {
		t.Errorf("%d test windows validated, want 30", tab.Len())
	}
	for _, id := range tab.Text["run"] {
		if id == "" {
			t.Fatal("a run without its window id")
		}
	}
}
