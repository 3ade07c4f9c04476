package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The sample logs of every model package (models/<model>/testdata).
var jsonSamples = []struct {
	model string
	args  []string
}{
	{"mecanum", []string{"-data", "../models/mecanum/testdata/commands.csv", "-poses", "../models/mecanum/testdata/camera.csv"}},
	{"diffdrive", []string{"-data", "../models/diffdrive/calibrate/testdata/wheelchair.csv"}},
	{"skidsteer", []string{"-data", "../models/skidsteer/testdata/commands.csv", "-poses", "../models/skidsteer/testdata/vo.csv"}},
	{"tire", []string{"-data", "../models/tire/testdata/jackal.csv"}},
	{"pioneer", []string{"-data", "../models/pioneer/testdata/p3dx.csv"}},
}

// oneJSON decodes stdout as exactly one JSON object (nothing after it).
func oneJSON(t *testing.T, what, out string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: stdout is not a JSON object (%v): %q", what, err, out)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("%s: more than one JSON value on stdout: %q", what, out)
	}
	return m
}

func TestIdentifyJSONEveryModel(t *testing.T) {
	if testing.Short() {
		t.Skip("identifies five models")
	}
	for _, c := range jsonSamples {
		t.Run(c.model, func(t *testing.T) {
			dir := t.TempDir()
			pfile := filepath.Join(dir, "p.json")
			args := append([]string{"identify", "-model", c.model, "-json", "-quiet", "-out", pfile}, c.args...)
			st, out, errOut := runCLI(args...)
			if st != 0 {
				t.Fatalf("status %d, stderr %q", st, errOut)
			}
			m := oneJSON(t, c.model, out)
			for _, k := range []string{"model", "status", "converged", "params", "residual_rms", "warnings"} {
				if _, ok := m[k]; !ok {
					t.Errorf("no key %q in %s", k, out)
				}
			}
			if m["model"] != c.model {
				t.Errorf("model %v", m["model"])
			}
			if _, ok := m["warnings"].([]any); !ok {
				t.Errorf("warnings %v: want an array", m["warnings"])
			}
			if r, ok := m["residual_rms"].(float64); !ok || !(r > 0) {
				t.Errorf("residual_rms %v: want a positive number", m["residual_rms"])
			}
			if name, _ := m["residual"].(string); name == "" {
				t.Errorf("the residual figure has no name: %s", out)
			}
			ps, _ := m["params"].([]any)
			if len(ps) == 0 {
				t.Fatalf("no params: %s", out)
			}
			// The parameter file (-out) holds the same values.
			file, err := os.ReadFile(pfile)
			if err != nil {
				t.Fatal(err)
			}
			var pf map[string]any
			if err := json.Unmarshal(file, &pf); err != nil {
				t.Fatal(err)
			}
			for _, x := range ps {
				p := x.(map[string]any)
				for _, k := range []string{"name", "value", "std", "lower", "upper", "held", "determined"} {
					if _, ok := p[k]; !ok {
						t.Errorf("param %v lacks %q", p["name"], k)
					}
				}
				name, _ := p["name"].(string)
				v, ok := p["value"].(float64)
				if !ok || math.IsNaN(v) {
					t.Errorf("%s: value %v", name, p["value"])
				}
				if sd, ok := p["std"].(float64); ok {
					if !(sd >= 0) {
						t.Errorf("%s: std %v", name, sd)
					}
				} else if reason, _ := p["std_reason"].(string); reason == "" {
					t.Errorf("%s: no finite std and no std_reason: %v", name, p)
				}
				if fv, ok := pf[name].(float64); ok && fv != v {
					t.Errorf("%s: report value %v, parameter file %v", name, v, fv)
				}
			}
		})
	}
}

// With -json and no -out, stdout holds the report alone (no parameter
// JSON), and the summary goes to stderr.
func TestIdentifyJSONWithoutOut(t *testing.T) {
	if testing.Short() {
		t.Skip("identifies")
	}
	args := append([]string{"identify", "-model", "tire", "-json"}, jsonSamples[3].args...)
	st, out, errOut := runCLI(args...)
	if st != 0 {
		t.Fatalf("status %d, stderr %q", st, errOut)
	}
	m := oneJSON(t, "tire", out)
	if _, ok := m[fitKeyForTest]; ok {
		t.Errorf("stdout holds the parameter file: %s", out)
	}
	if !strings.Contains(errOut, "tire identify:") || !strings.Contains(errOut, "Kx") {
		t.Errorf("no summary on stderr: %q", errOut)
	}
	// Without -json the parameter file goes to stdout, as before.
	st, out, _ = runCLI(append([]string{"identify", "-model", "tire", "-quiet"}, jsonSamples[3].args...)...)
	if st != 0 || !strings.Contains(out, `"`+fitKeyForTest+`"`) {
		t.Errorf("without -json: status %d, stdout %q", st, out)
	}
}

const fitKeyForTest = "fit"

// Errors with -json: one line on stderr, nothing on stdout, status 1 or 2.
func TestJSONErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("t,v_ref,w_ref,v,w\n0,0,0,0,0\n0.1,x,0,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"identify", "-model", "pioneer", "-json", "-data", bad}, 1},
		{[]string{"identify", "-model", "tire", "-json", "-data", filepath.Join(dir, "missing.csv")}, 1},
		{[]string{"identify", "-model", "mecanum", "-json", "-loss", "squared", "-data", bad}, 1}, // -json works with -loss squared: the bad log is the error
		{[]string{"identify", "-model", "tire", "-json", "-online", "-data", bad}, 1},             // a log without wl, wr
		{[]string{"identify", "-model", "tire", "-json", "-online", "-batch", "0", "-data", bad}, 2},
		{[]string{"identify", "-model", "tank", "-json", "-data", bad}, 2},
		{[]string{"simulate", "-model", "pioneer", "-json", "-params", filepath.Join(dir, "none.json"), "-controls", bad}, 1},
		{[]string{"simulate", "-json", "-model", "pioneer"}, 2},
	}
	for _, c := range cases {
		st, out, errOut := runCLI(c.args...)
		if st != c.want || out != "" || strings.Count(strings.TrimRight(errOut, "\n"), "\n") != 0 || errOut == "" {
			t.Errorf("%q: status %d (want %d), stdout %q, stderr %q", c.args, st, c.want, out, errOut)
		}
	}
}

// tire -online builds one report: μ of the last batch (no σ, a reason
// instead), the pose residual over every batch, the batches as lines of
// the summary (stderr); no optimiser status, so the parameter file has no
// "fit" record.
func TestIdentifyJSONOnline(t *testing.T) {
	dir := t.TempDir()
	pfile := filepath.Join(dir, "mu.json")
	st, out, errOut := runCLI(append([]string{"identify", "-model", "tire", "-json", "-online", "-out", pfile}, jsonSamples[3].args...)...)
	if st != 0 {
		t.Fatalf("status %d, stderr %q", st, errOut)
	}
	m := oneJSON(t, "online", out)
	ps, _ := m["params"].([]any)
	if m["model"] != "tire" || m["status"] != nil || len(ps) != 1 {
		t.Fatalf("report %s", out)
	}
	p := ps[0].(map[string]any)
	mu, _ := p["value"].(float64)
	if p["name"] != "mu" || p["std"] != nil || p["std_reason"] == "" || !(mu > 0) {
		t.Errorf("mu %v", p)
	}
	if r, _ := m["residual_rms"].(float64); !(r > 0 && r < 0.05) {
		t.Errorf("residual_rms %v", m["residual_rms"])
	}
	if !strings.Contains(errOut, "tire identify:") || !strings.Contains(errOut, "ms per batch") || strings.Count(errOut, "  run ") < 2 {
		t.Errorf("summary on stderr: %q", errOut)
	}
	b, err := os.ReadFile(pfile)
	if err != nil {
		t.Fatal(err)
	}
	var pf map[string]any
	if err := json.Unmarshal(b, &pf); err != nil {
		t.Fatal(err)
	}
	if _, ok := pf[fitKeyForTest]; ok || pf["mu"] != mu {
		t.Errorf("parameter file %s: want mu %v and no fit record", b, mu)
	}
}

func jsonTestReadCSV(t *testing.T, s string) [][]string {
	t.Helper()
	rs, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// simulate -json: the summary matches the CSV written without -json; with
// -out the CSV is the same file.
func TestSimulateJSON(t *testing.T) {
	dir := t.TempDir()
	params := filepath.Join(dir, "p.json")
	if err := os.WriteFile(params, []byte(`{"model":"pioneer","form":"experimental","Ts":0.1,"vmax":0.75,"wmax":1.745,"acc_v":0.3,"dec_v":0.3,"acc_w":1.745,"dec_w":1.745,"delay_v":2,"delay_w":2,"tau_v":0.07,"tau_w":0.06,"thr0_v":0,"thr1_v":0.05,"thr0_w":0,"thr1_w":0.05}`), 0o644); err != nil {
		t.Fatal(err)
	}
	log := "../models/pioneer/testdata/p3dx.csv"
	st, plain, errOut := runCLI("simulate", "-model", "pioneer", "-params", params, "-controls", log)
	if st != 0 {
		t.Fatalf("simulate: status %d, stderr %q", st, errOut)
	}
	recs := jsonTestReadCSV(t, plain)
	st, out, errOut := runCLI("simulate", "-model", "pioneer", "-params", params, "-controls", log, "-json")
	if st != 0 {
		t.Fatalf("simulate -json: status %d, stderr %q", st, errOut)
	}
	m := oneJSON(t, "simulate", out)
	if m["model"] != "pioneer" || m["rows"] != float64(len(recs)-1) {
		t.Errorf("model %v, rows %v; CSV has %d rows", m["model"], m["rows"], len(recs)-1)
	}
	runs := map[string]bool{}
	for _, r := range recs[1:] {
		runs[r[3]] = true
	}
	if m["runs"] != float64(len(runs)) || len(runs) < 2 {
		t.Errorf("runs %v, CSV has %d trajectories", m["runs"], len(runs))
	}
	final, _ := m["final"].(map[string]any)
	last := recs[len(recs)-1]
	for i, c := range recs[0] {
		if c == "traj" {
			if final[c] != last[i] {
				t.Errorf("final %s %v, CSV %q", c, final[c], last[i])
			}
			continue
		}
		want, _ := strconv.ParseFloat(last[i], 64)
		if final[c] != want {
			t.Errorf("final %s %v, CSV %v", c, final[c], want)
		}
	}
	if w, ok := m["warnings"].([]any); !ok || len(w) != 0 {
		t.Errorf("warnings %v", m["warnings"])
	}
	sim := filepath.Join(dir, "sim.csv")
	st, out2, errOut := runCLI("simulate", "-model", "pioneer", "-params", params, "-controls", log, "-json", "-out", sim)
	if st != 0 || out2 != out {
		t.Errorf("-json -out: status %d, stdout %q (want %q), stderr %q", st, out2, out, errOut)
	}
	if b, err := os.ReadFile(sim); err != nil || !bytes.Equal(b, []byte(plain)) {
		t.Errorf("-out %s differs from the CSV on stdout without -json (%v)", sim, err)
	}
}

// An unconverged fit (exit 3) prints its report with its status; accepted
// with -allow-unconverged (exit 0), the acceptance is among the warnings.
func TestIdentifyJSONUnconverged(t *testing.T) {
	if testing.Short() {
		t.Skip("identifies")
	}
	args := append([]string{"identify", "-model", "tire", "-json", "-quiet", "-maxiter", "2"}, jsonSamples[3].args...)
	st, out, errOut := runCLI(args...)
	if st != exitUnconverged {
		t.Fatalf("status %d, stderr %q", st, errOut)
	}
	m := oneJSON(t, "unconverged", out)
	if m["converged"] != false || m["status"] == "converged" || m["status"] == nil {
		t.Errorf("status %v, converged %v", m["status"], m["converged"])
	}
	st, out, errOut = runCLI(append(args, "-allow-unconverged")...)
	if st != 0 {
		t.Fatalf("-allow-unconverged: status %d, stderr %q", st, errOut)
	}
	m = oneJSON(t, "accepted", out)
	ws, _ := m["warnings"].([]any)
	found := false
	for _, w := range ws {
		msg, _ := w.(map[string]any)["message"].(string)
		found = found || strings.Contains(msg, "accepted (-allow-unconverged)")
	}
	if !found {
		t.Errorf("warnings %v lack the accepted unconverged fit", ws)
	}
}
