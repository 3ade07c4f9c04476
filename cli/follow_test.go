package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dataset"
)

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const followParams = `{"model": "mecanum", "mu": [0.6, 0.7, 0.8, 0.9]}`

func TestFollowWritesControls(t *testing.T) {
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", followParams)
	out := filepath.Join(dir, "c.csv")
	png := filepath.Join(dir, "f.png")
	st, _, errOut := runCLI("follow", "-model", "mecanum", "-params", params, "-path", "circle", "-duration", "10",
		"-theta0", "-1.5708", "-out", out, "-plot", png)
	if st != 0 {
		t.Fatalf("status %d: %s", st, errOut)
	}
	if !strings.Contains(errOut, "predicted:") || !strings.Contains(errOut, "RMS") {
		t.Errorf("no tracking report: %s", errOut)
	}
	tab, err := dataset.ReadFile(out, dataset.Spec{Time: "t", Columns: []dataset.Column{
		{Name: "t"}, {Name: "w1"}, {Name: "w2"}, {Name: "w3"}, {Name: "w4"},
		{Name: "x", Sparse: true}, {Name: "y", Sparse: true}, {Name: "theta", Sparse: true}}})
	if err != nil {
		t.Fatal(err)
	}
	// 10 s at 240 Hz, plus the final row at t = 10.
	if tab.Len() != 2401 || tab.Col("t")[2400] != 2400.0/240 {
		t.Errorf("%d rows ending at t = %g, want 2401 ending at 10", tab.Len(), tab.Col("t")[tab.Len()-1])
	}
	if tab.Col("theta")[0] != -1.5708 || tab.Col("x")[0] != 0 {
		t.Errorf("first row's pose (%g, %g): want the start pose", tab.Col("x")[0], tab.Col("theta")[0])
	}
	// Piecewise constant over 60-step segments, within ±wmax.
	w1 := tab.Col("w1")
	for k := 1; k < 2400; k++ {
		if k%60 != 0 && w1[k] != w1[k-1] {
			t.Fatalf("w1 changes inside a segment at row %d", k)
		}
		if w1[k] > 30 || w1[k] < -30 {
			t.Fatalf("w1 = %g outside ±30", w1[k])
		}
	}
	if b, err := os.ReadFile(png); err != nil || len(b) < 1000 {
		t.Errorf("plot: %v", err)
	}
}

func TestFollowBadInput(t *testing.T) {
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", followParams)
	badJSON := writeFile(t, dir, "bad.json", "{\"mu\": [0.6, 0.7,\n 0.8]}")
	ref := writeFile(t, dir, "ref.csv", "t,x,y\n0,0,0\n1,NaN,1\n")
	out := filepath.Join(dir, "out.csv")
	cases := []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"-params", badJSON, "-path", "circle"}, 1, "bad.json"},
		{[]string{"-params", filepath.Join(dir, "missing.json"), "-path", "circle"}, 1, "missing.json"},
		{[]string{"-params", params, "-path", ref}, 1, "ref.csv: line 3, column \"x\""},
		{[]string{"-params", params, "-path", "circle", "-rate", "7"}, 2, "whole number"},
		{[]string{"-params", params, "-path", "circle", "-heading", "sideways"}, 2, "heading"},
	}
	for _, c := range cases {
		args := append([]string{"follow", "-model", "mecanum", "-out", out}, c.args...)
		st, _, errOut := runCLI(args...)
		if st != c.status || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: status %d, stderr %q; want %d and %q on one line", c.args, st, errOut, c.status, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%q: an output file was left behind", c.args)
		}
	}
}

// FORMATS.md: follow writes a controls CSV that simulate accepts unchanged;
// simulating it must reproduce the path follow predicted (the final pose at
// the path's end, the start pose from -theta0).
func TestFollowControlsRoundTripThroughSimulate(t *testing.T) {
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", followParams)
	ctl := filepath.Join(dir, "c.csv")
	traj := filepath.Join(dir, "t.csv")
	st, _, errOut := runCLI("follow", "-model", "mecanum", "-params", params, "-path", "figure8", "-duration", "20",
		"-heading", "figure8-reverse-right", "-theta0", "2.35619", "-out", ctl)
	if st != 0 {
		t.Fatalf("follow: %s", errOut)
	}
	st, _, errOut = runCLI("simulate", "-model", "mecanum", "-params", params, "-controls", ctl, "-out", traj)
	if st != 0 {
		t.Fatalf("simulate: %s", errOut)
	}
	tab, err := dataset.ReadFile(traj, dataset.Spec{Time: "t", Columns: []dataset.Column{{Name: "t"}, {Name: "x"}, {Name: "y"}, {Name: "theta"}}})
	if err != nil {
		t.Fatal(err)
	}
	n := tab.Len()
	x, y, th := tab.Col("x"), tab.Col("y"), tab.Col("theta")
	if th[0] != 2.35619 || x[0] != 0 || y[0] != 0 {
		t.Errorf("simulated start (%g, %g, %g), want (0, 0, 2.35619)", x[0], y[0], th[0])
	}
	// The figure 8 ends where it started, at the origin; and at half time it
	// crosses the origin.
	if d := math.Hypot(x[n-1], y[n-1]); d > 0.01 {
		t.Errorf("simulated end %.4f m from the path's end", d)
	}
	if d := math.Hypot(x[(n-1)/2], y[(n-1)/2]); d > 0.01 {
		t.Errorf("simulated midpoint %.4f m from the crossing", d)
	}
}
