package cli

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dataset"
)

func writePlanFile(t *testing.T, path, s string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const asphaltPlanParams = `{"model": "skidsteer", "a": [[0.015, -0.0004, -0.010], [0.007, 0.015, -0.007], [0.005, -0.405, 0.119]],
 "surface": {"mu_o": 1.209, "mu_i": 0.795, "K": 0.0016}}`

func TestPlanCommand(t *testing.T) {
	dir := t.TempDir()
	par := writePlanFile(t, filepath.Join(dir, "p.json"), asphaltPlanParams)
	obs := writePlanFile(t, filepath.Join(dir, "obs.csv"), "x,y,r\n3,2.5,0.15\n5,5,0.15\n4.2,6.8,0.15\n6.8,3.6,0.15\n7.5,7.2,0.15\n")
	out := filepath.Join(dir, "plan.csv")
	png := filepath.Join(dir, "plan.png")
	var so, se bytes.Buffer
	code := run([]string{"plan", "-model", "skidsteer", "-params", par, "-start", "1,1,0", "-goal", "9,9",
		"-obstacles", obs, "-area", "0,10,0,10", "-out", out, "-plot", png}, &so, &se)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	for _, w := range []string{"SBMPO:", "energy", "length", "planning", "refined:"} {
		if !strings.Contains(se.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, se.String())
		}
	}
	tab, err := dataset.ReadFile(out, dataset.Spec{Columns: []dataset.Column{{Name: "t"}, {Name: "vc"}, {Name: "wc"},
		{Name: "x"}, {Name: "y"}, {Name: "psi"}, {Name: "power"}, {Name: "energy"}}, Time: "t"})
	if err != nil {
		t.Fatal(err)
	}
	n := tab.Len()
	x, y := tab.Col("x"), tab.Col("y")
	if d := math.Hypot(x[n-1]-9, y[n-1]-9); d > 0.3 {
		t.Errorf("plan ends %g m from the goal", d)
	}
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Errorf("no plot: %v", err)
	}
	// simulate reproduces the plan's path from the same file.
	var sim, se2 bytes.Buffer
	if code := run([]string{"simulate", "-model", "skidsteer", "-params", par, "-controls", out}, &sim, &se2); code != 0 {
		t.Fatalf("simulate exit %d: %s", code, se2.String())
	}
	lines := strings.Split(strings.TrimSpace(sim.String()), "\n")
	last := strings.Split(lines[len(lines)-1], ",")
	if len(lines) != n+1 || len(last) < 3 {
		t.Fatalf("simulate wrote %d lines for %d rows", len(lines), n)
	}
	var sx, sy float64
	if _, err := fmtSscan(last[1], &sx); err != nil {
		t.Fatal(err)
	}
	if _, err := fmtSscan(last[2], &sy); err != nil {
		t.Fatal(err)
	}
	if math.Abs(sx-x[n-1]) > 1e-9 || math.Abs(sy-y[n-1]) > 1e-9 {
		t.Errorf("simulate ends at (%g, %g), the plan at (%g, %g)", sx, sy, x[n-1], y[n-1])
	}
}

func TestPlanCommandErrors(t *testing.T) {
	dir := t.TempDir()
	par := writePlanFile(t, filepath.Join(dir, "p.json"), asphaltPlanParams)
	bad := writePlanFile(t, filepath.Join(dir, "bad.csv"), "x,y,r\n1,2,0.1\n3,nan,0.1\n")
	neg := writePlanFile(t, filepath.Join(dir, "neg.csv"), "x,y,r\n1,2,-0.1\n")
	noR := writePlanFile(t, filepath.Join(dir, "nor.csv"), "x,y\n1,2\n")
	badPar := writePlanFile(t, filepath.Join(dir, "bp.json"), `{"model": "skidsteer", "a": [[0,0,0],[0,0,0],[0,0,0]], "surface": {"mu_o": -1, "mu_i": 0.2, "K": 0.001}}`)
	blocked := writePlanFile(t, filepath.Join(dir, "blk.csv"), "x,y,r\n1,1,0.5\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-start", "1,1", "-goal", "9,9"}, 2, "-start"},
		{[]string{"-start", "1,1,0"}, 2, "-goal"},
		{[]string{"-start", "1,1,0", "-goal", "9,x"}, 2, "not a finite number"},
		{[]string{"-start", "1,1,0", "-goal", "9,9", "-obstacles", bad}, 1, "line 3"},
		{[]string{"-start", "1,1,0", "-goal", "9,9", "-obstacles", neg}, 1, "column \"r\""},
		{[]string{"-start", "1,1,0", "-goal", "9,9", "-obstacles", noR}, 1, "r"},
		{[]string{"-start", "1,1,0", "-goal", "9,9", "-obstacles", blocked}, 1, "start"},
		{[]string{"-start", "1,1,0", "-goal", "9,9", "-payload", "-3"}, 2, "payload"},
	} {
		out := filepath.Join(dir, "out.csv")
		os.Remove(out)
		args := append([]string{"plan", "-model", "skidsteer", "-params", par, "-out", out}, c.args...)
		var so, se bytes.Buffer
		code := run(args, &so, &se)
		if code != c.code || !strings.Contains(se.String(), c.want) || strings.Count(strings.TrimSpace(se.String()), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q in one line", c.args, code, se.String(), c.code, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s despite the error", c.args, out)
		}
	}
	var so, se bytes.Buffer
	if code := run([]string{"plan", "-model", "skidsteer", "-params", badPar, "-start", "1,1,0", "-goal", "2,2"}, &so, &se); code != 1 || !strings.Contains(se.String(), "mu_o") {
		t.Errorf("bad surface: exit %d, %q", code, se.String())
	}
}

func fmtSscan(s string, v *float64) (int, error) { return fmt.Sscan(s, v) }
