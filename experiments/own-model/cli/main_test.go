package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/cli"
	"github.com/wheelgrad/wheelgrad/experiments/own-model/unicycle"
	"github.com/wheelgrad/wheelgrad/robots"
)

var truth = map[string]float64{"tau": 0.25, "k": 1.2, "c": 0.6}

// writeLog writes a synthetic log of the own model: 4 runs of 30 s of
// commands at 100 Hz stamped with ±2 ms jitter, a tracker at 50 Hz on its
// own clock (half a period late, jittered too) with 5-mm noise, and
// cmdNoise (m/s) on the executed speed that the log does not show.
func writeLog(t *testing.T, dir, name string, cmdNoise float64, seed uint64) string {
	t.Helper()
	path := filepath.Join(dir, name)
	var b bytes.Buffer
	l := unicycle.Log{Runs: 4, Steps: 3000, Dt: 0.01, Truth: []float64{truth["tau"], truth["k"], truth["c"]},
		CmdNoise: cmdNoise, PosNoise: 0.005, TrackEvery: 2, Jitter: 0.002, Seed: seed}
	if err := l.Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func registry(t *testing.T) *robots.Registry {
	t.Helper()
	m, err := robots.NewStepModel(Unicycle)
	if err != nil {
		t.Fatal(err)
	}
	return robots.Default().With(m)
}

func run(t *testing.T, reg *robots.Registry, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(args, reg, &out, &errb)
	return out.String(), errb.String(), code
}

type report struct {
	Model     string `json:"model"`
	Converged bool   `json:"converged"`
	Params    []struct {
		Name       string   `json:"name"`
		Value      float64  `json:"value"`
		Std        *float64 `json:"std"`
		Determined bool     `json:"determined"`
	} `json:"params"`
	ResidualRMS *float64 `json:"residual_rms"`
}

// TestIdentify: identify -json on a log with tracker noise and jitter
// prints the common report (every parameter with a finite σ) on stdout,
// the common summary on stderr and the parameters to -out, and recovers
// τ, k, c within 3σ.
func TestIdentify(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t)
	data := writeLog(t, dir, "train.csv", 0, 1)
	pfile := filepath.Join(dir, "p.json")
	stdout, stderr, code := run(t, reg, "identify", "-model", "unicycle", "-data", data, "-json", "-out", pfile)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"unicycle identify: 4 run(s)", "method lsq (forward-mode Jacobian)", "tau =", "(determined)", "no warnings"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary lacks %q:\n%s", want, stderr)
		}
	}
	var rep report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("stdout %q: %v", stdout, err)
	}
	if rep.Model != "unicycle" || !rep.Converged || len(rep.Params) != 3 || rep.ResidualRMS == nil {
		t.Fatalf("report %+v", rep)
	}
	// residuals of 5-mm tracker noise
	if r := *rep.ResidualRMS; r < 0.004 || r > 0.006 {
		t.Errorf("residual RMS %.4g m, want the tracker's 5 mm", r)
	}
	var file map[string]float64
	b, err := os.ReadFile(pfile)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	file = map[string]float64{}
	for k, v := range raw {
		if f, ok := v.(float64); ok {
			file[k] = f
		}
	}
	for _, p := range rep.Params {
		if p.Std == nil || !(*p.Std > 0) || math.IsInf(*p.Std, 0) {
			t.Errorf("%s: std %v, want finite", p.Name, p.Std)
			continue
		}
		if file[p.Name] != p.Value {
			t.Errorf("%s: -out has %v, the report %v", p.Name, file[p.Name], p.Value)
		}
		e := p.Value - truth[p.Name]
		t.Logf("%s = %.5g ± %.2g (truth %g, error %+.2f σ, %+.3f %%)", p.Name, p.Value, *p.Std, truth[p.Name], e / *p.Std, 100*e/truth[p.Name])
		if math.Abs(e) > 3**p.Std {
			t.Errorf("%s = %v ± %v: truth %v is %.1f σ away", p.Name, p.Value, *p.Std, truth[p.Name], math.Abs(e) / *p.Std)
		}
	}
}

// TestIdentifyCommandNoise: with command noise the model does not know
// (0.03 m/s on the executed speed), identify still converges near the
// truth (within 2 %); the σ then covers the tracker noise only (logged).
func TestIdentifyCommandNoise(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t)
	data := writeLog(t, dir, "train.csv", 0.03, 2)
	stdout, stderr, code := run(t, reg, "identify", "-model", "unicycle", "-data", data, "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Params {
		e := p.Value - truth[p.Name]
		t.Logf("%s = %.5g ± %.2g (truth %g, error %+.1f σ, %+.2f %%)", p.Name, p.Value, *p.Std, truth[p.Name], e / *p.Std, 100*e/truth[p.Name])
		if math.Abs(e) > 0.02*truth[p.Name] {
			t.Errorf("%s = %v, truth %v: off by %.1f %%", p.Name, p.Value, truth[p.Name], 100*e/truth[p.Name])
		}
	}
}

// TestValidateSimulate: the true parameters predict a held-out log (fit %
// over 99 for x and y, from the estimated start), and simulate writes t,
// traj and the states at every row, its positions on the tracker's within
// a few centimetres.
func TestValidateSimulate(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t)
	data := writeLog(t, dir, "held-out.csv", 0, 3)
	pfile := filepath.Join(dir, "truth.json")
	if err := os.WriteFile(pfile, []byte(`{"model": "unicycle", "tau": 0.25, "k": 1.2, "c": 0.6}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, reg, "validate", "-model", "unicycle", "-params", pfile, "-data", data, "-json")
	if code != 0 {
		t.Fatalf("validate: exit %d: %s", code, stderr)
	}
	var v struct {
		Channels []struct {
			Name       string  `json:"name"`
			FitPercent float64 `json:"fit_percent"`
		} `json:"channels"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("%q: %v", stdout, err)
	}
	if len(v.Channels) != 2 {
		t.Fatalf("channels %+v", v.Channels)
	}
	for _, c := range v.Channels {
		if c.FitPercent < 99 {
			t.Errorf("%s: fit %.2f %%, want over 99 with the true parameters", c.Name, c.FitPercent)
		}
	}
	text, stderr, code := run(t, reg, "validate", "-model", "unicycle", "-params", pfile, "-data", data)
	if code != 0 || !strings.Contains(text, "unicycle validate:") || !strings.Contains(text, "endpoint") {
		t.Errorf("validate text: exit %d\n%s%s", code, text, stderr)
	}

	stdout, stderr, code = run(t, reg, "simulate", "-model", "unicycle", "-params", pfile, "-controls", data)
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	sim, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	logRows, err := csv.NewReader(mustOpen(t, data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sim[0], ","); got != "t,traj,x,y,th,v" {
		t.Fatalf("header %s", got)
	}
	if len(sim) != len(logRows) {
		t.Fatalf("%d rows simulated for %d logged", len(sim)-1, len(logRows)-1)
	}
	var worst float64
	for i := 1; i < len(sim); i++ {
		if logRows[i][3] == "" || sim[i][0] != logRows[i][0] {
			continue
		}
		dx := num(t, sim[i][2]) - num(t, logRows[i][3])
		dy := num(t, sim[i][3]) - num(t, logRows[i][4])
		worst = max(worst, math.Hypot(dx, dy))
	}
	t.Logf("simulate: largest position error on the tracker's samples %.3g m over 4 × 30 s", worst)
	if worst > 0.1 {
		t.Errorf("simulated positions up to %.3g m off the tracker's", worst)
	}
}

// TestBadInput: a parameter file with an unknown key and a log with a bad
// cell are one-line errors naming the file and the key or line and column
// (exit 1); an unknown method is a usage error (exit 2).
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t)
	data := writeLog(t, dir, "log.csv", 0, 4)
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\"tau\": 0.25,\n \"kk\": 1.2, \"c\": 0.6}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, reg, "simulate", "-model", "unicycle", "-params", bad, "-controls", data)
	if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "bad.json: line 2") || !strings.Contains(stderr, `key "kk"`) {
		t.Errorf("unknown key: exit %d, %q", code, stderr)
	}
	missing := filepath.Join(dir, "missing.json")
	if err := os.WriteFile(missing, []byte(`{"tau": 0.25, "k": 1.2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = run(t, reg, "validate", "-model", "unicycle", "-params", missing, "-data", data)
	if code != 1 || !strings.Contains(stderr, `key "c"`) {
		t.Errorf("missing key: exit %d, %q", code, stderr)
	}
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	cells := strings.Split(lines[5], ",")
	cells[0] = "0.05s"
	lines[5] = strings.Join(cells, ",")
	badLog := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(badLog, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = run(t, reg, "identify", "-model", "unicycle", "-data", badLog)
	if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "bad.csv: line 6") || !strings.Contains(stderr, `"t"`) {
		t.Errorf("bad cell: exit %d, %q", code, stderr)
	}
	_, stderr, code = run(t, reg, "identify", "-model", "unicycle", "-data", data, "-method", "cmaes")
	if code != 2 || !strings.Contains(stderr, "lsq") {
		t.Errorf("bad method: exit %d, %q", code, stderr)
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestColumns: -columns reads a log whose columns are named otherwise,
// for the user's model as for the built-in ones: the same validation.
func TestColumns(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t)
	data := writeLog(t, dir, "log.csv", 0, 5)
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	renamed := filepath.Join(dir, "renamed.csv")
	if err := os.WriteFile(renamed, []byte(strings.Replace(string(b), "t,u,w,x,y,traj", "stamp,speed,yawrate,px,py,traj", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	pfile := filepath.Join(dir, "truth.json")
	if err := os.WriteFile(pfile, []byte(`{"tau": 0.25, "k": 1.2, "c": 0.6}`), 0o644); err != nil {
		t.Fatal(err)
	}
	want, stderr, code := run(t, reg, "validate", "-model", "unicycle", "-params", pfile, "-data", data, "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, stderr, code := run(t, reg, "validate", "-model", "unicycle", "-params", pfile, "-data", renamed, "-json",
		"-columns", "t=stamp,u=speed,w=yawrate,x=px,y=py")
	if code != 0 {
		t.Fatalf("-columns: exit %d: %s", code, stderr)
	}
	if got != want {
		t.Errorf("-columns on the renamed log:\n%s\nthe log itself:\n%s", got, want)
	}
}

// A time gap bridged by -gaps bridge (and by simulate) is held step by
// step: one of 10⁶ s at the log's 0.01 s (10⁸ steps) was an identification
// that did not end, one of 10³⁰ s a step count past int's range (a panic,
// reported as an internal error). Both are refused, naming the file, the
// last row's line and column t, with nothing written.
func TestRefusesRunsTooLong(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t)
	for _, gap := range []string{"1e6", "1e30"} {
		data := filepath.Join(dir, "gap"+gap+".csv")
		csv := "t,u,w,x,y\n0,0.5,0.1,0,0\n0.01,0.5,0.1,,\n0.02,0.5,0.1,0.01,0\n0.03,0.5,0.1,,\n" + gap + ",0.5,0.1,0.02,0\n"
		if err := os.WriteFile(data, []byte(csv), 0o644); err != nil {
			t.Fatal(err)
		}
		pfile := filepath.Join(dir, "p"+gap+".json")
		_, stderr, code := run(t, reg, "identify", "-model", "unicycle", "-data", data, "-gaps", "bridge", "-out", pfile)
		if code != 1 || !strings.Contains(stderr, data+": line 6, column \"t\": the run lasts") || !strings.Contains(stderr, "above the limit of 1e+07") {
			t.Errorf("identify, gap %s s: exit %d, stderr %q", gap, code, stderr)
		}
		if _, err := os.Stat(pfile); err == nil {
			t.Errorf("identify, gap %s s: %s written", gap, pfile)
		}
		sim := filepath.Join(dir, "sim"+gap+".csv")
		params := filepath.Join(dir, "params.json")
		if err := os.WriteFile(params, []byte(`{"model":"unicycle","tau":0.3,"k":1.1,"c":0.5}`), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code = run(t, reg, "simulate", "-model", "unicycle", "-params", params, "-controls", data, "-out", sim)
		if code != 1 || !strings.Contains(stderr, data+": line 6, column \"t\": the run lasts") {
			t.Errorf("simulate, gap %s s: exit %d, stderr %q", gap, code, stderr)
		}
		if _, err := os.Stat(sim); err == nil {
			t.Errorf("simulate, gap %s s: %s written", gap, sim)
		}
	}
}
