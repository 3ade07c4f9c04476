package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

var mecanumTrueMu = []float64{0.45, 0.62, 0.38, 0.55}

// writeMecanumLog writes synthetic runs as a log CSV (traj column when
// there are several), camera cells empty between 60 Hz samples.
func writeMecanumLog(t *testing.T, path string, cmds [][4]float64, seed uint64) {
	t.Helper()
	p := mecanum.DefaultParams()
	p.Mu = mecanumTrueMu
	var b strings.Builder
	b.WriteString("t,w1,w2,w3,w4,x,y,theta,traj\n")
	for i, c := range cmds {
		r, _ := mecanum.Synthesize(p, mecanum.SynthSpec{Command: c, Duration: 1679.0 / 240, Pose0: [3]float64{0, 0, 0.4 * float64(i)}, Noise: 0.003, HeadNoise: 0.005, Seed: seed + uint64(i)})
		for k := range r.T {
			pose := ",,"
			if !math.IsNaN(r.X[k]) {
				pose = fmt.Sprintf("%v,%v,%v", r.X[k], r.Y[k], r.Theta[k])
			}
			fmt.Fprintf(&b, "%v,%v,%v,%v,%v,%s,run%d\n", r.T[k], c[0], c[1], c[2], c[3], pose, i)
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMecanumIdentifyAndSimulate(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "log.csv")
	writeMecanumLog(t, logf, [][4]float64{{8, 8, 8, 8}, {-6, 6, -6, 6}, {4, 10, 10, 4}}, 1)
	pf := filepath.Join(dir, "p.json")
	png := filepath.Join(dir, "fit.png")
	st, out, errOut := runCLI("identify", "-model", "mecanum", "-data", logf, "-out", pf, "-plot", png)
	if st != 0 {
		t.Fatalf("identify: status %d, stderr %q", st, errOut)
	}
	for _, want := range []string{"iterations", "evaluations", "identifiability", "every μ_j is determined"} {
		if !strings.Contains(out, want) {
			t.Errorf("identify report lacks %q:\n%s", want, out)
		}
	}
	var p mecanum.Params
	b, _ := os.ReadFile(pf)
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	for j := range 4 {
		if math.Abs(p.Mu[j]-mecanumTrueMu[j]) > 0.02 {
			t.Errorf("μ = %v, true %v", p.Mu, mecanumTrueMu)
			break
		}
	}
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Errorf("plot: %v", err)
	}
	// simulate the identified parameters on the log (traj kept)
	st, sim, errOut := runCLI("simulate", "-model", "mecanum", "-params", pf, "-controls", logf)
	if st != 0 {
		t.Fatalf("simulate: status %d, stderr %q", st, errOut)
	}
	lines := strings.Split(strings.TrimSpace(sim), "\n")
	if lines[0] != "t,x,y,theta,traj" || len(lines) != 1+3*1680 {
		t.Fatalf("simulate output: header %q, %d lines", lines[0], len(lines))
	}
	// one run alone: one unidentified direction reported and refused
	// (exit 1, nothing written); -fix mu1 makes the rest determined, JSON
	// on stdout
	one := filepath.Join(dir, "one.csv")
	writeMecanumLog(t, one, [][4]float64{{4, 10, 9, 5}}, 7)
	st, out, errOut = runCLI("identify", "-model", "mecanum", "-data", one)
	if st != 1 || out != "" || !strings.Contains(errOut, "NOT determined: μ + t·") || !strings.Contains(errOut, "-fix") {
		t.Fatalf("identify one: status %d, stdout %q, stderr %q", st, out, errOut)
	}
	if strings.Contains(errOut, "(determined)") {
		t.Errorf("one constant command: a μ_j called determined: %q", errOut)
	}
	st, out, errOut = runCLI("identify", "-model", "mecanum", "-data", one, "-fix", "mu1")
	if st != 0 || !strings.Contains(errOut, "fixed at -init") || strings.Contains(errOut, "NOT determined") {
		t.Fatalf("identify one -fix mu1: status %d, stderr %q", st, errOut)
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Errorf("stdout is not the parameter JSON: %v", err)
	} else if p.Mu[0] != mecanum.DefaultParams().Mu[0] {
		t.Errorf("-fix mu1: μ1 = %v, the default start %v", p.Mu[0], mecanum.DefaultParams().Mu[0])
	}
	// several files jointly
	a, c := filepath.Join(dir, "a.csv"), filepath.Join(dir, "c.csv")
	writeMecanumLog(t, a, [][4]float64{{8, 8, 8, 8}}, 11)
	writeMecanumLog(t, c, [][4]float64{{-6, 6, -6, 6}, {4, 10, 10, 4}}, 12)
	for _, m := range []string{"lbfgsb", "neldermead", "cmaes"} {
		args := []string{"identify", "-model", "mecanum", "-data", a + "," + c, "-method", m, "-quiet"}
		if m != "lbfgsb" {
			args = append(args, "-pose", "fixed")
		}
		st, out, errOut = runCLI(args...)
		if st != 0 || !strings.Contains(errOut, "3 run(s)") || !strings.Contains(errOut, m) {
			t.Errorf("%s: status %d, stderr %q", m, st, errOut)
		}
		_ = out
	}
}

// Bad input: one line naming file, line and column; exit 1 (2 for usage);
// no output file.
func TestMecanumBadInput(t *testing.T) {
	dir := t.TempDir()
	w := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	good := w("good.json", `{"model": "mecanum", "mu": [0.5, 0.5, 0.5, 0.5]}`)
	ctl := w("c.csv", "t,w1,w2,w3,w4\n0,1,1,1,1\n0.1,1,1,1,1\n")
	cases := []struct {
		name   string
		args   []string
		status int
		want   []string
	}{
		{"nan", []string{"simulate", "-params", good, "-controls", w("nan.csv", "t,w1,w2,w3,w4\n0,1,1,1,1\n0.1,NaN,1,1,1\n")}, 1, []string{"nan.csv", "line 3", "w1"}},
		{"time", []string{"simulate", "-params", good, "-controls", w("time.csv", "t,w1,w2,w3,w4\n0,1,1,1,1\n0,1,1,1,1\n")}, 1, []string{"time.csv", "line 3", `"t"`}},
		{"missing column", []string{"simulate", "-params", good, "-controls", w("miss.csv", "t,w1,w2,w3\n0,1,1,1\n")}, 1, []string{"miss.csv", "w4"}},
		{"empty", []string{"simulate", "-params", good, "-controls", w("empty.csv", "")}, 1, []string{"empty.csv"}},
		{"bad mu", []string{"simulate", "-params", w("bad.json", `{"mu": [0.5, 0.5]}`), "-controls", ctl}, 1, []string{"bad.json", "mu"}},
		{"no mu", []string{"simulate", "-params", w("nomu.json", `{"M": 4}`), "-controls", ctl}, 1, []string{"nomu.json", "mu"}},
		{"json syntax", []string{"simulate", "-params", w("syn.json", "{\n\"mu\": [0.5,\n}"), "-controls", ctl}, 1, []string{"syn.json", "line"}},
		{"partial pose", []string{"identify", "-data", w("part.csv", "t,w1,w2,w3,w4,x,y,theta\n0,1,1,1,1,0,0,0\n0.1,1,1,1,1,0.1,,0\n0.2,1,1,1,1,0,0,0\n")}, 1, []string{"part.csv", "line 3", `"y"`}},
		{"few camera", []string{"identify", "-data", w("few.csv", "t,w1,w2,w3,w4,x,y,theta\n0,1,1,1,1,0,0,0\n0.1,1,1,1,1,,,\n0.2,1,1,1,1,0,0,0\n")}, 1, []string{"few.csv", "line 2", `"x"`}},
		{"no pose columns", []string{"identify", "-data", ctl}, 1, []string{"c.csv", "x"}},
		{"bad pose flag", []string{"identify", "-data", ctl, "-pose", "wobbly"}, 2, []string{"-pose"}},
		{"bad prior", []string{"identify", "-data", ctl, "-prior", "-1"}, 2, []string{"-prior"}},
	}
	for _, c := range cases {
		out := filepath.Join(dir, c.name+".out")
		args := append([]string{c.args[0], "-model", "mecanum", "-out", out}, c.args[1:]...)
		st, _, errOut := runCLI(args...)
		if st != c.status {
			t.Errorf("%s: status %d, want %d (stderr %q)", c.name, st, c.status, errOut)
		}
		if strings.Count(strings.TrimRight(errOut, "\n"), "\n") > 0 {
			t.Errorf("%s: error is not one line: %q", c.name, errOut)
		}
		for _, wnt := range c.want {
			if !strings.Contains(errOut, wnt) {
				t.Errorf("%s: error %q does not name %s", c.name, errOut, wnt)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: output file written", c.name)
		}
	}
}

// The whole identify command on one trajectory of the paper's size (1,680
// control steps, 420 camera samples), end to end through the handler.
func BenchmarkMecanumIdentifyCLI(b *testing.B) {
	dir := b.TempDir()
	logf := filepath.Join(dir, "log.csv")
	t := &testing.T{}
	writeMecanumLog(t, logf, [][4]float64{{4, 10, 9, 5}}, 3)
	out := filepath.Join(dir, "p.json")
	b.ResetTimer()
	for range b.N {
		if st, _, e := runCLI("identify", "-model", "mecanum", "-data", logf, "-out", out, "-quiet"); st != 0 {
			b.Fatal(e)
		}
	}
}
