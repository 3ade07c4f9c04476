package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Out-of-range parameters of every model are refused by simulate with one
// line naming the file and the key (exit 1, no output file); legal but
// unusual values run, with a warning naming the file and the key.
func TestParamRangesEveryModel(t *testing.T) {
	dir := t.TempDir()
	controls := map[string]string{
		"mecanum":   "t,w1,w2,w3,w4\n0,1,1,1,1\n0.01,1,1,1,1\n",
		"diffdrive": "t,uf,ul\n0,10,0\n0.06,10,0\n",
		"skidsteer": "t,vc,wc\n0,0.5,0.1\n0.1,0.5,0.1\n",
		"tire":      "t,wl,wr\n0,1,1\n0.01,1,1\n",
	}
	const dd = `"model": "diffdrive", "c1": 0.43, "c2": 0.0065, "alpha": 0.23, "beta": 6.5, "gamma": 4.1, "mu": 0.17`
	const ss = `"model": "skidsteer", "a": `
	for _, tc := range []struct {
		model, json, key string
		warn             bool
	}{
		{"mecanum", `{"mu": [-0.2, 0.5, 0.5, 0.5]}`, "mu", false},
		{"mecanum", `{"mu": [0.5, 0.5, 0.5, 0.5], "Ts": 0.001}`, "mu", false},
		{"mecanum", `{"mu": [0.5, 0.5, 0.5, 0.5], "r": -0.03}`, "r", false},
		{"mecanum", `{"mu": [0.5, 0.5, 0.5, 0.5], "g": 1.6}`, "g", true},
		{"diffdrive", `{` + dd + `, "h": 0}`, "h", false},
		{"diffdrive", `{` + dd + `, "l": -0.5}`, "l", false},
		{"diffdrive", `{"model": "diffdrive", "c1": 0.43, "c2": 0.0065, "alpha": 0.23, "beta": 6.5, "gamma": -4.1, "mu": 0.17}`, "gamma", false},
		{"diffdrive", `{"model": "diffdrive", "c1": 0.43, "c2": 0.02, "alpha": 0.23, "beta": 6.5, "gamma": 4.1, "mu": 0.17}`, "c2", true},
		{"diffdrive", `{` + dd + `, "l": 550}`, "l", true},
		{"skidsteer", `{` + ss + `[[-1.2, 0, 0], [0, 0, 0], [0, 0, 0]]}`, "a11", false},
		{"skidsteer", `{` + ss + `[[0, 0, 0], [0, 0, 0], [0, -1, 0]]}`, "a32", false},
		{"skidsteer", `{` + ss + `[[0, 0, 0], [0, 0, 0], [0, 0, 12]]}`, "a33", false},
		{"skidsteer", `{` + ss + `[[0, 0, 0], [2.5, 0, 0], [0, 0, 0]]}`, "a", true},
		{"tire", `{"mu": -0.2}`, "mu", false},
		{"tire", `{"m": 0}`, "m", false},
		{"tire", `{"dt": 0.2}`, "dt", false},
		{"tire", `{"crr": -0.01}`, "crr", false},
		{"tire", `{"Kx": 2000}`, "Kx", true},
		{"tire", `{"mu": 3}`, "mu", true},
	} {
		name := tc.model + "-" + tc.key
		pf := filepath.Join(dir, name+".json")
		cf := filepath.Join(dir, tc.model+".csv")
		out := filepath.Join(dir, name+"-out.csv")
		os.WriteFile(pf, []byte(tc.json), 0o644)
		os.WriteFile(cf, []byte(controls[tc.model]), 0o644)
		st, _, errOut := runCLI("simulate", "-model", tc.model, "-params", pf, "-controls", cf, "-out", out)
		_, statErr := os.Stat(out)
		if tc.warn {
			if st != 0 || !strings.Contains(errOut, "warning: "+pf) || !strings.Contains(errOut, `"`+tc.key+`"`) {
				t.Errorf("%s %s: status %d, stderr %q; want success with a warning naming the file and key %q", tc.model, tc.json, st, errOut, tc.key)
			}
			continue
		}
		if st != 1 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, pf) || !strings.Contains(errOut, tc.key) || statErr == nil {
			t.Errorf("%s %s: status %d, output written %v, stderr %q; want exit 1 naming the file and key %q", tc.model, tc.json, st, statErr == nil, errOut, tc.key)
		}
	}
}

// Logs above dataset.MaxInputBytes are refused before reading, naming the file (a
// sparse file: no disk is used).
func TestInputSizeLimit(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.csv")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(dataset.MaxInputBytes + 1); err != nil {
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	pf := filepath.Join(dir, "p.json")
	os.WriteFile(pf, []byte(`{"mu": [0.5, 0.5, 0.5, 0.5]}`), 0o644)
	for _, args := range [][]string{
		{"identify", "-model", "mecanum", "-data", big},
		{"simulate", "-model", "mecanum", "-params", pf, "-controls", big},
		{"follow", "-model", "mecanum", "-params", pf, "-path", big},
	} {
		st, _, errOut := runCLI(args...)
		if st != 1 || !strings.Contains(errOut, big) || !strings.Contains(errOut, "limit") {
			t.Errorf("%s: status %d, %q", args[0], st, errOut)
		}
	}
}
