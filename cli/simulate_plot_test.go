package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/pioneer"
	"github.com/wheelgrad/wheelgrad/models/tire"
)

// simulate -plot for every model (issue 28, Deliver 5): the tyre model
// draws its predicted path over the log's poses, diffdrive and the
// Pioneer their simulated v, ω over the measured ones; a PNG is written
// beside the CSV.
func TestSimulatePlotEveryModel(t *testing.T) {
	dir := t.TempDir()
	param := func(name string, p any) string {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	dd := filepath.Join(dir, "dd.json")
	if err := os.WriteFile(dd, []byte(`{"model": "diffdrive", "c1": 0.4, "c2": 0.008, "alpha": 0.26, "beta": 6, "gamma": 4.5, "mu": 0.2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// the wheelchair's jittered clock on the model's grid of h = 0.06 s
	b, err := os.ReadFile("../models/diffdrive/calibrate/testdata/wheelchair.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for k := 1; k < len(lines); k++ {
		lines[k] = strconv.FormatFloat(0.06*float64(k-1), 'f', 2, 64) + lines[k][strings.Index(lines[k], ","):]
	}
	ddLog := filepath.Join(dir, "dd.csv")
	if err := os.WriteFile(ddLog, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ model, params, log string }{
		{"tire", param("tire.json", tire.Jackal()), "../models/tire/testdata/jackal.csv"},
		{"pioneer", param("pioneer.json", pioneer.Default(pioneer.FormExperimental)), "../models/pioneer/testdata/p3dx.csv"},
		{"diffdrive", dd, ddLog},
	} {
		png, csv := filepath.Join(dir, c.model+".png"), filepath.Join(dir, c.model+".csv")
		st, _, errOut := runCLI("simulate", "-model", c.model, "-params", c.params, "-controls", c.log, "-out", csv, "-plot", png)
		if st != 0 {
			t.Errorf("%s: simulate -plot: status %d: %s", c.model, st, errOut)
			continue
		}
		b, err := os.ReadFile(png)
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) || len(b) < 5000 {
			t.Errorf("%s: %s is not a drawn PNG (%d bytes, %v)", c.model, png, len(b), err)
		}
		if b, err := os.ReadFile(csv); err != nil || !strings.HasPrefix(string(b), "t,") {
			t.Errorf("%s: the trajectory CSV beside the figure: %v", c.model, err)
		}
	}
}

// inspect -model pioneer on a log whose references are swapped, one
// reversed: the best map is printed as the -columns that undo it, and the
// log's own columns are said to be contradicted (issue 28, Deliver 3).
func TestInspectPioneerSwapped(t *testing.T) {
	b, err := os.ReadFile("../models/pioneer/testdata/p3dx.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for k := 1; k < len(lines); k++ {
		c := strings.Split(lines[k], ",") // t,v_ref,w_ref,v,w,traj
		v, _ := strconv.ParseFloat(c[1], 64)
		c[1], c[2] = c[2], strconv.FormatFloat(-v, 'g', -1, 64)
		lines[k] = strings.Join(c, ",")
	}
	path := filepath.Join(t.TempDir(), "swapped.csv")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, out, errOut := runCLI("inspect", "-model", "pioneer", "-data", path, "-top", "2")
	if st != 0 || !strings.Contains(out, "1. RMS") || !strings.Contains(strings.Split(out, "\n")[1], "-columns v_ref=w_ref*-1,w_ref=v_ref") ||
		!strings.Contains(out, "the log's columns as read: RMS") || !strings.Contains(errOut, "WARNING: the motion contradicts the log's columns as read") {
		t.Errorf("status %d\nstdout:\n%s\nstderr:\n%s", st, out, errOut)
	}
}
