package cli

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fuzzControls are short controls files of every model for FuzzParams.
var fuzzControls = map[string]string{
	"mecanum":   "t,w1,w2,w3,w4\n0,30,-30,30,-30\n0.5,1,1,1,1\n1,0,0,0,0\n",
	"diffdrive": "t,uf,ul\n0,100,-100\n0.06,100,100\n0.12,0,0\n",
	"skidsteer": "t,vc,wc\n0,1,2\n0.5,-1,-2\n1,0,0\n",
	"tire":      "t,wl,wr\n0,20,-20\n0.01,20,20\n0.02,0,0\n",
}

// FuzzParams feeds arbitrary parameter files to simulate for every model
// (the model picked by the first byte). It must never panic; a refusal is
// one line naming the file, with exit status 1 or 2 and no output file; an
// accepted file simulates the short controls to finite numbers or refuses
// them with one line (a legal but extreme model may overflow).
func FuzzParams(f *testing.F) {
	for _, s := range []struct {
		model byte
		json  string
	}{
		{0, `{"model": "mecanum", "mu": [0.5, 0.6, 0.7, 0.8]}`},
		{0, `{"mu": [0.5, 2.1, 0.5, 0.5], "Ts": 1e-300}`},
		{0, `{"mu": [-1, 0, 0, 0], "mu_bounds": [0, 3]}`},
		{1, `{"model": "diffdrive", "c1": 0.43, "c2": 0.0065, "alpha": 0.23, "beta": 6.5, "gamma": 4.1, "mu": 0.17}`},
		{1, `{"model": "diffdrive", "c1": 0.43, "c2": 0.0065, "alpha": 0.23, "beta": 1e300, "gamma": 4.1, "mu": 0.17, "h": 1e-300}`},
		{2, `{"model": "skidsteer", "a": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}`},
		{2, `{"a": [[-0.999999, 10, 10], [10, 10, 10], [10, -0.999, 10]]}`},
		{3, `{"model": "tire", "tyre": "pacejka", "px": [1e300, 1, 1, 1]}`},
		{3, `{"mu": 1e-300, "Kx": 1e300, "dt": 1e-6}`},
	} {
		f.Add(s.model, s.json)
	}
	models := []string{"mecanum", "diffdrive", "skidsteer", "tire"}
	dir := f.TempDir()
	for m, c := range fuzzControls {
		os.WriteFile(filepath.Join(dir, m+".csv"), []byte(c), 0o644)
	}
	f.Fuzz(func(t *testing.T, model byte, json string) {
		m := models[int(model)%len(models)]
		pf := filepath.Join(t.TempDir(), "p.json")
		out := pf + ".csv"
		if err := os.WriteFile(pf, []byte(json), 0o644); err != nil {
			t.Fatal(err)
		}
		st, _, errOut := runCLI("simulate", "-model", m, "-params", pf, "-controls", filepath.Join(dir, m+".csv"), "-out", out)
		b, readErr := os.ReadFile(out)
		if st != 0 {
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			last := lines[len(lines)-1]
			if (st != 1 && st != 2) || !strings.Contains(last, pf) && !strings.Contains(last, "line ") {
				t.Fatalf("%s %q: status %d, stderr %q", m, json, st, errOut)
			}
			if readErr == nil {
				t.Fatalf("%s %q: refused (%q) but wrote %s", m, json, errOut, out)
			}
			return
		}
		if readErr != nil {
			t.Fatalf("%s %q: success without an output file", m, json)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
			for _, cell := range strings.Split(line, ",") {
				if v, err := strconv.ParseFloat(cell, 64); err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
					t.Fatalf("%s %q: simulated %q", m, json, line)
				}
			}
		}
	})
}
