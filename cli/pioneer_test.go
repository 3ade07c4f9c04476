package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/pioneer"
	"github.com/wheelgrad/wheelgrad/models/pioneer/p3dx"
)

// writePioneerLog drives the independent true robot and writes its log.
func writePioneerLog(t *testing.T, path string) p3dx.Robot {
	t.Helper()
	rb := p3dx.Default()
	v, w := p3dx.Cases(1, 2)
	lg := rb.Drive(v, w, 3)
	var b strings.Builder
	b.WriteString("t,v_ref,w_ref,v,w\n")
	for k := range lg.T {
		fmt.Fprintf(&b, "%.4f,%g,%g,%g,%g\n", lg.T[k], lg.Vref[k], lg.Wref[k], lg.V[k], lg.W[k])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return rb
}

func TestPioneerIdentifySimulate(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.csv")
	rb := writePioneerLog(t, logPath)
	out, png := filepath.Join(dir, "p.json"), filepath.Join(dir, "v.png")
	st, stdout, errOut := runCLI("identify", "-model", "pioneer", "-form", "experimental", "-data", logPath, "-out", out, "-plot", png)
	if st != 0 {
		t.Fatalf("identify: status %d, stderr %q", st, errOut)
	}
	if !strings.Contains(stdout, "fitted: vmax, acc_v") || !strings.Contains(stdout, "delay: v") {
		t.Errorf("summary: %q", stdout)
	}
	p, _, err := pioneer.ReadParams(out)
	if err != nil {
		t.Fatal(err)
	}
	if p.Form != pioneer.FormExperimental {
		t.Errorf("form %q", p.Form)
	}
	dv, dw := p.DelaySeconds()
	if math.Abs(dv-rb.Delay) > 0.1 || math.Abs(dw-rb.Delay) > 0.1 {
		t.Errorf("delays %v, %v s; true %v s", dv, dw, rb.Delay)
	}
	if _, err := os.Stat(png); err != nil {
		t.Error(err)
	}
	sim := filepath.Join(dir, "sim.csv")
	if st, _, errOut := runCLI("simulate", "-model", "pioneer", "-params", out, "-controls", logPath, "-out", sim); st != 0 {
		t.Fatalf("simulate: status %d, stderr %q", st, errOut)
	}
	b, _ := os.ReadFile(sim)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	in, _ := os.ReadFile(logPath)
	if lines[0] != "t,v,w" || len(lines) != len(strings.Split(strings.TrimSpace(string(in)), "\n")) {
		t.Errorf("simulated CSV: header %q, %d lines", lines[0], len(lines))
	}
	// validate: the identified model against the log, MATLAB compare's fit %
	st, vout, errOut := runCLI("validate", "-model", "pioneer", "-params", out, "-data", logPath, "-plot", filepath.Join(dir, "val.png"))
	var fitV, fitW float64
	for _, l := range strings.Split(vout, "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && (f[0] == "v" || f[0] == "w") {
			x, _ := strconv.ParseFloat(f[1], 64)
			if f[0] == "v" {
				fitV = x
			} else {
				fitW = x
			}
		}
	}
	if st != 0 || fitV < 80 || fitW < 80 {
		t.Errorf("validate: status %d, fit v %.1f %%, w %.1f %% (want ≥ 80 %%); stdout %q, stderr %q", st, fitV, fitW, vout, errOut)
	}
	// runs split by traj: each starts from its own first row
	two := filepath.Join(dir, "two.csv")
	os.WriteFile(two, []byte("t,v_ref,w_ref,traj\n0,0.3,0,a\n0.1,0.3,0,a\n0.2,0.3,0,a\n0,0,0.5,b\n0.1,0,0.5,b\n"), 0o644)
	st, sout, errOut := runCLI("simulate", "-model", "pioneer", "-params", out, "-controls", two)
	if st != 0 || !strings.HasPrefix(sout, "t,v,w,traj\n0,0,0,a\n") || !strings.Contains(sout, "\n0,0,0,b\n") || strings.Count(sout, "\n") != 6 {
		t.Errorf("traj: status %d, stdout %q, stderr %q", st, sout, errOut)
	}
	// a physical parameter file simulates the same log
	phys := filepath.Join(dir, "phys.json")
	os.WriteFile(phys, []byte(`{"model": "pioneer", "form": "physical", "delay": 2}`), 0o644)
	if st, _, errOut := runCLI("simulate", "-model", "pioneer", "-params", phys, "-controls", logPath, "-out", sim); st != 0 {
		t.Fatalf("simulate physical: status %d, stderr %q", st, errOut)
	}
}

// Bad logs and parameter files: one line naming the file, the line and
// the column (or key); status 1; no output file.
func TestPioneerBadInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "p.json")
	os.WriteFile(good, []byte(`{"model": "pioneer", "form": "experimental"}`), 0o644)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	rows := "0,0,0,0,0\n0.1,0.1,0,0,0\n0.2,0.1,0,0.01,0\n"
	for _, c := range []struct {
		name, body string
		args       []string
		want       []string
	}{
		{"nocol.csv", "t,v_ref,v,w\n0,0,0,0\n", []string{"simulate"}, []string{"nocol.csv", `"w_ref"`}},
		{"onlyv.csv", "t,v_ref,w_ref,v\n0,0,0,0\n", []string{"simulate"}, []string{"onlyv.csv", `"w"`}},
		{"nan.csv", "t,v_ref,w_ref,v,w\n0,0,0,0,0\n0.1,NaN,0,0,0\n", []string{"simulate"}, []string{"nan.csv", "line 3", "v_ref", "NaN"}},
		{"back.csv", "t,v_ref,w_ref,v,w\n" + rows + "0.15,0,0,0,0\n", []string{"simulate"}, []string{"back.csv", "line 5", `"t"`}},
		{"gap.csv", "t,v_ref,w_ref,v,w\n" + rows + "0.9,0,0,0,0\n", []string{"simulate"}, []string{"gap.csv", "line 5", "t", "Ts = 0.1"}},
		{"cell.csv", "t,v_ref,w_ref,v,w\n0,0,0,0,0\n0.1,0,0,,0\n", []string{"simulate"}, []string{"cell.csv", "line 3", `"v"`, "go together"}},
		{"nomeas.csv", "t,v_ref,w_ref\n" + "0,0,0\n0.1,0,0\n", []string{"identify"}, []string{"nomeas.csv", "identify needs"}},
	} {
		path := write(c.name, c.body)
		out := filepath.Join(dir, c.name+".out")
		args := []string{c.args[0], "-model", "pioneer", "-out", out}
		if c.args[0] == "simulate" {
			args = append(args, "-params", good, "-controls", path)
		} else {
			args = append(args, "-data", path)
		}
		st, _, errOut := runCLI(args...)
		if st != 1 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%s: status %d, stderr %q", c.name, st, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr %q lacks %q", c.name, errOut, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: an output file was written", c.name)
		}
	}
	log := write("ok.csv", "t,v_ref,w_ref,v,w\n"+rows)
	for _, c := range []struct{ json, want string }{
		{`{"model": "pioneer", "form": "dynamic"}`, `key "form": "dynamic": want "physical" or "experimental"`},
		{`{"model": "pioneer"}`, `key "form": missing`},
		{`{"model": "pioneer", "form": "experimental", "KR": 1}`, `key "KR": a key of the physical form`},
	} {
		pj := write("bad.json", c.json)
		st, _, errOut := runCLI("simulate", "-model", "pioneer", "-params", pj, "-controls", log)
		if st != 1 || !strings.Contains(errOut, "bad.json") || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: status %d, stderr %q", c.json, st, errOut)
		}
	}
	if st, _, errOut := runCLI("identify", "-model", "pioneer", "-form", "dynamic", "-data", log); st != 2 {
		t.Errorf("-form dynamic: status %d, stderr %q", st, errOut)
	}
	if st, _, errOut := runCLI("identify", "-model", "tire", "-form", "physical", "-data", log); st != 2 {
		t.Errorf("-form with tire: status %d, stderr %q", st, errOut)
	}
}
