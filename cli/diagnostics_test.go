package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/models/tire"
	"github.com/wheelgrad/wheelgrad/robots"
)

// The cases of issue 16, each on a small generated log (camera noise 3 mm,
// heading noise 5 mrad, 60-Hz camera under 240-Hz commands): the right
// answer or a clear warning or error, never exit 0 with confident numbers.

// mecanumRow is one row of a generated Mecanum log.
type mecanumRow struct {
	t       float64
	w       [4]float64
	x, y, a float64 // NaN: no camera sample
	run     string
}

// genMecanum generates runs with the true μ of mecanum_test.go, a small
// timing jitter (±0.1 ms) on t.
func genMecanum(cmds [][4]float64, seed uint64) []mecanumRow {
	p := mecanum.DefaultParams()
	p.Mu = mecanumTrueMu
	var rows []mecanumRow
	for i, c := range cmds {
		r, _ := mecanum.Synthesize(p, mecanum.SynthSpec{Command: c, Duration: 1679.0 / 240, Pose0: [3]float64{0.2, -0.1, 0.4 * float64(i)}, Noise: 0.003, HeadNoise: 0.005, Seed: seed + uint64(i)})
		for k := range r.T {
			rows = append(rows, mecanumRow{r.T[k], c, r.X[k], r.Y[k], r.Theta[k], fmt.Sprintf("run%d", i)})
		}
	}
	return rows
}

func writeMecanumRows(t *testing.T, path string, rows []mecanumRow) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("t,w1,w2,w3,w4,x,y,theta,traj\n")
	for _, r := range rows {
		pose := ",,"
		if !math.IsNaN(r.x) {
			pose = fmt.Sprintf("%v,%v,%v", r.x, r.y, r.a)
		}
		fmt.Fprintf(&b, "%v,%v,%v,%v,%v,%s,%s\n", r.t, r.w[0], r.w[1], r.w[2], r.w[3], pose, r.run)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var diagCmds = [][4]float64{{8, 8, 8, 8}, {-6, 6, -6, 6}, {4, 10, 10, 4}}

func readMu(t *testing.T, path string) []float64 {
	t.Helper()
	var p mecanum.Params
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return p.Mu
}

// A time gap (1.25 s of rows removed from a run) is an error naming its
// line; -gaps split fits the pieces as runs of their own and gets μ back;
// -gaps bridge is accepted with a warning.
func TestDiagMecanumGap(t *testing.T) {
	dir := t.TempDir()
	rows := genMecanum(diagCmds, 21)
	var cut []mecanumRow
	gapLine := 0
	for i, r := range rows {
		if r.run == "run1" && r.t >= 2 && r.t < 3.25 {
			continue
		}
		if r.run == "run1" && r.t >= 3.25 && gapLine == 0 {
			gapLine = len(cut) + 2 // header is line 1
		}
		_ = i
		cut = append(cut, r)
	}
	log := writeMecanumRows(t, filepath.Join(dir, "gap.csv"), cut)
	st, _, errOut := runCLI("identify", "-model", "mecanum", "-data", log, "-out", filepath.Join(dir, "p.json"))
	if st != 1 || !strings.Contains(errOut, fmt.Sprintf("line %d", gapLine)) || !strings.Contains(errOut, "time gap of 1.25") || !strings.Contains(errOut, "-gaps split") {
		t.Fatalf("gap: status %d, stderr %q (gap at line %d)", st, errOut, gapLine)
	}
	if _, err := os.Stat(filepath.Join(dir, "p.json")); err == nil {
		t.Error("gap: a parameter file was written")
	}
	out := filepath.Join(dir, "split.json")
	st, _, errOut = runCLI("identify", "-model", "mecanum", "-data", log, "-gaps", "split", "-out", out)
	if st != 0 || !strings.Contains(errOut, "split at 1 time gap") {
		t.Fatalf("split: status %d, stderr %q", st, errOut)
	}
	mu := readMu(t, out)
	for j := range 4 {
		if math.Abs(mu[j]-mecanumTrueMu[j]) > 0.03 {
			t.Errorf("split: μ = %.3f, true %v", mu, mecanumTrueMu)
			break
		}
	}
	st, _, errOut = runCLI("identify", "-model", "mecanum", "-data", log, "-gaps", "bridge", "-out", filepath.Join(dir, "bridge.json"))
	if !strings.Contains(errOut, "warning: bridged 1 time gap") {
		t.Errorf("bridge: status %d, stderr %q", st, errOut)
	}
}

// A gap bridged by -gaps bridge that the spline through the camera poses
// cannot span (a last pose 10³⁰ s after the others): the error names the
// line of the pose after the gap and column t, not the run's first line
// and column x (as it did), and nothing is written.
func TestDiagMecanumBridgedGapSpline(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "log.csv")
	writeMecanumLog(t, logf, [][4]float64{{8, 8, 8, 8}}, 3)
	b, err := os.ReadFile(logf)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(b), "\n")
	b = append(b, "1e30,8,8,8,8,0.5,0.5,0.1,run0\n"...)
	if err := os.WriteFile(logf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "p.json")
	st, _, errOut := runCLI("identify", "-model", "mecanum", "-data", logf, "-gaps", "bridge", "-out", out)
	want := fmt.Sprintf("%s: line %d, column \"t\": a time gap of 1e+30 s before this camera pose", logf, lines+1)
	if st != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "-gaps split") {
		t.Errorf("status %d, stderr %q, want %q", st, errOut, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a parameter file was written")
	}
}

// Wrong units: each is warned about, naming the probable cause.
func TestDiagMecanumUnits(t *testing.T) {
	dir := t.TempDir()
	base := genMecanum(diagCmds[:2], 31)
	cases := []struct {
		name string
		edit func(r *mecanumRow)
		want string
	}{
		{"mm", func(r *mecanumRow) { r.x, r.y = 1000*r.x, 1000*r.y }, "x, y in mm"},
		{"rpm", func(r *mecanumRow) {
			for j := range 4 {
				r.w[j] *= 60 / (2 * math.Pi)
			}
		}, "in rpm"},
		{"ms", func(r *mecanumRow) { r.t *= 1000 }, "t in milliseconds"},
		{"degrees", func(r *mecanumRow) { r.a *= 180 / math.Pi }, "theta in degrees"},
	}
	for _, c := range cases {
		rows := append([]mecanumRow(nil), base...)
		for i := range rows {
			c.edit(&rows[i])
		}
		log := writeMecanumRows(t, filepath.Join(dir, c.name+".csv"), rows)
		st, _, errOut := runCLI("identify", "-model", "mecanum", "-data", log, "-out", filepath.Join(dir, c.name+".json"), "-allow-undetermined")
		if !strings.Contains(errOut, "warning:") || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: status %d, no warning naming %q:\n%s", c.name, st, c.want, errOut)
		}
		if strings.Contains(errOut, "no warnings") {
			t.Errorf("%s: the summary says no warnings", c.name)
		}
	}
}

// No motion: refused with exit status 1 and no parameter file.
func TestDiagMecanumNoMotion(t *testing.T) {
	dir := t.TempDir()
	rows := genMecanum([][4]float64{{0, 0, 0, 0}}, 41)
	log := writeMecanumRows(t, filepath.Join(dir, "still.csv"), rows)
	out := filepath.Join(dir, "p.json")
	st, _, errOut := runCLI("identify", "-model", "mecanum", "-data", log, "-out", out)
	if st != 1 || !strings.Contains(errOut, "commanded wheel speed") {
		t.Fatalf("no motion: status %d, stderr %q", st, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("no motion: a parameter file was written")
	}
}

// -pose fixed: the reported σ covers the error (the first camera pose's
// noise bends the whole path: the residuals are correlated).
func TestDiagMecanumPoseFixedSigma(t *testing.T) {
	dir := t.TempDir()
	log := writeMecanumRows(t, filepath.Join(dir, "log.csv"), genMecanum(diagCmds, 51))
	out := filepath.Join(dir, "p.json")
	st, rep, errOut := runCLI("identify", "-model", "mecanum", "-data", log, "-pose", "fixed", "-out", out)
	if st != 0 {
		t.Fatalf("status %d, stderr %q", st, errOut)
	}
	mu := readMu(t, out)
	t.Log(rep)
	for j := range 4 {
		var v, sd float64
		line := ""
		for _, l := range strings.Split(rep, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), fmt.Sprintf("mu%d ", j+1)) {
				line = l
			}
		}
		if _, err := fmt.Sscanf(strings.TrimSpace(line), fmt.Sprintf("mu%d = %%g ± %%g", j+1), &v, &sd); err != nil {
			t.Fatalf("report line %q: %v\n%s", line, err, rep)
		}
		if z := math.Abs(mu[j]-mecanumTrueMu[j]) / sd; z > 4 {
			t.Errorf("μ%d = %.4f ± %.4f, true %.2f: %.1f σ off", j+1, mu[j], sd, mecanumTrueMu[j], z)
		}
	}
}

// genSkidsteer is a synthetic asphalt log (n random commands held 5 s,
// 100-Hz command rows, 10-Hz visual odometry with drift) as rows
// t, vc, wc, x, y, psi (NaN: no pose).
func genSkidsteer(n int, seed uint64) [][6]float64 {
	tt, vc, wc := skidsteer.RandomCommands(n, 0.01, 5, seed)
	l, _ := skidsteer.Generate(skidsteer.Table2[0].A[:], tt, vc, wc, 10, skidsteer.SurfaceNoise("asphalt"), seed+1)
	rows := make([][6]float64, len(l.T))
	for i := range l.T {
		x, y, p := math.NaN(), math.NaN(), math.NaN()
		if l.HasPose[i] {
			x, y, p = l.Pose[i].X, l.Pose[i].Y, l.Pose[i].Psi
		}
		rows[i] = [6]float64{l.T[i], l.Vc[i], l.Wc[i], x, y, p}
	}
	return rows
}

func writeSkidRows(t *testing.T, path string, rows [][6]float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("t,vc,wc,x,y,psi\n")
	for _, r := range rows {
		for i, v := range r {
			if i > 0 {
				b.WriteByte(',')
			}
			if !math.IsNaN(v) {
				fmt.Fprintf(&b, "%v", v)
			}
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readA32(t *testing.T, path string) float64 {
	t.Helper()
	var p skidsteer.Params
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return p.A[2][1]
}

// Skid-steer: a gap is an error naming its line, -gaps split recovers a32;
// wrong units warn; a log without motion is refused.
func TestDiagSkidsteer(t *testing.T) {
	dir := t.TempDir()
	rows := genSkidsteer(30, 61)
	truth := skidsteer.Table2[0].A[7]
	// 1.25 s of rows removed in the middle
	var cut [][6]float64
	gapLine := 0
	for _, r := range rows {
		if r[0] >= 60 && r[0] < 61.25 {
			continue
		}
		if r[0] >= 61.25 && gapLine == 0 {
			gapLine = len(cut) + 2
		}
		cut = append(cut, r)
	}
	log := writeSkidRows(t, filepath.Join(dir, "gap.csv"), cut)
	st, _, errOut := runCLI("identify", "-model", "skidsteer", "-data", log, "-out", filepath.Join(dir, "gap.json"))
	if st != 1 || !strings.Contains(errOut, fmt.Sprintf("line %d", gapLine)) || !strings.Contains(errOut, "time gap") {
		t.Fatalf("gap: status %d, stderr %q (gap at line %d)", st, errOut, gapLine)
	}
	out := filepath.Join(dir, "split.json")
	st, _, errOut = runCLI("identify", "-model", "skidsteer", "-data", log, "-gaps", "split", "-out", out)
	if st != 0 {
		t.Fatalf("split: status %d, stderr %q", st, errOut)
	}
	if a32 := readA32(t, out); math.Abs(a32-truth) > 0.1*math.Abs(truth) {
		t.Errorf("split: a32 = %.4f, true %.4f", a32, truth)
	}
	for _, c := range []struct {
		name string
		edit func(r *[6]float64)
		want string
	}{
		{"mm", func(r *[6]float64) { r[3], r[4] = 1000*r[3], 1000*r[4] }, "x, y in mm"},
		{"degps", func(r *[6]float64) { r[2] *= 180 / math.Pi }, "wc in deg/s"},
		{"ms", func(r *[6]float64) { r[0] *= 1000 }, "t in milliseconds"},
		{"degrees", func(r *[6]float64) { r[5] *= 180 / math.Pi }, "psi in degrees"},
	} {
		rs := append([][6]float64(nil), rows...)
		for i := range rs {
			c.edit(&rs[i])
		}
		log := writeSkidRows(t, filepath.Join(dir, c.name+".csv"), rs)
		st, _, errOut := runCLI("identify", "-model", "skidsteer", "-data", log, "-out", filepath.Join(dir, c.name+".json"), "-allow-undetermined")
		if !strings.Contains(errOut, "warning:") || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: status %d, no warning naming %q:\n%s", c.name, st, c.want, errOut)
		}
	}
	still := append([][6]float64(nil), rows[:500]...)
	for i := range still {
		still[i][1], still[i][2] = 0, 0
		if !math.IsNaN(still[i][3]) {
			still[i][3], still[i][4], still[i][5] = 0, 0, 0
		}
	}
	log = writeSkidRows(t, filepath.Join(dir, "still.csv"), still)
	st, _, errOut = runCLI("identify", "-model", "skidsteer", "-data", log, "-out", filepath.Join(dir, "still.json"))
	if st != 1 || !strings.Contains(errOut, "nothing in the log excites") {
		t.Errorf("no motion: status %d, stderr %q", st, errOut)
	}
}

// Skid-steer simulate anchors the rollout at the first pose's row (not at
// row 0): a controls file whose first pose is at t = 0.1 reproduces it there.
func TestDiagSkidsteerSimulateFirstPoseTime(t *testing.T) {
	dir := t.TempDir()
	body := "t,vc,wc,x,y,psi\n0,1,0,,,\n0.05,1,0,,,\n0.1,1,0,2,3,0\n0.15,1,0,,,\n0.2,1,0,,,\n"
	ctl := filepath.Join(dir, "c.csv")
	os.WriteFile(ctl, []byte(body), 0o644)
	pj := filepath.Join(dir, "p.json")
	b, _ := json.Marshal(skidsteer.FromCoeffs(make([]float64, 9)))
	os.WriteFile(pj, b, 0o644)
	st, out, errOut := runCLI("simulate", "-model", "skidsteer", "-params", pj, "-controls", ctl)
	if st != 0 {
		t.Fatalf("status %d, stderr %q", st, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := map[float64][3]float64{0: {1.9, 3, 0}, 0.1: {2, 3, 0}, 0.2: {2.1, 3, 0}}
	seen := 0
	for _, l := range lines[1:] {
		var tt, x, y, psi float64
		if _, err := fmt.Sscanf(strings.ReplaceAll(l, ",", " "), "%g %g %g %g", &tt, &x, &y, &psi); err != nil {
			t.Fatalf("row %q: %v", l, err)
		}
		if w, ok := want[tt]; ok {
			seen++
			if math.Abs(x-w[0]) > 1e-9 || math.Abs(y-w[1]) > 1e-9 || math.Abs(psi-w[2]) > 1e-9 {
				t.Errorf("t = %g: pose %g, %g, %g, want %v", tt, x, y, psi, w)
			}
		}
	}
	if seen != 3 {
		t.Errorf("simulate output:\n%s", out)
	}
}

// genDiffDrive is a synthetic training log (paper parameters, 1 cm/s speed
// noise) as columns t, uf, ul, vr, vl.
func genDiffDrive(t *testing.T, seconds float64, seed uint64) [][]float64 {
	t.Helper()
	lg, err := diffdrive.Synthesize(diffdrive.Paper(), diffdrive.SynthConfig{Drive: diffdrive.Training, Seconds: seconds, Noise: 0.01, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return [][]float64{lg.T, lg.UF, lg.UL, lg.VR, lg.VL}
}

func writeDDCols(t *testing.T, path string, c [][]float64) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := dataset.WriteCSV(f, []string{"t", "uf", "ul", "vr", "vl"}, c); err != nil {
		t.Fatal(err)
	}
	return path
}

func cloneCols(c [][]float64) [][]float64 {
	out := make([][]float64, len(c))
	for i := range c {
		out[i] = append([]float64(nil), c[i]...)
	}
	return out
}

// Diffdrive: ±0.1 ms jitter is resampled; a step unlike h names where h
// comes from; a gap is an error naming its line (as for every model); no
// motion and no turning commands are refused; speeds in rad/s warn.
func TestDiagDiffDrive(t *testing.T) {
	dir := t.TempDir()
	base := genDiffDrive(t, 150, 71)
	rng := rand.New(rand.NewPCG(72, 1))
	jit := cloneCols(base)
	for k := range jit[0] {
		jit[0][k] += 1e-4 * (2*rng.Float64() - 1)
	}
	log := writeDDCols(t, filepath.Join(dir, "jitter.csv"), jit)
	st, _, errOut := runCLI("identify", "-model", "diffdrive", "-data", log, "-out", filepath.Join(dir, "j.json"))
	if st != 0 || !strings.Contains(errOut, "resampled") || strings.Contains(errOut, "warning") {
		t.Errorf("jitter: status %d, stderr %q", st, errOut)
	}
	slow := cloneCols(base)
	for k := range slow[0] {
		slow[0][k] *= 0.1 / 0.06
	}
	log = writeDDCols(t, filepath.Join(dir, "slow.csv"), slow)
	st, _, errOut = runCLI("identify", "-model", "diffdrive", "-data", log)
	if st != 1 || !strings.Contains(errOut, "line 3") || !strings.Contains(errOut, `set "h"`) {
		t.Errorf("other h: status %d, stderr %q", st, errOut)
	}
	gap := cloneCols(base)
	for i := range gap {
		gap[i] = append(gap[i][:1000:1000], gap[i][1020:]...)
	}
	log = writeDDCols(t, filepath.Join(dir, "gap.csv"), gap)
	st, _, errOut = runCLI("identify", "-model", "diffdrive", "-data", log)
	if st != 1 || !strings.Contains(errOut, "line 1002") || !strings.Contains(errOut, "time gap") {
		t.Errorf("gap: status %d, stderr %q", st, errOut)
	}
	zero := cloneCols(base)
	for i := 1; i < 5; i++ {
		for k := range zero[i] {
			zero[i][k] = 0
		}
	}
	log = writeDDCols(t, filepath.Join(dir, "zero.csv"), zero)
	out := filepath.Join(dir, "zero.json")
	st, _, errOut = runCLI("identify", "-model", "diffdrive", "-data", log, "-out", out)
	if _, err := os.Stat(out); st != 1 || err == nil || !strings.Contains(errOut, "nothing in the log excites") {
		t.Errorf("no motion: status %d, stderr %q", st, errOut)
	}
	rad := cloneCols(base)
	for i := 3; i < 5; i++ {
		for k := range rad[i] {
			rad[i][k] /= 0.1 // wheel radius 0.1 m: rad/s
		}
	}
	log = writeDDCols(t, filepath.Join(dir, "rad.csv"), rad)
	st, _, errOut = runCLI("identify", "-model", "diffdrive", "-data", log, "-out", filepath.Join(dir, "rad.json"))
	if !strings.Contains(errOut, "warning:") || !strings.Contains(errOut, "in rad/s") {
		t.Errorf("rad/s: status %d, stderr %q", st, errOut)
	}
	straight := cloneCols(base)
	for k := range straight[2] {
		straight[2][k] = 0
	}
	log = writeDDCols(t, filepath.Join(dir, "straight.csv"), straight)
	st, _, errOut = runCLI("identify", "-model", "diffdrive", "-data", log, "-out", filepath.Join(dir, "s.json"))
	if st != 1 || !strings.Contains(errOut, "c1, c2 not determined") {
		t.Errorf("no turning: status %d, stderr %q", st, errOut)
	}
	// -json: the refusal prints nothing on stdout; with -allow-undetermined
	// the report says which parameters are not determined.
	st, jout, errOut := runCLI("identify", "-model", "diffdrive", "-data", log, "-json")
	if st != 1 || jout != "" || !strings.Contains(errOut, "c1, c2 not determined") {
		t.Errorf("no turning, -json: status %d, stdout %q, stderr %q", st, jout, errOut)
	}
	st, jout, errOut = runCLI("identify", "-model", "diffdrive", "-data", log, "-json", "-allow-undetermined", "-quiet")
	if st != 0 {
		t.Fatalf("no turning, -json -allow-undetermined: status %d, stderr %q", st, errOut)
	}
	var jr struct {
		Params []struct {
			Name       string
			Determined bool
		}
		Warnings []struct{ Message string }
	}
	if err := json.Unmarshal([]byte(jout), &jr); err != nil || len(jr.Params) != 6 {
		t.Fatalf("-json: %v, %q", err, jout)
	}
	for _, p := range jr.Params {
		if want := p.Name != "c1" && p.Name != "c2"; p.Determined != want {
			t.Errorf("-json: %s determined %v, want %v", p.Name, p.Determined, want)
		}
	}
	if n := len(jr.Warnings); n == 0 || !strings.Contains(jr.Warnings[n-1].Message, "-allow-undetermined") {
		t.Errorf("-json warnings %+v: want the -allow-undetermined one", jr.Warnings)
	}
	// -fix c1,c2 holds them at the start (the paper's) and fits the rest
	out = filepath.Join(dir, "fixed.json")
	st, rep, errOut := runCLI("identify", "-model", "diffdrive", "-data", log, "-fix", "c1,c2", "-out", out)
	if st != 0 || !strings.Contains(rep, "fixed at -init") {
		t.Fatalf("-fix c1,c2: status %d, stdout %q, stderr %q", st, rep, errOut)
	}
	var p diffdrive.Params
	if err := dataset.ReadJSONFile(out, &p, false); err != nil {
		t.Fatal(err)
	}
	if paper := diffdrive.Paper(); p.C1 != paper.C1 || p.C2 != paper.C2 || math.Abs(p.Alpha/paper.Alpha-1) > 0.1 {
		t.Errorf("-fix c1,c2: c1 %v c2 %v α %v, paper %v %v %v", p.C1, p.C2, p.Alpha, paper.C1, paper.C2, paper.Alpha)
	}
}

// Tire: positions in mm warn; a log whose wheels never turn is refused; a
// gap is an error naming its line.
func TestDiagTire(t *testing.T) {
	dir := t.TempDir()
	truth := tire.Jackal()
	logPath := filepath.Join(dir, "log.csv")
	writeTireLog(t, logPath, truth, []int{2})
	tab, err := dataset.ReadFile(logPath, tire.LogSpec())
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, edit func(k int, row []float64) bool) string {
		var b strings.Builder
		b.WriteString("t,wl,wr,x,y,psi\n")
		for k := range tab.Len() {
			row := []float64{tab.Col("t")[k], tab.Col("wl")[k], tab.Col("wr")[k], tab.Col("x")[k], tab.Col("y")[k], tab.Col("psi")[k]}
			if !edit(k, row) {
				continue
			}
			for i, v := range row {
				if i > 0 {
					b.WriteByte(',')
				}
				if !math.IsNaN(v) {
					fmt.Fprintf(&b, "%v", v)
				}
			}
			b.WriteByte('\n')
		}
		return writeFile(t, dir, name, b.String())
	}
	mm := write("mm.csv", func(_ int, r []float64) bool { r[3], r[4] = 1000*r[3], 1000*r[4]; return true })
	st, _, errOut := runCLI("identify", "-model", "tire", "-data", mm, "-out", filepath.Join(dir, "mm.json"), "-allow-undetermined")
	if !strings.Contains(errOut, "x, y in mm") {
		t.Errorf("mm: status %d, stderr %q", st, errOut)
	}
	still := write("still.csv", func(_ int, r []float64) bool { r[1], r[2] = 0, 0; return true })
	st, _, errOut = runCLI("identify", "-model", "tire", "-data", still)
	if st != 1 || !strings.Contains(errOut, "nothing in the log excites") {
		t.Errorf("no motion: status %d, stderr %q", st, errOut)
	}
	n := tab.Len()
	gap := write("gap.csv", func(k int, _ []float64) bool { return k < n/2 || k >= n/2+n/10 })
	st, _, errOut = runCLI("identify", "-model", "tire", "-data", gap)
	if want := fmt.Sprintf("line %d", n/2+2); st != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "time gap") {
		t.Errorf("gap: status %d, stderr %q (want %s)", st, errOut, want)
	}
}

// rmsOf reads "what: RMS x m" from follow's report.
func rmsOf(t *testing.T, report, what string) float64 {
	t.Helper()
	for _, l := range strings.Split(report, "\n") {
		if i := strings.Index(l, what); i >= 0 {
			if j := strings.Index(l, "RMS "); j > i {
				var v float64
				if _, err := fmt.Sscanf(l[j:], "RMS %g", &v); err == nil {
					return v
				}
			}
		}
	}
	t.Fatalf("no %q RMS in %q", what, report)
	return 0
}

// follow: a waypoint file away from the origin is followed from its first
// point; uneven timing is resampled (no swing); -duration is honoured; the
// heading's source is said; -theta0 in degrees is refused; the circle's
// default start heading is the path's tangent.
func TestDiagFollow(t *testing.T) {
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", followParams)
	// a quarter circle of radius 1 around (2, 1), starting at (3, 1),
	// sampled unevenly (steps 0.25 s and 1 s alternating)
	var b strings.Builder
	b.WriteString("t,x,y\n")
	tt := 0.0
	for i := 0; tt <= 10; i++ {
		a := math.Pi / 2 * tt / 10
		fmt.Fprintf(&b, "%g,%g,%g\n", tt, 2+math.Cos(a), 1+math.Sin(a))
		if i%2 == 0 {
			tt += 0.25
		} else {
			tt += 1
		}
	}
	ref := writeFile(t, dir, "ref.csv", b.String())
	out := filepath.Join(dir, "c.csv")
	st, _, errOut := runCLI("follow", "-model", "mecanum", "-params", params, "-path", ref, "-duration", "12", "-out", out)
	if st != 0 {
		t.Fatalf("status %d, stderr %q", st, errOut)
	}
	for _, want := range []string{"starting at the path's first point (3, 1)", "resampled", "stretched to -duration 12", "start heading"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("report lacks %q:\n%s", want, errOut)
		}
	}
	if rms := rmsOf(t, errOut, "predicted:"); rms > 0.05 {
		t.Errorf("predicted RMS %.3f m from the path", rms)
	}
	tab, err := dataset.ReadFile(out, dataset.Spec{Time: "t", Columns: []dataset.Column{
		{Name: "t"}, {Name: "w1"}, {Name: "w2"}, {Name: "w3"}, {Name: "w4"},
		{Name: "x", Sparse: true}, {Name: "y", Sparse: true}, {Name: "theta", Sparse: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if last := tab.Col("t")[tab.Len()-1]; math.Abs(last-12) > 1e-9 || tab.Col("x")[0] != 3 || tab.Col("y")[0] != 1 {
		t.Errorf("controls end at t = %g (want 12), start at (%g, %g)", last, tab.Col("x")[0], tab.Col("y")[0])
	}
	// theta column with -heading: said, not silent
	th := writeFile(t, dir, "th.csv", "t,x,y,theta\n0,0,0,0\n5,0.5,0,0\n10,1,0,0\n")
	st, _, errOut = runCLI("follow", "-model", "mecanum", "-params", params, "-path", th, "-heading", "tangent", "-out", filepath.Join(dir, "th.out"))
	if st != 0 || !strings.Contains(errOut, "theta column") || !strings.Contains(errOut, "-heading tangent is ignored") {
		t.Errorf("theta column: status %d, stderr %q", st, errOut)
	}
	st, _, errOut = runCLI("follow", "-model", "mecanum", "-params", params, "-path", "circle", "-theta0", "90")
	if st != 2 || !strings.Contains(errOut, "radians") {
		t.Errorf("-theta0 90: status %d, stderr %q", st, errOut)
	}
	st, _, errOut = runCLI("follow", "-model", "mecanum", "-params", params, "-path", "circle", "-duration", "10", "-out", filepath.Join(dir, "circle.csv"))
	if st != 0 || !strings.Contains(errOut, "start heading -1.5708") {
		t.Fatalf("circle: status %d, stderr %q", st, errOut)
	}
	if rms := rmsOf(t, errOut, "predicted:"); rms > 0.05 {
		t.Errorf("circle from the default heading: predicted RMS %.3f m", rms)
	}
}

// The command line: -model in any case, -method ipem (the README's name)
// accepted, a model's error lists only its own methods, the same file twice
// refused, -v into a file without \r or escape codes, and the summary
// block of every identify.
func TestDiagCommandLine(t *testing.T) {
	dir := t.TempDir()
	rows := genSkidsteer(30, 81)
	log := writeSkidRows(t, filepath.Join(dir, "log.csv"), rows)
	st, _, errOut := runCLI("identify", "-model", "SkidSteer", "-method", "ipem", "-data", log, "-out", filepath.Join(dir, "p.json"), "-v")
	if st != 0 {
		t.Fatalf("-model SkidSteer -method ipem: status %d, stderr %q", st, errOut)
	}
	if strings.ContainsAny(errOut, "\r\033") {
		t.Errorf("-v into a file wrote \\r or escape codes: %q", errOut)
	}
	st, _, errOut = runCLI("identify", "-model", "diffdrive", "-method", "nope", "-data", log)
	if st != 2 || strings.Contains(errOut, "ekf") || !strings.Contains(errOut, "lbfgsb, neldermead, cmaes") {
		t.Errorf("diffdrive -method nope: status %d, stderr %q", st, errOut)
	}
	st, _, errOut = runCLI("identify", "-model", "skidsteer", "-data", log+","+filepath.Join(dir, ".", "log.csv"))
	if st != 2 || !strings.Contains(errOut, "twice") {
		t.Errorf("same file twice: status %d, stderr %q", st, errOut)
	}
	// the same block for every model (the skid-steer and tire ones here;
	// mecanum and diffdrive in their tests)
	st, stdout, _ := runCLI("identify", "-model", "skidsteer", "-method", "batch", "-data", log, "-out", filepath.Join(dir, "b.json"))
	for _, want := range []string{"skidsteer identify:", "method batch", "iterations", "a32 =", "±", "warning"} {
		if st != 0 || !strings.Contains(stdout, want) {
			t.Errorf("batch summary lacks %q (status %d):\n%s", want, st, stdout)
		}
	}
}

func TestDiagFailureHint(t *testing.T) {
	err := robots.FailureHint(fmt.Errorf("calibrate: stage 1 (T = 0, eps = 0): opt: objective returned NaN at evaluation 3"))
	if !strings.Contains(err.Error(), "units") || !strings.Contains(err.Error(), "normalised") {
		t.Errorf("hint: %v", err)
	}
	if err := robots.FailureHint(fmt.Errorf("file not found")); strings.Contains(err.Error(), "units") {
		t.Errorf("a non-numerical error got the hint: %v", err)
	}
}

// fitOf reads a channel's fit % from validate's report.
func fitOf(t *testing.T, report, name string) float64 {
	t.Helper()
	for _, l := range strings.Split(report, "\n") {
		f := strings.Fields(l)
		if len(f) > 2 && f[0] == name {
			var v float64
			if _, err := fmt.Sscanf(f[1], "%g", &v); err == nil {
				return v
			}
		}
	}
	t.Fatalf("no %s fit in %q", name, report)
	return 0
}

// validate: parameters identified on one log predict a held-out log (fit %
// high); friction-free parameters predict it worse; SVG and PNG plots.
func TestDiagValidate(t *testing.T) {
	dir := t.TempDir()
	train := writeMecanumRows(t, filepath.Join(dir, "train.csv"), genMecanum(diagCmds, 91))
	held := writeMecanumRows(t, filepath.Join(dir, "held.csv"), genMecanum([][4]float64{{6, 9, 9, 6}, {-8, 8, -8, 8}}, 93))
	pj := filepath.Join(dir, "p.json")
	if st, _, errOut := runCLI("identify", "-model", "mecanum", "-data", train, "-out", pj); st != 0 {
		t.Fatalf("identify: %d %s", st, errOut)
	}
	svg := filepath.Join(dir, "v.svg")
	st, rep, errOut := runCLI("validate", "-model", "mecanum", "-params", pj, "-data", held, "-plot", svg)
	if st != 0 {
		t.Fatalf("validate: status %d, stderr %q", st, errOut)
	}
	fx, fy := fitOf(t, rep, "x"), fitOf(t, rep, "y")
	if fx < 90 || fy < 90 {
		t.Errorf("identified μ on held-out runs: fit x %.1f %%, y %.1f %%\n%s", fx, fy, rep)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b[:min(len(b), 200)]), "<svg") {
		t.Errorf("plot is not SVG: %v", err)
	}
	zero := writeFile(t, dir, "zero.json", `{"model": "mecanum", "mu": [0, 0, 0, 0]}`)
	png := filepath.Join(dir, "v.png")
	st, rep0, errOut := runCLI("validate", "-model", "mecanum", "-params", zero, "-data", held, "-plot", png)
	if st != 0 {
		t.Fatalf("validate μ = 0: status %d, stderr %q", st, errOut)
	}
	if f0 := fitOf(t, rep0, "x"); f0 >= fx {
		t.Errorf("friction-free fit x %.1f %% not below the identified %.1f %%", f0, fx)
	}
	if b, err := os.ReadFile(png); err != nil || string(b[1:4]) != "PNG" {
		t.Errorf("plot is not PNG: %v", err)
	}
}

// validate for the skid-steer (true coefficients predict their own log
// better than the nominal model) and the differential drive.
func TestDiagValidateOtherModels(t *testing.T) {
	dir := t.TempDir()
	log := writeSkidRows(t, filepath.Join(dir, "s.csv"), genSkidsteer(6, 101))
	truth := filepath.Join(dir, "truth.json")
	b, _ := json.Marshal(skidsteer.FromCoeffs(skidsteer.Table2[0].A[:]))
	os.WriteFile(truth, b, 0o644)
	nominal := filepath.Join(dir, "nominal.json")
	b, _ = json.Marshal(skidsteer.FromCoeffs(make([]float64, 9)))
	os.WriteFile(nominal, b, 0o644)
	st, rep, errOut := runCLI("validate", "-model", "skidsteer", "-params", truth, "-data", log)
	if st != 0 {
		t.Fatalf("skidsteer: status %d, stderr %q", st, errOut)
	}
	st, rep0, _ := runCLI("validate", "-model", "skidsteer", "-params", nominal, "-data", log)
	if st != 0 || fitOf(t, rep, "psi") <= fitOf(t, rep0, "psi") {
		t.Errorf("skidsteer: true a fit psi %.1f %% not above nominal %.1f %%", fitOf(t, rep, "psi"), fitOf(t, rep0, "psi"))
	}
	dd := writeDDCols(t, filepath.Join(dir, "dd.csv"), genDiffDrive(t, 60, 103))
	paper := filepath.Join(dir, "paper.json")
	b, _ = json.Marshal(diffdrive.Paper())
	os.WriteFile(paper, b, 0o644)
	st, rep, errOut = runCLI("validate", "-model", "diffdrive", "-params", paper, "-data", dd, "-plot", filepath.Join(dir, "dd.svg"))
	if st != 0 || fitOf(t, rep, "v") < 80 {
		t.Errorf("diffdrive: status %d, report %q, stderr %q", st, rep, errOut)
	}
}
