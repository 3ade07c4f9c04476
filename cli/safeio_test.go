package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/cli/stage"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// Issue 17: outputs never destroy inputs or links, are complete or absent,
// and a fit's status is honest.

// mecanumCase writes a small Mecanum log (one 7-s run) and its parameters.
func mecanumCase(t *testing.T) (dir, logf, params string) {
	t.Helper()
	dir = t.TempDir()
	logf = filepath.Join(dir, "log.csv")
	writeMecanumLog(t, logf, [][4]float64{{4, 10, 9, 5}}, 3)
	params = writeFile(t, dir, "p.json", followParams)
	return dir, logf, params
}

func fileIs(t *testing.T, path string, want []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != string(want) {
		t.Errorf("%s was modified (%d bytes, was %d): %v", path, len(b), len(want), err)
	}
}

func noHiddenFiles(t *testing.T, dir string) {
	t.Helper()
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left %s in %s", e.Name(), dir)
		}
	}
}

func TestOutputSameFileAsInput(t *testing.T) {
	dir, logf, params := mecanumCase(t)
	logBytes, _ := os.ReadFile(logf)
	link := filepath.Join(dir, "link.csv")
	symlinks := os.Symlink(logf, link) == nil
	hard := filepath.Join(dir, "hard.csv")
	hardlinks := os.Link(logf, hard) == nil
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "-model", "mecanum", "-params", params, "-controls", logf, "-out", logf}, "-out " + logf + " is the same file as -controls"},
		{[]string{"simulate", "-model", "mecanum", "-params", params, "-controls", logf, "-out", params}, "is the same file as -params"},
		{[]string{"identify", "-model", "mecanum", "-data", logf, "-out", logf}, "is the same file as -data"},
		{[]string{"identify", "-model", "mecanum", "-data", logf, "-plot", logf}, "-plot " + logf + " is the same file as -data"},
		{[]string{"identify", "-model", "mecanum", "-data", logf, "-out", filepath.Join(dir, "x.png"), "-plot", filepath.Join(dir, "x.png")}, "-plot " + filepath.Join(dir, "x.png") + " is the same file as -out"},
		{[]string{"identify", "-model", "mecanum", "-data", logf, "-out", filepath.Join(dir, "sub", "..", "p.json")}, "is the same file as -init"},
		{[]string{"follow", "-params", params, "-path", "circle", "-out", params}, "is the same file as -params"},
	}
	cases[5].args = append(cases[5].args, "-init", params)
	if symlinks {
		os.Mkdir(filepath.Join(dir, "sub"), 0o755)
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"identify", "-model", "mecanum", "-data", logf, "-out", link}, "is the same file as -data"})
	}
	if hardlinks {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"simulate", "-model", "mecanum", "-params", params, "-controls", logf, "-out", hard}, "is the same file as -controls"})
	}
	for _, c := range cases {
		st, _, errOut := runCLI(c.args...)
		if st != exitUsage || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%q: status %d, stderr %q; want 2 and %q", c.args, st, errOut, c.want)
		}
	}
	fileIs(t, logf, logBytes)
	fileIs(t, params, []byte(followParams))
	noHiddenFiles(t, dir)
}

func TestOutputPathsCheckedFirst(t *testing.T) {
	dir, logf, params := mecanumCase(t)
	missing := filepath.Join(dir, "nodir", "p.json")
	st, _, errOut := runCLI("identify", "-model", "mecanum", "-data", logf, "-out", missing)
	if st != exitUsage || !strings.Contains(errOut, "-out "+missing) || !strings.Contains(errOut, "does not exist") || strings.Contains(errOut, ".tmp") {
		t.Errorf("missing directory: status %d, %q", st, errOut)
	}
	// A plot path that cannot be written is found before the fit, and the
	// -out given with it is not written.
	out := filepath.Join(dir, "fit.json")
	st, _, errOut = runCLI("identify", "-model", "mecanum", "-data", logf, "-out", out, "-plot", dir)
	if st != exitUsage || !strings.Contains(errOut, "-plot "+dir+": is a directory") {
		t.Errorf("plot into a directory: status %d, %q", st, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("-out written although -plot could not be")
	}
	// follow: a failing run writes neither output.
	ctl, png := filepath.Join(dir, "c.csv"), filepath.Join(dir, "f.png")
	st, _, errOut = runCLI("follow", "-params", params, "-path", "circle", "-wmax", "1e-300", "-out", ctl, "-plot", png)
	if st != exitFailure {
		t.Errorf("follow -wmax 1e-300: status %d, %q", st, errOut)
	}
	for _, p := range []string{ctl, png} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written by a failed run", p)
		}
	}
	noHiddenFiles(t, dir)
}

func TestOutputThroughLinksAndDevices(t *testing.T) {
	dir, logf, params := mecanumCase(t)
	target := filepath.Join(dir, "real.csv")
	os.WriteFile(target, []byte("old\n"), 0o600)
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink("real.csv", link); err != nil {
		t.Skip("no symbolic links:", err)
	}
	st, _, errOut := runCLI("simulate", "-model", "mecanum", "-params", params, "-controls", logf, "-out", link)
	if st != 0 {
		t.Fatalf("simulate -out link: %d %q", st, errOut)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced")
	}
	if b, _ := os.ReadFile(target); !strings.HasPrefix(string(b), "t,x,y,theta") {
		t.Errorf("the link's target holds %.20q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("target's permissions %v, want 0600 kept", fi.Mode().Perm())
	}
	if _, err := os.Stat("/dev/null"); err == nil {
		st, _, errOut = runCLI("simulate", "-model", "mecanum", "-params", params, "-controls", logf, "-out", "/dev/null")
		if fi, err := os.Lstat("/dev/null"); st != 0 || err != nil || fi.Mode()&os.ModeDevice == 0 {
			t.Errorf("-out /dev/null: status %d, %q; still a device: %v", st, errOut, err == nil && fi.Mode()&os.ModeDevice != 0)
		}
	}
	noHiddenFiles(t, dir)
}

// A rollout that overflows late writes nothing at all, not a truncated CSV.
func TestSimulateCheckedBeforeWriting(t *testing.T) {
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", followParams)
	var b strings.Builder
	b.WriteString("t,w1,w2,w3,w4\n")
	for k := range 2000 {
		t, w := ftoa(float64(k)/240), "5"
		if k > 1990 { // a late time jump and huge commands: the pose overflows
			t, w = ftoa(float64(k)*1e300), "1e306"
		}
		b.WriteString(strings.Join([]string{t, w, w, w, w}, ",") + "\n")
	}
	ctl := writeFile(t, dir, "c.csv", b.String())
	st, out, errOut := runCLI("simulate", "-model", "mecanum", "-params", params, "-controls", ctl)
	if st != exitFailure || out != "" || !strings.Contains(errOut, "not finite") || !strings.Contains(errOut, "line ") {
		t.Errorf("status %d, %d bytes on stdout, stderr %q", st, len(out), errOut)
	}
}

func ftoa(v float64) string { b, _ := json.Marshal(v); return string(b) }

// Parameter files: what encoding/json would read silently wrong is an error
// naming the key; a BOM is fine; another model's file says so.
func TestParameterFileStrictness(t *testing.T) {
	dir, logf, _ := mecanumCase(t)
	ddctl := writeFile(t, dir, "dd.csv", "t,uf,ul\n0,1,0\n0.06,1,0\n0.12,1,0\n")
	sksctl := writeFile(t, dir, "sk.csv", "t,vc,wc\n0,1,0\n0.1,1,0\n")
	cases := []struct {
		model, ctl, body string
		status           int
		want             string
	}{
		{"mecanum", logf, `{"mu": [0.6,0.7,0.8,0.9], "mu": [1,1,1,1]}`, 1, `key "mu": key given twice`},
		{"mecanum", logf, `{"mu": [0.6,0.7,0.8,0.9], "m": 1}`, 1, `key "m": differs in case from the key "M"`},
		{"diffdrive", ddctl, `{"model": "diffdrive", "c1": 0.4, "c2": 0.006, "alpha": 0.2, "beta": 6, "gamma": 4, "mu": 0.17, "h": 0.06, "H": 0.1}`, 1, `key "H": differs in case`},
		{"diffdrive", ddctl, `{"model": "diffdrive", "c1": 0.4, "alpha": 0.2, "beta": 6, "gamma": 4, "mu": 0.17}`, 1, `key "c2": missing`},
		{"diffdrive", ddctl, `{"model": "mecanum", "mu": [0.6, 0.7, 0.8, 0.9]}`, 1, `key "model": the file is for model "mecanum", not "diffdrive"`},
		{"mecanum", logf, `{"model": "diffdrive", "c1": 0.4, "c2": 0.006, "alpha": 0.2, "beta": 6, "gamma": 4, "mu": 0.17}`, 1, `key "model": the file is for model "diffdrive", not "mecanum"`},
		{"skidsteer", sksctl, `{"model": "skidsteer", "a": [[0,0,0],[0,0,0]]}`, 1, `key "a": has 2 values, want 3`},
		{"skidsteer", sksctl, `{"model": "skidsteer", "a": [[0,0,0],[0,0,0,0],[0,0,0]]}`, 1, `key "a[1]": has 4 values, want 3`},
		{"skidsteer", sksctl, `{"model": "skidsteer"}`, 1, `key "a": missing`},
		{"skidsteer", sksctl, "\uFEFF" + `{"model": "skidsteer", "a": [[0,0,0],[0,0,0],[0,0,0]]}`, 0, ""},
		{"diffdrive", ddctl, "\uFEFF" + `{"model": "diffdrive", "c1": 0.4, "c2": 0.006, "alpha": 0.2, "beta": 6, "gamma": 4, "mu": 0.17}`, 0, ""},
	}
	for i, c := range cases {
		p := writeFile(t, dir, "params.json", c.body)
		st, _, errOut := runCLI("simulate", "-model", c.model, "-params", p, "-controls", c.ctl, "-out", filepath.Join(dir, "out.csv"))
		if st != c.status || !strings.Contains(errOut, c.want) || (c.want != "" && !strings.Contains(errOut, "params.json")) {
			t.Errorf("case %d (%s %s): status %d, %q; want %d and %q", i, c.model, c.body, st, errOut, c.status, c.want)
		}
	}
}

// identify writes the fit's status into the parameter file; an unconverged
// fit exits 3 with the file written, or 0 with a warning when accepted; the
// file reads back for simulate.
func TestUnconvergedFitStatus(t *testing.T) {
	dir, logf, _ := mecanumCase(t)
	out := filepath.Join(dir, "fit.json")
	st, _, errOut := runCLI("identify", "-model", "mecanum", "-data", logf, "-method", "neldermead", "-maxiter", "5", "-out", out)
	if st != exitUnconverged || !strings.Contains(errOut, "did not converge: iteration limit after 5 iterations") {
		t.Fatalf("status %d, %q", st, errOut)
	}
	var rec struct {
		Mu  []float64   `json:"mu"`
		Fit *fit.Status `json:"fit"`
	}
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &rec); err != nil || rec.Fit == nil || rec.Fit.Status != "iteration limit" || rec.Fit.Converged || rec.Fit.Iterations != 5 || rec.Fit.Method != "neldermead" {
		t.Errorf("parameter file: %v %s", err, b)
	}
	st, _, errOut = runCLI("identify", "-model", "mecanum", "-data", logf, "-method", "neldermead", "-maxiter", "5", "-out", out, "-allow-unconverged")
	if st != 0 || !strings.Contains(errOut, "warning: mecanum identify (neldermead) did not converge") {
		t.Errorf("-allow-unconverged: status %d, %q", st, errOut)
	}
	// The identified file, record included, is a valid -params file.
	st, _, errOut = runCLI("simulate", "-model", "mecanum", "-params", out, "-controls", logf, "-out", filepath.Join(dir, "sim.csv"))
	if st != 0 {
		t.Errorf("simulate with an identified file: %d %q", st, errOut)
	}
	sk := writeFile(t, dir, "sk.csv", "t,vc,wc,x,y,psi\n0,1,0,0,0,0\n0.1,1,0,0.1,0,0\n")
	if st, _, errOut := runCLI("identify", "-model", "skidsteer", "-data", sk, "-maxiter", "5"); st != exitUsage || !strings.Contains(errOut, "-method ekf") {
		t.Errorf("-maxiter with the EKF: %d %q", st, errOut)
	}
	for _, bad := range [][]string{{"-maxiter", "-1"}, {"-tol", "NaN"}, {"-tol", "2"}} {
		st, _, errOut = runCLI(append([]string{"identify", "-model", "mecanum", "-data", logf}, bad...)...)
		if st != exitUsage {
			t.Errorf("%v: status %d, %q", bad, st, errOut)
		}
	}
}

func TestFollowPositionedErrors(t *testing.T) {
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", followParams)
	st, _, errOut := runCLI("follow", "-params", params, "-path", "circle", "-theta0", "NaN")
	if st != exitUsage || !strings.Contains(errOut, "-theta0") {
		t.Errorf("-theta0 NaN: %d %q", st, errOut)
	}
	wp := writeFile(t, dir, "wp.csv", "t,x,y\n0,0,0\n1,1e300,0\n2,0,1e300\n3,1,1\n")
	st, _, errOut = runCLI("follow", "-params", params, "-path", wp, "-duration", "3")
	if st != exitFailure || !strings.Contains(errOut, `wp.csv: line 3, column "x"`) {
		t.Errorf("1e300 waypoints: %d %q", st, errOut)
	}
	st, _, errOut = runCLI("follow", "-params", params, "-path", "circle", "-duration", "1e12")
	if st != exitUsage || !strings.Contains(errOut, "above follow's limit") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
		t.Errorf("-duration 1e12: %d %q", st, errOut)
	}
	st, _, errOut = runCLI("follow", "-params", params, "-path", "circle", "-wmax", "1e-300")
	if st != exitFailure || !strings.Contains(errOut, "does not follow") {
		t.Errorf("-wmax 1e-300: %d %q", st, errOut)
	}
}

func TestTrajIDWithLineBreak(t *testing.T) {
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", followParams)
	ctl := writeFile(t, dir, "c.csv", "t,w1,w2,w3,w4,traj\n0,1,1,1,1,\"a\nb\"\n0.1,1,1,1,1,\"a\nb\"\n")
	st, out, errOut := runCLI("simulate", "-model", "mecanum", "-params", params, "-controls", ctl)
	if st != exitFailure || out != "" || !strings.Contains(errOut, `column "traj"`) || !strings.Contains(errOut, "line break") {
		t.Errorf("status %d, stdout %q, stderr %q", st, out, errOut)
	}
}

// A log the model cannot explain (the wheel columns swapped) gives a
// residual far above the camera noise: a warning, not a confident answer.
func TestMecanumResidualWarning(t *testing.T) {
	dir := t.TempDir()
	p := mecanum.DefaultParams()
	p.Mu = mecanumTrueMu
	var b strings.Builder
	b.WriteString("t,w1,w2,w3,w4,x,y,theta\n")
	c := [4]float64{4, 10, 9, 5}
	r, _ := mecanum.Synthesize(p, mecanum.SynthSpec{Command: c, Duration: 7, Noise: 0.003, HeadNoise: 0.005, Seed: 2})
	for k := range r.T {
		pose := ",,"
		if !math.IsNaN(r.X[k]) {
			pose = fmt.Sprintf("%v,%v,%v", r.X[k], r.Y[k], r.Theta[k])
		}
		fmt.Fprintf(&b, "%v,%v,%v,%v,%v,%s\n", r.T[k], c[1], c[0], c[3], c[2], pose)
	}
	logf := writeFile(t, dir, "swapped.csv", b.String())
	_, _, errOut := runCLI("identify", "-model", "mecanum", "-data", logf, "-out", filepath.Join(dir, "p.json"))
	if !strings.Contains(errOut, "warning: mecanum identify: the residual") {
		t.Errorf("no residual warning: %q", errOut)
	}
	// The good log of the same command: no warning.
	good := filepath.Join(dir, "good.csv")
	writeMecanumLog(t, good, [][4]float64{c}, 2)
	_, _, errOut = runCLI("identify", "-model", "mecanum", "-data", good, "-out", filepath.Join(dir, "p.json"))
	if strings.Contains(errOut, "warning: mecanum identify: the residual") {
		t.Errorf("residual warning on a good fit: %q", errOut)
	}
}

// A runtime panic (an allocation beyond the machine) is one line, exit 1.
func TestPanicIsOneLine(t *testing.T) {
	n := -1
	err := runHandler(func(env) error { _ = make([]float64, n); return nil }, env{})
	if err == nil || !strings.Contains(err.Error(), "too large for this machine's memory") {
		t.Errorf("makeslice: %v", err)
	}
	err = runHandler(func(env) error { panic("boom") }, env{})
	if err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Errorf("panic: %v", err)
	}
}

// A skid-steer fit out of the range simulate accepts is a failure, not a
// file simulate then refuses; NaN parameters blame the fit, not the file.
func TestSkidsteerFitOutOfRangeNotWritten(t *testing.T) {
	dir := t.TempDir()
	logf := writeSkidsteerLog(t, dir, 400)
	b, _ := os.ReadFile(logf)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var sb strings.Builder
	sb.WriteString(lines[0] + "\n")
	for _, l := range lines[1:] { // positions in cm: the robot seems 100× faster
		f := strings.Split(l, ",")
		for _, i := range []int{3, 4} {
			if f[i] != "" {
				var v float64
				fmt.Sscan(f[i], &v)
				f[i] = fmt.Sprint(100 * v)
			}
		}
		sb.WriteString(strings.Join(f, ",") + "\n")
	}
	cm := writeFile(t, dir, "cm.csv", sb.String())
	out := filepath.Join(dir, "slip.json")
	for _, m := range []string{"ekf"} { // batch goes through the same check (and takes seconds)
		st, _, errOut := runCLI("identify", "-model", "skidsteer", "-data", cm, "-method", m, "-out", out)
		if st != exitFailure || !strings.Contains(errOut, "no parameters written") {
			t.Errorf("%s: status %d, %q", m, st, errOut)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: wrote %s", m, out)
		}
	}
	// Any model's parameters are validated before they are written: a11 =
	// −43 (the case) is refused, as simulate would refuse it.
	bad := skidsteer.Params{Model: "skidsteer"}
	bad.A[0][0] = -43
	if err := (env{outs: stage.New(nil)}).writeParams(out, bad, nil); err == nil || !strings.Contains(err.Error(), "a11 = -43") {
		t.Errorf("a11 = -43: %v", err)
	}
	err := (env{outs: stage.New(nil)}).writeParams(out, map[string]float64{"a": math.NaN()}, nil)
	if err == nil || strings.Contains(err.Error(), out) || !strings.Contains(err.Error(), "the fit failed") {
		t.Errorf("NaN parameters: %v", err)
	}
}

// Errors about a staged output name the output, never the hidden file.
func TestStagedNamesExplained(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "fit.png")
	e := env{outs: stage.New(nil)}
	if err := e.declareFiles(nil, []flagPath{{"plot", out}}); err != nil {
		t.Fatal(err)
	}
	stage, err := e.stagePath(out)
	if err != nil || stage == out || filepath.Dir(stage) != dir || filepath.Ext(stage) != ".png" {
		t.Fatalf("stage %q: %v", stage, err)
	}
	if msg := e.outs.Explain("open " + stage + ": no space left on device"); msg != "open "+out+": no space left on device" {
		t.Errorf("explained: %q", msg)
	}
	e.outs.Discard()
	noHiddenFiles(t, dir)
	// A directory that cannot be written is found before any work.
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	if f, err := os.Create(filepath.Join(ro, "probe")); err == nil { // root ignores permissions
		f.Close()
		t.Skip("directory permissions are not enforced here")
	}
	st, _, errOut := runCLI("follow", "-params", writeFile(t, dir, "p.json", followParams), "-path", "circle", "-out", filepath.Join(ro, "c.csv"))
	if st != exitUsage || !strings.Contains(errOut, "cannot write there") {
		t.Errorf("read-only directory: %d %q", st, errOut)
	}
}

// The commands added beside identify, simulate and follow declare their
// files too: an output that is one of their inputs is a usage error before
// any work, and the input is untouched.
func TestNewCommandsSameFile(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", "t,x\n0,1\n")
	for _, args := range [][]string{
		{"validate", "-model", "skidsteer", "-params", in, "-data", in, "-plot", in},
		{"import", "-bag", in, "-map", in, "-model", "skidsteer", "-out", in},
		{"plan", "-model", "skidsteer", "-params", in, "-start", "0,0,0", "-goal", "1,1", "-out", in},
	} {
		st, _, errOut := runCLI(args...)
		if st != exitUsage || !strings.Contains(errOut, "is the same file as") {
			t.Errorf("%v: status %d, %q; want %d and a same-file error", args, st, errOut, exitUsage)
		}
		if b, _ := os.ReadFile(in); string(b) != "t,x\n0,1\n" {
			t.Fatalf("%v changed its input: %q", args, b)
		}
	}
}
