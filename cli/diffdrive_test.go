package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
)

func writeDiffDriveLog(t *testing.T, dir string, seconds float64) string {
	t.Helper()
	lg, err := diffdrive.Synthesize(diffdrive.Paper(), diffdrive.SynthConfig{Drive: diffdrive.Training, Seconds: seconds, Noise: 0.01, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "log.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := dataset.WriteCSV(f, []string{"t", "uf", "ul", "vr", "vl"}, [][]float64{lg.T, lg.UF, lg.UL, lg.VR, lg.VL}); err != nil {
		t.Fatal(err)
	}
	return path
}

func ddWriteFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDiffDriveIdentifyAndSimulate(t *testing.T) {
	dir := t.TempDir()
	logPath := writeDiffDriveLog(t, dir, 400)
	init := ddWriteFile(t, dir, "init.json", `{"model": "diffdrive", "c1": 0.5, "c2": 0.005, "alpha": 0.3, "beta": 5, "gamma": 5, "mu": 0.25}`)
	out := filepath.Join(dir, "p.json")
	st, _, errOut := runCLI("identify", "-model", "diffdrive", "-data", logPath, "-init", init, "-out", out, "-cw", "1", "-quiet")
	if st != 0 {
		t.Fatalf("identify: status %d, stderr %q", st, errOut)
	}
	var p diffdrive.Params
	if err := dataset.ReadJSONFile(out, &p, true); err != nil {
		t.Fatal(err)
	}
	truth := diffdrive.Paper()
	for i, v := range p.Zeta() {
		if e := math.Abs(v/truth.Zeta()[i] - 1); e > 0.15 {
			t.Errorf("%s = %v, truth %v", diffdrive.ZetaNames[i], v, truth.Zeta()[i])
		}
	}
	if p.L != 0.55 || p.H != 0.06 || p.Model != "diffdrive" {
		t.Errorf("known constants %+v", p)
	}
	// simulate with the log as controls; its first row's vr, vl start the rollout.
	st, stdout, errOut := runCLI("simulate", "-model", "diffdrive", "-params", out, "-controls", logPath)
	if st != 0 {
		t.Fatalf("simulate: status %d, stderr %q", st, errOut)
	}
	tab, err := dataset.Read(strings.NewReader(stdout), "out", dataset.Spec{Time: "t", Columns: []dataset.Column{{Name: "t"}, {Name: "vr"}, {Name: "vl"}, {Name: "v"}, {Name: "w"}}})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 6667 {
		t.Errorf("%d rows", tab.Len())
	}
	v, vr, vl := tab.Col("v"), tab.Col("vr"), tab.Col("vl")
	for i := range v {
		if math.Abs(v[i]-(vr[i]+vl[i])/2) > 1e-12 {
			t.Fatalf("row %d: v = %v, (vr+vl)/2 = %v", i, v[i], (vr[i]+vl[i])/2)
		}
	}
	// JSON output to stdout.
	st, stdout, _ = runCLI("identify", "-model", "diffdrive", "-data", logPath, "-init", init, "-quiet")
	if st != 0 || !json.Valid([]byte(stdout)) || !strings.Contains(stdout, `"mu"`) {
		t.Errorf("identify to stdout: status %d, %q", st, stdout)
	}
}

func TestDiffDriveSimulateFromRest(t *testing.T) {
	dir := t.TempDir()
	params := ddWriteFile(t, dir, "p.json", `{"model": "diffdrive", "c1": 0.4265, "c2": 0.006491, "alpha": 0.2315, "beta": 6.548, "gamma": 4.073, "mu": 0.1676}`)
	var b strings.Builder
	b.WriteString("t,uf,ul\n")
	for k := range 400 {
		fmt.Fprintf(&b, "%g,30,0\n", float64(k)*0.06)
	}
	ctl := ddWriteFile(t, dir, "c.csv", b.String())
	st, stdout, errOut := runCLI("simulate", "-model", "diffdrive", "-params", params, "-controls", ctl)
	if st != 0 {
		t.Fatalf("status %d: %q", st, errOut)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if lines[0] != "t,vr,vl,v,w" || !strings.HasPrefix(lines[1], "0,0,0,0,0") {
		t.Fatalf("head %q %q", lines[0], lines[1])
	}
	last := strings.Split(lines[len(lines)-1], ",")
	var v float64
	fmt.Sscan(last[3], &v)
	if want := diffdrive.Paper().SteadySpeed(30); math.Abs(v-want) > 1e-6 {
		t.Errorf("steady v %v, eq. 18 gives %v", v, want)
	}
}

func TestDiffDriveBadInput(t *testing.T) {
	dir := t.TempDir()
	good := `{"model": "diffdrive", "c1": 0.4, "c2": 0.006, "alpha": 0.23, "beta": 6.5, "gamma": 4, "mu": 0.17}`
	params := ddWriteFile(t, dir, "p.json", good)
	cases := []struct {
		name, params, csv string
		want              []string
		status            int
	}{
		{"non-uniform time", params, "t,uf,ul\n0,1,0\n0.06,1,0\n0.18,1,0\n", []string{"c.csv", "line 4", `"t"`, "uniformly"}, 1},
		{"missing column", params, "t,uf\n0,1\n", []string{"c.csv", "ul"}, 1},
		{"NaN", params, "t,uf,ul\n0,NaN,0\n", []string{"c.csv", "line 2", `"uf"`}, 1},
		{"time backwards", params, "t,uf,ul\n0,1,0\n-1,1,0\n", []string{"c.csv", "line 3"}, 1},
		{"empty", params, "", []string{"c.csv"}, 1},
		{"bad param key", ddWriteFile(t, dir, "bad.json", `{"model": "diffdrive", "mue": 1}`), "t,uf,ul\n0,1,0\n", []string{"bad.json", "mue"}, 1},
		{"negative mu", ddWriteFile(t, dir, "neg.json", strings.Replace(good, `"mu": 0.17`, `"mu": -1`, 1)), "t,uf,ul\n0,1,0\n", []string{"neg.json", "mu"}, 1},
	}
	for _, c := range cases {
		ctl := ddWriteFile(t, dir, "c.csv", c.csv)
		out := filepath.Join(dir, "out.csv")
		os.Remove(out)
		st, _, errOut := runCLI("simulate", "-model", "diffdrive", "-params", c.params, "-controls", ctl, "-out", out)
		if st != c.status {
			t.Errorf("%s: status %d, want %d (%q)", c.name, st, c.status, errOut)
		}
		if strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%s: not one line: %q", c.name, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: %q does not name %s", c.name, errOut, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: partial output written", c.name)
		}
	}
	logPath := ddWriteFile(t, dir, "log.csv", "t,uf,ul,vr,vl\n0,1,0,0,0\n0.06,1,0,0,0\n0.5,1,0,0,0\n")
	st, _, errOut := runCLI("identify", "-model", "diffdrive", "-data", logPath, "-quiet")
	if st != 1 || !strings.Contains(errOut, "line 4") {
		t.Errorf("identify non-uniform: status %d, %q", st, errOut)
	}
	st, _, errOut = runCLI("identify", "-model", "diffdrive", "-data", logPath, "-cw", "x")
	if st != 2 {
		t.Errorf("-cw x: status %d, %q", st, errOut)
	}
	short := ddWriteFile(t, dir, "short.csv", "t,uf,ul,vr,vl\n0,1,0,0,0\n0.06,1,0,0,0\n")
	st, _, errOut = runCLI("identify", "-model", "diffdrive", "-data", short, "-quiet")
	if st != 1 || !strings.Contains(errOut, "short.csv") {
		t.Errorf("short log: status %d, %q", st, errOut)
	}
}
